package imports

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"ledgerdesk/engine"
	"ledgerdesk/internal/liveness"
	"ledgerdesk/internal/pgtest"
)

// An import cut off by a crash: its job stays "running" with no worker, the
// import stays "running" and its heartbeat stops. A re-upload of the same
// content is accepted once the import has run longer than ImportTimeout
// (one running within it is a duplicate: TestRepeatedUploadWhileRunning).
// The sweeper (MarkCutOff, which every server runs at start-up and every
// liveness.SweepEvery) queues it again with a job of its own, and the queue
// (any node's) finishes it from the stored upload; when the queue later
// rescues the dead worker's job, that job finds the import done and leaves
// it (cut off too often: TestImportCutOffTooOften).
func TestImportCutOffByACrash(t *testing.T) {
	if ImportTimeout >= RescueStuckJobsAfter || RescueStuckJobsAfter > 15*time.Minute {
		t.Fatalf("import timeout %v must stay below a rescue time of minutes, got %v", ImportTimeout, RescueStuckJobsAfter)
	}
	if liveness.StaleAfter >= ImportTimeout {
		t.Fatalf("a dead import must be found (%v) before a live one could time out (%v)", liveness.StaleAfter, ImportTimeout)
	}
	l := newLoader(t)
	content := l.file(t, "bank.csv")
	cut, err := l.s.Submit(l.ctx, Upload{Kind: Bank, FileName: "bank.csv", Content: ContentOf(content)})
	if err != nil {
		t.Fatal(err)
	}
	// The crash: the worker had taken the job and started the import, then died.
	if n := l.count(t, `with i as (update import_file set status = 'running', started_on = now() - $2::interval, heartbeat_at = now() - $2::interval
			where id = $1 returning 1),
		j as (update river_job set state = 'running', attempt = 1, attempted_at = now() - $2::interval, attempted_by = array['crashed']
			where kind = 'import_file' and (args->>'importId')::bigint = $1 returning 1)
		select (select count(*) from i) + (select count(*) from j)`, cut.ImportID, (RescueStuckJobsAfter + time.Minute).String()); n != 2 {
		t.Fatalf("%d rows changed to simulate the crash", n)
	}
	// A live import beside it, its heartbeat fresh: not swept.
	live, err := l.s.Submit(l.ctx, Upload{Kind: Transaction, FileName: "transaction.csv", Content: ContentOf(l.file(t, "transaction.csv"))})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.pool.Exec(l.ctx, `update import_file set status = 'running', started_on = now() - interval '10 minutes', heartbeat_at = now() where id = $1`, live.ImportID); err != nil {
		t.Fatal(err)
	}

	again, err := l.s.Submit(l.ctx, Upload{Kind: Bank, FileName: "bank-again.csv", Content: ContentOf(content)})
	if err != nil {
		t.Fatalf("re-upload while the cut-off import is running: %v", err)
	}
	if _, err := l.pool.Exec(l.ctx, `update import_file set status = 'failed' where id = $1`, again.ImportID); err != nil {
		t.Fatal(err)
	}
	third, err := l.s.Submit(l.ctx, Upload{Kind: Bank, FileName: "bank-third.csv", Content: ContentOf(content)})
	if err != nil {
		t.Fatalf("re-upload after a failed import: %v", err)
	}
	if _, err := l.s.Submit(l.ctx, Upload{Kind: Bank, FileName: "bank-fourth.csv", Content: ContentOf(content)}); engine.ErrorCode(err) != engine.CodeConflict {
		t.Fatalf("the same content while one is queued: %v, want a conflict", err)
	}

	// The sweep queues the dead import again, and only it.
	if n, err := l.s.MarkCutOff(l.ctx); err != nil || n != 1 {
		t.Fatalf("swept %d (%v), want 1", n, err)
	}
	if n := l.count(t, `select count(*) from import_file where id = $1 and status = 'queued' and cut_offs = 1`, cut.ImportID); n != 1 {
		t.Fatal("the cut-off import is not queued again")
	}
	if n := l.count(t, `select count(*) from river_job where kind = 'import_file' and (args->>'importId')::bigint = $1`, cut.ImportID); n != 2 {
		t.Fatalf("%d jobs for the cut-off import, want the dead one and a new one", n)
	}
	if n := l.count(t, `select count(*) from import_file where id = $1 and status = 'running'`, live.ImportID); n != 1 {
		t.Error("the live import was swept")
	}
	if n, _ := l.s.MarkCutOff(l.ctx); n != 0 {
		t.Errorf("a second sweep handled %d more", n)
	}

	// The queue as the server runs it: the import queued again loads, the
	// dead worker's job is rescued and finds it done, the new upload loads
	// too (its rows were there already: it adds none).
	workers := river.NewWorkers()
	river.AddWorker(workers, &ImportWorker{Service: l.s})
	if err := pgtest.NewQueue(t, l.pool, workers, RescueStuckJobsAfter).Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(90 * time.Second)
	for l.count(t, `select count(*) from import_file where id = any($1) and status = 'succeeded'`, []int64{cut.ImportID, third.ImportID}) != 2 ||
		l.count(t, `select count(*) from river_job where kind = 'import_file' and (args->>'importId')::bigint = $1 and state = 'completed'`, cut.ImportID) != 2 {
		if time.Now().After(deadline) {
			t.Fatal("the import queued again and the new upload did not both load, or a job of the first did not complete, within 90 s")
		}
		time.Sleep(200 * time.Millisecond)
	}
	f, err := l.s.Get(l.ctx, cut.ImportID)
	if err != nil {
		t.Fatal(err)
	}
	if f.ExtractionLogID == nil {
		t.Error("the finished import has no extraction-log row")
	}
	if got, want := l.count(t, `select count(*) from bank_booking where import_file_id = any($1)`, []int64{cut.ImportID, third.ImportID}),
		l.count(t, `select rows_loaded + rows_overlap from import_file where id = $1`, cut.ImportID); got != want || got == 0 {
		t.Errorf("%d bookings loaded by the two imports of one file, want the file's %d once", got, want)
	}

}

// An import cut off more than MaxCutOffs times fails, and says so: a file
// that kills its worker each time must end. (No queue works here, so
// nothing else touches the import.)
func TestImportCutOffTooOften(t *testing.T) {
	l := newLoader(t)
	again3, err := l.s.Submit(l.ctx, Upload{Kind: Transaction, FileName: "transaction-cut.csv", Content: ContentOf([]byte(strings.ReplaceAll(string(l.file(t, "transaction.csv")), "Sale", "Refund")))})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.pool.Exec(l.ctx, `update import_file set status = 'running', cut_offs = $2, started_on = now() - interval '1 hour',
		heartbeat_at = now() - interval '1 hour' where id = $1`, again3.ImportID, MaxCutOffs); err != nil {
		t.Fatal(err)
	}
	if n, err := l.s.MarkCutOff(l.ctx); err != nil || n != 1 {
		t.Fatalf("swept %d (%v), want 1", n, err)
	}
	g, err := l.s.Get(l.ctx, again3.ImportID)
	if err != nil {
		t.Fatal(err)
	}
	if g.Status != "failed" || deref(g.ErrorCode) != "import.cutOff" || g.ExtractionLogID == nil {
		t.Fatalf("cut off %d times: %s %s log %v", MaxCutOffs+1, g.Status, deref(g.ErrorCode), g.ExtractionLogID)
	}
}
