package imports

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"ledgerdesk/engine"
)

// ImportArgs is the job that loads one import.
type ImportArgs struct {
	ImportID int64 `json:"importId"`
}

// Kind names the job for the queue.
func (ImportArgs) Kind() string { return "import_file" }

// InsertOpts: a few tries, for a database that goes away mid-load.
func (ImportArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{MaxAttempts: 3} }

// ImportWorker runs import jobs.
type ImportWorker struct {
	river.WorkerDefaults[ImportArgs]
	Service *Service
}

// Work loads the import. When the last try fails too (the database kept
// going away), the import is closed as failed with its extraction-log row,
// so it neither stays queued forever nor blocks the same file's re-upload.
func (w *ImportWorker) Work(ctx context.Context, job *river.Job[ImportArgs]) error {
	err := w.Service.Run(ctx, job.Args.ImportID)
	if err != nil && job.Attempt >= job.MaxAttempts {
		if gaveUp := w.Service.giveUp(ctx, job.Args.ImportID, job.Attempt, err); gaveUp != nil {
			w.Service.log.Error("import: closing a failed import", "import", job.Args.ImportID, "err", gaveUp)
		}
	}
	return err
}

// giveUp closes an import whose job has no tries left.
func (s *Service) giveUp(ctx context.Context, id int64, tries int, cause error) error {
	ctx = context.WithoutCancel(ctx)
	var kind Kind
	var name, actor string
	err := s.pool.QueryRow(ctx, `select kind, file_name, created_by from import_file where id = $1 and status in ('queued', 'running')`, id).
		Scan(&kind, &name, &actor)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil // finished after all
	}
	if err != nil {
		return err
	}
	return s.finish(ctx, id, kind, name, actor, nil, 0, 0, nil,
		engine.Unavailable("%s could not be loaded after %d tries: %s. Nothing was loaded; upload it again.", name, tries, engine.MessageOf(cause)).
			With("import.gaveUp", "file", name, "tries", tries, "detail", engine.MessageOf(cause)))
}

// RescueStuckJobsAfter is when the job queue takes a job whose worker went
// away (a crash, a kill) as stuck and runs it again: minutes, not river's
// default hour, so an import cut off by a crash finishes soon after.
const RescueStuckJobsAfter = 10 * time.Minute

// ImportTimeout bounds one try of an import (a million-row file takes
// seconds); below RescueStuckJobsAfter, so a slow import is never rescued,
// and run twice, while it is still working.
const ImportTimeout = 8 * time.Minute

// Timeout of one try.
func (w *ImportWorker) Timeout(*river.Job[ImportArgs]) time.Duration { return ImportTimeout }

var reprocessText = logText{Text: "Reprocessing of all bank bookings", Code: "log.reprocessed"}

// ReprocessArgs is the job that processes every bank booking again.
type ReprocessArgs struct{}

// Kind names the job for the queue.
func (ReprocessArgs) Kind() string { return "bank_reprocess" }

// InsertOpts: a few tries; the last failure is written to the extraction log.
func (ReprocessArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{MaxAttempts: 3} }

// ReprocessWorker runs reprocess jobs.
type ReprocessWorker struct {
	river.WorkerDefaults[ReprocessArgs]
	Pool *pgxpool.Pool
	Log  *slog.Logger
}

// Work processes every booking in one transaction and logs it.
func (w *ReprocessWorker) Work(ctx context.Context, job *river.Job[ReprocessArgs]) error {
	start := time.Now()
	err := pgx.BeginFunc(ctx, w.Pool, func(tx pgx.Tx) error {
		if err := ProcessBank(ctx, tx, nil); err != nil {
			return err
		}
		_, err := insertLog(ctx, tx, "Bank", "Success", reprocessText, nil, "system")
		return err
	})
	if err == nil {
		w.Log.Info("bank bookings reprocessed", "took", time.Since(start))
		return nil
	}
	w.Log.Error("bank reprocessing failed", "attempt", job.Attempt, "of", job.MaxAttempts, "err", err)
	if job.Attempt >= job.MaxAttempts { // no more tries: say so where people look
		failure := errorText(engine.TranslatePG(err))
		if _, logErr := insertLog(context.WithoutCancel(ctx), w.Pool, "Bank", "Failed", reprocessText, failure, "system"); logErr != nil {
			w.Log.Error("extraction log", "err", logErr)
		}
	}
	return err
}
