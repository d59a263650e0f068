package intake

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"ledgerdesk/internal/pgtest"
	"ledgerdesk/screens/imports"
	"ledgerdesk/screens/recon"
)

// env is a database with the import service, the reconciliation levels and
// a job queue that runs imports (reconcile runs stay queued: no worker of
// queue recon runs here, so a test sees them as they were started).
type env struct {
	pool    *pgxpool.Pool
	imports *imports.Service
	recon   *recon.Service
	levels  *recon.Definition
	queue   *river.Client[pgx.Tx]
}

func newEnv(t *testing.T) *env {
	t.Helper()
	ctx := context.Background()
	pool := pgtest.New(t)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	importer := imports.NewService(pool, nil, 0, log)
	levels, err := recon.Load(os.DirFS("../.."))
	if err != nil {
		t.Fatal(err)
	}
	if err := levels.Sync(ctx, pool); err != nil {
		t.Fatal(err)
	}
	workers := river.NewWorkers()
	river.AddWorker(workers, &imports.ImportWorker{Service: importer})
	river.AddWorker(workers, &recon.AutoWorker{})
	queue := pgtest.NewQueue(t, pool, workers, 0)
	if err := queue.Start(ctx); err != nil {
		t.Fatal(err)
	}
	importer.SetQueue(queue)
	rs := recon.NewService(pool, levels, log)
	rs.SetQueue(queue)
	return &env{pool: pool, imports: importer, recon: rs, levels: levels, queue: queue}
}

// service is an intake service over e with the intake.yaml text given.
func (e *env) service(t *testing.T, yamlText string, inbox string, getenv func(string) string) *Service {
	t.Helper()
	cfg, err := Parse([]byte(yamlText), func(slug string) bool { _, err := e.levels.Level(slug); return err == nil })
	if err != nil {
		t.Fatal(err)
	}
	s := New(Options{Pool: e.pool, Config: cfg, Imports: e.imports, Runs: e.recon, Inbox: inbox, Getenv: getenv,
		Kinds: func(slug string) []string { l, _ := e.levels.Level(slug); return e.levels.ImportKinds(l) },
		Log:   slog.New(slog.NewTextHandler(io.Discard, nil))})
	s.SetQueue(e.queue)
	return s
}

func (e *env) count(t *testing.T, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := e.pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

const header = "ClientUniqueID,ProcessingDate,ProviderActor,AcquiringBank,PaymentMethod,Currency,TransactionAmount,TransactionType\n"

// transactions is a card-transaction file of n rows starting at client id first.
func transactions(first, n int) string {
	s := header
	for i := range n {
		s += "C" + strconv.Itoa(first+i) + ",2026-03-01,Nuvei,Acq,Visa,SEK,100.00,Sale\n"
	}
	return s
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o640); err != nil {
		t.Fatal(err)
	}
}

func appendTo(t *testing.T, path, content string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(content); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func readResult(t *testing.T, path string) result {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r result
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return r
}

// instant reads an RFC 3339 time: the clock a test holds.
func instant(t *testing.T, v string) time.Time {
	t.Helper()
	tm, err := time.Parse(time.RFC3339, v)
	if err != nil {
		t.Fatal(err)
	}
	return tm
}
