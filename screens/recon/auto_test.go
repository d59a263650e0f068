package recon

import (
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// want is what a left record should end with after reconciliation: its
// partner (0: unmatched), status, rule, variance and date lag.
type want struct {
	name     string
	level    *Level
	left     int64
	right    int64
	status   string
	rule     string
	variance string
	lag      int
}

func (f *fixture) check(cases []want) {
	f.t.Helper()
	for _, c := range cases {
		m := f.live(c.level, c.left)
		switch {
		case c.right == 0 && m != nil:
			f.t.Errorf("%s: left %d should be unmatched, is matched to %d (%s %s)", c.name, c.left, m.RightID, m.Status, m.Rule)
		case c.right == 0:
		case m == nil:
			f.t.Errorf("%s: left %d should be matched to %d, is unmatched", c.name, c.left, c.right)
		case m.RightID != c.right || m.Status != c.status || m.Rule != c.rule || deref(m.AmountVariance) != c.variance || m.DateLagDays == nil || *m.DateLagDays != c.lag:
			f.t.Errorf("%s: got right %d %s %s variance %s lag %v; want right %d %s %s variance %s lag %d", c.name,
				m.RightID, m.Status, m.Rule, deref(m.AmountVariance), derefInt(m.DateLagDays), c.right, c.status, c.rule, c.variance, c.lag)
		}
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

func derefInt(i *int) any {
	if i == nil {
		return nil
	}
	return *i
}

// TestAutoReconcileCases builds one small data set holding every case
// reconciliation meets, each in its own rows, runs the three levels and
// checks each record's partner, status, rule, variance and lag against
// what was worked out by hand from DESIGN.md section 6.
func TestAutoReconcileCases(t *testing.T) {
	f := newFixture(t)
	l1, l2, l3 := Levels[0], Levels[1], Levels[2]

	// Tolerances. Zeta has no row: zero tolerance, same currency only.
	f.tolerance("Nuvei", 1, "1.00", 2, "2.00")
	f.tolerance("Amex", 1, "0.50", 1, "")
	f.tolerance("Nuvei", 2, "1.00", 3, "2.00")
	f.tolerance("Nuvei", 3, "5.00", 2, "")
	f.rate("EUR", "2026-10-01", "1.10")
	f.rate("GBP", "2026-09-30", "1.25")
	f.rate("GBP", "2026-10-20", "1.40") // later than every record: never used

	tk := func(n int) string {
		return "9000000000" + string(rune('0'+n/100)) + string(rune('0'+n/10%10)) + string(rune('0'+n%10))
	}
	var cases []want
	add := func(w want) { cases = append(cases, w) }

	// Level 1: tickets vs transactions.
	t1 := f.ticket(tk(1), "100.00", "USD", "2026-10-05")
	x1 := f.transaction(tk(1), "Nuvei", "100.00", "USD", "2026-10-05")
	add(want{"exact", l1, t1, x1, "matched", "exact", "0.00", 0})

	t2 := f.ticket(tk(2), "50.00", "USD", "2026-10-05")
	x2 := f.transaction(tk(2), "Nuvei", "50.00", "USD", "2026-10-07")
	add(want{"date lag inside", l1, t2, x2, "matched", "date", "0.00", 2})

	t3 := f.ticket(tk(3), "50.00", "USD", "2026-10-05")
	f.transaction(tk(3), "Nuvei", "50.00", "USD", "2026-10-08")
	add(want{"date lag outside", l1, t3, 0, "", "", "", 0})

	t4 := f.ticket(tk(4), "100.00", "USD", "2026-10-05")
	x4 := f.transaction(tk(4), "Nuvei", "100.80", "USD", "2026-10-05")
	add(want{"amount inside", l1, t4, x4, "partial", "amount", "-0.80", 0})

	t5 := f.ticket(tk(5), "100.00", "USD", "2026-10-05")
	f.transaction(tk(5), "Nuvei", "101.50", "USD", "2026-10-05")
	add(want{"amount outside", l1, t5, 0, "", "", "", 0})

	t6 := f.ticket(tk(6), "100.00", "USD", "2026-10-05")
	x6 := f.transaction(tk(6), "Nuvei", "101.00", "USD", "2026-10-05")
	add(want{"amount on the tolerance", l1, t6, x6, "partial", "amount", "-1.00", 0})

	// 100.50 EUR at 1.10 = 110.55 USD against 110.00: 0.5 %, inside 2 %.
	t7 := f.ticket(tk(7), "110.00", "USD", "2026-10-05")
	x7 := f.transaction(tk(7), "Nuvei", "100.50", "EUR", "2026-10-05")
	add(want{"other currency inside", l1, t7, x7, "partial", "fx", "-0.55", 0})

	// 95 EUR = 104.50 USD against 110: 5 %, outside 2 %.
	t8 := f.ticket(tk(8), "110.00", "USD", "2026-10-05")
	f.transaction(tk(8), "Nuvei", "95.00", "EUR", "2026-10-05")
	add(want{"other currency outside", l1, t8, 0, "", "", "", 0})

	t9 := f.ticket(tk(9), "110.00", "USD", "2026-10-05")
	f.transaction(tk(9), "Amex", "100.00", "EUR", "2026-10-05")
	add(want{"other currency, no currency tolerance", l1, t9, 0, "", "", "", 0})

	// GBP on 2026-10-05 takes the rate of 2026-09-30 (1.25): 100 GBP = 125 USD.
	t10 := f.ticket(tk(10), "125.00", "USD", "2026-10-05")
	x10 := f.transaction(tk(10), "Nuvei", "100.00", "GBP", "2026-10-05")
	add(want{"rate of the latest earlier day", l1, t10, x10, "partial", "fx", "0.00", 0})

	t11 := f.ticket(tk(11), "100.00", "USD", "2026-10-05")
	x11 := f.transaction(tk(11), "Zeta", "100.00", "USD", "2026-10-05")
	add(want{"no config row, exact", l1, t11, x11, "matched", "exact", "0.00", 0})
	t12 := f.ticket(tk(12), "100.00", "USD", "2026-10-05")
	f.transaction(tk(12), "Zeta", "100.01", "USD", "2026-10-05")
	add(want{"no config row, a cent off", l1, t12, 0, "", "", "", 0})
	t13 := f.ticket(tk(13), "100.00", "USD", "2026-10-05")
	f.transaction(tk(13), "Zeta", "100.00", "USD", "2026-10-06")
	add(want{"no config row, a day off", l1, t13, 0, "", "", "", 0})

	t14 := f.ticket(tk(14), "70.00", "USD", "2026-10-05")
	add(want{"ticket without transaction", l1, t14, 0, "", "", "", 0})
	x15 := f.transaction(tk(15), "Nuvei", "70.00", "USD", "2026-10-05")

	t16 := f.ticket(tk(16), "100.00", "USD", "2026-10-05")
	x16a := f.transaction(tk(16), "Nuvei", "100.50", "USD", "2026-10-05")
	x16b := f.transaction(tk(16), "Nuvei", "100.20", "USD", "2026-10-05")
	add(want{"two candidates, the closer amount wins", l1, t16, x16b, "partial", "amount", "-0.20", 0})
	t17 := f.ticket(tk(17), "100.00", "USD", "2026-10-05")
	f.transaction(tk(17), "Nuvei", "100.30", "USD", "2026-10-06")
	x17b := f.transaction(tk(17), "Nuvei", "100.30", "USD", "2026-10-05")
	add(want{"two candidates, the smaller lag wins", l1, t17, x17b, "partial", "amount", "-0.30", 0})
	t18a := f.ticket(tk(18), "100.00", "USD", "2026-10-05")
	t18b := f.ticket(tk(18), "100.00", "USD", "2026-10-05")
	x18 := f.transaction(tk(18), "Nuvei", "100.00", "USD", "2026-10-05")
	add(want{"two equal tickets, the lower id wins", l1, t18a, x18, "matched", "exact", "0.00", 0})
	add(want{"two equal tickets, the other stays", l1, t18b, 0, "", "", "", 0})

	t19 := f.ticket(tk(19), "-50.00", "USD", "2026-10-05")
	x19 := f.transaction(tk(19), "Nuvei", "-50.00", "USD", "2026-10-05")
	add(want{"refund exact", l1, t19, x19, "matched", "exact", "0.00", 0})
	t20 := f.ticket(tk(20), "-50.00", "USD", "2026-10-05")
	x20 := f.transaction(tk(20), "Nuvei", "-50.60", "USD", "2026-10-05")
	add(want{"refund inside", l1, t20, x20, "partial", "amount", "0.60", 0})

	// Matched by hand before the run: left alone, and its partner is taken.
	t21 := f.ticket(tk(21), "100.00", "USD", "2026-10-05")
	x21 := f.transaction(tk(21), "Nuvei", "180.00", "USD", "2026-10-09")
	t22 := f.ticket(tk(22), "40.00", "USD", "2026-10-05")
	x22 := f.transaction(tk(22), "Nuvei", "40.00", "USD", "2026-10-05")
	t23 := f.ticket(tk(23), "45.00", "USD", "2026-10-05")
	if _, err := f.svc.MatchByHand(f.ctx, l1, MatchRequest{LeftID: t21, RightID: x21}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.MatchByHand(f.ctx, l1, MatchRequest{LeftID: t23, RightID: x22}); err != nil {
		t.Fatal(err)
	}
	add(want{"matched by hand stays", l1, t21, x21, "matched", "manual", "-80.00", 4})
	add(want{"partner taken by hand", l1, t22, 0, "", "", "", 0})

	// A manual adjustment is not a provider's record: never auto-matched.
	t25 := f.ticket(tk(25), "12.00", "USD", "2026-10-05")
	f.exec(`insert into task (task_name) values ('adjust')`)
	f.exec(`insert into card_transaction (client_unique_id, processing_date, provider_actor, currency, transaction_amount, is_manual_adjust, task_id,
		adjusted_ticket_id) values ($1, '2026-10-05', 'Manual adjustment', 'USD', 12.00, true, (select max(id) from task), $2)`, tk(25), t25)
	add(want{"manual adjustment not matched", l1, t25, 0, "", "", "", 0})

	// Level 2: transactions vs settlements.
	c := func(n int) string { return "C" + tk(n) }
	x30 := f.transaction(c(30), "Nuvei", "200.00", "EUR", "2026-10-05")
	s30 := f.settlement("PO-A", c(30), "Nuvei", "EUR", "2026-10-06", "200.00", "5.00", "195.00")
	add(want{"L2 date inside", l2, x30, s30, "matched", "date", "0.00", 1})
	x31 := f.transaction(c(31), "Nuvei", "200.00", "EUR", "2026-10-05")
	f.settlement("PO-A", c(31), "Amex", "EUR", "2026-10-06", "200.00", "5.00", "195.00")
	add(want{"L2 other provider", l2, x31, 0, "", "", "", 0})
	x32 := f.transaction(c(32), "Nuvei", "200.00", "EUR", "2026-10-05")
	s32 := f.settlement("PO-A", c(32), "Nuvei", "EUR", "2026-10-05", "", "5.00", "195.00")
	add(want{"L2 gross from net and fees", l2, x32, s32, "matched", "exact", "0.00", 0})
	x33 := f.transaction(c(33), "Nuvei", "100.00", "GBP", "2026-10-05")
	s33 := f.settlement("PO-B", c(33), "Nuvei", "USD", "2026-10-07", "124.00", "3.00", "121.00")
	add(want{"L2 other currency inside", l2, x33, s33, "partial", "fx", "0.80", 2})
	x34 := f.transaction(c(34), "Nuvei", "200.00", "EUR", "2026-10-05")
	f.settlement("PO-A", c(34), "Nuvei", "EUR", "2026-10-05", "202.00", "5.00", "197.00")
	add(want{"L2 amount outside", l2, x34, 0, "", "", "", 0})

	// Level 3: payouts vs bank bookings.
	f.settlement("PO-1", c(40), "Nuvei", "EUR", "2026-10-06", "102.00", "2.00", "100.00")
	f.settlement("PO-1", c(41), "Nuvei", "EUR", "2026-10-07", "51.00", "1.00", "50.00")
	b1 := f.booking("148.00", "2.00", "EUR", "2026-10-08", "Nuvei", "")
	f.settlement("PO-2", c(42), "Nuvei", "EUR", "2026-10-06", "306.00", "6.00", "300.00")
	b2 := f.booking("296.00", "", "EUR", "2026-10-06", "Nuvei", "")
	f.settlement("PO-3", c(43), "Nuvei", "EUR", "2026-10-06", "80.00", "0.00", "80.00")
	f.settlement("PO-4", c(44), "Nuvei", "USD", "2026-10-06", "100.00", "0.00", "100.00")
	f.booking("100.00", "", "EUR", "2026-10-06", "Nuvei", "")
	f.settlement("PO-5", c(45), "Nuvei", "EUR", "2026-10-09", "77.00", "0.00", "77.00")
	f.booking("77.00", "", "EUR", "2026-10-09", "Amex", "")
	b5 := f.booking("77.00", "", "EUR", "2026-10-10", "Amex", "Nuvei")
	f.settlement("PO-6", c(46), "Nuvei", "EUR", "2026-10-12", "60.00", "0.00", "60.00")
	b6 := f.booking("60.00", "", "EUR", "2026-10-10", "Nuvei", "") // booked before the payout's last settlement
	f.settlement("PO-7", c(47), "Nuvei", "EUR", "2026-10-12", "90.00", "0.00", "90.00")
	f.booking("90.00", "", "EUR", "2026-10-15", "Nuvei", "") // three days after: outside two

	for _, l := range Levels {
		f.auto(l)
	}
	p := f.payoutID
	add(want{"L3 payout of two settlements with bank charges", l3, p("PO-1"), b1, "matched", "date", "0.00", 1})
	add(want{"L3 inside the amount tolerance", l3, p("PO-2"), b2, "partial", "amount", "4.00", 0})
	add(want{"L3 payout without booking", l3, p("PO-3"), 0, "", "", "", 0})
	add(want{"L3 booking in another currency", l3, p("PO-4"), 0, "", "", "", 0})
	add(want{"L3 the manual provider wins", l3, p("PO-5"), b5, "matched", "date", "0.00", 1})
	add(want{"L3 booked two days early", l3, p("PO-6"), b6, "matched", "date", "0.00", 2})
	add(want{"L3 booked a day too late", l3, p("PO-7"), 0, "", "", "", 0})
	f.check(cases)

	for _, right := range []int64{x15, x16a} {
		if m := f.liveRight(l1, right); m != nil {
			t.Errorf("transaction %d should be unmatched, is matched to %d", right, m.LeftID)
		}
	}

	// Undo an automatic match, run again: the undone pair is not made
	// again, the record takes its next candidate, and the undone row stays.
	t24 := f.ticket(tk(24), "100.00", "USD", "2026-10-05")
	x24a := f.transaction(tk(24), "Nuvei", "100.00", "USD", "2026-10-05")
	x24b := f.transaction(tk(24), "Nuvei", "100.40", "USD", "2026-10-05")
	f.auto(l1)
	f.check([]want{{"before undo", l1, t24, x24a, "matched", "exact", "0.00", 0}})
	first := f.live(l1, t24)
	if _, err := f.svc.Undo(f.ctx, l1, first.ID, "wrong booking day"); err != nil {
		t.Fatal(err)
	}
	f.auto(l1)
	f.check([]want{{"after undo and auto", l1, t24, x24b, "partial", "amount", "-0.40", 0}})
	var undone int
	if err := f.pool.QueryRow(f.ctx, `select count(*) from recon_match where id = $1 and undone_by = 'rita' and undo_reason = 'wrong booking day'`, first.ID).Scan(&undone); err != nil || undone != 1 {
		t.Errorf("the undone match should stay with who and why: %d %v", undone, err)
	}
}

// TestAutoReconcileIsIdempotent: a second run of each level matches nothing
// new and changes no match.
func TestAutoReconcileIsIdempotent(t *testing.T) {
	f := newFixture(t)
	f.tolerance("Nuvei", 1, "1.00", 2, "")
	f.tolerance("Nuvei", 2, "1.00", 2, "")
	f.tolerance("Nuvei", 3, "1.00", 2, "")
	for i := 0; i < 40; i++ {
		n := "80000000000" + string(rune('0'+i/10)) + string(rune('0'+i%10))
		f.ticket(n, "10.00", "USD", "2026-10-05")
		amount := "10.00"
		if i%3 == 0 {
			amount = "10.50"
		}
		f.transaction(n, "Nuvei", amount, "USD", "2026-10-06")
		f.settlement("PO-"+string(rune('A'+i%4)), n, "Nuvei", "USD", "2026-10-07", amount, "0.00", amount)
	}
	f.booking("130.00", "", "USD", "2026-10-08", "Nuvei", "")
	snapshot := func() string {
		var s string
		if err := f.pool.QueryRow(f.ctx, `select coalesce(string_agg(concat_ws('/', level, left_id, right_id, status, rule, amount_variance, date_lag_days), ';' order by id), '')
			from recon_match where undone_on is null`).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	var firstRuns []*Run
	for _, l := range Levels {
		firstRuns = append(firstRuns, f.auto(l))
	}
	if firstRuns[0].Matched != 26 || firstRuns[0].Partial != 14 || firstRuns[0].Unmatched != 0 {
		t.Errorf("first run of level 1: %+v", firstRuns[0])
	}
	before := snapshot()
	for i, l := range Levels {
		r := f.auto(l)
		if r.Matched != 0 || r.Partial != 0 || r.LeftUnmatched != firstRuns[i].LeftUnmatched || r.RightUnmatched != firstRuns[i].RightUnmatched {
			t.Errorf("second run of %s: %+v, first %+v", l.Slug, r, firstRuns[i])
		}
	}
	if after := snapshot(); after != before {
		t.Errorf("a second run changed the matches:\n%s\n%s", before, after)
	}
}

// TestPairSearchMayRunInParallel: a run's search for pairs inside tolerance
// (the join of a level's sides with the pair evaluation) may be planned
// over several workers. One function in it that is not marked parallel
// safe (recon_pair_eval left at the default, as a CREATE OR REPLACE
// without the marking does) keeps the whole search on one core: a
// million pairs took 2.3 s instead of 1.4 s on two cores.
func TestPairSearchMayRunInParallel(t *testing.T) {
	f := newFixture(t)
	for _, l := range Levels {
		if l.Window != "key" {
			continue
		}
		var plan string
		err := pgx.BeginFunc(f.ctx, f.pool, func(tx pgx.Tx) error {
			// Parallel plans made free, so that a plan without a Gather
			// means one was not allowed, not that the tables are small.
			if _, err := tx.Exec(f.ctx, `set local parallel_setup_cost = 0; set local parallel_tuple_cost = 0;
				set local min_parallel_table_scan_size = 0; set local min_parallel_index_scan_size = 0;
				set local enable_nestloop = off; set local enable_mergejoin = off`); err != nil {
				return err
			}
			sql := strings.Replace(candidates(l), "create temp table recon_cand on commit drop as", "explain (format text)", 1)
			rows, err := tx.Query(f.ctx, sql, 2, l.N, l.toleranceType())
			if err != nil {
				return err
			}
			lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
			plan = strings.Join(lines, "\n")
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(plan, "Gather") {
			t.Errorf("%s: the search for pairs is planned on one core:\n%s", l.Slug, plan)
		}
	}
}
