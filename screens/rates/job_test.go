package rates

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertype"

	"ledgerdesk/engine"
	"ledgerdesk/internal/pgtest"
)

// A sync through the job queue: the request waits for the job and answers
// its result, its feed error, or that it is still running.
func TestSyncAsJob(t *testing.T) {
	pool := pgtest.New(t)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	release := make(chan struct{})
	var feedBody = recorded(t)
	var mode atomic.Value
	mode.Store("ok")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch mode.Load() {
		case "down":
			w.WriteHeader(http.StatusBadGateway)
		case "slow":
			<-release
			io.WriteString(w, feedBody)
		default:
			io.WriteString(w, feedBody)
		}
	}))
	defer srv.Close()
	workers := river.NewWorkers()
	river.AddWorker(workers, &SyncWorker{Syncer: &Syncer{Pool: pool, URL: srv.URL, Log: log}})
	queue, err := river.NewClient(riverpgxv5.New(pool), &river.Config{Queues: map[string]river.QueueConfig{Queue: {MaxWorkers: 1}},
		Workers: workers, FetchCooldown: 20 * time.Millisecond, FetchPollInterval: 100 * time.Millisecond, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	if err := queue.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer queue.Stop(context.Background())
	ctx := engine.WithActor(context.Background(), &engine.Actor{Username: "rita"})
	runner := &Runner{Queue: queue, Wait: 20 * time.Second}

	res, job, err := runner.SyncAndWait(ctx)
	if err != nil || res.Inserted != 8 || res.Date != "2026-11-20" {
		t.Fatalf("sync: %+v %v", res, err)
	}
	var who string
	pool.QueryRow(ctx, `select created_by from currency_exchange_rate limit 1`).Scan(&who)
	if who != "rita" {
		t.Errorf("rates stored by %q, want the caller", who)
	}
	if row, _ := queue.JobGet(ctx, job); row.Queue != Queue || row.Kind != "rates_sync" {
		t.Errorf("job %+v", row)
	}

	mode.Store("down")
	_, _, err = runner.SyncAndWait(ctx)
	var e *engine.Error
	if !errors.As(err, &e) || e.Code != engine.CodeUnavailable || e.Message != "Exchange rates could not be synchronised: the rate feed answered 502" {
		t.Fatalf("a feed that is down: %v", err)
	}

	// A sync that outlasts the wait answers at once and finishes later.
	mode.Store("slow")
	pool.Exec(ctx, `delete from currency_exchange_rate`)
	runner.Wait = 300 * time.Millisecond
	_, job, err = runner.SyncAndWait(ctx)
	if !errors.Is(err, ErrStillRunning) || job == 0 {
		t.Fatalf("slow feed: job %d, %v", job, err)
	}
	close(release)
	deadline := time.Now().Add(20 * time.Second)
	for {
		row, err := queue.JobGet(ctx, job)
		if err == nil && row.State == rivertype.JobStateCompleted {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the slow sync never finished: %+v %v", row, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	var n int
	pool.QueryRow(ctx, `select count(*) from currency_exchange_rate`).Scan(&n)
	if n != 8 {
		t.Errorf("%d rates after the slow sync finished", n)
	}
}
