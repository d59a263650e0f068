package rates

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"ledgerdesk/engine"
)

// Queue is the job queue rate syncs run on (DESIGN.md section 2: long work
// runs as jobs, so any instance can take it and a slow feed holds no
// request handler's database connection).
const Queue = "rates"

// SyncArgs is the job that synchronises the exchange rates once.
type SyncArgs struct {
	Actor string `json:"actor"` // who asked, for the audit row
}

// Kind names the job for the queue.
func (SyncArgs) Kind() string { return "rates_sync" }

// InsertOpts: one try; the person who asked sees the outcome and can ask again.
func (SyncArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: Queue, MaxAttempts: 1}
}

// outcome is what a sync job records as its output.
type outcome struct {
	Result *Result `json:"result,omitempty"`
	Error  string  `json:"error,omitempty"`
}

// SyncWorker runs sync jobs.
type SyncWorker struct {
	river.WorkerDefaults[SyncArgs]
	Syncer *Syncer
}

// Work syncs and records the result or the error for whoever waits on it.
func (w *SyncWorker) Work(ctx context.Context, job *river.Job[SyncArgs]) error {
	ctx = engine.WithActor(ctx, &engine.Actor{Username: job.Args.Actor})
	res, err := w.Syncer.Sync(ctx)
	if err != nil {
		river.RecordOutput(ctx, outcome{Error: engine.MessageOf(err)})
		return err
	}
	return river.RecordOutput(ctx, outcome{Result: res})
}

// Timeout bounds one sync (the feed's HTTP client has its own, shorter one).
func (w *SyncWorker) Timeout(*river.Job[SyncArgs]) time.Duration { return time.Minute }

// Runner queues syncs and waits for them.
type Runner struct {
	Queue *river.Client[pgx.Tx]
	// Wait is how long SyncAndWait waits for the job before answering that
	// it is still running.
	Wait time.Duration
}

// ErrStillRunning: the sync job did not finish within Runner.Wait; it goes on.
var ErrStillRunning = errors.New("the exchange-rate sync is still running")

// SyncAndWait queues a sync for the caller and waits for its outcome: the
// result, the feed's error (unavailable), or ErrStillRunning with the job id.
func (r *Runner) SyncAndWait(ctx context.Context) (*Result, int64, error) {
	if r.Queue == nil {
		return nil, 0, errors.New("the job queue is not running")
	}
	ins, err := r.Queue.Insert(ctx, SyncArgs{Actor: engine.ActorFrom(ctx).Username}, nil)
	if err != nil {
		return nil, 0, err
	}
	id := ins.Job.ID
	deadline := time.Now().Add(r.Wait)
	for delay := 20 * time.Millisecond; ; delay = min(delay*2, 250*time.Millisecond) {
		job, err := r.Queue.JobGet(ctx, id)
		if err != nil {
			return nil, id, err
		}
		var out outcome
		switch job.State {
		case rivertype.JobStateCompleted:
			if err := json.Unmarshal(job.Output(), &out); err != nil || out.Result == nil {
				return nil, id, fmt.Errorf("rate sync job %d finished without a result", id)
			}
			return out.Result, id, nil
		case rivertype.JobStateDiscarded, rivertype.JobStateCancelled:
			json.Unmarshal(job.Output(), &out)
			if out.Error == "" {
				out.Error = "Exchange rates could not be synchronised: the sync job stopped."
			}
			return nil, id, (&engine.Error{Code: engine.CodeUnavailable, Message: out.Error}).With("rates.syncFailed",
				"detail", strings.TrimPrefix(out.Error, "Exchange rates could not be synchronised: "))
		}
		if time.Now().After(deadline) {
			return nil, id, ErrStillRunning
		}
		select {
		case <-ctx.Done():
			return nil, id, ctx.Err()
		case <-time.After(delay):
		}
	}
}
