package server

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"testing"
	"time"

	"github.com/gofiber/fiber/v3"

	"ledgerdesk/engine"
	"ledgerdesk/internal/pgtest"
)

// A grid read whose client has gone is stopped in the database, not left to
// run to its timeout. The read is held by a lock the test takes on the
// grid's table; its timeout is a minute, so a read still there after the
// client went (up to the 20 s bound) was not stopped.
func TestGridReadStopsWhenClientGoes(t *testing.T) {
	w := newWorld(t)
	token := w.login("admin", adminPassword)
	ctx := context.Background()
	md, err := engine.LoadMetadata(os.DirFS(".."))
	if err != nil {
		t.Fatal(err)
	}
	eng := engine.New(engine.Options{Pool: w.pool, Metadata: md, QueryTimeout: time.Minute})
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	app := New(Deps{Config: testConfig(t), Pool: w.pool, Log: log, Version: "test", Identity: w.ident, Engine: eng})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go app.Listener(ln, fiber.ListenConfig{DisableStartupMessage: true})
	t.Cleanup(func() { app.Shutdown() })

	lock, err := w.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Rollback(ctx)
	if _, err := lock.Exec(ctx, `lock table country in access exclusive mode`); err != nil {
		t.Fatal(err)
	}
	waiting := func() int {
		var n int
		w.pool.QueryRow(ctx, `select count(*) from pg_stat_activity
			where wait_event_type = 'Lock' and query like '%FROM "country"%'`).Scan(&n)
		return n
	}
	until := func(what string, ok func() bool) {
		t.Helper()
		pgtest.WaitFor(t, 20*time.Second, what, ok)
	}

	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	body := `{"ViewName":"VW_TblMasterCountry","PageSize":10}`
	fmt.Fprintf(conn, "POST /api/grid HTTP/1.1\r\nHost: ledgerdesk\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
		token, len(body), body)
	until("waiting for the table", func() bool { return waiting() == 1 })
	conn.Close()
	until("stopped after its client went", func() bool { return waiting() == 0 })

	// A client that stays gets its page once the table is free.
	conn, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /api/grid HTTP/1.1\r\nHost: ledgerdesk\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
		token, len(body), body)
	until("waiting for the table", func() bool { return waiting() == 1 })
	lock.Rollback(ctx)
	answer := make([]byte, 64)
	n, _ := io.ReadAtLeast(conn, answer, 12)
	if got := string(answer[:n]); len(got) < 12 || got[:12] != "HTTP/1.1 200" {
		t.Errorf("answer %q", got)
	}
}
