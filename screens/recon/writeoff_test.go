package recon

import (
	"context"
	"fmt"
	"testing"

	"ledgerdesk/engine"
)

// Write-offs (issue: matching as finance teams need it, item 4): records of
// one side accepted without a counter-record, with a reason, within the
// writer's limit, closing them everywhere until undone.

// writer is a user holding roles with the given write-off limits ("" for a
// role without one), as the context of a request.
func (f *fixture) writer(name string, limits ...string) context.Context {
	f.t.Helper()
	user := f.id(`insert into app_user (username, first_name, last_name, email, password_hash) values ($1, 'W', 'O', $1 || '@example.com', 'x') returning id`, name)
	for i, l := range limits {
		var limit *string
		if l != "" {
			limit = &l
		}
		role := f.id(`insert into role (role_name, writeoff_limit) values ($1, $2::numeric) returning id`, fmt.Sprintf("%s-%d", name, i), limit)
		f.exec(`insert into user_role (user_id, role_id) values ($1, $2)`, user, role)
	}
	return engine.WithActor(context.Background(), &engine.Actor{UserID: user, Username: name})
}

// TestWriteOffScenarios: what a write-off accepts and refuses, at every
// level and side, each refusal with its code and nothing written.
func TestWriteOffScenarios(t *testing.T) {
	f := newFixture(t)
	f.rate("EUR", "2026-05-01", "1.10")
	small := f.ticket("3100000000001", "0.80", "EUR", "2026-05-03")
	big := f.ticket("3100000000002", "400.00", "EUR", "2026-05-03")
	usd := f.ticket("3100000000003", "5.00", "USD", "2026-05-03")
	gbp := f.ticket("3100000000004", "5.00", "GBP", "2026-05-03") // no rate
	x := f.transaction("3100000000005", "Nuvei", "2.00", "USD", "2026-05-03")
	matchedT := f.ticket("3100000000006", "9.00", "USD", "2026-05-03")
	f.transaction("3100000000006", "Nuvei", "9.00", "USD", "2026-05-03")
	f.auto(Levels[0])
	if f.live(Levels[0], matchedT) == nil {
		t.Fatal("setup: the equal pair is matched")
	}
	clerk := f.writer("clerk", "", "10.00")
	nobody := f.writer("nobody", "")
	l1 := Levels[0]
	cases := []struct {
		name   string
		ctx    context.Context
		side   string
		ids    []int64
		reason string
		code   string // "" written off
	}{
		{"no reason", clerk, "left", []int64{small}, " ", "recon.writeoffReasonRequired"},
		{"a side that is not one", clerk, "up", []int64{small}, "x", "recon.side"},
		{"no records", clerk, "left", nil, "x", "recon.chooseBoth"},
		{"a record twice", clerk, "left", []int64{small, small}, "x", "recon.duplicateRecord"},
		{"an unknown record", clerk, "left", []int64{999999}, "x", "recon.unknownRecord"},
		{"a matched record", clerk, "left", []int64{matchedT}, "x", "recon.alreadyMatched"},
		{"several currencies", clerk, "left", []int64{small, usd}, "x", "recon.writeoffMixedCurrencies"},
		{"no rate to USD", clerk, "left", []int64{gbp}, "x", "recon.writeoffNoRate"},
		{"roles without a limit", nobody, "left", []int64{small}, "x", "recon.writeoffNotAllowed"},
		{"above the limit (440.00 USD of 10.00)", clerk, "left", []int64{big}, "x", "recon.writeoffOverLimit"},
		{"a ticket of 0.80 EUR (0.88 USD)", clerk, "left", []int64{small}, "rounding", ""},
		{"a card payment without a ticket", clerk, "right", []int64{x}, "no ticket was sold", ""},
		{"written off twice", clerk, "left", []int64{small}, "again", "recon.alreadyMatched"},
	}
	for _, c := range cases {
		before := f.rowsOf(`select count(*) from recon_match`)
		m, err := f.svc.WriteOff(c.ctx, l1, c.side, c.ids, c.reason)
		if c.code != "" {
			if errCode(err) != c.code {
				t.Errorf("%s: want %s, got %v", c.name, c.code, err)
			}
			if after := f.rowsOf(`select count(*) from recon_match`); fmt.Sprint(after) != fmt.Sprint(before) {
				t.Errorf("%s: refused, yet matches went from %v to %v", c.name, before, after)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if m.Rule != "writeoff" || m.Status != "matched" || m.Reason == nil || *m.Reason != c.reason || m.CreatedBy != "clerk" {
			t.Errorf("%s: %+v", c.name, m)
		}
	}
	// what a side wrote off is the variance, left minus right
	if got, want := f.rowsOf(`select coalesce(left_id, 0), coalesce(right_id, 0), amount_variance from recon_match where rule = 'writeoff' order by id`),
		[]string{fmt.Sprintf("%d|0|0.80", small), fmt.Sprintf("0|%d|-2.00", x)}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("write-offs stored: %v, want %v", got, want)
	}
	if got := f.rowsOf(`select action from audit_log where action = 'recon.writeoff'`); len(got) != 2 {
		t.Errorf("audited: %v", got)
	}
}

// TestWriteOffClosesTheItems: two small tickets without card payments are
// written off together (one group), a transaction without settlement at
// level 2, a payout without booking at level 3. Every reader counts them
// as closed with their difference; an edit of a written-off record marks
// the write-off changed; undo reopens them.
func TestWriteOffClosesTheItems(t *testing.T) {
	f := newFixture(t)
	clerk := f.writer("clerk", "100.00")
	a := f.ticket("3200000000001", "3.00", "USD", "2026-05-05")
	b := f.ticket("3200000000002", "4.00", "USD", "2026-05-05")
	x := f.transaction("3200000000003", "Nuvei", "6.00", "USD", "2026-05-06")
	f.settlement("PO-W1", "3200000000009", "Nuvei", "USD", "2026-05-07", "", "", "12.00")
	payout := f.payoutID("PO-W1")

	m, err := f.svc.WriteOff(clerk, Levels[0], "left", []int64{a, b}, "small fares never paid")
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(m.LeftIDs, m.RightIDs, m.RightID, *m.AmountVariance) != fmt.Sprint([]int64{a, b}, []int64{}, 0, "7.00") {
		t.Errorf("the write-off group: %+v", m)
	}
	if _, err := f.svc.WriteOff(clerk, Levels[1], "left", []int64{x}, "never settled"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.WriteOff(clerk, Levels[2], "left", []int64{payout}, "never booked"); err != nil {
		t.Fatal(err)
	}
	figures := func() []string {
		t.Helper()
		var open []string
		for _, l := range Levels {
			for _, side := range []string{"left", "right"} {
				var n int
				if err := f.pool.QueryRow(f.ctx, unmatchedSQL(l, side)).Scan(&n); err != nil {
					t.Fatal(err)
				}
				open = append(open, fmt.Sprint(l.N, side, "=", n))
			}
		}
		return append(append(append(open,
			f.rowsOf(`select ticket_number, reconciliation_status_number, reconciliation_status, variance_amount from recon_ticket_lookup('2026-05-01', '2026-05-31', null, null, null) order by 1`)...),
			f.rowsOf(`select reconcile_status_number, sra_ticket_count, ppa_transaction_count, sra_total_amount, ppa_total_amount, amount_variance from recon_ticket_transaction_report('2026-05-01', '2026-05-31', null, null, null)`)...),
			f.rowsOf(`select payout_id, recon_status_number, amount_variance from recon_settlement_bank_report('2026-05-01', '2026-05-31', null, null)`)...)
	}
	got := figures()
	want := []string{"1left=0", "1right=1", "2left=0", "2right=1", "3left=0", "3right=0",
		// the group's first ticket carries its difference, as in every group
		"3200000000001|4|\"Matched with difference\"|7.00", "3200000000002|4|\"Matched with difference\"|0.00",
		// both tickets are closed (matched count 2), the transaction total none: the difference stays visible
		"2|2|2|7.00|0.00|7.00",
		"PO-W1|2|12.00"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("after the write-offs:\n got  %q\n want %q", got, want)
	}
	f.daySumsFresh("after write-offs")
	// level 2: the transaction is closed, in its own currency, with nothing settled
	if got, want := f.rowsOf(`select transaction_amount, settlement_currency, settlement_amount, variance, recon_status
		from recon_transaction_settlement_report('2026-05-01', '2026-05-31', null, null, null)`), []string{"6.00|USD|0.00|6.00|Partial"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("level-2 report after the write-off: %q, want %q", got, want)
	}

	// The chain links each written-off record with no counter-record.
	chain, err := f.svc.ChainOf(f.ctx, "ticket", b)
	if err != nil {
		t.Fatal(err)
	}
	var links []string
	for _, k := range chain.Links {
		links = append(links, fmt.Sprintf("%s %d -> %s %d %s %s", k.From.Kind, k.From.ID, k.To.Kind, k.To.ID, k.Status, k.Rule))
	}
	if want := []string{fmt.Sprintf("ticket %d -> transaction 0 matched writeoff", b)}; fmt.Sprint(links) != fmt.Sprint(want) {
		t.Errorf("chain of a written-off ticket: %q, want %q", links, want)
	}
	chain, err = f.svc.ChainOf(f.ctx, "payout", payout)
	if err != nil {
		t.Fatal(err)
	}
	links = links[:0]
	for _, k := range chain.Links {
		if k.Rule == "writeoff" {
			links = append(links, fmt.Sprintf("%s %d -> %s %d", k.From.Kind, k.From.ID, k.To.Kind, k.To.ID))
		}
	}
	if want := []string{fmt.Sprintf("payout %d -> bank 0", payout)}; fmt.Sprint(links) != fmt.Sprint(want) {
		t.Errorf("chain of a written-off payout: %q, want %q", links, want)
	}

	// An edit of a written-off record: the write-off no longer holds.
	f.exec(`update ticket set sale_amount = 3.50 where id = $1`, a)
	if w := f.live(Levels[0], a); w == nil || w.Status != "changed" || *w.AmountVariance != "7.00" {
		t.Errorf("after the ticket rose to 3.50: %+v", w)
	}
	f.exec(`update ticket set sale_amount = 3.00 where id = $1`, a)
	if w := f.live(Levels[0], a); w == nil || w.Status != "matched" {
		t.Errorf("back at 3.00: %+v", w)
	}
	// Undo reopens both tickets.
	if _, err := f.svc.Undo(f.ctx, Levels[0], m.ID, "paid after all"); err != nil {
		t.Fatal(err)
	}
	var open int
	if err := f.pool.QueryRow(f.ctx, unmatchedSQL(Levels[0], "left")).Scan(&open); err != nil || open != 2 {
		t.Errorf("after undo: %d open tickets (%v)", open, err)
	}
	f.daySumsFresh("after a write-off was undone")
	// A record gone ends its write-off.
	f.exec(`delete from card_transaction where id = $1`, x)
	if got := f.rowsOf(`select undone_by from recon_match where level = 2 and rule = 'writeoff'`); fmt.Sprint(got) != "[system]" {
		t.Errorf("the write-off of a deleted transaction: %v", got)
	}
}
