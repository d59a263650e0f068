package pgtest

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
)

// NewQueue is a job queue (river) on pool with the given workers, one worker
// on the default queue, not started yet (a test may add jobs first); it is
// stopped when the test ends. rescueAfter is the stuck-job rescue time (0:
// river's default).
func NewQueue(t testing.TB, pool *pgxpool.Pool, workers *river.Workers, rescueAfter time.Duration) *river.Client[pgx.Tx] {
	t.Helper()
	queue, err := river.NewClient(riverpgxv5.New(pool), &river.Config{
		Queues:               map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: 1}},
		Workers:              workers,
		RescueStuckJobsAfter: rescueAfter,
		Logger:               slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = queue.Stop(ctx) // an unstarted queue has nothing to stop
	})
	return queue
}
