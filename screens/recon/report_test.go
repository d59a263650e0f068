package recon

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"ledgerdesk/engine"
)

// report reads all rows of a report view for params through the engine,
// values as the JSON shows them ("<nil>" for null), sorted by the view's
// default sort.
func (f *fixture) report(view string, params map[string]any) []map[string]string {
	f.t.Helper()
	md, err := engine.LoadMetadata(os.DirFS("../.."))
	if err != nil {
		f.t.Fatal(err)
	}
	if err := engine.Validate(f.ctx, f.pool, md); err != nil {
		f.t.Fatal(err)
	}
	eng := engine.New(engine.Options{Pool: f.pool, Metadata: md})
	ctx := engine.WithActor(f.ctx, &engine.Actor{Username: "rita", Screens: map[int]bool{13: true}})
	page, err := eng.Page(ctx, engine.GridRequest{ViewName: view, PageSize: 500, Params: params})
	if err != nil {
		f.t.Fatalf("report %s: %v", view, err)
	}
	raw, _ := page.MarshalJSON()
	var body struct {
		DataList []map[string]any `json:"dataList"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&body); err != nil {
		f.t.Fatal(err)
	}
	out := make([]map[string]string, len(body.DataList))
	for i, r := range body.DataList {
		out[i] = map[string]string{}
		for k, v := range r {
			if v == nil {
				out[i][k] = "<nil>"
			} else {
				out[i][k] = fmt.Sprint(v)
			}
		}
	}
	return out
}

// expectRows compares the listed fields of each row with want, in order.
func (f *fixture) expectRows(what string, got []map[string]string, fields string, want ...string) {
	f.t.Helper()
	names := strings.Split(fields, "|")
	var lines []string
	for _, r := range got {
		vals := make([]string, len(names))
		for i, n := range names {
			vals[i] = r[n]
		}
		lines = append(lines, strings.Join(vals, "|"))
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		f.t.Errorf("%s (%s):\ngot\n  %s\nwant\n  %s", what, fields, strings.Join(lines, "\n  "), strings.Join(want, "\n  "))
	}
}

// TestReports checks the four report views against rows worked out by hand
// (spec 03 section 3.2, status numbers of DESIGN.md section 6), with their
// filters.
func TestReports(t *testing.T) {
	f := newFixture(t)
	l1 := Levels[0]
	f.tolerance("Nuvei", 1, "1.00", 2, "")
	f.tolerance("Adyen", 2, "1.00", 3, "2.00")
	f.tolerance("Nuvei", 3, "5.00", 2, "")
	f.rate("GBP", "2026-09-30", "1.25")

	// Level 1: on 2026-10-05 (USD, CC, US) A exact, B inside by 0.40, C
	// without transaction but with a manual adjustment of 30.00; on
	// 2026-10-06 D exact; an unmatched EUR ticket E; F under investigation
	// and G matched by hand 5.00 apart (on 2026-10-07).
	f.ticket("9100000000001", "100.00", "USD", "2026-10-05")
	f.transaction("9100000000001", "Nuvei", "100.00", "USD", "2026-10-05")
	tB := f.ticket("9100000000002", "50.00", "USD", "2026-10-05")
	f.transaction("9100000000002", "Nuvei", "50.40", "USD", "2026-10-05")
	tC := f.ticket("9100000000003", "30.00", "USD", "2026-10-05")
	f.exec(`insert into task (task_name) values ('balance C')`)
	f.exec(`insert into card_transaction (client_unique_id, processing_date, provider_actor, currency, transaction_amount, is_manual_adjust, task_id,
		adjusted_ticket_id) values ('9100000000003', '2026-10-05', 'Manual adjustment', 'USD', 30.00, true, (select max(id) from task), $1)`, tC)
	f.ticket("9100000000004", "20.00", "USD", "2026-10-06")
	f.transaction("9100000000004", "Nuvei", "20.00", "USD", "2026-10-06")
	f.ticket("9100000000005", "10.00", "EUR", "2026-10-06")
	tF := f.ticket("9100000000006", "40.00", "USD", "2026-10-07")
	xF := f.transaction("9199999999996", "Nuvei", "41.00", "USD", "2026-10-07")
	tG := f.ticket("9100000000007", "60.00", "USD", "2026-10-07")
	xG := f.transaction("9199999999997", "Nuvei", "55.00", "USD", "2026-10-07")

	// Level 2 (provider Adyen): 2026-10-05 EUR: 200 exact, 100 unmatched; 2026-10-06
	// EUR: 50 unmatched; 2026-10-07 GBP: 100 settled as 124 USD; 2026-10-08
	// USD: 70 exact.
	f.transaction("C1", "Adyen", "200.00", "EUR", "2026-10-05")
	f.settlement("PO-1", "C1", "Nuvei", "EUR", "2026-10-06", "102.00", "2.00", "100.00")
	f.settlement("PO-1", "C1b", "Nuvei", "EUR", "2026-10-07", "51.00", "1.00", "50.00")
	f.settlement("PO-A", "C1", "Adyen", "EUR", "2026-10-05", "200.00", "5.00", "195.00")
	f.transaction("C2", "Adyen", "100.00", "EUR", "2026-10-05")
	f.transaction("C3", "Adyen", "50.00", "EUR", "2026-10-06")
	f.transaction("C4", "Adyen", "100.00", "GBP", "2026-10-07")
	f.settlement("PO-B", "C4", "Adyen", "USD", "2026-10-09", "124.00", "3.00", "121.00")
	f.transaction("C5", "Adyen", "70.00", "USD", "2026-10-08")
	f.settlement("PO-C", "C5", "Adyen", "USD", "2026-10-08", "70.00", "0.00", "70.00")

	// Level 3: PO-1 (150 EUR) booked as 148 + 2 charges; PO-2 300 against 296; PO-3 alone.
	f.booking("148.00", "2.00", "EUR", "2026-10-08", "Nuvei", "")
	f.settlement("PO-2", "C7", "Nuvei", "EUR", "2026-10-06", "306.00", "6.00", "300.00")
	f.booking("296.00", "", "EUR", "2026-10-06", "Nuvei", "")
	f.settlement("PO-3", "C8", "Nuvei", "EUR", "2026-10-06", "80.00", "0.00", "80.00")

	if _, err := f.svc.MatchByHand(f.ctx, l1, MatchRequest{LeftID: tF, RightID: xF, Investigate: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.MatchByHand(f.ctx, l1, MatchRequest{LeftID: tG, RightID: xG}); err != nil {
		t.Fatal(err)
	}
	for _, l := range Levels {
		f.auto(l)
	}

	october := map[string]any{"fromDate": "2026-10-01", "toDate": "2026-10-31"}
	cols1 := "TicketDate|SalesCurrency|PaymentType|CountryCode|SRATicketCount|PPATransactionCount|SRATotalAmount|PPATotalAmount|CountVariance|AmountVariance|ReconciliationStatus|ReconcileStatusNumber"
	f.expectRows("level 1", f.report("VW_ReconTicketTransaction", october), cols1,
		"2026-10-05|USD|CC|US|3|2|180.00|180.40|1|-0.40|Partial|2",
		"2026-10-06|EUR|CC|US|1|0|10.00|0.00|1|10.00|Unmatched|1",
		"2026-10-06|USD|CC|US|1|1|20.00|20.00|0|0.00|Matched|3",
		// F's investigation does not count as a match; G matched by hand 5.00 apart.
		"2026-10-07|USD|CC|US|2|1|100.00|55.00|1|45.00|Partial|2",
	)
	f.expectRows("level 1, EUR only", f.report("VW_ReconTicketTransaction", map[string]any{"fromDate": "2026-10-01", "toDate": "2026-10-31",
		"currency": []any{"EUR"}}), "TicketDate|SalesCurrency|SRATicketCount", "2026-10-06|EUR|1")
	f.expectRows("level 1, one day", f.report("VW_ReconTicketTransaction", map[string]any{"fromDate": "2026-10-06", "toDate": "2026-10-06"}),
		"TicketDate|SalesCurrency", "2026-10-06|EUR", "2026-10-06|USD")
	f.expectRows("level 1, one ticket", f.report("VW_ReconTicketTransaction", map[string]any{"fromDate": "2026-10-01", "toDate": "2026-10-31",
		"clientUniqueId": "9100000000002"}), "TicketDate|SRATicketCount|PPATotalAmount|ReconcileStatusNumber", "2026-10-05|1|50.40|2")
	// An unmatched ticket has no provider yet: it stays under a provider filter.
	f.expectRows("level 1, another provider", f.report("VW_ReconTicketTransaction", map[string]any{"fromDate": "2026-10-05", "toDate": "2026-10-05",
		"provider": []any{"Amex"}}), "SRATicketCount|PPATransactionCount|ReconcileStatusNumber", "1|0|1")

	cols := "TicketNumber|SalesAmount|TransactionAmount|VarianceAmount|ReconciliationStatus|ReconciliationStatusNumber"
	lookup := func(ticket string) []map[string]string {
		return f.report("VW_ReconTicketLookup", map[string]any{"fromDate": "2026-10-01", "toDate": "2026-10-31", "clientUniqueId": ticket})
	}
	f.expectRows("lookup exact", lookup("9100000000001"), cols, "9100000000001|100.00|100.00|0.00|Matched|1")
	f.expectRows("lookup partial", lookup("9100000000002"), cols, "9100000000002|50.00|50.40|-0.40|Partial|2")
	f.expectRows("lookup unmatched", lookup("9100000000003"), cols, "9100000000003|30.00|<nil>|<nil>|Unmatched|5")
	f.expectRows("lookup investigation", lookup("9100000000006"), cols, "9100000000006|40.00|41.00|-1.00|Investigation|3")
	f.expectRows("lookup by hand with a difference", lookup("9100000000007"), cols, "9100000000007|60.00|55.00|5.00|Matched with difference|4")
	_, _ = tB, tC

	cols2 := "TransDate|TransCurrency|TransactionAmount|ProviderActor|SettleTotalAmount|SettlementCurrency|TotalFees|AmountAfterFees|SettlementAmount|Variance|ExchangeCurrencyAmount|ExchangeCost|ReconStatus"
	f.expectRows("level 2", f.report("VW_ReconTransactionSettlement", map[string]any{"fromDate": "2026-10-05", "toDate": "2026-10-08",
		"provider": []any{"Adyen"}}), cols2,
		"2026-10-05|EUR|300.00|Adyen|200.00|EUR|5.00|195.00|200.00|100.00|<nil>|<nil>|Partial",
		"2026-10-06|EUR|50.00|Adyen|<nil>|<nil>|<nil>|<nil>|<nil>|<nil>|<nil>|<nil>|Unmatched",
		"2026-10-07|GBP|100.00|Adyen|124.00|USD|3.00|121.00|99.20|0.80|100.00|0.80|Partial",
		"2026-10-08|USD|70.00|Adyen|70.00|USD|0.00|70.00|70.00|0.00|<nil>|<nil>|Matched",
	)

	cols3 := "PayoutID|SettlementDate|SettlementAmount|SettlementCurrency|ProviderActor|BookedDate|Bank Account|RECO AMOUNT IN LOCAL CURRENCY|Charges|Currency|AmountVariance|ReconStatus|ReconStatusNumber"
	f.expectRows("level 3", f.report("VW_ReconSettlementBank", map[string]any{"fromDate": "2026-10-06", "toDate": "2026-10-08",
		"currency": []any{"EUR"}}), cols3,
		"PO-2|2026-10-06|300.00|EUR|Nuvei|2026-10-06|ACC-EUR|296.00|<nil>|EUR|4.00|Partial|2",
		"PO-3|2026-10-06|80.00|EUR|Nuvei|<nil>|<nil>|<nil>|<nil>|<nil>|<nil>|Unmatched|3",
		"PO-1|2026-10-07|150.00|EUR|Nuvei|2026-10-08|ACC-EUR|148.00|2.00|EUR|0.00|Matched|1",
	)
}
