package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"ledgerdesk/internal/pgtest"
)

// Which requests an index made on demand serves, and what it is on.
func TestDemandIndexFollowsTheRequest(t *testing.T) {
	f := newFixture(t)
	v := f.e.Metadata().Views["VW_BankFinal"]
	d, ok := v.demandFor(GridRequest{Filters: []Cond{{"Currency", "equals", "NOK"}}, SortField: "AmountUsd", SortOrder: "desc"})
	if !ok || d.columns != "lower(currency), amount_usd, id" || !strings.HasPrefix(d.name, "bank_booking_demand_") {
		t.Fatalf("currency and USD amount: %+v %v", d, ok)
	}
	// The order of the filters does not make another index.
	a, _ := v.demandFor(GridRequest{Filters: []Cond{{"Currency", "equals", "NOK"}, {"Actor", "equals", "Card"}}, SortField: "BookedDate"})
	b, _ := v.demandFor(GridRequest{Filters: []Cond{{"Actor", "equals", "Card"}, {"Currency", "equals", "SEK"}}, SortField: "BookedDate"})
	if a.name != b.name || a.columns != "lower(actor), lower(currency), booked_date, id" {
		t.Errorf("two filters: %q %q (%s)", a.name, b.name, a.columns)
	}
	// The default sort stands in for none.
	if d, ok := v.demandFor(GridRequest{Filters: []Cond{{"Status", "equals", "Booked"}}}); !ok || d.columns != "lower(status), created_on, id" {
		t.Errorf("default sort: %+v", d)
	}
	// A range comes last, after the key: the index is read in the sort's
	// order and the range tested on its entries.
	if d, ok := v.demandFor(GridRequest{Filters: []Cond{{"AmountLocal", "gt", "5"}}, SortField: "BookedDate"}); !ok ||
		d.columns != "booked_date, id, amount_local" || d.rangeField != "AmountLocal" {
		t.Errorf("a range: %+v %v", d, ok)
	}
	// with equality filters before the sort, both bounds of one column, the default sort
	if d, ok := v.demandFor(GridRequest{Filters: []Cond{{"ImportDate_Time", "gte", "2026-01-01"}, {"Currency", "equals", "NOK"},
		{"ImportDate_Time", "lt", "2026-02-01"}}}); !ok || d.columns != "lower(currency), created_on, id, import_date_time" {
		t.Errorf("a range with an equality: %+v %v", d, ok)
	}
	// a range's demand is another index than the equality's on the same columns
	byRange, _ := v.demandFor(GridRequest{Filters: []Cond{{"AmountUsd", "gt", "5"}}, SortField: "BookedDate"})
	byEquality, _ := v.demandFor(GridRequest{Filters: []Cond{{"AmountUsd", "equals", "5"}}, SortField: "BookedDate"})
	if byRange.name == "" || byRange.name == byEquality.name {
		t.Errorf("range and equality on AmountUsd: %q and %q", byRange.name, byEquality.name)
	}
	for name, r := range map[string]GridRequest{
		"a pattern":                  {Filters: []Cond{{"Text", "contains", "payout"}}, SortField: "AmountUsd"},
		"two ranges":                 {Filters: []Cond{{"AmountLocal", "gt", "5"}, {"AmountUsd", "lt", "9"}}, SortField: "BookedDate"},
		"the sort is the range":      {Filters: []Cond{{"AmountLocal", "gt", "5"}}, SortField: "AmountLocal"},
		"a range and an empty test":  {Filters: []Cond{{"AmountLocal", "gt", "5"}, {"Actor", "isEmpty", nil}}, SortField: "AmountUsd"},
		"a datetime day":             {Filters: []Cond{{"ImportDate_Time", "equals", "2026-01-01"}}, SortField: "AmountUsd"},
		"the sort is the filter":     {Filters: []Cond{{"Currency", "equals", "NOK"}}, SortField: "Currency"},
		"three filters":              {Filters: []Cond{{"Currency", "equals", "NOK"}, {"Actor", "equals", "Card"}, {"Status", "equals", "x"}}, SortField: "BookedDate"},
		"filter text":                {Filter: "Currency = 'NOK'", SortField: "AmountUsd"},
		"no filter":                  {SortField: "AmountUsd"},
		"an empty test":              {Filters: []Cond{{"Actor", "isEmpty", nil}}, SortField: "AmountUsd"},
		"a column that is not large": {Filters: []Cond{{"CountryCode", "equals", "SE"}}},
	} {
		view := v
		if strings.Contains(name, "not large") {
			view = f.e.Metadata().Views["VW_TblMasterCountry"]
		}
		if d, ok := view.demandFor(r); ok {
			t.Errorf("%s: an index on %s", name, d.columns)
		}
	}
}

// A read of a large view with equality filters and a sort that outlasts
// the quick lane records its index; the server builds it in the background;
// pages read through it are the pages read without it; each table keeps
// the most demanded few, and one that falls out of them is dropped.
func TestIndexesMadeOnDemand(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.exec(t, `insert into bank_booking (bank_account, booked_date, amount_local, currency, text, amount_usd, actor, status, created_on)
		select 'ACC-' || (i % 5), date '2026-01-01' + (i % 30), (i % 97) - 20, (array['SEK','NOK','EUR'])[1 + i % 3], 'Booking ' || i,
		       case when i % 11 <> 0 then round(((i * 37) % 500)::numeric / 3, 2) end,
		       (array['Card','Bank'])[1 + i % 2], (array['Booked','Pending'])[1 + i % 2], timestamptz '2026-01-01' + make_interval(mins => i)
		from generate_series(1, 900) i`)
	lanes := &Lanes{Quick: 100 * time.Millisecond, HeavyTotal: 1}
	md := f.e.Metadata()
	e := New(Options{Pool: f.pool, Metadata: md, Lanes: lanes, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	reqs := []GridRequest{
		{ViewName: "VW_BankFinal", Filters: []Cond{{"Currency", "equals", "nok"}}, SortField: "AmountUsd", SortOrder: "desc", PageSize: 40},
		{ViewName: "VW_BankFinal", Filters: []Cond{{"Currency", "equals", "NOK"}}, SortField: "AmountUsd", SortOrder: "asc", PageSize: 40},
	}
	pages := func() []string {
		var out []string
		for _, r := range reqs {
			for r.PageNumber = 0; r.PageNumber < 320; r.PageNumber += r.PageSize {
				p, err := f.e.Page(f.ctx, r)
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, fmt.Sprintf("%d %s", p.TotalCount, p.data))
			}
		}
		return out
	}
	before := pages()
	// An engine told to make no indexes on demand records nothing.
	New(Options{Pool: f.pool, Metadata: md, NoDemand: true}).recordDemand(ctx, reqs[0])
	var recorded int
	f.pool.QueryRow(ctx, `select count(*) from grid_index_demand`).Scan(&recorded)
	if recorded != 0 {
		t.Fatal("NoDemand recorded a demand")
	}

	// The read is held by a lock on the table: it outlasts the quick lane,
	// is read again, slowly too, and its index is recorded.
	release, done := readHeldByLock(t, f, e, reqs[0])
	pgtest.WaitFor(t, 20*time.Second, "the read demoted", func() bool {
		select {
		case err := <-done:
			t.Fatalf("the read ended before it was demoted: %v (counts %+v)", err, lanes.Counts())
		default:
		}
		return lanes.Counts().Demoted > 0
	})
	// The read again waits for the lock; it goes once that read has been
	// slower than twice the quick lane (else it was only a busy moment).
	waitForLockWait(t, f, "the read again slower than twice the quick lane", "300 milliseconds")
	release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	want, _ := md.Views["VW_BankFinal"].demandFor(reqs[0])
	pgtest.WaitFor(t, 20*time.Second, "index "+want.name+" ready", func() bool {
		var state string
		f.pool.QueryRow(ctx, `select state from grid_index where name = $1`, want.name).Scan(&state)
		return state == "ready"
	})
	pgtest.WaitFor(t, 20*time.Second, "the background build ended", func() bool { return !e.building.Load() })
	var def string
	f.pool.QueryRow(ctx, `select indexdef from pg_indexes where indexname = $1`, want.name).Scan(&def)
	if !strings.HasSuffix(def, "USING btree (lower(currency), amount_usd, id)") {
		t.Fatalf("index: %s", def)
	}
	// The planner reads the page through it, and the pages are the same.
	g, err := f.e.SQL(f.ctx, reqs[0])
	if err != nil {
		t.Fatal(err)
	}
	var plan string
	tx, _ := f.pool.Begin(ctx)
	tx.Exec(ctx, `set local enable_seqscan = off`)
	tx.Exec(ctx, `set local enable_sort = off`)
	rows, _ := tx.Query(ctx, "explain "+g.Page, g.PageArgs...)
	for rows.Next() {
		var line string
		rows.Scan(&line)
		plan += line + "\n"
	}
	rows.Close()
	tx.Rollback(ctx)
	if !strings.Contains(plan, want.name) {
		t.Errorf("the page is not read through %s:\n%s", want.name, plan)
	}
	if after := pages(); strings.Join(after, "\n") != strings.Join(before, "\n") {
		t.Error("the pages changed with the index made on demand")
	}

	// Six other requests, each demanded more: the table keeps five, and the
	// first index goes.
	others := []GridRequest{
		{Filters: []Cond{{"Currency", "equals", "SEK"}}, SortField: "BookedDate"},
		{Filters: []Cond{{"Currency", "equals", "SEK"}}, SortField: "AmountLocal"},
		{Filters: []Cond{{"Actor", "equals", "Card"}}, SortField: "AmountUsd"},
		{Filters: []Cond{{"Actor", "equals", "Card"}}, SortField: "BookedDate"},
		{Filters: []Cond{{"Status", "equals", "Booked"}}, SortField: "AmountLocal"},
		{Filters: []Cond{{"BankAccount", "equals", "ACC-1"}}, SortField: "AmountUsd"},
	}
	for i, r := range others {
		d, ok := md.Views["VW_BankFinal"].demandFor(r)
		if !ok {
			t.Fatalf("request %d serves no index", i)
		}
		f.exec(t, `insert into grid_index_demand (name, view_name, table_name, filter_fields, sort_field, columns, demanded)
			values ($1, 'VW_BankFinal', 'bank_booking', $2, $3, $4, $5)`, d.name, d.filterFields, d.sortField, d.columns, 10+i)
	}
	if err := EnsureIndexes(ctx, f.pool, md, e.log); err != nil {
		t.Fatal(err)
	}
	var kept int
	f.pool.QueryRow(ctx, `select count(*) from pg_indexes where tablename = 'bank_booking' and indexname like 'bank_booking_demand_%'`).Scan(&kept)
	var first int
	f.pool.QueryRow(ctx, `select count(*) from pg_indexes where indexname = $1`, want.name).Scan(&first)
	if kept != DemandedPerTable || first != 0 {
		t.Errorf("%d indexes made on demand kept (want %d); the least demanded one is still there: %v", kept, DemandedPerTable, first == 1)
	}
	listed, err := DemandedIndexes(ctx, f.pool)
	if err != nil || len(listed) != 7 || listed[0].Demanded != 15 || listed[6].State != "not built" {
		t.Errorf("demands listed: %v %+v", err, listed)
	}
}

// A range on one column with a sort on another whose order it follows
// (import time and creation time): the range's rows lie at the far end of
// the sort's index. A read of it slower than the lanes' Demand, though done
// in the quick lane, asks for its index made on demand, which carries the
// range's column after the key; the planner reads the page through it,
// testing the range on the index's entries, and the pages are those read
// without it.
func TestRangeIndexMadeOnDemand(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.exec(t, `insert into bank_booking (bank_account, booked_date, amount_local, currency, text, actor, status, created_on, import_date_time)
		select 'ACC-' || (i % 5), date '2026-01-01' + (i % 30), (i % 97) - 20, 'SEK', 'Booking ' || i, 'Card', 'Booked',
		       timestamptz '2026-01-01' + make_interval(mins => i), timestamptz '2026-01-01' + make_interval(mins => i, secs => i % 7)
		from generate_series(1, 20000) i`)
	f.exec(t, `analyze bank_booking`)
	md := f.e.Metadata()
	// reads in the quick lane slower than 50 ms ask for an index
	e := New(Options{Pool: f.pool, Metadata: md, QueryTimeout: 30 * time.Second, Lanes: &Lanes{Quick: 20 * time.Second, Demand: 50 * time.Millisecond},
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	// the oldest tenth, newest first (the view's default sort)
	r := GridRequest{ViewName: "VW_BankFinal", Filters: []Cond{{"ImportDate_Time", "lt", "2026-01-02T09:20:00Z"}}, PageSize: 50}
	pages := func() string {
		var out []string
		for r.PageNumber = 0; r.PageNumber < 300; r.PageNumber += r.PageSize {
			p, err := f.e.Page(f.ctx, r)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprintf("%d %s", p.TotalCount, p.data))
		}
		return strings.Join(out, "\n")
	}
	before := pages()
	if !strings.HasPrefix(before, "1999 ") {
		t.Fatalf("the filter holds %.20s rows, not 1999", before)
	}
	want, ok := md.Views["VW_BankFinal"].demandFor(r)
	if !ok {
		t.Fatal("no index for a range with the default sort")
	}
	// A read held by a lock on the table for more than 50 ms, done in the
	// quick lane, records the index.
	r.PageNumber = 0
	release, done := readHeldByLock(t, f, e, r)
	waitForLockWait(t, f, "the read waiting for 100 ms", "100 milliseconds")
	release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if c := e.lanes.Counts(); c.Quick != 1 || c.Demoted != 0 {
		t.Fatalf("the read was not done in the quick lane: %+v", c)
	}
	pgtest.WaitFor(t, 20*time.Second, "index "+want.name+" ready", func() bool {
		var state string
		f.pool.QueryRow(ctx, `select state from grid_index where name = $1`, want.name).Scan(&state)
		return state == "ready"
	})
	pgtest.WaitFor(t, 20*time.Second, "the background build ended", func() bool { return !e.building.Load() })
	var def string
	f.pool.QueryRow(ctx, `select indexdef from pg_indexes where indexname = $1`, want.name).Scan(&def)
	if !strings.HasSuffix(def, "USING btree (created_on, id, import_date_time)") {
		t.Fatalf("index: %s", def)
	}
	r.PageNumber = 0
	g, err := e.SQL(f.ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	var plan string
	rows, _ := f.pool.Query(ctx, "explain "+g.Page, g.PageArgs...)
	for rows.Next() {
		var line string
		rows.Scan(&line)
		plan += line + "\n"
	}
	rows.Close()
	if !strings.Contains(plan, want.name) || !strings.Contains(plan, "Index Cond: (import_date_time <") {
		t.Errorf("the page is not read through %s with the range on its entries:\n%s", want.name, plan)
	}
	if after := pages(); after != before {
		t.Error("the pages changed with the index made on demand")
	}
	var kept string
	f.pool.QueryRow(ctx, `select coalesce(range_field, '') from grid_index_demand where name = $1`, want.name).Scan(&kept)
	if kept != "ImportDate_Time" {
		t.Errorf("the demand keeps range field %q", kept)
	}
}

// readHeldByLock starts reading a page of r with e while bank_booking is
// locked: the read waits until release; done has its error.
func readHeldByLock(t *testing.T, f *fixture, e *Engine, r GridRequest) (release func(), done chan error) {
	t.Helper()
	lock, err := f.pool.Begin(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lock.Rollback(context.Background()) })
	if _, err := lock.Exec(f.ctx, `lock table bank_booking in access exclusive mode`); err != nil {
		t.Fatal(err)
	}
	done = make(chan error, 1)
	go func() {
		_, err := e.Page(f.ctx, r)
		done <- err
	}()
	return func() { lock.Rollback(f.ctx) }, done
}

// waitForLockWait waits until a read of bank_booking has waited for a lock
// longer than the interval.
func waitForLockWait(t *testing.T, f *fixture, what, interval string) {
	t.Helper()
	pgtest.WaitFor(t, 20*time.Second, what, func() bool {
		var slow int
		f.pool.QueryRow(f.ctx, `select count(*) from pg_stat_activity where wait_event_type = 'Lock'
			and query like '%bank_booking%' and now() - query_start > $1::interval`, interval).Scan(&slow)
		return slow > 0
	})
}

// "Is not empty" on a text column the planner can count: 5 statement
// warnings among 20,000 bookings are estimated as a few rows (the column's
// own share of nulls), so the page is read from them, not looked for along
// the sort's index. (Estimated from the test on lower() alone, they were
// nearly all the rows.)
func TestNotEmptyIsEstimatedFromTheColumn(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.exec(t, `insert into bank_booking (bank_account, booked_date, amount_local, currency, text, actor, status, created_on, statement_warning)
		select 'ACC-1', date '2026-01-01' + (i % 30), i, 'SEK', 'Booking ' || i, 'Card', 'Booked', timestamptz '2026-01-01' + make_interval(mins => i),
		       case when i % 4000 = 0 then 'Opening balance differs' when i % 3999 = 0 then '' end
		from generate_series(1, 20000) i`)
	f.exec(t, `analyze bank_booking`)
	r := GridRequest{ViewName: "VW_BankFinal", Filters: []Cond{{"StatementWarning", "isNotEmpty", nil}}, PageSize: 50}
	p, err := f.e.Page(f.ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	if p.TotalCount != 5 || p.rows != 5 {
		t.Fatalf("%d rows, total %d: want the 5 warnings (not the 5 empty ones)", p.rows, p.TotalCount)
	}
	g, err := f.e.SQL(f.ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	var raw string
	if err := f.pool.QueryRow(ctx, "explain (format json) "+g.Match, g.MatchArgs...).Scan(&raw); err != nil {
		t.Fatal(err)
	}
	var plan []struct {
		Plan struct {
			Rows float64 `json:"Plan Rows"`
		} `json:"Plan"`
	}
	if err := json.Unmarshal([]byte(raw), &plan); err != nil || len(plan) != 1 || plan[0].Plan.Rows > 100 {
		t.Errorf("the planner expects %v rows (%v): %s", plan, err, g.Match)
	}
}

// A read that outlasts the quick lane and is then read again at once, not
// slowly enough to count as heavy (the machine was busy a moment), still
// asks for its index when it was slower than the lanes' Demand.
func TestDemandAfterAShortHeavyRead(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	lanes := &Lanes{Quick: 200 * time.Millisecond, Demand: 50 * time.Millisecond}
	e := New(Options{Pool: f.pool, Metadata: f.e.Metadata(), QueryTimeout: 30 * time.Second, Lanes: lanes,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	r := GridRequest{ViewName: "VW_BankFinal", Filters: []Cond{{"AmountLocal", "gt", "5"}}, SortField: "BookedDate", PageSize: 50}
	release, done := readHeldByLock(t, f, e, r)
	pgtest.WaitFor(t, 20*time.Second, "the read demoted", func() bool { return lanes.Counts().Demoted > 0 })
	release() // the read again, at once, takes milliseconds
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	want, _ := f.e.Metadata().Views["VW_BankFinal"].demandFor(r)
	var demanded int
	f.pool.QueryRow(ctx, `select count(*) from grid_index_demand where name = $1`, want.name).Scan(&demanded)
	if demanded != 1 {
		t.Errorf("the read slower than Demand asked for no index")
	}
	pgtest.WaitFor(t, 20*time.Second, "the background build ended", func() bool { return !e.building.Load() })
}
