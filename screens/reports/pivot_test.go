package reports

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"ledgerdesk/engine"
	"ledgerdesk/internal/pgtest"
)

// booking is one processed bank booking of the test data.
type booking struct {
	date                     time.Time
	dir                      string // IN or OUT
	actor                    *string
	distRvn, driver, affects *string
	cents                    *int64 // in_usd for IN, out_usd for OUT (negative); nil: no rate was found
}

func str(s string) *string { return &s }

// testBookings are spread over days chosen for the groupings' edges: ISO
// week 1 of 2025 starting on 2024-12-30, the last week of 2024, half-years
// on both sides of 1 July, and gaps (no bookings in 2025-H2, February 2025).
func testBookings() []booking {
	days := []string{"2024-06-28", "2024-06-30", "2024-07-01", "2024-12-28", "2024-12-29", "2024-12-30",
		"2025-01-01", "2025-01-05", "2025-01-06", "2025-03-31", "2025-04-01", "2026-01-04", "2026-01-05"}
	actors := []*string{str("Card"), str("Bank"), nil, str("Total")}
	flags := []*string{str("Yes"), str("No"), nil}
	r := rand.New(rand.NewPCG(14, 2026))
	var out []booking
	for i := 0; i < 400; i++ {
		d, _ := time.Parse(time.DateOnly, days[r.IntN(len(days))])
		b := booking{date: d, dir: "IN", actor: actors[r.IntN(len(actors))],
			distRvn: flags[r.IntN(3)], driver: flags[r.IntN(3)], affects: flags[r.IntN(3)]}
		c := r.Int64N(2_000_000) + 1
		if r.IntN(2) == 0 {
			b.dir, c = "OUT", -c
		}
		if i%50 != 7 {
			b.cents = &c
		}
		out = append(out, b)
	}
	return out
}

func cents(c int64) string {
	sign := ""
	if c < 0 {
		sign, c = "-", -c
	}
	return fmt.Sprintf("%s%d.%02d", sign, c/100, c%100)
}

// periodOf is the test's own period arithmetic: first day and label.
func periodOf(g Grouping, d time.Time) (time.Time, string) {
	y, m := d.Year(), d.Month()
	switch g {
	case Year:
		return time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC), fmt.Sprint(y)
	case HalfYear:
		if m <= 6 {
			return time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC), fmt.Sprintf("%d-H1", y)
		}
		return time.Date(y, 7, 1, 0, 0, 0, 0, time.UTC), fmt.Sprintf("%d-H2", y)
	case Quarter:
		q := (int(m)-1)/3 + 1
		return time.Date(y, time.Month(3*q-2), 1, 0, 0, 0, 0, time.UTC), fmt.Sprintf("%d-Q%d", y, q)
	case Month:
		return time.Date(y, m, 1, 0, 0, 0, 0, time.UTC), d.Format("2006-01")
	case Week:
		monday := d.AddDate(0, 0, -((int(d.Weekday()) + 6) % 7))
		wy, w := d.ISOWeek()
		return monday, fmt.Sprintf("%d-W%02d", wy, w)
	}
	return d, d.Format(time.DateOnly)
}

func nextPeriod(g Grouping, p time.Time) time.Time {
	switch g {
	case Year:
		return p.AddDate(1, 0, 0)
	case HalfYear:
		return p.AddDate(0, 6, 0)
	case Quarter:
		return p.AddDate(0, 3, 0)
	case Month:
		return p.AddDate(0, 1, 0)
	case Week:
		return p.AddDate(0, 0, 7)
	}
	return p.AddDate(0, 0, 1)
}

// sum is an exact sum that knows whether it saw any amount.
type sum struct {
	c   int64
	any bool
}

func (s *sum) add(c *int64) {
	if c != nil {
		s.c += *c
		s.any = true
	}
}

func (s sum) value() any {
	if !s.any {
		return nil
	}
	return cents(s.c)
}

// expected computes the overview of bs for p without SQL.
func expected(bs []booking, p Params) []map[string]any {
	want := map[string]string{"Yes": "Yes", "No": "No"}
	match := func(v *string, filter string) bool {
		return filter == "All" || (v != nil && *v == want[filter])
	}
	dir := map[string]string{"In": "IN", "Out": "OUT"}[p.InOut]
	cells := map[time.Time]map[string]*sum{}
	actorSet := map[string]bool{}
	var lo, hi time.Time
	for _, b := range bs {
		if b.dir != dir || !match(b.distRvn, p.DistribRvn) || !match(b.driver, p.DistribDriver) || !match(b.affects, p.AffectsBalance) {
			continue
		}
		start, _ := periodOf(p.DateGrouping, b.date)
		if lo.IsZero() || start.Before(lo) {
			lo = start
		}
		if start.After(hi) {
			hi = start
		}
		key := KeyNoActor
		if b.actor != nil {
			key = *b.actor
			if key == "Total" {
				key = "Actor Total"
			}
		}
		actorSet[key] = true
		if cells[start] == nil {
			cells[start] = map[string]*sum{}
		}
		if cells[start][key] == nil {
			cells[start][key] = &sum{}
		}
		cells[start][key].add(b.cents)
	}
	var rows []map[string]any
	if lo.IsZero() {
		return rows
	}
	colTotals := map[string]*sum{}
	for a := range actorSet {
		colTotals[a] = &sum{}
	}
	var grand sum
	for p0 := lo; !p0.After(hi); p0 = nextPeriod(p.DateGrouping, p0) {
		_, label := periodOf(p.DateGrouping, p0)
		row := map[string]any{KeyID: len(rows) + 1, KeyPeriod: label, KeyPeriodFrom: p0.Format(time.DateOnly),
			KeyPeriodTo: nextPeriod(p.DateGrouping, p0).AddDate(0, 0, -1).Format(time.DateOnly)}
		var rowSum sum
		for a := range actorSet {
			s := cells[p0][a]
			if s == nil {
				row[a] = nil
				continue
			}
			row[a] = s.value()
			if s.any {
				rowSum.add(&s.c)
				grand.add(&s.c)
			}
			if s.any {
				colTotals[a].add(&s.c)
			}
		}
		row[KeyTotal] = rowSum.value()
		rows = append(rows, row)
	}
	total := map[string]any{KeyID: len(rows) + 1, KeyPeriod: RowTotal, KeyTotal: grand.value(),
		KeyPeriodFrom: rows[0][KeyPeriodFrom], KeyPeriodTo: rows[len(rows)-1][KeyPeriodTo]}
	for a := range actorSet {
		total[a] = colTotals[a].value()
	}
	return append(rows, total)
}

func insertBookings(t *testing.T, s *Service, bs []booking) {
	t.Helper()
	ctx := context.Background()
	for _, b := range bs {
		var in, out *string
		if b.cents != nil {
			v := cents(*b.cents)
			if b.dir == "IN" {
				in = &v
			} else {
				out = &v
			}
		}
		if _, err := s.pool.Exec(ctx, `insert into bank_booking (bank_account, booked_date, in_or_out, amount_local, currency, actor,
				dist_rvn_settle, distr_driver, affects_balance, in_usd, out_usd, status)
			values ('ACC', $1, $2, 1, 'USD', $3, $4, $5, $6, $7::numeric, $8::numeric, 'Processed')`,
			b.date, b.dir, b.actor, b.distRvn, b.driver, b.affects, in, out); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPivotAgainstIndependentSums compares the pivot with sums the test
// computes itself, for every grouping and every combination of the filters.
func TestPivotAgainstIndependentSums(t *testing.T) {
	s := New(pgtest.New(t), 0)
	bs := testBookings()
	insertBookings(t, s, bs)
	ctx := context.Background()
	for _, g := range Groupings {
		for _, dir := range []string{"In", "Out"} {
			for _, rvn := range []string{"Yes", "No", "All"} {
				for _, driver := range []string{"All", "Yes", "No"} {
					for _, affects := range []string{"Yes", "No", "All"} {
						p := Params{InOut: dir, DistribRvn: rvn, DistribDriver: driver, AffectsBalance: affects, DateGrouping: g}
						name := fmt.Sprintf("%s/%s/%s/%s/%s", g, dir, rvn, driver, affects)
						got, err := s.BankOverview(ctx, p)
						if err != nil {
							t.Fatalf("%s: %v", name, err)
						}
						want := expected(bs, p)
						if len(got.Data) != len(want) {
							t.Fatalf("%s: %d rows, want %d", name, len(got.Data), len(want))
						}
						for i := range want {
							if !reflect.DeepEqual(got.Data[i], want[i]) {
								t.Fatalf("%s: row %d\n got %v\nwant %v", name, i, got.Data[i], want[i])
							}
						}
						if len(want) > 0 && got.Data[len(got.Data)-1][KeyPeriod] != RowTotal {
							t.Fatalf("%s: RowTotal is not last", name)
						}
					}
				}
			}
		}
	}
}

// TestPivotShapes checks what the comparison above takes for granted: the
// labels of each grouping, weeks across a year boundary, empty periods, the
// column order and an empty answer.
func TestPivotShapes(t *testing.T) {
	s := New(pgtest.New(t), 0)
	c := func(v int64) *int64 { return &v }
	bs := []booking{
		{date: day("2024-12-29"), dir: "IN", actor: str("Card"), distRvn: str("Yes"), affects: str("Yes"), cents: c(100)},
		{date: day("2024-12-30"), dir: "IN", actor: str("Card"), distRvn: str("Yes"), affects: str("Yes"), cents: c(250)},
		{date: day("2025-01-05"), dir: "IN", actor: str("Bank"), distRvn: str("Yes"), affects: str("Yes"), cents: c(1)},
		{date: day("2025-03-02"), dir: "IN", distRvn: str("Yes"), affects: str("Yes"), cents: c(7)},
	}
	insertBookings(t, s, bs)
	ctx := context.Background()
	periodsOf := func(o *Overview) string {
		var ps []string
		for _, r := range o.Data {
			ps = append(ps, fmt.Sprint(r[KeyPeriod]))
		}
		return strings.Join(ps, " ")
	}
	for _, tt := range []struct {
		g    Grouping
		want string
	}{
		{Year, "2024 2025 RowTotal"},
		{HalfYear, "2024-H2 2025-H1 RowTotal"},
		{Quarter, "2024-Q4 2025-Q1 RowTotal"},
		{Month, "2024-12 2025-01 2025-02 2025-03 RowTotal"},
		{Week, "2024-W52 2025-W01 2025-W02 2025-W03 2025-W04 2025-W05 2025-W06 2025-W07 2025-W08 2025-W09 RowTotal"},
	} {
		o, err := s.BankOverview(ctx, Params{DateGrouping: tt.g})
		if err != nil {
			t.Fatal(err)
		}
		if got := periodsOf(o); got != tt.want {
			t.Errorf("%s: periods %q, want %q", tt.g, got, tt.want)
		}
	}
	o, err := s.BankOverview(ctx, Params{DateGrouping: Week})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, col := range o.Columns {
		keys = append(keys, col.Key)
	}
	if got := strings.Join(keys, ","); got != "Period,Bank,Card,(none),Total" {
		t.Errorf("columns %s", got)
	}
	w1 := o.Data[1]
	if w1[KeyPeriodFrom] != "2024-12-30" || w1[KeyPeriodTo] != "2025-01-05" || w1["Card"] != "2.50" || w1["Bank"] != "0.01" || w1[KeyTotal] != "2.51" {
		t.Errorf("2025-W01 across the year boundary: %v", w1)
	}
	if empty := o.Data[2]; empty[KeyTotal] != nil || empty["Card"] != nil {
		t.Errorf("a week without bookings has empty cells: %v", empty)
	}
	if last := o.Data[len(o.Data)-1]; last[KeyTotal] != "3.58" || last[KeyNoActor] != "0.07" {
		t.Errorf("RowTotal %v", last)
	}
	none, err := s.BankOverview(ctx, Params{InOut: "Out"})
	if err != nil {
		t.Fatal(err)
	}
	if len(none.Data) != 0 || len(none.Columns) != 2 {
		t.Errorf("no bookings: %d rows, columns %v", len(none.Data), none.Columns)
	}
}

func day(s string) time.Time {
	d, _ := time.Parse(time.DateOnly, s)
	return d
}

func TestParams(t *testing.T) {
	for _, tt := range []struct {
		in    Params
		want  Params
		field string
	}{
		{Params{}, Defaults, ""},
		{Params{InOut: "out", DistribRvn: "ALL", DateGrouping: "half year"}, Params{InOut: "Out", DistribRvn: "All", DistribDriver: "All", AffectsBalance: "Yes", DateGrouping: HalfYear}, ""},
		{Params{DateGrouping: "week"}, Params{InOut: "In", DistribRvn: "Yes", DistribDriver: "All", AffectsBalance: "Yes", DateGrouping: Week}, ""},
		{Params{InOut: "sideways"}, Params{}, "inOutFilter"},
		{Params{DistribRvn: "maybe"}, Params{}, "distribRvnFilter"},
		{Params{DistribDriver: "1"}, Params{}, "distribDriverFilter"},
		{Params{AffectsBalance: "x"}, Params{}, "affectsBalanceFilter"},
		{Params{DateGrouping: "Fortnight"}, Params{}, "dateGroupingType"},
	} {
		got, err := tt.in.Normalize()
		if tt.field != "" {
			e, ok := err.(*engine.Error)
			if !ok || e.Field != tt.field || e.Code != engine.CodeInvalid || e.Key != "reports.badParameter" {
				t.Errorf("%+v: error %v, want invalid %s", tt.in, err, tt.field)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%+v: %+v, %v", tt.in, got, err)
		}
	}
	if n := (Params{InOut: "Out", DistribRvn: "Yes", DistribDriver: "All", AffectsBalance: "No", DateGrouping: Day}).Differing(); n != 3 {
		t.Errorf("differing %d, want 3", n)
	}
}

// TestDailySumsFollowEveryWrite: the sums the pivot reads (bank_booking_day)
// stay equal to the bookings through updates of every summed column,
// deletes, a reprocess-sized update, and a truncate.
func TestDailySumsFollowEveryWrite(t *testing.T) {
	s := New(pgtest.New(t), 0)
	insertBookings(t, s, testBookings())
	ctx := context.Background()
	exec := func(sql string) {
		t.Helper()
		if _, err := s.pool.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	// A fresh aggregate of the bookings, the other way round from the triggers.
	same := func(step string) {
		t.Helper()
		var diff int
		if err := s.pool.QueryRow(ctx, `
			with fresh as (
				select in_or_out, affects_balance, dist_rvn_settle, distr_driver, booked_date, actor,
				       count(*) as bookings, coalesce(sum(in_usd), 0) as in_usd, count(in_usd) as in_count,
				       coalesce(sum(out_usd), 0) as out_usd, count(out_usd) as out_count
				from bank_booking where in_or_out is not null group by 1, 2, 3, 4, 5, 6)
			select count(*) from ((select * from fresh except select * from bank_booking_day)
			                      union all (select * from bank_booking_day except select * from fresh)) d`).Scan(&diff); err != nil {
			t.Fatal(err)
		}
		if diff != 0 {
			t.Fatalf("%s: %d rows of the daily sums differ from the bookings", step, diff)
		}
		// And the pivot against the test's own sums of the bookings as they are now.
		rows, err := s.pool.Query(ctx, `select booked_date, in_or_out, actor, dist_rvn_settle, distr_driver, affects_balance,
			(coalesce(in_usd, out_usd) * 100)::bigint from bank_booking where in_or_out is not null`)
		if err != nil {
			t.Fatal(err)
		}
		var bs []booking
		for rows.Next() {
			var b booking
			if err := rows.Scan(&b.date, &b.dir, &b.actor, &b.distRvn, &b.driver, &b.affects, &b.cents); err != nil {
				t.Fatal(err)
			}
			bs = append(bs, b)
		}
		for _, p := range []Params{{DateGrouping: Week}, {InOut: "Out", DistribRvn: "All", AffectsBalance: "No", DateGrouping: Day}} {
			p, _ = p.Normalize()
			got, err := s.BankOverview(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			if want := expected(bs, p); !reflect.DeepEqual(got.Data, want) && !(len(got.Data) == 0 && len(want) == 0) {
				t.Fatalf("%s: %+v: pivot differs from the bookings\n got %v\nwant %v", step, p, got.Data, want)
			}
		}
	}
	same("inserted")
	exec(`update bank_booking set actor = 'Bank' where id % 7 = 0`)
	same("actors changed")
	exec(`update bank_booking set in_usd = in_usd + 1.01 where id % 5 = 0 and in_or_out = 'IN'`)
	exec(`update bank_booking set affects_balance = null, dist_rvn_settle = 'Yes' where id % 11 = 0`)
	same("amounts and flags changed")
	exec(`update bank_booking set booked_date = booked_date + 40 where id % 13 = 0`)
	exec(`update bank_booking set in_or_out = null where id % 17 = 0`)
	same("dates moved, some no longer processed")
	exec(`delete from bank_booking where id % 3 = 0`)
	same("a third deleted")
	exec(`update bank_booking set comments = 'touched'`)
	same("every row updated")
	exec(`truncate bank_booking`)
	same("truncated")
}
