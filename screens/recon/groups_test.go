package recon

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"ledgerdesk/engine"
)

// Match groups (issue: matching as finance teams need it): one record
// against several, made by hand, counted by every reader, undone whole.

// rowsOf reads a query's rows as "a|b|c" text (a row's text form, nulls
// empty).
func (f *fixture) rowsOf(sql string, args ...any) []string {
	f.t.Helper()
	rows, err := f.pool.Query(f.ctx, `select x::text from (`+sql+`) x`, args...)
	if err != nil {
		f.t.Fatalf("%s: %v", sql, err)
	}
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			f.t.Fatal(err)
		}
		out = append(out, strings.ReplaceAll(strings.TrimSuffix(strings.TrimPrefix(s, "("), ")"), ",", "|"))
	}
	if err := rows.Err(); err != nil {
		f.t.Fatal(err)
	}
	return out
}

func (f *fixture) group(l *Level, left, right []int64, force bool, reason string) (*Match, error) {
	return f.svc.MatchByHand(f.ctx, l, MatchRequest{LeftIDs: left, RightIDs: right, Force: force, Reason: reason})
}

func errCode(err error) string {
	var e *engine.Error
	if errors.As(err, &e) {
		return e.Key
	}
	return ""
}

// TestGroupTwoTicketsOneTransaction: a card payment of 100.00 for two
// tickets (60.00 + 40.00) is matched by hand as one group; every reader
// counts both tickets as matched, exact; undo frees all three records.
func TestGroupTwoTicketsOneTransaction(t *testing.T) {
	f := newFixture(t)
	l := Levels[0]
	f.tolerance("Nuvei", 1, "1.00", 2, "")
	t1 := f.ticket("1250000000001", "60.00", "USD", "2026-09-01")
	t2 := f.ticket("1250000000002", "40.00", "USD", "2026-09-01")
	x := f.transaction("1250000000001", "Nuvei", "100.00", "USD", "2026-09-02")

	e, err := f.svc.Evaluate(f.ctx, l, []int64{t1, t2}, []int64{x})
	if err != nil {
		t.Fatal(err)
	}
	if e.LeftSum != "100.00" || e.RightSum != "100.00" || deref(e.Variance) != "0.00" || !e.Inside || e.Refusal != nil || e.DateLagDays != 1 {
		t.Fatalf("evaluation: %+v", e)
	}
	m, err := f.group(l, []int64{t1, t2}, []int64{x}, false, "")
	if err != nil {
		t.Fatal(err)
	}
	if m.Status != "matched" || m.Rule != "manual" || m.LeftID != t1 || m.RightID != x || len(m.LeftIDs) != 2 || deref(m.AmountVariance) != "0.00" {
		t.Fatalf("group: %+v", m)
	}
	// every reader: the report's day, the ticket lookup, candidates, why, chain
	equalRows(t, "report", f.rowsOf(`select sra_ticket_count, ppa_transaction_count, sra_total_amount, ppa_total_amount, amount_variance, reconcile_status_number
		from recon_ticket_transaction_report('2026-09-01', '2026-09-30', null, null, null)`), "2|2|100.00|100.00|0.00|3")
	equalRows(t, "lookup", f.rowsOf(`select ticket_number, reconciliation_status_number, variance_amount, match_id = $1::bigint
		from recon_ticket_lookup('2026-09-01', '2026-09-30', null, null, null) order by id`, m.ID),
		"1250000000001|1|0.00|t", "1250000000002|1|0.00|t")
	f.daySumsFresh("after the group")
	c, err := f.svc.Candidates(f.ctx, l, CandidatesRequest{Filters: Filters{FromDate: "2026-08-01", ToDate: "2026-09-30"}})
	if err != nil {
		t.Fatal(err)
	}
	if c.Item1Total != 0 || c.Item2Total != 0 {
		t.Errorf("a grouped record is still a candidate: %d and %d", c.Item1Total, c.Item2Total)
	}
	w, err := f.svc.WhyNot(f.ctx, l, "left", t2)
	if err != nil {
		t.Fatal(err)
	}
	if w.Match == nil || w.Match.ID != m.ID || len(w.Match.LeftIDs) != 2 || w.Match.LeftIDs[1] != t2 {
		t.Errorf("why of the second ticket names its group: %+v", w.Match)
	}
	ch, err := f.svc.ChainOf(f.ctx, "ticket", t2)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, k := range ch.Links {
		if k.From.ID == t2 && k.To.ID == x && k.MatchID != nil && *k.MatchID == m.ID && k.Status == "matched" {
			found = true
		}
	}
	if !found {
		t.Errorf("the chain of the second ticket links it to the transaction: %+v", ch.Links)
	}
	run := f.auto(l)
	if run.Matched != 0 || run.LeftUnmatched != 0 || run.RightUnmatched != 0 {
		t.Errorf("a run after the group: %+v", run)
	}

	// the database holds one live match per record, whatever the writer
	var pg *pgconn.PgError
	_, err = f.pool.Exec(f.ctx, `insert into recon_match (level, left_id, right_id, status, rule, created_by) values (1, $1, $2, 'matched', 'manual', 'x')`,
		t2, f.transaction("1250000000002", "Nuvei", "40.00", "USD", "2026-09-02"))
	if !errors.As(err, &pg) || pg.Code != "23505" {
		t.Errorf("a second live match of a grouped ticket: %v", err)
	}
	if _, err = f.group(l, []int64{t2}, []int64{f.transaction("1250000000002", "Nuvei", "40.00", "USD", "2026-09-03")}, false, ""); errCode(err) != "recon.alreadyMatched" {
		t.Errorf("matching a grouped ticket again: %v", err)
	}

	undone, err := f.svc.Undo(f.ctx, l, m.ID, "wrong tickets")
	if err != nil {
		t.Fatal(err)
	}
	if len(undone.LeftIDs) != 2 || undone.UndoneOn == nil {
		t.Errorf("undo names the whole group: %+v", undone)
	}
	equalRows(t, "report after undo", f.rowsOf(`select sra_ticket_count, ppa_transaction_count, reconcile_status_number
		from recon_ticket_transaction_report('2026-09-01', '2026-09-30', null, null, null)`), "2|0|1")
	equalRows(t, "members after undo", f.rowsOf(`select count(*) filter (where live) from recon_match_member where match_id = $1`, m.ID), "0")
	f.daySumsFresh("after undo")
	// the records are free again, one by one
	if _, err := f.svc.MatchByHand(f.ctx, l, MatchRequest{LeftID: t2, RightID: x}); err != nil {
		t.Errorf("a freed ticket matched again: %v", err)
	}
}

// TestGroupOutsideToleranceNeedsForceAndAReason: a group whose sums differ
// beyond the amount tolerance is refused with the difference; forcing it
// needs a reason, and the match and its audit row say it was forced.
func TestGroupOutsideToleranceNeedsForceAndAReason(t *testing.T) {
	f := newFixture(t)
	l := Levels[0]
	f.tolerance("Nuvei", 1, "1.00", 2, "")
	t1 := f.ticket("1250000000011", "60.00", "USD", "2026-09-01")
	t2 := f.ticket("1250000000012", "45.00", "USD", "2026-09-01")
	x := f.transaction("1250000000011", "Nuvei", "100.00", "USD", "2026-09-01")
	_, err := f.group(l, []int64{t1, t2}, []int64{x}, false, "")
	var e *engine.Error
	if !errors.As(err, &e) || e.Key != "recon.groupOutsideTolerance" || e.Params["difference"] != "5.00" || e.Code != engine.CodeInvalid {
		t.Fatalf("outside tolerance: %v %+v", err, e)
	}
	if _, err := f.group(l, []int64{t1, t2}, []int64{x}, true, " "); errCode(err) != "recon.forceReasonRequired" {
		t.Errorf("forced without a reason: %v", err)
	}
	m, err := f.group(l, []int64{t1, t2}, []int64{x}, true, "the customer paid 5.00 less; agreed by phone")
	if err != nil {
		t.Fatal(err)
	}
	if m.Rule != "forced" || deref(m.AmountVariance) != "5.00" || deref(m.Reason) == "" {
		t.Errorf("forced group: %+v", m)
	}
	equalRows(t, "audit", f.rowsOf(`select action from audit_log where entity = 'recon_match' and entity_id = $1`, fmt.Sprint(m.ID)), "recon.match.group.forced")
	// the report: both tickets matched, the group's difference on its day
	equalRows(t, "report", f.rowsOf(`select sra_ticket_count, ppa_transaction_count, sra_total_amount, ppa_total_amount, amount_variance, reconcile_status_number
		from recon_ticket_transaction_report('2026-09-01', '2026-09-30', null, null, null)`), "2|2|105.00|100.00|5.00|2")
	equalRows(t, "lookup", f.rowsOf(`select ticket_number, reconciliation_status_number, variance_amount
		from recon_ticket_lookup('2026-09-01', '2026-09-30', null, null, null) order by id`),
		"1250000000011|4|5.00", "1250000000012|4|0.00")
	f.daySumsFresh("forced group")

	for _, c := range []struct {
		left, right []int64
		code        string
	}{
		{[]int64{t1, t1}, []int64{x}, "recon.duplicateRecord"},
		{[]int64{t1}, nil, "recon.chooseBoth"},
		{[]int64{t1, 99999}, []int64{x}, "recon.unknownRecord"},
	} {
		if _, err := f.svc.Evaluate(f.ctx, l, c.left, c.right); errCode(err) != c.code {
			t.Errorf("evaluate %v %v: %v, want %s", c.left, c.right, err, c.code)
		}
	}
}

// TestGroupOneTransactionTwoSettlements: a transaction settled in two parts
// (level 2): the report's settled sums are both parts, counted once.
func TestGroupOneTransactionTwoSettlements(t *testing.T) {
	f := newFixture(t)
	l := Levels[1]
	f.tolerance("Nuvei", 2, "1.00", 3, "")
	x := f.transaction("1250000000021", "Nuvei", "100.00", "USD", "2026-09-01")
	s1 := f.settlement("PO-1", "1250000000021", "Nuvei", "USD", "2026-09-02", "70.00", "1.40", "68.60")
	s2 := f.settlement("PO-2", "1250000000021", "Nuvei", "USD", "2026-09-03", "30.00", "0.60", "29.40")
	m, err := f.group(l, []int64{x}, []int64{s1, s2}, false, "")
	if err != nil {
		t.Fatal(err)
	}
	if deref(m.AmountVariance) != "0.00" || len(m.RightIDs) != 2 {
		t.Fatalf("group: %+v", m)
	}
	// the database refuses a new live match of the group's further settlement
	// (the right side of the claim check; TestGroupTwoTicketsOneTransaction has the left)
	var pg *pgconn.PgError
	_, err = f.pool.Exec(f.ctx, `insert into recon_match (level, left_id, right_id, status, rule, created_by) values (2, $1, $2, 'matched', 'manual', 'x')`,
		f.transaction("1250000000022", "Nuvei", "30.00", "USD", "2026-10-03"), m.RightIDs[1]) // (after the reports' month)
	if !errors.As(err, &pg) || pg.Code != "23505" || !strings.Contains(pg.Message, "already is in a live group") {
		t.Errorf("a second live match of a grouped settlement: %v", err)
	}
	equalRows(t, "report", f.rowsOf(`select transaction_amount, settle_total_amount, total_fees, amount_after_fees, settlement_amount, variance, recon_status
		from recon_transaction_settlement_report('2026-09-01', '2026-09-30', null, null, null)`), "100.00|100.00|2.00|98.00|100.00|0|Matched")
	equalRows(t, "report by ticket", f.rowsOf(`select transaction_amount, settle_total_amount, total_fees, amount_after_fees, settlement_amount, variance, recon_status
		from recon_transaction_settlement_report('2026-09-01', '2026-09-30', null, null, '1250000000021')`), "100.00|100.00|2.00|98.00|100.00|0|Matched")
	f.daySumsFresh("transaction settled in two parts")

	// a part edited later: the group follows, outside tolerance now
	f.exec(`update settlement set gross_amount = 35.00 where id = $1`, s2)
	var status, variance string
	if err := f.pool.QueryRow(f.ctx, `select status, amount_variance::text from recon_match where id = $1`, m.ID).Scan(&status, &variance); err != nil {
		t.Fatal(err)
	}
	if status != "changed" || variance != "-5.00" {
		t.Errorf("after an edit of a part: %s %s", status, variance)
	}
	f.daySumsFresh("a part edited")
	// a part deleted: the group ends, its records free
	f.exec(`delete from settlement where id = $1`, s1)
	equalRows(t, "group ended", f.rowsOf(`select undone_by from recon_match where id = $1`, m.ID), "system")
	equalRows(t, "members", f.rowsOf(`select count(*) filter (where live) from recon_match_member where match_id = $1`, m.ID), "0")
	f.daySumsFresh("a part deleted")
}

// TestGroupBookingPaysTwoPayouts: one bank booking paying two payouts of a
// provider (level 3): each payout's row shows the booking and the group's
// status, the difference once.
func TestGroupBookingPaysTwoPayouts(t *testing.T) {
	f := newFixture(t)
	l := Levels[2]
	f.tolerance("nuvei", 3, "0.50", 3, "")
	f.settlement("PO-A", "c1", "Nuvei", "USD", "2026-09-01", "", "", "100.00")
	f.settlement("PO-B", "c2", "Nuvei", "USD", "2026-09-02", "", "", "50.00")
	b := f.booking("150.20", "", "USD", "2026-09-03", "Nuvei", "")
	m, err := f.group(l, []int64{f.payoutID("PO-A"), f.payoutID("PO-B")}, []int64{b}, false, "")
	if err != nil {
		t.Fatal(err)
	}
	if deref(m.AmountVariance) != "-0.20" {
		t.Fatalf("group: %+v", m)
	}
	equalRows(t, "bank report", f.bankReport("2026-09-01", "2026-09-30"), "PO-A|100.00|2|-0.20", "PO-B|50.00|2|0.00")
	ch, err := f.svc.ChainOf(f.ctx, "bank", b)
	if err != nil {
		t.Fatal(err)
	}
	payouts := 0
	for _, k := range ch.Links {
		if k.To.Kind == "bank" && k.To.ID == b && k.MatchID != nil && *k.MatchID == m.ID {
			payouts++
		}
	}
	if payouts != 2 {
		t.Errorf("the chain of the booking shows both payouts of its group: %+v", ch.Links)
	}
}

// withSplits is the product's levels with automatic splits as recon.yaml's
// header documents them: a ticket and its card payments, a transaction and
// its settlements, a booking and its payouts.
func withSplits(t *testing.T) *Definition {
	t.Helper()
	raw, err := os.ReadFile("../../recon.yaml")
	if err != nil {
		t.Fatal(err)
	}
	def, err := Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	def.Levels[0].Splits = &Splits{Anchor: "left", Max: 5}
	def.Levels[1].Splits = &Splits{Anchor: "left", Max: 5}
	def.Levels[2].Splits = &Splits{Anchor: "right", Max: 3}
	return def
}

// TestAutomaticSplits: after the one-to-one rounds a run matches a ticket
// with the two card payments of its number that sum to it, a transaction
// with its two settlements, a booking with the two payouts it pays; not a
// record two anchors want, not more than Max, not outside tolerance.
func TestAutomaticSplits(t *testing.T) {
	f := newFixture(t)
	def := withSplits(t)
	Levels := def.Levels
	f.svc = NewService(f.pool, def, f.svc.log)
	f.tolerance("Nuvei", 1, "0.50", 2, "")
	f.tolerance("Nuvei", 2, "0.50", 3, "")
	f.tolerance("Nuvei", 3, "0.50", 3, "")
	// level 1: paid in two parts; a one-to-one pair first; too far apart
	split := f.ticket("1250000000031", "100.00", "USD", "2026-09-01")
	x1 := f.transaction("1250000000031", "Nuvei", "60.00", "USD", "2026-09-01")
	x2 := f.transaction("1250000000031", "Nuvei", "40.20", "USD", "2026-09-02")
	pair := f.ticket("1250000000032", "50.00", "USD", "2026-09-01")
	p1 := f.transaction("1250000000032", "Nuvei", "50.00", "USD", "2026-09-01")
	f.transaction("1250000000032", "Nuvei", "25.00", "USD", "2026-09-01") // left over once the pair matched
	far := f.ticket("1250000000033", "100.00", "USD", "2026-09-01")
	f.transaction("1250000000033", "Nuvei", "60.00", "USD", "2026-09-01")
	f.transaction("1250000000033", "Nuvei", "45.00", "USD", "2026-09-01")
	// level 2: a transaction settled in two parts; the split's two card
	// payments share their client id, so their settlements are wanted by
	// both: left to the user
	x3 := f.transaction("1250000000034", "Nuvei", "80.00", "USD", "2026-09-01")
	s1 := f.settlement("PO-S1", "1250000000034", "Nuvei", "USD", "2026-09-03", "50.00", "0.00", "50.00")
	s2 := f.settlement("PO-S2", "1250000000034", "Nuvei", "USD", "2026-09-03", "30.00", "0.00", "30.00")
	f.settlement("PO-S3", "1250000000031", "Nuvei", "USD", "2026-09-03", "30.00", "0.00", "30.00")
	f.settlement("PO-S3", "1250000000031", "Nuvei", "USD", "2026-09-03", "30.00", "0.00", "30.00")
	// level 3: one booking paying two payouts
	f.booking("60.00", "", "USD", "2026-09-04", "Nuvei", "") // pays PO-S3, one to one
	bk := f.booking("80.00", "", "USD", "2026-09-04", "Nuvei", "")

	r1 := f.autoNow(Levels[0])
	if r1.Matched+r1.Partial != 2 {
		t.Errorf("level 1 run: %+v", r1)
	}
	m := f.live(Levels[0], split)
	if m == nil || m.RightID != x1 || m.Status != "partial" || deref(m.AmountVariance) != "-0.20" {
		t.Fatalf("the split ticket: %+v", m)
	}
	if got, _ := f.svc.liveMatchOf(f.ctx, mustTx(t, f), Levels[0], "right", x2); got == nil || got.ID != m.ID {
		t.Errorf("the second part is in the ticket's group: %+v", got)
	}
	if pm := f.live(Levels[0], pair); pm == nil || pm.RightID != p1 || len(pm.RightIDs) != 1 {
		t.Errorf("one-to-one first: %+v", pm)
	}
	if fm := f.live(Levels[0], far); fm != nil {
		t.Errorf("outside tolerance is not a group: %+v", fm)
	}
	equalRows(t, "level-1 report", f.rowsOf(`select sra_ticket_count, ppa_transaction_count, sra_total_amount, ppa_total_amount
		from recon_ticket_transaction_report('2026-09-01', '2026-09-30', null, null, null)`), "3|2|250.00|150.20")
	f.daySumsFresh("after the split run")

	r2 := f.autoNow(Levels[1])
	if m2 := f.live(Levels[1], x3); m2 == nil || m2.RightID != s1 || r2.Matched != 1 || r2.RightUnmatched != 2 {
		t.Errorf("level 2: %+v, run %+v", m2, r2)
	} else if got, _ := f.svc.liveMatchOf(f.ctx, mustTx(t, f), Levels[1], "right", s2); got == nil || got.ID != m2.ID {
		t.Errorf("the second settlement is in the transaction's group: %+v", got)
	}
	f.daySumsFresh("after level 2")

	f.autoNow(Levels[2])
	mb := f.liveRight(Levels[2], bk)
	if mb == nil || mb.Status != "matched" || deref(mb.AmountVariance) != "0.00" {
		t.Fatalf("the booking of two payouts: %+v", mb)
	}
	equalRows(t, "bank report", f.bankReport("2026-09-01", "2026-09-30"), "PO-S1|50.00|1|0.00", "PO-S2|30.00|1|0.00", "PO-S3|60.00|1|0.00")

	// idempotent: a second run of each level changes nothing
	for _, l := range Levels {
		if r := f.autoNow(l); r.Matched != 0 || r.Partial != 0 {
			t.Errorf("a second run of %s matched: %+v", l.Slug, r)
		}
	}
}

// mustTx is a read-only transaction of the fixture, rolled back at the end.
func mustTx(t *testing.T, f *fixture) pgx.Tx {
	t.Helper()
	tx, err := f.pool.BeginTx(f.ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tx.Rollback(f.ctx) })
	return tx
}

// autoNow runs level l in this process (the fixture's job queue works for
// the product's definition), with f.auto's check of the run's counts.
func (f *fixture) autoNow(l *Level) *Run {
	f.t.Helper()
	r, err := f.svc.RunNow(f.ctx, l)
	if err != nil {
		f.t.Fatalf("auto %s: %v", l.Slug, err)
	}
	var left, right int
	if err := f.pool.QueryRow(f.ctx, unmatchedSQL(l, "left")).Scan(&left); err != nil {
		f.t.Fatal(err)
	}
	if err := f.pool.QueryRow(f.ctx, unmatchedSQL(l, "right")).Scan(&right); err != nil {
		f.t.Fatal(err)
	}
	if r.LeftUnmatched != left || r.RightUnmatched != right {
		f.t.Errorf("auto %s: run counts %d and %d unmatched, there are %d and %d", l.Slug, r.LeftUnmatched, r.RightUnmatched, left, right)
	}
	return r
}

// TestCandidatesNearTheTicks: with a ticket of 100.00 ticked and a payment
// of 60.00 for it, the transactions that close the group come first: those
// sharing the ticket's number, then by how far each is from the 40.00
// still lacking; "sums to the difference" keeps those within the amount
// tolerance of it (and the ticked ones).
func TestCandidatesNearTheTicks(t *testing.T) {
	f := newFixture(t)
	l := Levels[0]
	f.tolerance("Nuvei", 1, "0.50", 2, "")
	tk := f.ticket("1250000000041", "100.00", "USD", "2026-09-01")
	part := f.transaction("1250000000041", "Nuvei", "60.00", "USD", "2026-09-01")
	rest := f.transaction("1250000000041", "Nuvei", "39.80", "USD", "2026-09-02")
	close := f.transaction("1250000000099", "Nuvei", "40.10", "USD", "2026-09-01")
	far := f.transaction("1250000000098", "Nuvei", "75.00", "USD", "2026-09-01")
	other := f.transaction("1250000000097", "Nuvei", "40.00", "EUR", "2026-09-01")
	req := CandidatesRequest{Filters: Filters{FromDate: "2026-09-01", ToDate: "2026-09-30"}, Near: &Near{LeftIDs: []int64{tk}, RightIDs: []int64{part}}}
	c, err := f.svc.Candidates(f.ctx, l, req)
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	if err := json.Unmarshal(c.Item2, &rows); err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, r := range rows {
		order = append(order, fmt.Sprintf("%v|%v|%v", r["id"], r["SameReference"], r["AmountGap"]))
	}
	want := []string{
		// the ticket's number first: the rest of the payment, then the ticked part (20.00 over)
		fmt.Sprintf("%d|true|0.2", rest), fmt.Sprintf("%d|true|20", part),
		fmt.Sprintf("%d|false|0.1", close), fmt.Sprintf("%d|false|35", far), fmt.Sprintf("%d|false|<nil>", other), // EUR: last
	}
	equalRows(t, "ranked transactions", order, want...)
	req.Near.SumsTo = true
	if c, err = f.svc.Candidates(f.ctx, l, req); err != nil {
		t.Fatal(err)
	}
	rows = nil
	if err := json.Unmarshal(c.Item2, &rows); err != nil {
		t.Fatal(err)
	}
	order = nil
	for _, r := range rows {
		order = append(order, fmt.Sprint(r["id"]))
	}
	// within the 0.50 tolerance of the 40.00 lacking, and the ticked part
	equalRows(t, "sums to the difference", order, fmt.Sprint(rest), fmt.Sprint(part), fmt.Sprint(close))
}
