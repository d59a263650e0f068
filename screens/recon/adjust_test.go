package recon

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"

	"ledgerdesk/screens/tasks"
)

// Adjustments close items (issue: matching as finance teams need it, item
// 4): a task's manual adjustment made for a ticket's difference joins the
// ticket's match group, or makes one, with rule adjustment; every reader
// then counts the ticket as matched, and the adjustment is never an open
// transaction at either level.

// adjuster is the task service as the server wires it: an adjustment
// closes its ticket through the reconciliation service.
func (f *fixture) adjuster() *tasks.Service {
	svc := tasks.New(f.pool, nil)
	svc.Close = func(ctx context.Context, tx pgx.Tx, ticketID, taskID int64, reason string) (any, error) {
		return f.svc.CloseByAdjustment(ctx, tx, ticketID, taskID, reason)
	}
	return svc
}

// taskFor makes a task linking the ticket and the card transactions.
func (f *fixture) taskFor(ticket int64, transactions ...int64) int64 {
	f.t.Helper()
	task := f.id(`insert into task (task_name) values ('difference') returning id`)
	f.exec(`insert into task_ticket (task_id, ticket_id) values ($1, $2)`, task, ticket)
	for _, x := range transactions {
		f.exec(`insert into task_transaction (task_id, transaction_id) values ($1, $2)`, task, x)
	}
	return task
}

// adjust makes an adjustment of amount for ticket on task, dated on, and
// returns it with what it did.
func (f *fixture) adjust(svc *tasks.Service, task, ticket int64, amount, on string) (*tasks.TaskTransaction, *Closing) {
	f.t.Helper()
	a, err := svc.AddAdjustment(f.ctx, task, tasks.Adjustment{TicketID: ticket, Amount: json.RawMessage(`"` + amount + `"`), Date: on})
	if err != nil {
		f.t.Fatalf("adjustment of %s for ticket %d: %v", amount, ticket, err)
	}
	c, ok := a.Closing.(*Closing)
	if !ok || c == nil {
		f.t.Fatalf("adjustment of %s: no closing in the answer (%T)", amount, a.Closing)
	}
	return a, c
}

// ticketFigures are what the readers say of one ticket number in May 2026:
// the lookup's status number and text, the report row's status and its
// ticket and transaction totals, and the open counts of both levels.
func (f *fixture) ticketFigures(number string) string {
	f.t.Helper()
	lookup := f.rowsOf(`select reconciliation_status_number, reconciliation_status from recon_ticket_lookup('2026-05-01', '2026-05-31', null, null, $1)`, number)
	report := f.rowsOf(`select reconcile_status_number, sra_total_amount, ppa_total_amount from recon_ticket_transaction_report('2026-05-01', '2026-05-31', null, null, null)`)
	var open [4]int
	for i, q := range []string{unmatchedSQL(Levels[0], "left"), unmatchedSQL(Levels[0], "right"), unmatchedSQL(Levels[1], "left"), unmatchedSQL(Levels[1], "right")} {
		if err := f.pool.QueryRow(f.ctx, q).Scan(&open[i]); err != nil {
			f.t.Fatal(err)
		}
	}
	return fmt.Sprintf("lookup %v report %v open tickets %d, transactions %d (level 1) %d (level 2)", lookup, report, open[0], open[1], open[2])
}

// TestAdjustmentClosesTheTicket: the first user's case. A ticket of 100.00
// paid 90.00 gets a task and an adjustment of its difference (dated weeks
// later): the ticket is matched by adjustment in the lookup, the report
// (transaction total 100.00, not 110.00), the chain and the open counts;
// the adjustment is no open transaction at level 2; undo reopens the
// ticket, and no automatic run pairs the adjustment again.
func TestAdjustmentClosesTheTicket(t *testing.T) {
	f := newFixture(t)
	l := Levels[0]
	f.tolerance("Nuvei", 1, "1.00", 2, "")
	ticket := f.ticket("3000000000001", "100.00", "USD", "2026-05-04")
	x := f.transaction("3000000000001", "Nuvei", "90.00", "USD", "2026-05-04")
	f.auto(l)
	if f.live(l, ticket) != nil {
		t.Fatal("a difference of 10.00 is outside the tolerance of 1.00: no automatic match")
	}
	before := f.ticketFigures("3000000000001")
	if want := "lookup [5|Unmatched] report [1|100.00|0] open tickets 1, transactions 1 (level 1) 1 (level 2)"; before != want {
		t.Fatalf("before the adjustment:\n got  %s\n want %s", before, want)
	}

	svc := f.adjuster()
	task := f.taskFor(ticket, x)
	a, c := f.adjust(svc, task, ticket, "10.00", "2026-05-29")
	if !c.Closed || c.Match == nil || c.Match.Rule != "adjustment" || c.Match.Status != "matched" || c.Difference == nil || *c.Difference != "0.00" {
		t.Fatalf("the adjustment of the difference closes the ticket: %+v (match %+v)", c, c.Match)
	}
	if got, want := fmt.Sprint(c.Match.LeftIDs, c.Match.RightIDs), fmt.Sprint([]int64{ticket}, []int64{x, a.TransactionID}); got != want {
		t.Errorf("the group: %s, want %s (the ticket; its transaction, then the adjustment)", got, want)
	}
	if a.MatchID == nil || *a.MatchID != c.Match.ID || a.MatchRule == nil || *a.MatchRule != "adjustment" {
		t.Errorf("the adjustment names its group: %v %v", a.MatchID, a.MatchRule)
	}
	after := f.ticketFigures("3000000000001")
	if want := "lookup [1|Matched] report [3|100.00|100.00] open tickets 0, transactions 0 (level 1) 1 (level 2)"; after != want {
		t.Errorf("after the adjustment:\n got  %s\n want %s", after, want)
	}
	f.daySumsFresh("after an adjustment closed a ticket")
	chain, err := f.svc.ChainOf(f.ctx, "ticket", ticket)
	if err != nil {
		t.Fatal(err)
	}
	var records []struct {
		ID int64 `json:"id"`
	}
	if err := json.Unmarshal(chain.Records["transaction"], &records); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(records) != fmt.Sprint([]struct{ ID int64 }{{x}, {a.TransactionID}}) {
		t.Errorf("the chain shows the transaction and the adjustment: %s", chain.Records["transaction"])
	}
	// the task lists the adjustment with its group
	rel, err := svc.Relations(f.ctx, task)
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range rel.Transactions {
		if tr.MatchRule == nil || *tr.MatchRule != "adjustment" {
			t.Errorf("task transaction %d: rule %v, want adjustment", tr.TransactionID, tr.MatchRule)
		}
	}
	// A matched adjustment cannot be deleted; undo takes the whole group back.
	if err := svc.DeleteAdjustment(f.ctx, task, a.TransactionID); errCode(err) != "tasks.adjustmentMatched" {
		t.Errorf("deleting a matched adjustment: %v", err)
	}
	if _, err := f.svc.Undo(f.ctx, l, c.Match.ID, "the adjustment was booked twice"); err != nil {
		t.Fatal(err)
	}
	if got, want := f.ticketFigures("3000000000001"), "lookup [5|Unmatched] report [1|100.00|10.00] open tickets 1, transactions 1 (level 1) 1 (level 2)"; got != want {
		t.Errorf("after undo (the adjustment counts apart, toward its ticket):\n got  %s\n want %s", got, want)
	}
	f.daySumsFresh("after the adjustment's group was undone")
	// The ticket, its transaction and the adjustment sum up, but a run never
	// pairs a record made by hand.
	f.auto(l)
	if m := f.live(l, ticket); m != nil {
		t.Errorf("an automatic run matched the ticket with its adjustment: %+v", m)
	}
	if err := svc.DeleteAdjustment(f.ctx, task, a.TransactionID); err != nil {
		t.Errorf("deleting the adjustment after undo: %v", err)
	}
}

// TestAdjustmentsAddUpBeforeTheyClose: a ticket of 50.00 paid 10.00 by
// card (a provider without tolerances: the sums must be equal). A first
// adjustment of part of the difference closes nothing and says what is
// left; the second makes the rest up and the three records close the
// ticket. An edit of the ticket later re-evaluates the group over its sums,
// the adjustments' dates left out.
func TestAdjustmentsAddUpBeforeTheyClose(t *testing.T) {
	f := newFixture(t)
	l := Levels[0]
	ticket := f.ticket("3000000000002", "50.00", "EUR", "2026-05-10")
	x := f.transaction("3000000000002", "Paypal", "10.00", "EUR", "2026-05-10")
	svc := f.adjuster()
	task := f.taskFor(ticket, x)
	first, c := f.adjust(svc, task, ticket, "20.00", "2026-05-11")
	if c.Closed || c.Difference == nil || *c.Difference != "20.00" || first.MatchID != nil {
		t.Fatalf("10.00 + 20.00 of 50.00 closes nothing and leaves 20.00: %+v", c)
	}
	if got, want := f.ticketFigures("3000000000002"), "lookup [5|Unmatched] report [1|50.00|20.00] open tickets 1, transactions 1 (level 1) 1 (level 2)"; got != want {
		t.Errorf("after the first adjustment:\n got  %s\n want %s", got, want)
	}
	second, c := f.adjust(svc, task, ticket, "20.00", "2026-06-30")
	if !c.Closed || c.Match.Status != "matched" || c.Match.Rule != "adjustment" {
		t.Fatalf("the second adjustment closes the ticket: %+v", c)
	}
	if got, want := fmt.Sprint(c.Match.RightIDs), fmt.Sprint([]int64{x, first.TransactionID, second.TransactionID}); got != want {
		t.Errorf("the card payment and both adjustments are in the group: %s, want %s", got, want)
	}
	if got, want := f.ticketFigures("3000000000002"), "lookup [1|Matched] report [3|50.00|50.00] open tickets 0, transactions 0 (level 1) 1 (level 2)"; got != want {
		t.Errorf("after the second adjustment:\n got  %s\n want %s", got, want)
	}
	f.daySumsFresh("after two adjustments closed a ticket")
	f.exec(`update ticket set sale_amount = 50.50 where id = $1`, ticket)
	if m := f.live(l, ticket); m == nil || m.Status != "changed" || m.AmountVariance == nil || *m.AmountVariance != "0.50" {
		t.Errorf("after the ticket rose to 50.50 (no tolerance): %+v", m)
	}
	f.exec(`update ticket set sale_amount = 50.00 where id = $1`, ticket)
	if m := f.live(l, ticket); m == nil || m.Status != "matched" {
		t.Errorf("back at 50.00, weeks before the last adjustment: %+v", m)
	}
	f.daySumsFresh("after the ticket's edits")
}

// TestAdjustmentJoinsAPartialMatch: a ticket matched inside the tolerance
// with a difference of 0.50 is made exact by an adjustment of 0.50: the
// group keeps its id and records, gains the adjustment, and its rule and
// status say so; a task whose ticket is not linked to it is refused.
func TestAdjustmentJoinsAPartialMatch(t *testing.T) {
	f := newFixture(t)
	l := Levels[0]
	f.tolerance("Adyen", 1, "1.00", 2, "")
	ticket := f.ticket("3000000000003", "100.00", "USD", "2026-05-12")
	x := f.transaction("3000000000003", "Adyen", "99.50", "USD", "2026-05-12")
	f.auto(l)
	m := f.live(l, ticket)
	if m == nil || m.Status != "partial" {
		t.Fatalf("0.50 inside 1.00: partial, got %+v", m)
	}
	svc := f.adjuster()
	task := f.taskFor(ticket, x)
	a, c := f.adjust(svc, task, ticket, "0.50", "2026-05-20")
	if !c.Closed || c.Match.ID != m.ID || c.Match.Status != "matched" || c.Match.Rule != "adjustment" || *c.Match.AmountVariance != "0.00" {
		t.Fatalf("the adjustment joins the partial match %d: %+v", m.ID, c.Match)
	}
	if got, want := fmt.Sprint(c.Match.RightIDs), fmt.Sprint([]int64{x, a.TransactionID}); got != want {
		t.Errorf("the group's transactions: %s, want %s", got, want)
	}
	if got, want := f.ticketFigures("3000000000003"), "lookup [1|Matched] report [3|100.00|100.00] open tickets 0, transactions 0 (level 1) 1 (level 2)"; got != want {
		t.Errorf("after the adjustment:\n got  %s\n want %s", got, want)
	}
	f.daySumsFresh("after an adjustment joined a partial match")
	// A further adjustment that would open a difference beyond the
	// tolerance leaves the group as it is and says so.
	_, c = f.adjust(svc, task, ticket, "5.00", "2026-05-21")
	if c.Closed || c.Difference == nil || *c.Difference != "-5.00" {
		t.Errorf("5.00 more than the ticket: closes nothing, difference -5.00: %+v", c)
	}
	if got := f.live(l, ticket); got == nil || got.Status != "matched" || *got.AmountVariance != "0.00" {
		t.Errorf("the group stays matched: %+v", got)
	}
}
