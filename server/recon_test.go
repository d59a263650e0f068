package server

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// reconData loads a small set for the API: two tickets with their
// transactions (one exact, one 0.50 off), a ticket in GBP against a USD
// transaction, settlements and a booking.
func reconData(t *testing.T, w *world) (ids map[string]int64) {
	t.Helper()
	ctx := context.Background()
	ids = map[string]int64{}
	q := func(name, sql string, args ...any) {
		t.Helper()
		var id int64
		if err := w.pool.QueryRow(ctx, sql, args...).Scan(&id); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		ids[name] = id
	}
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := w.pool.Exec(ctx, sql, args...); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	exec(`insert into transaction_provider (trans, providers, in_out, recon_mapping) values ('Card', 'Nuvei', 'IN', 'NUVEI'), ('Bank', 'Bank charges', 'OUT', 'Bank charge')`)
	exec(`insert into config_setting (provider_name, transaction_type, provider_actor, amount_threshold, date_threshold, currency_threshold)
		values ('Nuvei', 1, 'Nuvei', 1.00, 2, 1.00), ('Nuvei', 2, 'Nuvei', 1.00, 3, null), ('Nuvei', 3, 'Nuvei', 1.00, 3, null)`)
	exec(`insert into currency_exchange_rate (exchange_rate_on, code, currency, usd) values ('2026-10-01', 'GBP', 'Pound', 1.25)`)
	ticket := func(name, number, amount, cur string) {
		q(name, `insert into ticket (ticket_number, trans_date, payment_type, country_code, currency, transaction_code, sale_amount, natural_key, import_file_id)
			values ($1, '2026-10-05', 'CC', 'SE', $3, 'TKTT', $2::numeric, $1 || $3, 1) returning id`, number, amount, cur)
	}
	transaction := func(name, client, amount, cur string) {
		q(name, `insert into card_transaction (client_unique_id, processing_date, provider_actor, acquiring_bank, payment_method, currency,
			transaction_amount, transaction_type, natural_key, import_file_id)
			values ($1, '2026-10-05', 'Nuvei', 'Acq', 'Visa', $3, $2::numeric, 'Sale', $1 || $2::text, 1) returning id`, client, amount, cur)
	}
	ticket("t1", "1250000000001", "100.00", "SEK")
	transaction("x1", "1250000000001", "100.00", "SEK")
	ticket("t2", "1250000000002", "80.00", "SEK")
	transaction("x2", "1250000000002", "80.50", "SEK")
	ticket("t3", "1250000000003", "100.00", "GBP")
	transaction("x3", "1250000000003", "130.00", "USD") // 4 % above 125 USD: outside the 1 % tolerance
	ticket("t4", "1250000000004", "10.00", "SEK")
	q("s1", `insert into settlement (payout_id, client_unique_id, settlement_date, provider_actor, settlement_currency, gross_amount, fees, settlement_net, natural_key, import_file_id)
		values ('PO-9', '1250000000001', '2026-10-06', 'Nuvei', 'SEK', 100.00, 2.00, 98.00, 's1', 1) returning id`)
	q("b1", `insert into bank_booking (bank_account, booked_date, amount_local, currency, text, provider, reco_amount_in_local_currency, status, in_or_out)
		values ('SE45', '2026-10-07', 98.00, 'SEK', 'NUVEI PAYOUT PO-9', 'Nuvei', 98.00, 'Processed', 'IN') returning id`)
	return ids
}

func TestReconAPI(t *testing.T) {
	w := newWorld(t)
	admin := w.login("admin", adminPassword)
	_, reconciler := w.addUser(admin, "rita", 13)
	_, clerk := w.addUser(admin, "clerk", 7)
	ids := reconData(t, w)
	id := func(name string) string { return fmt.Sprint(ids[name]) }
	october := `"fromDate":"2026-10-01","toDate":"2026-10-31"`
	tokens := map[string]string{"admin": admin, "rita": reconciler, "clerk": clerk, "anonymous": ""}

	// Who may call: screen 13 only.
	for _, path := range []string{"/api/recon/providers", "/api/recon/currencies", "/api/recon/runs", "/api/recon/chain/ticket/" + id("t1"),
		"/api/recon/ticket-transaction/why/left/" + id("t1")} {
		for user, want := range map[string]int{"admin": 200, "rita": 200, "clerk": 403, "anonymous": 401} {
			if a := w.do("GET", path, tokens[user], nil); a.status != want {
				t.Errorf("GET %s as %s: %d, want %d: %s", path, user, a.status, want, a.body)
			}
		}
	}
	for _, path := range []string{"/api/recon/ticket-transaction/report", "/api/recon/settlement-bank/candidates", "/api/recon/ticket-transaction/auto",
		"/api/recon/ticket-transaction/match"} {
		for user, want := range map[string]int{"clerk": 403, "anonymous": 401} {
			if a := w.do("POST", path, tokens[user], "{"+october+"}"); a.status != want {
				t.Errorf("POST %s as %s: %d, want %d: %s", path, user, a.status, want, a.body)
			}
		}
	}

	tests := []struct {
		name, method, path, body string
		status                   int
		contains, field, code    string
	}{
		{"providers are the incoming ones", "GET", "/api/recon/providers", "", 200, `"TransProvider":"Nuvei"`, "", ""},
		{"currencies", "GET", "/api/recon/currencies", "", 200, `"Code":"GBP"`, "", ""},
		{"report without dates", "POST", "/api/recon/ticket-transaction/report", `{}`, 400, "From Date and To Date are required.", "fromDate", "recon.datesRequired"},
		{"report with dates reversed", "POST", "/api/recon/ticket-transaction/report", `{"fromDate":"2026-10-31","toDate":"2026-10-01"}`, 400,
			"To Date cannot be earlier than From Date.", "toDate", "recon.dateOrder"},
		{"report with a 12-digit ticket", "POST", "/api/recon/transaction-settlement/report", `{` + october + `,"clientUniqueId":"125000000000"}`, 400,
			"valid ticket number (13 digits)", "clientUniqueId", "recon.ticketNumber"},
		{"report with a bad date", "POST", "/api/recon/settlement-bank/report", `{"fromDate":"01/10/2026","toDate":"2026-10-31"}`, 400, "yyyy-MM-dd", "fromDate", "recon.dateFormat"},
		{"report of an unknown level", "POST", "/api/recon/tickets-bank/report", `{` + october + `}`, 400, "Unknown reconciliation level", "level", "recon.unknownLevel"},
		{"report sorted by an unknown field", "POST", "/api/recon/ticket-transaction/report", `{` + october + `,"SortField":"Nope"}`, 400, "SortField", "SortField", ""},
		{"report with a currency list of objects", "POST", "/api/recon/ticket-transaction/report", `{` + october + `,"currency":[{"Code":"SEK"}],"provider":["Nuvei"]}`, 200,
			`"SRATicketCount":3`, "", ""},
		{"report with a bad currency entry", "POST", "/api/recon/ticket-transaction/report", `{` + october + `,"currency":[{"Nope":1}]}`, 400, "currency", "currency", ""},
		{"report with a column filter", "POST", "/api/recon/ticket-transaction/report", `{` + october + `,"Filters":[{"field":"SalesCurrency","op":"equals","value":"GBP"}]}`, 200,
			`"totalCount":1`, "", ""},
		{"settlements vs bank report", "POST", "/api/recon/settlement-bank/report", `{` + october + `}`, 200, `"Bank Account":null`, "", ""},
		{"ticket lookup", "POST", "/api/recon/ticket-transaction/tickets", `{` + october + `,"clientUniqueId":"1250000000002"}`, 200, `"ReconciliationStatusNumber":5`, "", ""},
		{"candidates", "POST", "/api/recon/ticket-transaction/candidates", `{` + october + `}`, 200, `"item1Total":4`, "", ""},
		{"candidates near ticked records", "POST", "/api/recon/ticket-transaction/candidates", `{` + october + `,"near":{"leftIds":[` + id("t2") + `],"rightIds":[]}}`, 200,
			`"SameReference":true`, "", ""},
		{"candidates near a record twice", "POST", "/api/recon/ticket-transaction/candidates", `{` + october + `,"near":{"leftIds":[` + id("t2") + `,` + id("t2") + `]}}`, 400,
			"", "near.leftIds", "recon.duplicateRecord"},
		{"candidates need dates", "POST", "/api/recon/ticket-transaction/candidates", `{}`, 400, "", "fromDate", "recon.datesRequired"},
		{"details", "POST", "/api/recon/ticket-transaction/details", `{"Currency":"SEK","SelectDate":"2026-10-05","PaymentType":"CC","CountryCode":"SE"}`, 200,
			`"TicketNumber":"1250000000004"`, "", ""},
		{"details without currency", "POST", "/api/recon/transaction-settlement/details", `{"SelectDate":"2026-10-05","ProviderActor":"Nuvei"}`, 400, "", "Currency", "recon.detailField"},
		{"details of a payout", "POST", "/api/recon/settlement-bank/details", `{"PayoutID":"PO-9"}`, 200, `"PayoutID":"PO-9"`, "", ""},
		{"chain of an unknown kind", "GET", "/api/recon/chain/invoice/1", "", 400, "", "kind", "recon.unknownKind"},
		{"chain of a missing record", "GET", "/api/recon/chain/ticket/999999", "", 404, "no ticket", "", "recon.unknownRecord"},
		{"why on a bad side", "GET", "/api/recon/ticket-transaction/why/middle/" + id("t1"), "", 400, "", "side", "recon.unknownSide"},
		{"why names the missed tolerance", "GET", "/api/recon/ticket-transaction/why/left/" + id("t3"), "", 200, `"reasons":["currency"]`, "", ""},
		{"match an unknown ticket", "POST", "/api/recon/ticket-transaction/match", `{"ticketId":999999,"transactionId":` + id("x1") + `}`, 400, "no ticket", "ticketId", "recon.unknownRecord"},
		{"match without a transaction", "POST", "/api/recon/ticket-transaction/match", `{"ticketId":` + id("t1") + `}`, 400, "", "transactionId", "recon.chooseBoth"},
		{"match with another level's body", "POST", "/api/recon/transaction-settlement/match", `{"ticketId":1,"transactionId":1}`, 400, "", "ticketId", "recon.otherLevel"},
		{"match across currencies outside tolerance", "POST", "/api/recon/ticket-transaction/match", `{"ticketId":` + id("t3") + `,"transactionId":` + id("x3") + `}`, 400,
			"beyond the currency tolerance", "force", "recon.outsideCurrencyTolerance"},
		{"evaluate a group", "POST", "/api/recon/ticket-transaction/evaluate", `{"leftIds":[` + id("t2") + `,` + id("t4") + `],"rightIds":[` + id("x2") + `]}`, 200,
			`"leftSum":"90.00","rightSum":"80.50"`, "", ""},
		{"evaluate names why a group needs force", "POST", "/api/recon/ticket-transaction/evaluate", `{"leftIds":[` + id("t2") + `,` + id("t4") + `],"rightIds":[` + id("x2") + `]}`, 200,
			`"code":"recon.groupOutsideTolerance"`, "", ""},
		{"evaluate with ids that are not a list", "POST", "/api/recon/ticket-transaction/evaluate", `{"leftIds":"1,2","rightIds":[1]}`, 400, "", "leftIds", "recon.idList"},
		{"evaluate a record twice", "POST", "/api/recon/ticket-transaction/evaluate", `{"leftIds":[` + id("t2") + `,` + id("t2") + `],"rightIds":[` + id("x2") + `]}`, 400,
			"", "leftIds", "recon.duplicateRecord"},
		{"evaluate with one side empty", "POST", "/api/recon/ticket-transaction/evaluate", `{"leftIds":[` + id("t2") + `],"rightIds":[]}`, 400, "", "rightIds", "recon.chooseBoth"},
		{"a group outside tolerance is refused", "POST", "/api/recon/ticket-transaction/match", `{"leftIds":[` + id("t2") + `,` + id("t4") + `],"rightIds":[` + id("x2") + `]}`, 400,
			"differ by 9.50", "force", "recon.groupOutsideTolerance"},
		{"a forced group needs a reason", "POST", "/api/recon/ticket-transaction/match", `{"leftIds":[` + id("t2") + `,` + id("t4") + `],"rightIds":[` + id("x2") + `],"force":true}`, 400,
			"", "reason", "recon.forceReasonRequired"},
		{"a group of unknown records", "POST", "/api/recon/ticket-transaction/match", `{"leftIds":[` + id("t2") + `,999999],"rightIds":[` + id("x2") + `]}`, 400,
			"no ticket", "ticketId", "recon.unknownRecord"},
		{"write off without a reason", "POST", "/api/recon/ticket-transaction/writeoff", `{"side":"left","ids":[` + id("t1") + `]}`, 400,
			"", "reason", "recon.writeoffReasonRequired"},
		{"write off a side that is none", "POST", "/api/recon/ticket-transaction/writeoff", `{"side":"both","ids":[` + id("t1") + `],"reason":"x"}`, 400,
			"", "side", "recon.side"},
		{"write off ids that are not a list", "POST", "/api/recon/ticket-transaction/writeoff", `{"side":"left","ids":"1","reason":"x"}`, 400,
			"", "ids", "recon.idList"},
		{"write off an unknown record", "POST", "/api/recon/ticket-transaction/writeoff", `{"side":"right","ids":[999999],"reason":"x"}`, 400,
			"no transaction", "ids", "recon.unknownRecord"},
		{"write off without a limit on one's roles", "POST", "/api/recon/ticket-transaction/writeoff", `{"side":"left","ids":[` + id("t1") + `],"reason":"x"}`, 403,
			"write-off limit", "", "recon.writeoffNotAllowed"},
		{"undo an unknown match", "DELETE", "/api/recon/ticket-transaction/match/999999", `{"reason":"x"}`, 404, "", "", "recon.matchNotFound"},
		{"run that does not exist", "GET", "/api/recon/runs/999999", "", 404, "", "", "recon.runNotFound"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var body any
			if tt.body != "" {
				body = tt.body
			}
			a := w.do(tt.method, tt.path, reconciler, body)
			if a.status != tt.status || !strings.Contains(string(a.body), tt.contains) || a.env.Field != tt.field ||
				tt.code != "" && a.env.Code != tt.code {
				t.Errorf("%d %s; want %d containing %q, field %q, code %q", a.status, a.body, tt.status, tt.contains, tt.field, tt.code)
			}
		})
	}

	// Auto reconcile answers the run's counts; the second changes nothing.
	run := w.must(200, "POST", "/api/recon/ticket-transaction/auto", reconciler, nil)
	if run["matched"] != float64(1) || run["partial"] != float64(1) || run["unmatched"] != float64(2) || run["status"] != "succeeded" {
		t.Errorf("auto: %v", run)
	}
	again := w.must(200, "POST", "/api/recon/ticket-transaction/auto", reconciler, nil)
	if again["matched"] != float64(0) || again["partial"] != float64(0) {
		t.Errorf("second auto: %v", again)
	}
	// A run of a level already going is refused, naming it.
	var running int64
	if err := w.pool.QueryRow(context.Background(), `insert into recon_run (level, status, created_by, started_on) values (2, 'running', 'olga', now()) returning id`).Scan(&running); err != nil {
		t.Fatal(err)
	}
	if a := w.do("POST", "/api/recon/transaction-settlement/auto", reconciler, nil); a.status != 409 || a.env.Code != "recon.runActive" ||
		!strings.Contains(a.env.Error, fmt.Sprintf("run %d", running)) || !strings.Contains(a.env.Error, "olga") {
		t.Errorf("concurrent run: %d %s", a.status, a.body)
	}
	w.pool.Exec(context.Background(), `update recon_run set status = 'failed', finished_on = now() where id = $1`, running)

	// Matched by auto: a second match of the ticket is a conflict.
	if a := w.do("POST", "/api/recon/ticket-transaction/match", reconciler, `{"ticketId":`+id("t1")+`,"transactionId":`+id("x2")+`}`); a.status != 409 || a.env.Code != "recon.alreadyMatched" {
		t.Errorf("already matched: %d %s", a.status, a.body)
	}
	// Forced across currencies, by hand, with who and when.
	m := w.must(201, "POST", "/api/recon/ticket-transaction/match", reconciler, `{"ticketId":`+id("t3")+`,"transactionId":`+id("x3")+`,"force":true,"reason":"agreed with the provider"}`)
	if m["createdBy"] != "rita" || m["rule"] != "forced" || m["reason"] != "agreed with the provider" || m["amountVariance"] != "-4.00" {
		t.Errorf("forced match: %v", m)
	}
	matchID := fmt.Sprint(m["id"])
	if a := w.do("DELETE", "/api/recon/ticket-transaction/match/"+matchID, reconciler, `{"reason":"  "}`); a.status != 400 || a.env.Field != "reason" {
		t.Errorf("undo without a reason: %d %s", a.status, a.body)
	}
	if a := w.do("DELETE", "/api/recon/transaction-settlement/match/"+matchID, reconciler, `{"reason":"wrong"}`); a.status != 404 {
		t.Errorf("undo through another level: %d %s", a.status, a.body)
	}
	undone := w.must(200, "DELETE", "/api/recon/ticket-transaction/match/"+matchID, reconciler, `{"reason":"wrong pair"}`)
	if undone["undoneBy"] != "rita" || undone["undoReason"] != "wrong pair" {
		t.Errorf("undo: %v", undone)
	}
	if a := w.do("DELETE", "/api/recon/ticket-transaction/match/"+matchID, reconciler, `{"reason":"again"}`); a.status != 409 || a.env.Code != "recon.alreadyUndone" {
		t.Errorf("undo twice: %d %s", a.status, a.body)
	}
	var audited int
	w.pool.QueryRow(context.Background(), `select count(*) from audit_log where entity = 'recon_match' and entity_id = $1 and action in ('recon.match.forced', 'recon.undo') and actor = 'rita'`, matchID).Scan(&audited)
	if audited != 2 {
		t.Errorf("audit rows for the match and its undo: %d", audited)
	}

	// Level 3 with the spec's body: the chosen rows.
	w.must(200, "POST", "/api/recon/settlement-bank/candidates", reconciler, "{"+october+"}")
	m3 := w.must(201, "POST", "/api/recon/settlement-bank/match", reconciler, `{"settlement":{"PayoutID":"PO-9"},"bank":{"id":`+id("b1")+`}}`)
	if m3["amountVariance"] != "0.00" {
		t.Errorf("level 3 match: %v", m3)
	}
	chain := w.must(200, "GET", "/api/recon/chain/bank/"+id("b1"), reconciler, nil)
	if links := chain["links"].([]any); len(links) < 2 {
		t.Errorf("chain of the booking: %v", chain)
	}
	if tickets := chain["tickets"].([]any); len(tickets) != 1 {
		t.Errorf("chain of the booking reaches the ticket: %v", chain["tickets"])
	}
	// Investigation: its own call, same answer.
	inv := w.must(201, "POST", "/api/recon/ticket-transaction/investigate", reconciler, `{"ticketId":`+id("t4")+`,"transactionId":`+id("x3")+`,"force":true,"reason":"ask the provider"}`)
	if inv["status"] != "investigation" {
		t.Errorf("investigation: %v", inv)
	}
	runs := w.do("GET", "/api/recon/runs?level=ticket-transaction", reconciler, nil)
	if list, _ := runs.env.Data.([]any); len(list) != 2 {
		t.Errorf("runs: %s", runs.body)
	}
	if a := w.do("POST", "/api/recon/ticket-transaction/report/export", reconciler, `{`+october+`,"Format":"csv"}`); a.status != 200 || !strings.Contains(string(a.body), "1250000000") && !strings.Contains(string(a.body), "SEK") {
		t.Errorf("export: %d %s", a.status, a.body)
	}
	// A group by hand: two tickets paid by one card payment, then undone whole.
	var t5, t6, x5 int64
	for _, r := range []struct {
		dst *int64
		sql string
	}{
		{&t5, `insert into ticket (ticket_number, trans_date, payment_type, country_code, currency, transaction_code, sale_amount, natural_key, import_file_id)
			values ('1250000000005', '2026-10-06', 'CC', 'SE', 'SEK', 'TKTT', 60.00, 'g5', 1) returning id`},
		{&t6, `insert into ticket (ticket_number, trans_date, payment_type, country_code, currency, transaction_code, sale_amount, natural_key, import_file_id)
			values ('1250000000006', '2026-10-06', 'CC', 'SE', 'SEK', 'TKTT', 40.00, 'g6', 1) returning id`},
		{&x5, `insert into card_transaction (client_unique_id, processing_date, provider_actor, acquiring_bank, payment_method, currency,
			transaction_amount, transaction_type, natural_key, import_file_id)
			values ('1250000000005', '2026-10-06', 'Nuvei', 'Acq', 'Visa', 'SEK', 100.00, 'Sale', 'g5', 1) returning id`},
	} {
		if err := w.pool.QueryRow(context.Background(), r.sql).Scan(r.dst); err != nil {
			t.Fatal(err)
		}
	}
	g := w.must(201, "POST", "/api/recon/ticket-transaction/match", reconciler, fmt.Sprintf(`{"leftIds":[%d,%d],"rightIds":[%d]}`, t5, t6, x5))
	if fmt.Sprint(g["leftIds"]) != fmt.Sprintf("[%d %d]", t5, t6) || fmt.Sprint(g["rightIds"]) != fmt.Sprintf("[%d]", x5) || g["amountVariance"] != "0.00" || g["rule"] != "manual" {
		t.Errorf("group: %v", g)
	}
	why := w.must(200, "GET", fmt.Sprintf("/api/recon/ticket-transaction/why/left/%d", t6), reconciler, nil)
	if match, _ := why["match"].(map[string]any); match == nil || match["id"] != g["id"] {
		t.Errorf("why of the group's second ticket: %v", why["match"])
	}
	gone := w.must(200, "DELETE", fmt.Sprintf("/api/recon/ticket-transaction/match/%v", g["id"]), reconciler, `{"reason":"two payments after all"}`)
	if fmt.Sprint(gone["leftIds"]) != fmt.Sprintf("[%d %d]", t5, t6) || gone["undoneBy"] != "rita" {
		t.Errorf("undo of the group: %v", gone)
	}
}
