package recon

import (
	"slices"
	"testing"
)

// openLeft is the exception queue's left records of level l, by id.
func (f *fixture) openLeft(l *Level) []int64 {
	f.t.Helper()
	rows, err := f.pool.Query(f.ctx, `select record_id from recon_open_item where level = $1 and side = 'left' order by record_id`, l.N)
	if err != nil {
		f.t.Fatal(err)
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			f.t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		f.t.Fatal(err)
	}
	return ids
}

// A run's end reads its unseen ranges span by span, ranges far apart as
// spans of their own (recon_open_put, mode 'unseen'): each open record of
// each span gets its row once, the matched ones none, and the ranges go.
func TestRunEndPutsUnseenRangesFarApart(t *testing.T) {
	f := newFixture(t)
	f.tolerance("nuvei", 1, "0", 3, "")
	near := f.ticket("1000000000001", "10.00", "USD", "2026-04-01") // no transaction: open
	f.exec(`alter table ticket alter column id restart with 5000000`)
	far := f.ticket("1000000000002", "20.00", "USD", "2026-04-01")
	f.ticket("1000000000003", "30.00", "USD", "2026-04-01")
	f.transaction("1000000000003", "Nuvei", "30.00", "USD", "2026-04-01")

	var spread int64
	if err := f.pool.QueryRow(f.ctx, `select max(lo) - min(hi) from recon_unseen where level = 1 and side = 'left'`).Scan(&spread); err != nil {
		t.Fatal(err)
	}
	if spread < 1_000_000 {
		t.Fatalf("the tickets' ranges should lie millions of ids apart, %d apart", spread)
	}
	f.auto(Levels[0])
	if got, want := f.openLeft(Levels[0]), []int64{near, far}; !slices.Equal(got, want) {
		t.Errorf("open tickets after the run: %v, want %v (the pair matched)", got, want)
	}
	var left int
	if err := f.pool.QueryRow(f.ctx, `select count(*) from recon_unseen where level = 1`).Scan(&left); err != nil {
		t.Fatal(err)
	}
	if left != 0 {
		t.Errorf("the run took its ranges in: %d ranges of level 1 left", left)
	}
	// A second run changes nothing.
	f.auto(Levels[0])
	if got, want := f.openLeft(Levels[0]), []int64{near, far}; !slices.Equal(got, want) {
		t.Errorf("open tickets after a second run: %v, want %v", got, want)
	}
}
