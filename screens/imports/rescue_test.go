package imports

import (
	"context"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"ledgerdesk/engine"
	"ledgerdesk/internal/pgtest"
)

// An import cut off by a crash: its job stays "running" with no worker and
// the import stays "running". A re-upload of the same content is accepted
// (an import running past ImportTimeout, or a failed one, is no duplicate;
// one running within it is: TestRepeatedUploadWhileRunning), and the job queue, with the
// product's rescue time, runs the import again: it ends succeeded with its
// extraction-log row.
func TestImportCutOffByACrash(t *testing.T) {
	if ImportTimeout >= RescueStuckJobsAfter || RescueStuckJobsAfter > 15*time.Minute {
		t.Fatalf("import timeout %v must stay below a rescue time of minutes, got %v", ImportTimeout, RescueStuckJobsAfter)
	}
	l := newLoader(t)
	content := l.file(t, "bank.csv")
	cut, err := l.s.Submit(l.ctx, Upload{Kind: Bank, FileName: "bank.csv", Content: ContentOf(content)})
	if err != nil {
		t.Fatal(err)
	}
	// The crash: the worker had taken the job and started the import, then died.
	if n := l.count(t, `with i as (update import_file set status = 'running', started_on = now() - $2::interval where id = $1 returning 1),
		j as (update river_job set state = 'running', attempt = 1, attempted_at = now() - $2::interval, attempted_by = array['crashed']
			where kind = 'import_file' and (args->>'importId')::bigint = $1 returning 1)
		select (select count(*) from i) + (select count(*) from j)`, cut.ImportID, (RescueStuckJobsAfter + time.Minute).String()); n != 2 {
		t.Fatalf("%d rows changed to simulate the crash", n)
	}

	again, err := l.s.Submit(l.ctx, Upload{Kind: Bank, FileName: "bank-again.csv", Content: ContentOf(content)})
	if err != nil {
		t.Fatalf("re-upload while the cut-off import is running: %v", err)
	}
	if _, err := l.pool.Exec(l.ctx, `update import_file set status = 'failed' where id = $1`, again.ImportID); err != nil {
		t.Fatal(err)
	}
	if _, err := l.s.Submit(l.ctx, Upload{Kind: Bank, FileName: "bank-third.csv", Content: ContentOf(content)}); err != nil {
		t.Fatalf("re-upload after a failed import: %v", err)
	}
	if _, err := l.s.Submit(l.ctx, Upload{Kind: Bank, FileName: "bank-fourth.csv", Content: ContentOf(content)}); engine.ErrorCode(err) != engine.CodeConflict {
		t.Fatalf("the same content while one is queued: %v, want a conflict", err)
	}

	// The queue as the server runs it: the stuck job is rescued and the import finishes.
	workers := river.NewWorkers()
	river.AddWorker(workers, &ImportWorker{Service: l.s})
	if err := pgtest.NewQueue(t, l.pool, workers, RescueStuckJobsAfter).Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(90 * time.Second)
	for l.count(t, `select count(*) from import_file where id = $1 and status = 'succeeded' and extraction_log_id is not null`, cut.ImportID) != 1 {
		if time.Now().After(deadline) {
			var status string
			_ = l.pool.QueryRow(l.ctx, `select status from import_file where id = $1`, cut.ImportID).Scan(&status)
			t.Fatalf("the cut-off import is still %s after 90 s", status)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
