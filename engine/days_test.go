package engine

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestDaysColumns checks the days type (the exception queue's age and days
// overdue) against ages computed here in Go: each row's value, every filter
// operator it offers, and both sorts, which must order by age with the
// rows of one age in a stable order.
func TestDaysColumns(t *testing.T) {
	f := newFixture(t)
	// ages -3..36 days (a negative age: a date still ahead), every fifth
	// row without a due date; the due date is 10 days after the date
	type item struct {
		id      int64
		age     int
		overdue *int
	}
	var items []item
	for i := 0; i < 80; i++ {
		age := i%40 - 3
		var overdue *int
		due := "current_date - $1::int + 10"
		if i%5 == 0 {
			due = "null::date + $1::int * 0"
		} else {
			o := age - 10
			overdue = &o
		}
		var id int64
		if err := f.pool.QueryRow(f.ctx, fmt.Sprintf(`insert into recon_open_item (level, side, record_id, kind, ref, date, amount, currency, status, due_on)
			values (1, 'left', $2::bigint, 'ticket', 'T' || $2::text, current_date - $1::int, 10, 'USD', 'unmatched', %s) returning id`, due), age, i).Scan(&id); err != nil {
			t.Fatal(err)
		}
		items = append(items, item{id, age, overdue})
	}
	ids := func(req GridRequest) []int64 {
		t.Helper()
		req.ViewName, req.PageSize = "VW_ReconOpenItems", 500
		p, err := f.e.Page(f.ctx, req)
		if err != nil {
			t.Fatalf("%+v: %v", req.Filters, err)
		}
		var out []int64
		for _, r := range p.Rows() {
			out = append(out, r["Id"].(int64))
			want := items[slices.IndexFunc(items, func(it item) bool { return it.id == r["Id"].(int64) })]
			if r["AgeDays"] != int64(want.age) {
				t.Errorf("row %d: AgeDays %v, want %d", want.id, r["AgeDays"], want.age)
			}
			if want.overdue == nil && r["OverdueDays"] != nil || want.overdue != nil && r["OverdueDays"] != int64(*want.overdue) {
				t.Errorf("row %d: OverdueDays %v, want %v", want.id, r["OverdueDays"], want.overdue)
			}
		}
		if int64(len(out)) != p.TotalCount {
			t.Errorf("%+v: %d rows, total %d", req.Filters, len(out), p.TotalCount)
		}
		return out
	}
	where := func(keep func(it item) bool) []int64 {
		var out []int64
		for _, it := range items {
			if keep(it) {
				out = append(out, it.id)
			}
		}
		slices.Sort(out)
		return out
	}
	sorted := func(xs []int64) []int64 { xs = slices.Clone(xs); slices.Sort(xs); return xs }
	cases := []struct {
		cond Cond
		keep func(it item) bool
	}{
		{Cond{"AgeDays", OpEquals, 7}, func(it item) bool { return it.age == 7 }},
		{Cond{"AgeDays", OpLt, 3}, func(it item) bool { return it.age < 3 }},
		{Cond{"AgeDays", OpLte, 3}, func(it item) bool { return it.age <= 3 }},
		{Cond{"AgeDays", OpGt, 30}, func(it item) bool { return it.age > 30 }},
		{Cond{"AgeDays", OpGte, "30"}, func(it item) bool { return it.age >= 30 }},
		{Cond{"AgeDays", OpBetween, []any{3, 7}}, func(it item) bool { return it.age >= 3 && it.age <= 7 }},
		{Cond{"AgeDays", OpGte, -2}, func(it item) bool { return it.age >= -2 }},
		{Cond{"OverdueDays", OpGt, 0}, func(it item) bool { return it.overdue != nil && *it.overdue > 0 }},
		{Cond{"OverdueDays", OpLte, 0}, func(it item) bool { return it.overdue != nil && *it.overdue <= 0 }},
		{Cond{"OverdueDays", OpIsEmpty, nil}, func(it item) bool { return it.overdue == nil }},
		{Cond{"OverdueDays", OpIsNotEmpty, nil}, func(it item) bool { return it.overdue != nil }},
	}
	for _, c := range cases {
		if got, want := sorted(ids(GridRequest{Filters: []Cond{c.cond}})), where(c.keep); !slices.Equal(got, want) {
			t.Errorf("%s %s %v: got %v, want %v", c.cond.Field, c.cond.Op, c.cond.Value, got, want)
		}
	}
	// in: the rows of the ages listed
	if got, want := sorted(ids(GridRequest{Filters: []Cond{{"AgeDays", OpIn, []any{0, 5, 36}}}})),
		where(func(it item) bool { return it.age == 0 || it.age == 5 || it.age == 36 }); !slices.Equal(got, want) {
		t.Errorf("in: got %v, want %v", got, want)
	}
	for _, order := range []string{"asc", "desc"} {
		got := ids(GridRequest{SortField: "AgeDays", SortOrder: order})
		if len(got) != len(items) {
			t.Fatalf("sort %s: %d rows", order, len(got))
		}
		for i := 1; i < len(got); i++ {
			a, b := items[got[i-1]-items[0].id], items[got[i]-items[0].id]
			if order == "asc" && a.age > b.age || order == "desc" && a.age < b.age {
				t.Errorf("sort %s: age %d before %d", order, a.age, b.age)
			}
		}
		// paging by 7 gives the same order, each row once
		var paged []int64
		for page := 0; page < len(items); page += 7 {
			p, err := f.e.Page(f.ctx, GridRequest{ViewName: "VW_ReconOpenItems", SortField: "AgeDays", SortOrder: order, PageNumber: page, PageSize: 7})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range p.Rows() {
				paged = append(paged, r["Id"].(int64))
			}
		}
		if !slices.Equal(paged, got) {
			t.Errorf("sort %s: pages of 7 give another order", order)
		}
	}
	// a sort by days is the date's sort reversed, the key too, so the btree
	// on (date, id) serves it in either direction
	for order, want := range map[string]string{"asc": `ORDER BY "date" DESC, "id" DESC`, "desc": `ORDER BY "date" ASC, "id" ASC`} {
		q, err := f.e.SQL(f.ctx, GridRequest{ViewName: "VW_ReconOpenItems", SortField: "AgeDays", SortOrder: order})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(q.Page, want) {
			t.Errorf("sort %s: %s, want %s", order, q.Page, want)
		}
	}
	for _, bad := range []Cond{{"AgeDays", OpEquals, "old"}, {"AgeDays", OpEquals, 5_000_000}, {"AgeDays", OpContains, "1"}, {"AgeDays", OpBetween, []any{1}}} {
		if _, err := f.e.Page(f.ctx, GridRequest{ViewName: "VW_ReconOpenItems", Filters: []Cond{bad}}); codeOf(err) != CodeInvalid {
			t.Errorf("filter %+v: %v, want an invalid-request error", bad, err)
		}
	}
}
