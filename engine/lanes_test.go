package engine

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"ledgerdesk/internal/pgtest"
)

// A read that outlasts the quick lane is stopped and read again in the heavy
// lane; quick reads go on beside it; a place in the heavy lane is bounded in
// all and per user, and waiting for one too long is a 503 the client may
// retry. The slow read is made slow by a lock the test holds, so nothing
// here depends on how fast the machine is.
func TestLanesKeepHeavyReadsApart(t *testing.T) {
	pool := pgtest.New(t)
	ctx := context.Background()
	// The rows of blocked_rows wait for the test's advisory lock.
	for _, sql := range []string{
		`create function wait_for_test() returns boolean language sql volatile as 'select pg_advisory_xact_lock_shared(4242) is not null'`,
		`create view blocked_rows as select g as id, 'row ' || g as name from generate_series(1, 5) g where wait_for_test()`,
	} {
		if _, err := pool.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	views, err := os.ReadFile("../views.yaml")
	if err != nil {
		t.Fatal(err)
	}
	views = bytes.Replace(views, []byte("\nviews:\n"), []byte(`
views:
  VW_Blocked:
    source: blocked_rows
    key: Id
    screen: 10
    defaultSort: {field: Id, order: asc}
    columns:
      - {field: Id, column: id, type: int}
      - {field: Name, column: name, type: text}
`), 1)
	fsys := fstest.MapFS{"views.yaml": {Data: views}}
	forms, _ := os.ReadDir("../forms")
	for _, f := range forms {
		b, _ := os.ReadFile("../forms/" + f.Name())
		fsys["forms/"+f.Name()] = &fstest.MapFile{Data: b}
	}
	md, err := LoadMetadata(fsys)
	if err != nil {
		t.Fatal(err)
	}
	if err := Validate(ctx, pool, md); err != nil {
		t.Fatal(err)
	}
	lanes := &Lanes{Quick: 100 * time.Millisecond, HeavyTotal: 1, HeavyPerUser: 1, Wait: 300 * time.Millisecond}
	e := New(Options{Pool: pool, Metadata: md, Lanes: lanes})
	as := func(user string) context.Context {
		return WithActor(ctx, &Actor{Username: user, Screens: map[int]bool{10: true}})
	}

	holder, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Release()
	if _, err := holder.Exec(ctx, `select pg_advisory_lock(4242)`); err != nil {
		t.Fatal(err)
	}
	type result struct {
		page *GridPage
		err  error
	}
	heavy := make(chan result, 1)
	go func() {
		p, err := e.Page(as("anna"), GridRequest{ViewName: "VW_Blocked"})
		heavy <- result{p, err}
	}()
	// It outlasts the quick lane and waits, in the heavy lane, for the lock.
	for lanes.Counts().Heavy == 0 {
		select {
		case r := <-heavy:
			t.Fatalf("the blocked read ended: %v", r.err)
		default:
		}
		time.Sleep(5 * time.Millisecond)
	}
	if c := lanes.Counts(); c.Demoted != 1 {
		t.Fatalf("counts %+v, want one read demoted", c)
	}

	// Quick reads are served meanwhile.
	if _, err := e.Page(as("bo"), GridRequest{ViewName: "VW_TblMasterCountry"}); err != nil {
		t.Fatalf("a quick read beside the heavy one: %v", err)
	}
	if c := lanes.Counts(); c.Quick != 1 {
		t.Errorf("counts %+v, want one quick read", c)
	}

	// The heavy lane's one place is taken: another heavy read (of a shape
	// known heavy, so it goes there at once) waits, then gets a 503.
	_, err = e.Page(as("bo"), GridRequest{ViewName: "VW_Blocked", PageNumber: 5})
	var busy *Error
	if !errors.As(err, &busy) || busy.Code != CodeUnavailable || busy.Key != "grid.busy" || busy.RetryAfter == 0 {
		t.Fatalf("a second heavy read: %v, want grid.busy", err)
	}
	if c := lanes.Counts(); c.Demoted != 1 {
		t.Errorf("counts %+v: a shape known heavy was tried in the quick lane again", c)
	}

	// The lock goes: the heavy read ends with its rows.
	if _, err := holder.Exec(ctx, `select pg_advisory_unlock(4242)`); err != nil {
		t.Fatal(err)
	}
	r := <-heavy
	if r.err != nil || r.page.TotalCount != 5 || !strings.Contains(string(r.page.data), `"Name":"row 1"`) {
		t.Fatalf("the heavy read: %v, %+v", r.err, r.page)
	}
	// Its place is free again.
	if p, err := e.Page(as("bo"), GridRequest{ViewName: "VW_Blocked", PageSize: 2}); err != nil || p.TotalCount != 5 {
		t.Fatalf("a heavy read after the lane emptied: %v", err)
	}
	if c := lanes.Counts(); c.Heavy != 2 {
		t.Errorf("counts %+v, want two heavy reads", c)
	}
}

// One user's heavy reads wait for each other; another user's do not.
func TestLanesBoundEachUser(t *testing.T) {
	l := &Lanes{HeavyTotal: 2, HeavyPerUser: 1, Wait: 200 * time.Millisecond}
	l.init()
	release, err := l.enter(context.Background(), "anna")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.enter(context.Background(), "anna"); err == nil {
		t.Fatal("a user's second heavy read got a place beside the first")
	}
	other, err := l.enter(context.Background(), "bo")
	if err != nil {
		t.Fatalf("another user: %v", err)
	}
	release()
	again, err := l.enter(context.Background(), "anna")
	if err != nil {
		t.Fatalf("after the first ended: %v", err)
	}
	again()
	other()
	// A caller that goes away stops waiting, with its own error.
	hold, _ := l.enter(context.Background(), "anna")
	defer hold()
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := l.enter(gone, "anna"); !errors.Is(err, context.Canceled) {
		t.Errorf("a caller gone: %v", err)
	}
}
