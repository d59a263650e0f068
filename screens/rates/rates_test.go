package rates

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"ledgerdesk/engine"
	"ledgerdesk/internal/pgtest"
)

// feed serves body (the recorded ECB file unless overridden) with status.
func feed(t *testing.T, status int, body string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func recorded(t *testing.T) string {
	b, err := os.ReadFile("testdata/eurofxref-daily.xml")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestSync(t *testing.T) {
	pool := pgtest.New(t)
	s := &Syncer{Pool: pool, URL: feed(t, 200, recorded(t)), Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	ctx := engine.WithActor(context.Background(), &engine.Actor{Username: "tester"})

	res, err := s.Sync(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Date != "2026-11-20" || res.Currencies != 8 || res.Inserted != 8 {
		t.Fatalf("first sync %+v", res)
	}
	check := func(code, col, want string) {
		t.Helper()
		var got string
		err := pool.QueryRow(context.Background(), `select `+col+`::text from currency_exchange_rate where code = $1 and exchange_rate_on = '2026-11-20'`, code).Scan(&got)
		if err != nil || got != want {
			t.Errorf("%s in %s = %q (%v), want %s", code, col, got, err, want)
		}
	}
	check("USD", "eur", "0.95129376")  // 1 / 1.0512
	check("USD", "usd", "1.00000000")  // itself
	check("USD", "sek", "10.94178082") // 11.5020 / 1.0512
	check("EUR", "dkk", "7.45890000")  // the base
	check("SEK", "nok", "1.02056164")  // 11.7385 / 11.5020
	check("GBP", "currency", "Pound sterling")
	check("EUR", "gbp", "0.83415000") // the base, in pounds
	check("USD", "gbp", "0.79352169") // 0.83415 / 1.0512
	check("GBP", "gbp", "1.00000000") // itself

	again, err := s.Sync(ctx)
	if err != nil || again.Inserted != 0 || again.Existing != 8 {
		t.Fatalf("a second sync of the same date must add nothing: %+v %v", again, err)
	}
	var n int
	pool.QueryRow(context.Background(), `select count(*) from currency_exchange_rate`).Scan(&n)
	if n != 8 {
		t.Errorf("%d rows after two syncs", n)
	}
}

func TestSyncFailuresChangeNothing(t *testing.T) {
	pool := pgtest.New(t)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	down := httptest.NewServer(http.NotFoundHandler())
	downURL := down.URL
	down.Close()
	tests := map[string]string{
		"feed down":     downURL,
		"server error":  feed(t, 503, "busy"),
		"truncated XML": feed(t, 200, recorded(t)[:400]),
		"not XML":       feed(t, 200, "<html>maintenance</html>"),
		"no NOK":        feed(t, 200, strings.Replace(recorded(t), "NOK", "NOX", 1)),
		"bad rate":      feed(t, 200, strings.Replace(recorded(t), "162.35", "-1", 1)),
		"huge":          feed(t, 200, strings.Repeat("x", maxFeedBytes+10)),
	}
	for name, url := range tests {
		t.Run(name, func(t *testing.T) {
			s := &Syncer{Pool: pool, URL: url, Log: log}
			_, err := s.Sync(context.Background())
			if engine.ErrorCode(err) != engine.CodeUnavailable || !strings.Contains(err.Error(), "could not be synchronised") {
				t.Fatalf("got %v", err)
			}
		})
	}
	var n int
	pool.QueryRow(context.Background(), `select count(*) from currency_exchange_rate`).Scan(&n)
	if n != 0 {
		t.Errorf("%d rows written by failed syncs", n)
	}
}
