package imports

import (
	"context"
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
// The sweeper (MarkCutOff, which the server runs at start-up and every
// liveness.SweepEvery) marks it failed with its extraction-log row and a
// message saying nothing was loaded; when the job queue later rescues the
// stuck job, it finds the import done and leaves it so, while the new upload
// loads.
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

	// The sweep marks the dead import, and only it.
	if n, err := l.s.MarkCutOff(l.ctx); err != nil || n != 1 {
		t.Fatalf("swept %d (%v), want 1", n, err)
	}
	f, err := l.s.Get(l.ctx, cut.ImportID)
	if err != nil {
		t.Fatal(err)
	}
	if f.Status != "failed" || deref(f.ErrorCode) != "import.cutOff" || f.ExtractionLogID == nil {
		t.Fatalf("the cut-off import: %s %s log %v", f.Status, deref(f.ErrorCode), f.ExtractionLogID)
	}
	if n := l.count(t, `select count(*) from import_file where id = $1 and status = 'running'`, live.ImportID); n != 1 {
		t.Error("the live import was swept")
	}
	if n, _ := l.s.MarkCutOff(l.ctx); n != 0 {
		t.Errorf("a second sweep marked %d more", n)
	}

	// The queue as the server runs it: the stuck job is rescued and finds its
	// import done; the new upload loads.
	workers := river.NewWorkers()
	river.AddWorker(workers, &ImportWorker{Service: l.s})
	if err := pgtest.NewQueue(t, l.pool, workers, RescueStuckJobsAfter).Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(90 * time.Second)
	for l.count(t, `select count(*) from import_file where id = $1 and status = 'succeeded'`, third.ImportID) != 1 ||
		l.count(t, `select count(*) from river_job where kind = 'import_file' and (args->>'importId')::bigint = $1 and state = 'completed'`, cut.ImportID) != 1 {
		if time.Now().After(deadline) {
			t.Fatal("the new upload did not load, or the rescued job did not complete, within 90 s")
		}
		time.Sleep(200 * time.Millisecond)
	}
	if n := l.count(t, `select count(*) from import_file where id = $1 and status = 'failed' and error_code = 'import.cutOff'`, cut.ImportID); n != 1 {
		t.Error("the rescued job changed the cut-off import")
	}
	if n := l.count(t, `select count(*) from bank_booking where import_file_id = $1`, cut.ImportID); n != 0 {
		t.Errorf("%d bookings of the cut-off import", n)
	}
}
