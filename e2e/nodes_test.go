//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestTwoNodesShareTheWork runs two instances of the real binary on two
// ports against one database, as behind a load balancer: a session begun
// on one holds on the other and ends on both when it is signed out of
// either; imports uploaded to either are each loaded once, by whichever
// node's job queue takes them; an automatic run asked of one runs once.
func TestTwoNodesShareTheWork(t *testing.T) {
	p := startProduct(t)
	a := p.baseURL
	b := p.restart(t) // a second node on the same database; the first keeps running
	ctx := context.Background()
	db, count := p.database(t)
	call := func(base, method, path, token, body string) int {
		t.Helper()
		req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}

	// Sessions: a token of one node is good on the other, and signing out
	// on one ends it on both.
	token := signInAPI(t, a)
	if s := call(b, "GET", "/api/profile", token, ""); s != 200 {
		t.Fatalf("a session of node A on node B: %d", s)
	}
	if s := call(b, "POST", "/api/auth/logout", token, ""); s >= 300 {
		t.Fatalf("sign out on node B: %d", s)
	}
	if s := call(a, "GET", "/api/profile", token, ""); s != 401 {
		t.Fatalf("a session signed out on B still holds on A: %d", s)
	}

	// Imports, uploaded to both: each loaded once.
	tokens := map[string]string{a: signInAPI(t, a), b: signInAPI(t, b)}
	const files, rows = 8, 2000
	var ids []int64
	for i := range files {
		node := []string{a, b}[i%2]
		content := transactionsFile(rows)
		// Each file its own transactions: the client ids of file i.
		content = []byte(strings.ReplaceAll(string(content), "\n800000", fmt.Sprintf("\n8%d0000", i)))
		ids = append(ids, uploadAPI(t, node, tokens[node], "transaction", fmt.Sprintf("node-%d.csv", i), content))
	}
	waitFor(t, 180*time.Second, "every import loaded and its job ended", func() bool {
		return count(`select count(*) from import_file where id = any($1) and status in ('succeeded', 'failed')`, ids) == files &&
			count(`select count(*) from river_job where kind = 'import_file' and finalized_at is null`) == 0
	})
	for _, id := range ids {
		if n := count(`select count(*) from import_file where id = $1 and status = 'succeeded' and rows_loaded = $2`, id, rows); n != 1 {
			t.Errorf("import %d did not load its %d rows once", id, rows)
		}
		if n := count(`select count(*) from card_transaction where import_file_id = $1`, id); n != rows {
			t.Errorf("import %d: %d transactions, want %d", id, n, rows)
		}
	}
	if n := count(`select count(*) from river_job where kind = 'import_file' and state = 'completed' and attempt = 1`); n != files {
		t.Errorf("%d import jobs done exactly once, want %d", n, files)
	}
	t.Logf("the imports were run by %d nodes", count(`select count(distinct attempted_by[1]) from river_job where kind = 'import_file'`))
	if n := count(`select count(*) from extraction_log where module = 'Transaction'`); n != files {
		t.Errorf("%d extraction-log rows for %d imports", n, files)
	}

	// An automatic run asked of node B runs once.
	if _, err := db.Exec(ctx, `
		with f as (insert into import_file (kind, file_name, format, descriptor, sha256, size_bytes, status)
			values ('ticket', 'node-tickets.csv', 'csv', 'ticket-csv', repeat('c', 64), 0, 'succeeded') returning id)
		insert into ticket (ticket_number, trans_date, currency, sale_amount, natural_key, import_file_id)
		select lpad((8000000000000 + g)::text, 13, '0'), date '2026-10-01' + g % 28, 'EUR', 10 + g % 5000 + (g % 100) / 100.0, 'node|' || g, f.id
		from f, generate_series(0, $1 - 1) g`, rows); err != nil {
		t.Fatal(err)
	}
	if s := call(b, "POST", "/api/recon/ticket-transaction/auto", tokens[b], `{}`); s >= 300 {
		t.Fatalf("auto run on node B: %d", s)
	}
	waitFor(t, 180*time.Second, "the run done", func() bool {
		return count(`select count(*) from recon_run where level = 1 and status in ('succeeded', 'failed')`) == 1
	})
	if n := count(`select count(*) from recon_run where level = 1`); n != 1 {
		t.Errorf("%d runs for one asked", n)
	}
	if n := count(`select count(*) from recon_run where level = 1 and status = 'succeeded'`); n != 1 {
		t.Error("the run did not succeed")
	}
	if n := count(`select count(*) from recon_match where level = 1 and undone_on is null`); n == 0 {
		t.Error("the run matched nothing")
	}
	if n := count(`select count(*) from (select left_id from recon_match where level = 1 and undone_on is null group by left_id having count(*) > 1) d`); n != 0 {
		t.Errorf("%d tickets with more than one live match", n)
	}
}
