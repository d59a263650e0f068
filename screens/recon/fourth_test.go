package recon

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// fourthLevel is the README's worked example: tickets against settlements
// directly, for a provider that sends no transaction file, over existing
// sources, with the settlement tolerances (transaction type 2).
const fourthLevel = `
  - slug: ticket-settlement
    number: 4
    name: recon.tabs.ticketSettlement
    left:
      side: ticket
      field: ticketId
      columns:
        - {field: id, column: id, type: int}
        - {field: TicketNumber, column: ref, type: text}
        - {field: Amount, column: amount, type: decimal}
    right:
      side: settlement
      field: settlementId
      columns:
        - {field: id, column: id, type: int}
        - {field: ClientUniqueID, column: ref, type: text}
        - {field: GrossAmount, column: amount, type: decimal}
    key: [ref]
    window: key
    tolerance: {side: right, type: 2}
    report: {view: VW_ReconTicketSettlement}
    filters: [provider, ticket]
    statuses:
      - {value: '1', label: recon.status.matched, severity: success}
      - {value: '2', label: recon.status.partial, severity: warning}
      - {value: '3', label: recon.status.unmatched, severity: danger}
`

// TestFourthLevelByMetadata declares a fourth level in recon.yaml and gets
// automatic and manual matching, its report, why and the chain for it
// with no code of its own.
func TestFourthLevelByMetadata(t *testing.T) {
	raw, err := os.ReadFile("../../recon.yaml")
	if err != nil {
		t.Fatal(err)
	}
	def, err := Parse([]byte(strings.TrimRight(string(raw), "\n") + "\n" + fourthLevel))
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t)
	if err := def.Validate(f.ctx, f.pool, nil); err != nil {
		t.Fatal(err)
	}
	if err := def.Sync(f.ctx, f.pool); err != nil {
		t.Fatal(err)
	}
	f.svc = NewService(f.pool, def, f.svc.log)
	l, err := f.svc.Level("ticket-settlement")
	if err != nil {
		t.Fatal(err)
	}
	f.tolerance("directpay", 2, "0.50", 1, "")
	exact := f.ticket("7000000000001", "80.00", "USD", "2026-09-01")
	near := f.ticket("7000000000002", "60.00", "USD", "2026-09-01")
	lone := f.ticket("7000000000003", "40.00", "USD", "2026-09-02")
	sExact := f.settlement("DP-1", "7000000000001", "DirectPay", "USD", "2026-09-02", "80.00", "1.00", "79.00")
	sNear := f.settlement("DP-1", "7000000000002", "DirectPay", "USD", "2026-09-02", "60.30", "1.00", "59.30")
	sFar := f.settlement("DP-1", "7000000000003", "DirectPay", "USD", "2026-09-02", "45.00", "1.00", "44.00")

	run, err := f.svc.RunNow(f.ctx, l)
	if err != nil {
		t.Fatal(err)
	}
	if run.Matched != 1 || run.Partial != 1 || run.LeftUnmatched != 1 || run.RightUnmatched != 1 || run.Level != "ticket-settlement" {
		t.Fatalf("run: %+v", run)
	}
	if m := f.live(l, exact); m == nil || m.RightID != sExact || m.Status != "matched" {
		t.Errorf("exact pair: %+v", m)
	}
	if m := f.live(l, near); m == nil || m.RightID != sNear || m.Status != "partial" || *m.AmountVariance != "-0.30" {
		t.Errorf("pair inside the tolerance: %+v", m)
	}

	// Why the third ticket did not match: 5.00 over a tolerance of 0.50.
	w, err := f.svc.WhyNot(f.ctx, l, "left", lone)
	if err != nil {
		t.Fatal(err)
	}
	var cands []map[string]any
	if err := json.Unmarshal(w.Candidates, &cands); err != nil || len(cands) == 0 || cands[0]["amountMissedBy"] != 4.5 {
		t.Errorf("why: %s", w.Candidates)
	}

	// Matched by hand (the difference is the user's to accept).
	m, err := f.svc.MatchByHand(f.ctx, l, MatchRequest{LeftID: lone, RightID: sFar})
	if err != nil {
		t.Fatal(err)
	}
	if m.Level != "ticket-settlement" || *m.AmountVariance != "-5.00" {
		t.Errorf("manual match: %+v", m)
	}

	// The report of the level.
	rows := f.rowsText(`select left_ref || ' ' || right_ref || ' ' || recon_status_number
		from recon_level_report(4, '2026-09-01', '2026-09-30', null, null) order by left_ref`)
	if got := strings.Join(rows, "; "); got != "7000000000001 7000000000001 1; 7000000000002 7000000000002 2; 7000000000003 7000000000003 2" {
		t.Errorf("report: %s", got)
	}

	// The chain of the ticket reaches its settlement through the new level.
	c, err := f.svc.ChainOf(f.ctx, "ticket", exact)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, link := range c.Links {
		if link.Level != nil && *link.Level == 4 && link.From.ID == exact && link.To.ID == sExact && link.Status == "matched" {
			found = true
		}
	}
	if !found {
		t.Errorf("chain of the ticket: %s", links(c))
	}

	// The settlement edited after the match: the level's match follows.
	f.exec(`update settlement set gross_amount = 90 where id = $1`, sExact)
	if m := f.live(l, exact); m == nil || m.Status != "changed" || *m.AmountVariance != "-10.00" {
		t.Errorf("after the settlement's edit: %+v", m)
	}
}
