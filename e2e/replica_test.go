//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"ledgerdesk/internal/pgcluster"
)

// TestReadReplicaReadsYourWrites runs the real binary against a primary
// and a streaming replica of it (made with pg_basebackup, started as the
// embedded cluster is), READ_DATABASE_URL naming the replica. With the
// replica's replay paused, a user who just added a country finds it in the
// grid at once (the read goes to the primary: the replica has not replayed
// the write), while a reader without that write reads the replica and does
// not; once replay resumes, the replica serves both. A grid read sets no
// mark of its own.
func TestReadReplicaReadsYourWrites(t *testing.T) {
	if _, err := pgcluster.FindBinaries(); err != nil {
		t.Skipf("no PostgreSQL server binaries: %v", err)
	}
	ctx := context.Background()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	primary, err := pgcluster.Start(ctx, reachableDir(t), quiet)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { primary.Stop() })
	replica, err := pgcluster.StartReplica(ctx, primary, reachableDir(t), quiet)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { replica.Stop() })

	p := startProduct(t) // (for its binary)
	base := p.serve(t, "DATABASE_URL="+primary.URL(), "READ_DATABASE_URL="+replica.URL())
	token := signInAPI(t, base)

	rconn, err := pgx.Connect(ctx, replica.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer rconn.Close(ctx)
	// Everything so far (the schema, the admin's sign-in) is on the replica.
	waitFor(t, 60*time.Second, "the replica caught up with the start", func() bool {
		var caught bool
		pconn, err := pgx.Connect(ctx, primary.URL())
		if err != nil {
			return false
		}
		defer pconn.Close(ctx)
		var lsn string
		if pconn.QueryRow(ctx, `select pg_current_wal_lsn()::text`).Scan(&lsn) != nil {
			return false
		}
		return rconn.QueryRow(ctx, `select pg_last_wal_replay_lsn() >= $1::pg_lsn`, lsn).Scan(&caught) == nil && caught
	})
	if _, err := rconn.Exec(ctx, `select pg_wal_replay_pause()`); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "the replica's replay paused", func() bool {
		var state string
		return rconn.QueryRow(ctx, `select pg_get_wal_replay_pause_state()`).Scan(&state) == nil && state == "paused"
	})

	jar, _ := cookiejar.New(nil)
	writer := &http.Client{Jar: jar}
	reader := &http.Client{} // the same user on another device: no mark of the write
	call := func(c *http.Client, method, path, body string) (int, string, []*http.Cookie) {
		t.Helper()
		req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		res, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b), res.Cookies()
	}
	const grid = `{"ViewName":"VW_TblMasterCountry","Filters":[{"field":"CountryCode","op":"equals","value":"QZ"}]}`
	holds := func(c *http.Client) bool {
		t.Helper()
		status, body, _ := call(c, "POST", "/api/grid", grid)
		if status != 200 {
			t.Fatalf("grid: %d %s", status, body)
		}
		var page struct {
			Data struct {
				Rows []map[string]any `json:"dataList"`
			} `json:"data"`
		}
		if err := json.Unmarshal([]byte(body), &page); err != nil {
			t.Fatalf("grid answer: %v: %s", err, body)
		}
		return len(page.Data.Rows) == 1 && page.Data.Rows[0]["CountryName"] == "Replica Land"
	}

	status, body, cookies := call(writer, "POST", "/api/Country", `{"countryCode":"QZ","countryName":"Replica Land"}`)
	if status != 201 {
		t.Fatalf("add a country: %d %s", status, body)
	}
	if !hasCookie(cookies, "ld_wrote") {
		t.Fatal("a write set no ld_wrote mark")
	}
	if !holds(writer) {
		t.Error("the user who added the country does not find it in the grid")
	}
	if holds(reader) {
		t.Fatal("a reader without the write found the country while the replica's replay is paused: the grid did not read the replica")
	}
	if _, _, cookies := call(reader, "POST", "/api/grid", grid); hasCookie(cookies, "ld_wrote") {
		t.Error("a grid read set a write mark")
	}

	if _, err := rconn.Exec(ctx, `select pg_wal_replay_resume()`); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 60*time.Second, "the reader finds the country once the replica replayed it", func() bool { return holds(reader) })
	if !holds(writer) {
		t.Error("the writer lost the country")
	}
}

// reachableDir is a folder the postgres OS user can reach when the tests
// run as root (t.TempDir's folders are private to the running user).
func reachableDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "ledgerdesk-replica-")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o755)
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func hasCookie(cookies []*http.Cookie, name string) bool {
	for _, c := range cookies {
		if c.Name == name && c.Value != "" {
			return true
		}
	}
	return false
}
