// Package liveness tells work that is running from work whose process has
// ended. A long piece of work (an import, an automatic reconcile run) beats:
// while it runs, its row's heartbeat_at is set to now every BeatEvery. A row
// still marked running whose heartbeat is older than StaleAfter belongs to a
// process that was killed or lost its machine; the sweepers of the imports
// and reconcile services mark such rows at once (start-up, then every
// SweepEvery), instead of leaving them running until the job queue's rescue,
// minutes later. The work itself is one transaction, so a process that dies
// leaves nothing of it behind.
package liveness

import (
	"context"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

const (
	// BeatEvery is how often running work says it is alive.
	BeatEvery = 5 * time.Second
	// StaleAfter is how long without a beat makes running work dead: twelve
	// missed beats, so a busy machine does not bury the living.
	StaleAfter = time.Minute
	// SweepEvery is how often the sweepers look for dead work.
	SweepEvery = 15 * time.Second
)

// Table names the rows that beat: each has id, status and heartbeat_at.
type Table string

const (
	Imports   Table = "import_file"
	ReconRuns Table = "recon_run"
)

var beatSQL = map[Table]string{
	Imports:   `update import_file set heartbeat_at = now() where id = $1 and status = 'running'`,
	ReconRuns: `update recon_run set heartbeat_at = now() where id = $1 and status = 'running'`,
}

// Beat keeps the row's heartbeat fresh until stop is called (at once, and
// then every BeatEvery; the first beat may come just after Beat returns). A beat that fails is logged and tried again at the
// next tick: the work goes on either way.
func Beat(pool *pgxpool.Pool, table Table, id int64, log *slog.Logger) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	beat := func() {
		bctx, bcancel := context.WithTimeout(ctx, BeatEvery)
		defer bcancel()
		if _, err := pool.Exec(bctx, beatSQL[table], id); err != nil && ctx.Err() == nil && log != nil {
			log.Warn("heartbeat failed", "table", string(table), "id", id, "err", err)
		}
	}
	go func() {
		defer close(done)
		every(ctx, BeatEvery, beat)
	}()
	return func() {
		cancel()
		<-done
	}
}

// Sweep calls each sweeper now and then every SweepEvery until ctx ends.
func Sweep(ctx context.Context, log *slog.Logger, sweepers map[string]func(context.Context) (int, error)) {
	run := func() {
		for name, sweep := range sweepers {
			n, err := sweep(ctx)
			switch {
			case err != nil && ctx.Err() == nil:
				log.Warn("sweeping dead work failed", "what", name, "err", err)
			case n > 0:
				log.Warn("marked work whose process ended", "what", name, "count", n)
			}
		}
	}
	every(ctx, SweepEvery, run)
}

// every calls f now and then every d until ctx ends.
func every(ctx context.Context, d time.Duration, f func()) {
	f()
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			f()
		}
	}
}
