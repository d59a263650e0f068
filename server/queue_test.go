package server

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestOpenItemsQueue drives the exception queue through the API: its grid
// follows a run, and each bulk action (investigate and back, assign, write
// off) with its refusals and permissions.
func TestOpenItemsQueue(t *testing.T) {
	w := newWorld(t)
	admin := w.login("admin", adminPassword)
	ritaID, rita := w.addUser(admin, "rita", 13)
	_, clerk := w.addUser(admin, "clerk", 7)
	ids := reconData(t, w)
	ctx := context.Background()
	if _, err := w.pool.Exec(ctx, `insert into currency_exchange_rate (exchange_rate_on, code, currency, usd) values ('2026-10-01', 'SEK', 'Krona', 0.1)`); err != nil {
		t.Fatal(err)
	}

	// The queue as the grid reads it: "level/side/record" -> status, assignee.
	type row struct{ status, assignee, task string }
	queue := func() map[string]row {
		t.Helper()
		d := w.must(200, "POST", "/api/grid", rita, map[string]any{"ViewName": "VW_ReconOpenItems", "PageSize": 100})
		out := map[string]row{}
		for _, r := range d["dataList"].([]any) {
			m := r.(map[string]any)
			key := fmt.Sprintf("%v/%v/%v", m["Level"], m["Side"], m["RecordId"])
			out[key] = row{fmt.Sprint(m["Status"]), fmt.Sprint(m["Assignee"]), fmt.Sprint(m["TaskId"])}
		}
		return out
	}
	key := func(level int, side, name string) string { return fmt.Sprintf("%d/%s/%d", level, side, ids[name]) }
	item := func(level int, side, name string) map[string]any {
		return map[string]any{"Level": fmt.Sprint(level), "Side": side, "RecordId": ids[name]}
	}

	// Imported, not yet reconciled: waiting for a run, no exception yet.
	q := queue()
	if len(q) != 0 {
		t.Fatalf("queue before any run: %d items, want none: %v", len(q), q)
	}
	if run := w.must(200, "POST", "/api/recon/ticket-transaction/auto", rita, nil); run["status"] != "succeeded" {
		t.Fatalf("auto: %v", run)
	}
	// The run leaves the level's exceptions: t2/x2 partial, t3, x3 and t4 unmatched.
	q = queue()
	if len(q) != 5 {
		t.Errorf("queue after the run of level 1: %d items, want 5: %v", len(q), q)
	}
	if _, open := q[key(1, "left", "t1")]; open {
		t.Errorf("t1 matched exactly but still open: %v", q)
	}
	if q[key(1, "left", "t2")].status != "partial" || q[key(1, "right", "x2")].status != "partial" {
		t.Errorf("t2/x2 within tolerance: %v, %v", q[key(1, "left", "t2")], q[key(1, "right", "x2")])
	}
	if q[key(1, "left", "t4")].status != "unmatched" {
		t.Errorf("t4: %v", q[key(1, "left", "t4")])
	}

	// Who may act: the Reconcile screen.
	for _, path := range []string{"assign", "investigate", "uninvestigate", "writeoff"} {
		body := map[string]any{"items": []any{item(1, "left", "t4")}, "reason": "r"}
		if a := w.do("POST", "/api/recon/open-items/"+path, clerk, body); a.status != 403 {
			t.Errorf("%s as a clerk: %d %s", path, a.status, a.body)
		}
		if a := w.do("POST", "/api/recon/open-items/"+path, "", body); a.status != 401 {
			t.Errorf("%s anonymous: %d", path, a.status)
		}
	}
	// Bad input names its field.
	bad := []struct {
		path        string
		body        any
		field, code string
	}{
		{"investigate", map[string]any{"items": []any{item(1, "left", "t4")}}, "reason", "recon.investigateReasonRequired"},
		{"investigate", map[string]any{"items": []any{}, "reason": "r"}, "items", "recon.queueEmpty"},
		{"investigate", map[string]any{"items": []any{map[string]any{"Level": "7", "Side": "left", "RecordId": 1}}, "reason": "r"}, "items", "recon.queueNoRecord"},
		{"investigate", map[string]any{"items": []any{map[string]any{"Level": "one", "Side": "left", "RecordId": 1}}, "reason": "r"}, "items", "recon.queueItem"},
		{"writeoff", map[string]any{"items": []any{item(1, "left", "t4")}, "reason": " "}, "reason", "recon.writeoffReasonRequired"},
		{"assign", map[string]any{"items": []any{item(1, "left", "t4")}, "taskName": "x"}, "assignedToId", "tasks.assigneeRequired"},
		{"assign", map[string]any{"items": []any{item(1, "left", "t4")}, "assignedToId": ritaID, "taskName": " "}, "taskName", "tasks.nameRequired"},
		{"assign", map[string]any{"items": []any{}, "assignedToId": ritaID, "taskName": "x"}, "items", "recon.queueEmpty"},
	}
	for _, b := range bad {
		a := w.do("POST", "/api/recon/open-items/"+b.path, rita, b.body)
		if a.status != 400 || a.env.Field != b.field || !strings.Contains(string(a.body), b.code) {
			t.Errorf("%s %v: %d field %q: %s; want 400 on %s (%s)", b.path, b.body, a.status, a.env.Field, a.body, b.field, b.code)
		}
	}

	// Investigate: the unmatched t4 is marked, the partial t2 (in a match) is skipped.
	d := w.must(200, "POST", "/api/recon/open-items/investigate", rita,
		map[string]any{"items": []any{item(1, "left", "t4"), item(1, "left", "t2")}, "reason": "customer called"})
	if d["marked"] != 1.0 || d["skipped"] != 1.0 {
		t.Errorf("investigate: %v", d)
	}
	if got := queue()[key(1, "left", "t4")].status; got != "investigation" {
		t.Errorf("t4 after the mark: %s", got)
	}
	if n := w.count(`select count(*) from audit_log where action = 'recon.investigate.mark'`); n != 1 {
		t.Errorf("%d audit rows of the mark", n)
	}
	w.must(200, "POST", "/api/recon/open-items/uninvestigate", rita, map[string]any{"items": []any{item(1, "left", "t4")}})
	if got := queue()[key(1, "left", "t4")].status; got != "unmatched" {
		t.Errorf("t4 after the mark is taken away: %s", got)
	}

	// a settlement no transaction pays: open at level 2 after its run
	var s2 int64
	if err := w.pool.QueryRow(ctx, `insert into settlement (payout_id, client_unique_id, settlement_date, provider_actor, settlement_currency,
		gross_amount, fees, settlement_net, natural_key, import_file_id) values ('PO-8', '1250000000099', '2026-10-06', 'Nuvei', 'SEK', 50.00, 1.00, 49.00, 's2', 1)
		returning id`).Scan(&s2); err != nil {
		t.Fatal(err)
	}
	ids["s2"] = s2
	if run := w.must(200, "POST", "/api/recon/transaction-settlement/auto", rita, nil); run["status"] != "succeeded" {
		t.Fatalf("auto level 2: %v", run)
	}
	// Assign: t3, x3 and the settlement s2 get one new task for rita.
	d = w.must(200, "POST", "/api/recon/open-items/assign", rita, map[string]any{
		"items": []any{item(1, "left", "t3"), item(1, "right", "x3"), item(2, "right", "s2")}, "assignedToId": ritaID, "taskName": "Check GBP ticket"})
	created, _ := d["created"].(map[string]any)
	if created == nil || len(d["updated"].([]any)) != 0 {
		t.Fatalf("assign: %v", d)
	}
	// the task follows the settlement by its reference, beside the ticket and transaction ids
	if records, _ := created["records"].([]any); len(records) != 1 || records[0].(map[string]any)["kind"] != "settlement" ||
		records[0].(map[string]any)["ref"] == nil || len(created["ticketIds"].([]any)) != 1 || len(created["transactionIds"].([]any)) != 1 {
		t.Fatalf("created task links %v, %v, %v", created["ticketIds"], created["transactionIds"], created["records"])
	}
	task := fmt.Sprint(created["id"])
	q = queue()
	for _, k := range []string{key(1, "left", "t3"), key(1, "right", "x3"), key(2, "left", "x3"), key(2, "right", "s2")} {
		if q[k].assignee != "rita" || q[k].task != task {
			t.Errorf("%s after assigning: %+v, want task %s for rita", k, q[k], task)
		}
	}
	// Again to the admin: the open task following x3 and s2 is reassigned, no new one.
	d = w.must(200, "POST", "/api/recon/open-items/assign", rita, map[string]any{
		"items": []any{item(2, "left", "x3"), item(2, "right", "s2")}, "assignedToId": 1, "taskName": "unused"})
	if d["created"] != nil || !slices.Equal(d["updated"].([]any), []any{created["id"]}) {
		t.Errorf("reassign: %v", d)
	}
	for _, k := range []string{key(1, "left", "t3"), key(2, "right", "s2")} {
		if got := queue()[k]; got.assignee != "admin" {
			t.Errorf("%s after reassigning its task: %+v", k, got)
		}
	}
	// Completing the task takes it off the queue's rows, of every kind.
	if _, err := w.pool.Exec(ctx, `update task set is_status = 3 where id = $1`, created["id"]); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{key(1, "left", "t3"), key(2, "right", "s2")} {
		if got := queue()[k]; got.task != "<nil>" || got.assignee != "<nil>" {
			t.Errorf("%s after its task was completed: %+v", k, got)
		}
	}
	history := w.count(`select count(*) from audit_log where entity = 'task' and entity_id = $1`, task)
	if history != 2 {
		t.Errorf("task %s has %d history rows, want the creation and the reassignment", task, history)
	}

	// Write off: rita's role has no limit; with one, t4 (10 SEK = 1 USD) goes.
	if a := w.do("POST", "/api/recon/open-items/writeoff", rita, map[string]any{"items": []any{item(1, "left", "t4")}, "reason": "small"}); a.status != 403 {
		t.Errorf("write off without a limit: %d %s", a.status, a.body)
	}
	if _, err := w.pool.Exec(ctx, `update role set writeoff_limit = 5 where role_name = 'rita role'`); err != nil {
		t.Fatal(err)
	}
	var matches []map[string]any
	a := w.do("POST", "/api/recon/open-items/writeoff", rita, map[string]any{"items": []any{item(1, "left", "t4")}, "reason": "small"})
	raw, _ := json.Marshal(a.env.Data)
	json.Unmarshal(raw, &matches)
	if a.status != 201 || len(matches) != 1 || matches[0]["rule"] != "writeoff" {
		t.Fatalf("write off: %d %s", a.status, a.body)
	}
	if _, open := queue()[key(1, "left", "t4")]; open {
		t.Error("t4 written off but still open")
	}
	// Over the limit, all or none: t3 (100 GBP = 125 USD) refuses the pair.
	if a := w.do("POST", "/api/recon/open-items/writeoff", rita,
		map[string]any{"items": []any{item(1, "right", "x2"), item(1, "left", "t3")}, "reason": "both"}); a.status != 403 {
		t.Errorf("write off above the limit: %d %s", a.status, a.body)
	}
	if _, open := queue()[key(1, "left", "t3")]; !open {
		t.Error("t3 left the queue after a refused write-off")
	}
}
