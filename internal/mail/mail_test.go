package mail

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"ledgerdesk/internal/pgtest"
)

// flaky is a mail server that refuses the first `down` deliveries.
type flaky struct {
	down      int32
	calls     atomic.Int32
	delivered atomic.Int32
}

func (f *flaky) Deliver(context.Context, Message) error {
	if f.calls.Add(1) <= f.down {
		return errors.New("421 service not available")
	}
	f.delivered.Add(1)
	return nil
}

// A message is a row and a job before any worker runs (a restart loses
// nothing); a mail server that refuses the first try gets the message on a
// retry; without a delivery configured it stays in the outbox.
func TestMailIsAJobWithRetries(t *testing.T) {
	pool := pgtest.New(t)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	server := &flaky{down: 1}
	key := OutboxKey([]byte("a server secret of at least 32 characters"))
	s := &Sender{Email: server, Mobile: &Outbox{Pool: pool, Log: log, Key: key}, Log: log, Pool: pool, Key: key}
	workers := river.NewWorkers()
	river.AddWorker(workers, &DeliverWorker{Sender: s})
	queue := pgtest.NewQueue(t, pool, workers, 0)
	s.SetQueue(queue)
	s.Send(Message{Channel: Email, To: "ann@example.com", Subject: "Your code", Body: "code 123456"})
	s.Send(Message{Channel: Mobile, To: "+46 70 123 45 67", Subject: "Your code", Body: "code 654321"})

	state := func(to string) (string, int, string) {
		t.Helper()
		var st, body string
		var attempts int
		if err := pool.QueryRow(context.Background(), `select state, attempts, body from mail_outbox where recipient = $1`, to).Scan(&st, &attempts, &body); err != nil {
			t.Fatal(err)
		}
		return st, attempts, body
	}
	if st, _, _ := state("ann@example.com"); st != "queued" {
		t.Fatalf("before any worker runs: %s, want queued", st)
	}

	if err := queue.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		st, attempts, body := state("ann@example.com")
		if st == "sent" {
			if attempts != 2 || body == "code 123456" || server.delivered.Load() != 1 {
				t.Errorf("sent after %d tries (want 2), %d deliveries, body kept: %q", attempts, server.delivered.Load(), body)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("email still %s after %d tries", st, attempts)
		}
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		st, _, body := state("+46 70 123 45 67")
		if st == "kept" {
			// Kept with its code masked; the sealed copy holds it for `ledgerdesk outbox`.
			var sealed string
			if err := pool.QueryRow(context.Background(), `select sealed from mail_outbox where recipient = $1`, "+46 70 123 45 67").Scan(&sealed); err != nil {
				t.Fatal(err)
			}
			if plain, err := Unseal(key, sealed); body != "code ******" || err != nil || plain != "code 654321" {
				t.Errorf("outbox body %q, sealed %q (%v)", body, plain, err)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("mobile message still %s", st)
		}
	}
}

// After the last try the row says failed, with the server's answer.
func TestMailFailsAfterTheLastTry(t *testing.T) {
	pool := pgtest.New(t)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	s := &Sender{Email: &flaky{down: 1 << 30}, Log: log, Pool: pool}
	var id int64
	if err := pool.QueryRow(context.Background(), `insert into mail_outbox (channel, recipient, subject, body, state)
		values ('email', 'bob@example.com', 's', 'b', 'queued') returning id`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	w := &DeliverWorker{Sender: s}
	job := func(attempt int) *river.Job[DeliverArgs] {
		return &river.Job[DeliverArgs]{JobRow: &rivertype.JobRow{Attempt: attempt, MaxAttempts: DeliverAttempts}, Args: DeliverArgs{OutboxID: id}}
	}
	for _, attempt := range []int{1, DeliverAttempts} {
		if err := w.Work(context.Background(), job(attempt)); err == nil {
			t.Fatalf("try %d succeeded against a server that is down", attempt)
		}
		var st, lastError string
		if err := pool.QueryRow(context.Background(), `select state, last_error from mail_outbox where id = $1`, id).Scan(&st, &lastError); err != nil {
			t.Fatal(err)
		}
		want := "queued"
		if attempt == DeliverAttempts {
			want = "failed"
		}
		if st != want || lastError != "421 service not available" {
			t.Errorf("after try %d: %s %q, want %s with the server's answer", attempt, st, lastError, want)
		}
	}
}
