package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"ledgerdesk/internal/pgtest"
)

// A read that outlasts the quick lane is stopped and read again at once;
// its shape's next reads go to the heavy lane; quick reads go on beside
// them; a place in the heavy lane is bounded in all and per user, waiting
// for one too long is a 503 the client may retry, and a shape read quickly
// in the heavy lane is heavy no more. The slow read is made slow by a lock the test holds, so nothing
// here depends on how fast the machine is; a read slow "for a moment" sleeps
// only in the quick lane, so its second try does not wait for the test to
// notice the first was stopped.
func TestLanesKeepHeavyReadsApart(t *testing.T) {
	pool := pgtest.New(t)
	ctx := context.Background()
	// The rows of blocked_rows wait for the test's advisory lock.
	for _, sql := range []string{
		`create function wait_for_test() returns boolean language sql volatile as 'select pg_advisory_xact_lock_shared(4242) is not null'`,
		`create view blocked_rows as select g as id, 'row ' || g as name from generate_series(1, 5) g where wait_for_test()`,
		// slow in the quick lane (its statement timeout, below) while the
		// test keeps a row in moment_slow, quick elsewhere
		`create table moment_slow (on_purpose boolean)`,
		`create function slow_for_a_moment() returns boolean language sql volatile
			as 'select case when current_setting(''statement_timeout'') = ''500ms'' and exists (select 1 from moment_slow)
			           then pg_sleep(60) is not null else true end'`,
		`create view moment_rows as select g as id, 'row ' || g as name from generate_series(1, 5) g where slow_for_a_moment()`,
	} {
		if _, err := pool.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	views, err := os.ReadFile("../views.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// two test views over the five rows, one per way of being slow
	added := "\nviews:\n"
	for _, v := range [][2]string{{"VW_Blocked", "blocked_rows"}, {"VW_Moment", "moment_rows"}} {
		added += fmt.Sprintf(`  %s:
    source: %s
    key: Id
    screen: 10
    defaultSort: {field: Id, order: asc}
    columns:
      - {field: Id, column: id, type: int}
      - {field: Name, column: name, type: text}
`, v[0], v[1])
	}
	views = bytes.Replace(views, []byte("\nviews:\n"), []byte(added), 1)
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
	// (Quick is generous: the reads meant to be quick - a country page, a
	// second try - must stay under it, or twice it, on a busy machine.)
	lanes := &Lanes{Quick: 500 * time.Millisecond, HeavyTotal: 1, HeavyPerUser: 1, Wait: 300 * time.Millisecond}
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
	read := func(user string, r GridRequest) chan result {
		done := make(chan result, 1)
		go func() {
			p, err := e.Page(as(user), r)
			done <- result{p, err}
		}()
		return done
	}
	until := func(what string, ok func(LaneCounts) bool) {
		t.Helper()
		pgtest.WaitFor(t, 20*time.Second, what, func() bool { return ok(lanes.Counts()) })
	}
	// The first read outlasts the quick lane and is read again at once,
	// where it waits for the lock.
	first := read("anna", GridRequest{ViewName: "VW_Blocked"})
	until("demoted", func(c LaneCounts) bool { return c.Demoted == 1 })
	// The shape is now known heavy: the next page goes to the heavy lane
	// at once, and takes its one place.
	second := read("bo", GridRequest{ViewName: "VW_Blocked", PageNumber: 5})
	until("in the heavy lane", func(c LaneCounts) bool { return c.Heavy == 1 })

	// Quick reads are served meanwhile.
	if _, err := e.Page(as("carl"), GridRequest{ViewName: "VW_TblMasterCountry"}); err != nil {
		t.Fatalf("a quick read beside the heavy ones: %v", err)
	}
	if c := lanes.Counts(); c.Quick != 1 || c.Demoted != 1 {
		t.Errorf("counts %+v, want one quick read and one demoted", c)
	}

	// The heavy lane's one place is taken: a third read of the shape waits,
	// then gets a 503 the client may retry.
	_, err = e.Page(as("carl"), GridRequest{ViewName: "VW_Blocked", PageNumber: 2})
	var busy *Error
	if !errors.As(err, &busy) || busy.Code != CodeUnavailable || busy.Key != "grid.busy" || busy.RetryAfter == 0 {
		t.Fatalf("a third heavy read: %v, want grid.busy", err)
	}

	// The lock goes: both heavy reads end with their rows.
	if _, err := holder.Exec(ctx, `select pg_advisory_unlock(4242)`); err != nil {
		t.Fatal(err)
	}
	for i, ch := range []chan result{first, second} {
		r := <-ch
		if r.err != nil || r.page.TotalCount != 5 {
			t.Fatalf("heavy read %d: %v, %+v", i+1, r.err, r.page)
		}
	}
	if r := <-read("anna", GridRequest{ViewName: "VW_Blocked", PageSize: 2}); r.err != nil || !strings.Contains(string(r.page.data), `"Name":"row 1"`) {
		t.Fatalf("a read after the lane emptied: %v", r.err)
	}
	// That read was quick in the heavy lane: the shape is heavy no more.
	before := lanes.Counts()
	if _, err := e.Page(as("anna"), GridRequest{ViewName: "VW_Blocked"}); err != nil {
		t.Fatal(err)
	}
	if c := lanes.Counts(); c.Quick != before.Quick+1 {
		t.Errorf("counts %+v after %+v: a shape read quickly stayed heavy", c, before)
	}

	// A read that outlasts the quick lane only for a moment (its second
	// try is quick) is not remembered as heavy.
	if _, err := pool.Exec(ctx, `insert into moment_slow values (true)`); err != nil {
		t.Fatal(err)
	}
	before = lanes.Counts()
	if _, err := e.Page(as("dora"), GridRequest{ViewName: "VW_Moment", PageSize: 3}); err != nil {
		t.Fatal(err)
	}
	if c := lanes.Counts(); c.Demoted != before.Demoted+1 {
		t.Fatalf("counts %+v after %+v: the first read of VW_Moment was not stopped and read again", c, before)
	}
	if _, err := pool.Exec(ctx, `delete from moment_slow`); err != nil {
		t.Fatal(err)
	}
	before = lanes.Counts()
	if _, err := e.Page(as("dora"), GridRequest{ViewName: "VW_Moment", PageSize: 3, PageNumber: 3}); err != nil {
		t.Fatal(err)
	}
	if c := lanes.Counts(); c.Quick != before.Quick+1 || c.Heavy != before.Heavy {
		t.Errorf("counts %+v after %+v: a read slow for a moment made its shape heavy", c, before)
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

// A free place is given even when the wait has run out before the caller
// looked (a goroutine held up on a busy machine).
func TestLanesGiveAFreePlaceAfterTheWait(t *testing.T) {
	l := &Lanes{HeavyTotal: 1, HeavyPerUser: 1, Wait: time.Nanosecond}
	l.init()
	for i := range 200 {
		release, err := l.enter(context.Background(), "anna")
		if err != nil {
			t.Fatalf("try %d: a free place was refused: %v", i+1, err)
		}
		release()
	}
}
