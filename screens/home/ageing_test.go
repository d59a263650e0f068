package home

import (
	"context"
	"testing"
	"time"

	"ledgerdesk/engine"
	"ledgerdesk/internal/pgtest"
)

// TestAgeingCountsTheQueue checks Home's ageing figures against ages
// counted here: open items of every age from 5 days ahead to 60 days old,
// some past their SLA, with the buckets of recon.yaml and with others.
func TestAgeingCountsTheQueue(t *testing.T) {
	pool := pgtest.New(t)
	ctx := context.Background()
	now := time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)
	today := time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC)
	type item struct{ age, overdueBy int } // overdueBy > 0: past its SLA
	var items []item
	for i := 0; i < 200; i++ {
		it := item{age: i%66 - 5, overdueBy: i%7 - 3}
		items = append(items, it)
		due := today.AddDate(0, 0, -it.overdueBy)
		must(t, pool, `insert into recon_open_item (level, side, record_id, kind, ref, date, amount, currency, status, due_on)
			values (1 + $1::int % 3, 'left', $1::bigint, 'ticket', 'r', $2::date, 1, 'USD', 'unmatched', $3::date)`,
			i, today.AddDate(0, 0, -it.age).Format(time.DateOnly), due.Format(time.DateOnly))
	}
	reconcilers := &engine.Actor{Screens: map[int]bool{1: true, 13: true}}
	for _, buckets := range [][]int{nil, {2, 7, 30}, {0, 1, 10, 45}} {
		s := New(pool, testLevels(t), nil)
		s.Now = func() time.Time { return now }
		s.AgeBuckets = buckets
		f, err := s.Home(ctx, reconcilers, now)
		if err != nil {
			t.Fatal(err)
		}
		limits := buckets
		if limits == nil {
			limits = []int{2, 7, 30}
		}
		want := make([]int64, len(limits)+1)
		var overdue int64
		for _, it := range items {
			b := len(limits)
			for i, l := range limits {
				if it.age <= l {
					b = i
					break
				}
			}
			want[b]++
			if it.overdueBy > 0 {
				overdue++
			}
		}
		a := f.Ageing
		if a == nil || a.Open != int64(len(items)) || a.Overdue != overdue || len(a.Buckets) != len(want) {
			t.Fatalf("buckets %v: %+v, want %d open, %d overdue, counts %v", buckets, a, len(items), overdue, want)
		}
		from := 0
		for i, b := range a.Buckets {
			if b.Count != want[i] || b.From != from || (i < len(limits)) != (b.To != nil) || b.To != nil && *b.To != limits[i] {
				t.Errorf("buckets %v, bucket %d: %+v, want from %d count %d", buckets, i, b, from, want[i])
			}
			if i < len(limits) {
				from = limits[i] + 1
			}
		}
	}
	// Without the Reconcile screen there is no ageing.
	s := New(pool, testLevels(t), nil)
	f, err := s.Home(ctx, &engine.Actor{Screens: map[int]bool{1: true}}, now)
	if err != nil || f.Ageing != nil {
		t.Errorf("home only: %+v %v", f.Ageing, err)
	}
}
