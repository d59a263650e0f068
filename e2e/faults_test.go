//go:build e2e

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"ledgerdesk/internal/pgtest"
)

// TestServerKilledMidWork kills the real binary (SIGKILL: no shutdown of any
// kind) while an import of 600,000 transactions and an automatic reconcile
// of 150,000 tickets run on it, with a second node started on the same
// database after both began. Each piece of work is one transaction, so
// nothing of either is left; once their heartbeats are stale the other node
// queues the import again and finishes it whole from the stored upload, and
// marks the run abandoned (recon.runAbandonedRerun) and queues the level again:
// its second try finishes the work, without a duplicate live match.
func TestServerKilledMidWork(t *testing.T) {
	p := startProduct(t)
	ctx := context.Background()
	db, count := p.database(t)
	const tickets, transactions = 150_000, 600_000
	if _, err := db.Exec(ctx, `
		with f as (insert into import_file (kind, file_name, format, descriptor, sha256, size_bytes, status)
			values ('ticket', 'generated-tickets.csv', 'csv', 'ticket-csv', repeat('a', 64), 0, 'succeeded') returning id),
		t as (insert into ticket (ticket_number, trans_date, currency, sale_amount, natural_key, import_file_id)
			select lpad((7000000000000 + g)::text, 13, '0'), date '2026-10-01' + g % 30, 'SEK', 100 + g % 900, 'gen|' || g, f.id
			from f, generate_series(1, $1) g returning 1)
		select count(*) from t`, tickets); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(ctx, `
		with f as (insert into import_file (kind, file_name, format, descriptor, sha256, size_bytes, status)
			values ('transaction', 'generated-transactions.csv', 'csv', 'transaction-csv', repeat('b', 64), 0, 'succeeded') returning id)
		insert into card_transaction (client_unique_id, processing_date, provider_actor, currency, transaction_amount, transaction_type, natural_key, import_file_id)
		select lpad((7000000000000 + g)::text, 13, '0'), date '2026-10-01' + g % 30, 'Nuvei', 'SEK', 100 + g % 900, 'Sale', 'gen|' || g, f.id
		from f, generate_series(1, $1) g`, tickets); err != nil {
		t.Fatal(err)
	}

	base := p.baseURL
	token := signInAPI(t, base)
	file := transactionsFile(transactions)
	importID := uploadAPI(t, base, token, "transaction", "killed.csv", file)
	waitFor(t, 120*time.Second, "the import running", func() bool {
		return count(`select count(*) from import_file where id = $1 and status = 'running' and rows_read > 0`, importID) == 1
	})
	// The auto run is asked for while it runs; its answer never comes (the process dies).
	go func() {
		req, _ := http.NewRequest("POST", base+"/api/recon/ticket-transaction/auto", strings.NewReader(`{}`))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		if res, err := http.DefaultClient.Do(req); err == nil {
			res.Body.Close()
		}
	}()
	var runID int64
	waitFor(t, 120*time.Second, "the import and the run both running", func() bool {
		var reading int
		db.QueryRow(ctx, `select coalesce(max(id), 0) from recon_run where level = 1 and status = 'running'`).Scan(&runID)
		db.QueryRow(ctx, `select rows_read from import_file where id = $1 and status = 'running'`, importID).Scan(&reading)
		return runID > 0 && reading > 0
	})
	// A second node starts now (it took none of this work), then the first dies.
	p.restart(t)
	p.srv.Process.Signal(syscall.SIGKILL)
	<-p.exited

	if n := count(`select count(*) from import_file where id = $1 and status = 'succeeded'`, importID); n != 0 {
		t.Fatal("the import finished before the kill: make the file larger")
	}
	if n := count(`select count(*) from recon_run where id = $1 and status = 'succeeded'`, runID); n != 0 {
		t.Fatal("the run finished before the kill: give it more tickets")
	}
	if n := count(`select count(*) from card_transaction where import_file_id = $1`, importID); n != 0 {
		t.Errorf("%d transactions of the killed import were kept", n)
	}
	if n := count(`select count(*) from recon_match where run_id = $1`, runID); n != 0 {
		t.Errorf("%d matches of the killed run were kept", n)
	}

	waitFor(t, 240*time.Second, "the killed import finished and the run marked by the other node", func() bool {
		return count(`select count(*) from import_file where id = $1 and status = 'succeeded' and cut_offs = 1 and extraction_log_id is not null`, importID) == 1 &&
			count(`select count(*) from recon_run where id = $1 and status = 'failed' and error_code = 'recon.runAbandonedRerun'`, runID) == 1
	})
	if n := count(`select count(*) from card_transaction where import_file_id = $1`, importID); n != transactions {
		t.Errorf("%d transactions loaded, want %d", n, transactions)
	}

	// The node that marked the run queued the level again: its second try
	// finishes the work with no one asking.
	var rerun int64
	if err := db.QueryRow(ctx, `select coalesce((error_params->>'rerunId')::bigint, 0) from recon_run where id = $1`, runID).Scan(&rerun); err != nil || rerun == 0 {
		t.Fatalf("the abandoned run names no second try (%v)", err)
	}
	waitFor(t, 180*time.Second, "the second try of the run done", func() bool {
		return count(`select count(*) from recon_run where id = $1 and status in ('succeeded', 'failed')`, rerun) == 1
	})
	if n := count(`select count(*) from recon_run where id = $1 and status = 'succeeded'`, rerun); n != 1 {
		t.Fatal("the second try of the run failed")
	}
	if n := count(`select count(*) from recon_run where level = 1`); n != 2 {
		t.Errorf("%d runs of the level, want the killed one and its second try", n)
	}
	if n := count(`select count(*) from recon_match where level = 1 and undone_on is null`); n < tickets {
		t.Errorf("%d live matches after the new run, want at least %d", n, tickets)
	}
	if n := count(`select count(*) from (select left_id from recon_match where level = 1 and undone_on is null group by left_id having count(*) > 1) d`); n != 0 {
		t.Errorf("%d tickets with more than one live match", n)
	}
}

// database is a pool on the product's database, closed with the test, and
// count, which reads one number from it.
func (p *product) database(t *testing.T) (*pgxpool.Pool, func(sql string, args ...any) int) {
	t.Helper()
	ctx := context.Background()
	db, err := pgxpool.New(ctx, p.databaseURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	return db, func(sql string, args ...any) int {
		t.Helper()
		var n int
		if err := db.QueryRow(ctx, sql, args...).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
}

// restart starts the binary again on the same database and returns its URL.
func (p *product) restart(t *testing.T) string {
	t.Helper()
	return p.serve(t)
}

// serve starts another instance of the binary on the product's database,
// with env added to (and overriding) its settings; it answers the
// instance's base URL.
func (p *product) serve(t *testing.T, env ...string) string {
	t.Helper()
	addr := freeAddr(t)
	srv := exec.Command(p.bin, "serve")
	srv.Dir = p.root
	srv.Env = append(append(os.Environ(), "DATABASE_URL="+p.databaseURL, "LISTEN_ADDR="+addr, "METADATA_DIR="+p.root,
		"LEDGERDESK_ADMIN_PASSWORD="+adminPassword), env...)
	logs := &bytes.Buffer{}
	srv.Stdout, srv.Stderr = logs, logs
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- srv.Wait() }()
	t.Cleanup(func() {
		srv.Process.Kill()
		if t.Failed() {
			t.Logf("restarted server log:\n%s", logs.String())
		}
	})
	base := "http://" + addr
	waitHealthy(t, base, exited)
	return base
}

func signInAPI(t *testing.T, base string) string {
	t.Helper()
	res, err := http.Post(base+"/api/auth/login", "application/json", strings.NewReader(fmt.Sprintf(`{"username":"admin","password":%q}`, adminPassword)))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var env struct {
		Data struct {
			Token string `json:"token"`
		} `json:"data"`
	}
	if err := json.NewDecoder(res.Body).Decode(&env); err != nil || env.Data.Token == "" {
		t.Fatalf("sign in: %d %v", res.StatusCode, err)
	}
	return env.Data.Token
}

func uploadAPI(t *testing.T, base, token, kind, name string, content []byte) int64 {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	mw.WriteField("kind", kind)
	fw, _ := mw.CreateFormFile("file", name)
	fw.Write(content)
	mw.Close()
	req, _ := http.NewRequest("POST", base+"/api/imports", &body)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var env struct {
		Data struct {
			ImportID int64 `json:"importId"`
		} `json:"data"`
		Error string `json:"error"`
	}
	json.NewDecoder(res.Body).Decode(&env)
	if res.StatusCode >= 300 || env.Data.ImportID == 0 {
		t.Fatalf("upload %s: %d %s", name, res.StatusCode, env.Error)
	}
	return env.Data.ImportID
}

// transactionsFile is n card transactions in the default CSV layout.
func transactionsFile(n int) []byte {
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	w.WriteString("ClientUniqueID,ProcessingDate,ProviderActor,AcquiringBank,PaymentMethod,Currency,TransactionAmount,TransactionType\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(w, "%013d,2026-10-%02d,Amex,Acquirer,Visa,EUR,%d.%02d,Sale\n", 8000000000000+int64(i), 1+i%28, 10+i%5000, i%100)
	}
	w.Flush()
	return buf.Bytes()
}

// waitFor checks cond on every tick until it holds; timeout is only the
// bound past which the test gives up.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	pgtest.WaitFor(t, timeout, what, cond)
}

// TestServeEndsWithItsParent (first user, second round, item 5): stopping
// `go tool task up` with a signal to its process left the server running,
// orphaned: task waits for its commands and at the third signal quits
// without them. With STOP_WITH_PARENT=1 (the Taskfile sets it) the server
// ends, cleanly, once the process that started it is gone.
func TestServeEndsWithItsParent(t *testing.T) {
	p := startProduct(t) // for the binary and a database
	p.srv.Process.Signal(syscall.SIGTERM)
	<-p.exited
	addr := freeAddr(t)
	parent := exec.Command("sh", "-c", `"$0" serve & echo $!; wait`, p.bin)
	parent.Dir = p.root
	parent.Env = append(os.Environ(), "DATABASE_URL="+p.databaseURL, "LISTEN_ADDR="+addr, "METADATA_DIR="+p.root,
		"LEDGERDESK_ADMIN_PASSWORD="+adminPassword, "STOP_WITH_PARENT=1")
	out, err := parent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	var pid int
	if _, err := fmt.Fscan(bufio.NewReader(out), &pid); err != nil || pid == 0 {
		t.Fatalf("the server's pid: %v", err)
	}
	server, _ := os.FindProcess(pid)
	t.Cleanup(func() { server.Kill() })
	waitFor(t, 60*time.Second, "the server answering", func() bool {
		res, err := http.Get("http://" + addr + "/api/health")
		if err == nil {
			res.Body.Close()
		}
		return err == nil && res.StatusCode == 200
	})
	parent.Process.Signal(syscall.SIGKILL) // the parent goes; nothing signals the server
	parent.Wait()
	waitFor(t, 60*time.Second, "the server ended with its parent", func() bool {
		return server.Signal(syscall.Signal(0)) != nil
	})
}
