package recon

import (
	"encoding/json"
	"fmt"
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

// planRows is the rows each scan of table read in the plan of sql, run
// (EXPLAIN ANALYZE, JSON): actual rows times loops, per scan node.
func (f *fixture) planRows(table, sql string, args ...any) []int {
	f.t.Helper()
	var plan []struct {
		Plan json.RawMessage `json:"Plan"`
	}
	var text []byte
	if err := f.pool.QueryRow(f.ctx, `explain (analyze, format json) `+sql, args...).Scan(&text); err != nil {
		f.t.Fatal(err)
	}
	if err := json.Unmarshal(text, &plan); err != nil || len(plan) == 0 {
		f.t.Fatalf("plan of %s: %v", sql, err)
	}
	type node struct {
		Relation string  `json:"Relation Name"`
		Rows     float64 `json:"Actual Rows"`
		Loops    float64 `json:"Actual Loops"`
		Plans    []node  `json:"Plans"`
	}
	var root node
	if err := json.Unmarshal(plan[0].Plan, &root); err != nil {
		f.t.Fatal(err)
	}
	var out []int
	var walk func(n node)
	walk = func(n node) {
		if n.Relation == table {
			out = append(out, int(n.Rows*n.Loops))
		}
		for _, c := range n.Plans {
			walk(c)
		}
	}
	walk(root)
	return out
}

// A join with recon_match_live reads the live matches of the joined
// records, not every match of the level (the view's branches take the
// join's condition to their indexes: migration 00048). Read whole, a report
// row's details took 860 ms beside a million matches.
func TestJoinWithLiveMatchesReadsOnlyItsRecords(t *testing.T) {
	f := newFixture(t)
	for _, p := range []string{"Nuvei", "Amex"} {
		f.tolerance(p, 1, "1.00", 2, "")
	}
	f.importDocuments("seed", 1, 3000)
	f.auto(Levels[0])
	f.exec(`analyze`)
	var matches int
	if err := f.pool.QueryRow(f.ctx, `select count(*) from recon_match where level = 1 and undone_on is null`).Scan(&matches); err != nil {
		t.Fatal(err)
	}
	if matches < 2000 {
		t.Fatalf("the run should match most of 3000 tickets, matched %d", matches)
	}
	for _, side := range []string{"left", "right"} {
		source := map[string]string{"left": "ticket", "right": "card_transaction"}[side]
		sql := fmt.Sprintf(`select s.id, m.status, m.id from (select id from %s order by id limit 3) s
			left join recon_match_live m on m.level = 1 and m.side = $1 and m.record_id = s.id`, source)
		for _, read := range f.planRows("recon_match", sql, side) {
			if read > 3 {
				t.Errorf("%s: a join of 3 records with recon_match_live read %d of the %d matches", side, read, matches)
			}
		}
	}
}
