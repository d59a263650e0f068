package server

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
)

// taskFixture loads two tickets and two card transactions of one ticket
// number and returns their ids.
func taskFixture(t *testing.T, w *world) (tickets, transactions [2]int64) {
	t.Helper()
	ctx := context.Background()
	var ticketFile, txFile int64
	for kind, id := range map[string]*int64{"ticket": &ticketFile, "transaction": &txFile} {
		err := w.pool.QueryRow(ctx, `insert into import_file (kind, file_name, format, descriptor, sha256, size_bytes, status)
			values ($1, $1 || '.csv', 'csv', 'default', repeat(left(md5($1), 1), 64), 1, 'succeeded') returning id`, kind).Scan(id)
		if err != nil {
			t.Fatal(err)
		}
	}
	for i, amount := range []string{"100.00", "50.00"} {
		err := w.pool.QueryRow(ctx, `insert into ticket (ticket_number, trans_date, payment_type, country_code, currency, transaction_code, sale_amount, natural_key, import_file_id)
			values ($1, date '2026-11-02', 'CC', 'SE', 'USD', 'TKTT', $2::numeric, $1, $3) returning id`,
			fmt.Sprintf("12345678901%02d", i), amount, ticketFile).Scan(&tickets[i])
		if err != nil {
			t.Fatal(err)
		}
	}
	for i, amount := range []string{"90.00", "40.00"} {
		err := w.pool.QueryRow(ctx, `insert into card_transaction (client_unique_id, processing_date, provider_actor, acquiring_bank, payment_method, currency, transaction_amount, transaction_type, natural_key, import_file_id)
			values ($1, date '2026-11-03', 'nuvei', 'Bank A', 'Visa', 'USD', $2::numeric, 'Sale', 'tx' || $1, $3) returning id`,
			fmt.Sprintf("12345678901%02d", i), amount, txFile).Scan(&transactions[i])
		if err != nil {
			t.Fatal(err)
		}
	}
	return tickets, transactions
}

func (w *world) count(sql string, args ...any) int {
	w.t.Helper()
	var n int
	if err := w.pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		w.t.Fatal(err)
	}
	return n
}

func TestTaskPermissions(t *testing.T) {
	w := newWorld(t)
	admin := w.login("admin", adminPassword)
	_, tasker := w.addUser(admin, "tasker", 14)
	_, reconciler := w.addUser(admin, "reconciler", 13)
	_, clerk := w.addUser(admin, "clerk", 1)
	task := w.must(201, "POST", "/api/TaskTT", admin, map[string]any{"taskName": "Check"})
	p := fmt.Sprintf("/api/TaskTT/%v", task["id"])
	tokens := map[string]string{"admin": admin, "tasker": tasker, "reconciler": reconciler, "clerk": clerk, "anonymous": ""}
	users := []string{"admin", "tasker", "reconciler", "clerk", "anonymous"}
	// Each row: method, path, body, then the status for admin, tasker, reconciler, clerk, anonymous.
	tests := []struct {
		method, path string
		body         any
		want         [5]int
	}{
		{"GET", "/api/TaskTT", nil, [5]int{200, 200, 403, 403, 401}},
		{"POST", "/api/TaskTT", "{}", [5]int{400, 400, 403, 403, 401}},
		{"POST", "/api/TaskTT/with-items", "{}", [5]int{400, 400, 403, 403, 401}},
		{"GET", p, nil, [5]int{200, 200, 403, 403, 401}},
		{"PUT", p, "{}", [5]int{400, 400, 403, 403, 401}},
		{"GET", p + "/relations", nil, [5]int{200, 200, 403, 403, 401}},
		{"GET", p + "/history", nil, [5]int{200, 200, 403, 403, 401}},
		{"POST", p + "/manual-adjust", "{}", [5]int{400, 400, 403, 403, 401}},
		{"DELETE", p + "/manual-adjust/999999", nil, [5]int{404, 404, 403, 403, 401}},
		{"GET", "/api/TaskTT/paged?page=1&pageSize=10", nil, [5]int{200, 200, 403, 403, 401}},
		{"PATCH", p + "/field?field=Priority", `"x"`, [5]int{400, 400, 403, 403, 401}},
		{"GET", "/api/TaskTT/export?format=csv", nil, [5]int{200, 200, 403, 403, 401}},
		{"GET", "/api/TaskTT/999999", nil, [5]int{404, 404, 403, 403, 401}},
		{"GET", "/api/TaskTT/candidates?ticketNumber=1234567890100", nil, [5]int{200, 403, 403, 403, 401}}, // tasks and reconcile
		{"GET", "/api/Users/list", nil, [5]int{200, 200, 200, 403, 401}},
		{"GET", "/api/preferences/tasks.grid", nil, [5]int{200, 200, 200, 200, 401}},
		{"PUT", "/api/preferences/tasks.grid", `{"order":["taskName"]}`, [5]int{204, 204, 204, 204, 401}},
		{"PUT", "/api/preferences/Bad%20Key", `{}`, [5]int{400, 400, 400, 400, 401}},
	}
	for _, tt := range tests {
		for i, who := range users {
			t.Run(fmt.Sprintf("%s %s as %s", tt.method, tt.path, who), func(t *testing.T) {
				a := w.do(tt.method, tt.path, tokens[who], tt.body)
				if a.status != tt.want[i] {
					t.Fatalf("status %d, want %d: %s", a.status, tt.want[i], a.body)
				}
				if a.status >= 400 && (a.env.Succeeded || a.env.Error == "") {
					t.Errorf("an error answer needs succeeded=false and a message: %s", a.body)
				}
			})
		}
	}
	// Users/list carries the spec's userId and username beside the old fields.
	a := w.do("GET", "/api/Users/list", tasker, nil)
	if !strings.Contains(string(a.body), `"userId":`) || !strings.Contains(string(a.body), `"username":"tasker"`) || !strings.Contains(string(a.body), `"firstName":`) {
		t.Errorf("Users/list: %s", a.body)
	}
	// Preferences are per user.
	w.must(204, "PUT", "/api/preferences/tasks.grid", clerk, `{"order":["remarks"]}`)
	if a := w.do("GET", "/api/preferences/tasks.grid", tasker, nil); !strings.Contains(string(a.body), `"taskName"`) {
		t.Errorf("tasker's preferences: %s", a.body)
	}
	if a := w.do("GET", "/api/preferences/tasks.grid", clerk, nil); !strings.Contains(string(a.body), `"remarks"`) {
		t.Errorf("clerk's preferences: %s", a.body)
	}
}

// TestTaskScenarios walks the API in order: each step's status and a piece
// of its answer; bad input names its field and leaves nothing half-saved.
func TestTaskScenarios(t *testing.T) {
	w := newWorld(t)
	admin := w.login("admin", adminPassword)
	assigneeID, tasker := w.addUser(admin, "tasker", 13, 14) // links documents: reconcile too
	tk, tx := taskFixture(t, w)
	var adminID int64
	w.pool.QueryRow(context.Background(), `select id from app_user where username = 'admin'`).Scan(&adminID)
	w.pool.Exec(context.Background(), `insert into app_user (username, first_name, last_name, email, password_hash, is_active) values ('gone', 'Gone', 'User', 'gone@example.com', 'x', false)`)
	var goneID int64
	w.pool.QueryRow(context.Background(), `select id from app_user where username = 'gone'`).Scan(&goneID)

	made := w.must(201, "POST", "/api/TaskTT/with-items", tasker, map[string]any{
		"taskName": "Reconciliation Review (2T / 2X)", "assignedToId": assigneeID, "isStatus": 1, "remarks": "Linked automatically",
		"ticketIds": []int64{tk[0], tk[1]}, "transactionIds": fmt.Sprintf("%d, %d", tx[0], tx[1]),
	})
	id := int64(made["id"].(float64))
	version := made["updatedOn"].(string)
	task := fmt.Sprintf("/api/TaskTT/%d", id)
	tasksBefore := w.count(`select count(*) from task`)

	type step struct {
		name, user, method, path string
		body                     any
		status                   int
		contains                 []string
	}
	steps := []step{
		{"get", "tasker", "GET", task, nil, 200, []string{`"taskName":"Reconciliation Review (2T / 2X)"`, `"assignedToName":"Tasker Tester"`, `"statusLabel":"New"`, `"totalAmount":"150.00"`, `"balance":"20.00"`, fmt.Sprintf(`"ticketIds":[%d,%d]`, tk[0], tk[1])}},
		{"list", "tasker", "GET", "/api/TaskTT", nil, 200, []string{`"taskName":"Reconciliation Review (2T / 2X)"`}},
		{"relations", "tasker", "GET", task + "/relations", nil, 200, []string{`"ticketCount":2`, `"transactionCount":2`, `"ticketTotal":"150.00"`, `"transactionTotal":"130.00"`, `"balance":"20.00"`, `"ticketNumber":"1234567890100"`, `"totalFareIncludesFee":"100.00"`, `"isManualAdjust":false`}},
		{"candidates", "tasker", "GET", "/api/TaskTT/candidates?ticketNumber=1234567890100", nil, 200, []string{`"ticketCount":1`, `"transactionCount":1`, `"ticketTotal":"100.00"`, `"transactionTotal":"90.00"`, `"balance":"10.00"`, fmt.Sprintf(`"ticketId":%d`, tk[0])}},
		{"candidates without number", "tasker", "GET", "/api/TaskTT/candidates", nil, 400, []string{`"field":"ticketNumber"`}},
		// Bad input on create: nothing is saved.
		{"create without name", "tasker", "POST", "/api/TaskTT", `{"taskName":"  "}`, 400, []string{`"field":"taskName"`, `"code":"tasks.nameRequired"`}},
		{"create unknown user", "tasker", "POST", "/api/TaskTT", `{"taskName":"x","assignedToId":999999}`, 400, []string{`"field":"assignedToId"`, `"code":"tasks.unknownUser"`}},
		{"create inactive user", "tasker", "POST", "/api/TaskTT", fmt.Sprintf(`{"taskName":"x","assignedToId":%d}`, goneID), 400, []string{`"field":"assignedToId"`}},
		{"create status 4", "tasker", "POST", "/api/TaskTT", `{"taskName":"x","isStatus":4}`, 400, []string{`"field":"isStatus"`, `"code":"tasks.badStatus"`}},
		{"create status 0", "tasker", "POST", "/api/TaskTT", `{"taskName":"x","isStatus":0}`, 400, []string{`"field":"isStatus"`}},
		{"create status text", "tasker", "POST", "/api/TaskTT", `{"taskName":"x","isStatus":"New"}`, 400, []string{`"field":"isStatus"`}},
		{"ids not digits", "tasker", "POST", "/api/TaskTT/with-items", `{"taskName":"x","ticketIds":"1,2a"}`, 400, []string{`"field":"ticketIds"`, `"code":"tasks.badIds"`}},
		{"negative id", "tasker", "POST", "/api/TaskTT/with-items", `{"taskName":"x","transactionIds":[-3]}`, 400, []string{`"field":"transactionIds"`}},
		{"decimal id", "tasker", "POST", "/api/TaskTT/with-items", `{"taskName":"x","transactionIds":[1.5]}`, 400, []string{`"field":"transactionIds"`}},
		{"ids that do not exist", "tasker", "POST", "/api/TaskTT/with-items", fmt.Sprintf(`{"taskName":"x","ticketIds":[%d, 999999]}`, tk[0]), 400, []string{`"field":"ticketIds"`, `"code":"tasks.unknownIds"`, `999999`}},
		{"ticket twice", "tasker", "POST", "/api/TaskTT/with-items", fmt.Sprintf(`{"taskName":"x","ticketIds":"%d,%d"}`, tk[0], tk[0]), 400, []string{`"field":"ticketIds"`, `"code":"tasks.duplicateId"`}},
		{"name too long", "tasker", "POST", "/api/TaskTT", map[string]string{"taskName": strings.Repeat("n", 201)}, 400, []string{`"field":"taskName"`}},
		{"not json", "tasker", "POST", "/api/TaskTT", `nope`, 400, nil},
		// Adjustments.
		{"adjust negative", "tasker", "POST", task + "/manual-adjust", fmt.Sprintf(`{"ticketId":%d,"amount":-5,"date":"2026-11-24"}`, tk[0]), 400, []string{`"field":"amount"`, `"code":"tasks.amountNegative"`}},
		{"adjust 3 decimals", "tasker", "POST", task + "/manual-adjust", fmt.Sprintf(`{"ticketId":%d,"amount":1.005,"date":"2026-11-24"}`, tk[0]), 400, []string{`"field":"amount"`, `"code":"tasks.amountFormat"`}},
		{"adjust zero", "tasker", "POST", task + "/manual-adjust", fmt.Sprintf(`{"ticketId":%d,"amount":"0.00","date":"2026-11-24"}`, tk[0]), 400, []string{`"field":"amount"`}},
		{"adjust without date", "tasker", "POST", task + "/manual-adjust", fmt.Sprintf(`{"ticketId":%d,"amount":5}`, tk[0]), 400, []string{`"field":"date"`}},
		{"adjust unlinked ticket", "tasker", "POST", task + "/manual-adjust", `{"ticketId":999999,"amount":5,"date":"2026-11-24"}`, 400, []string{`"field":"ticketId"`, `"code":"tasks.ticketNotLinked"`}},
		{"adjust other currency", "tasker", "POST", task + "/manual-adjust", fmt.Sprintf(`{"ticketId":%d,"amount":5,"date":"2026-11-24","currency":"EUR"}`, tk[0]), 400, []string{`"field":"currency"`}},
		{"adjust wrong number", "tasker", "POST", task + "/manual-adjust", fmt.Sprintf(`{"ticketId":%d,"ticketNumber":"9999999999999","amount":5,"date":"2026-11-24"}`, tk[0]), 400, []string{`"field":"ticketNumber"`}},
		{"adjust missing task", "tasker", "POST", "/api/TaskTT/999999/manual-adjust", fmt.Sprintf(`{"ticketId":%d,"amount":5,"date":"2026-11-24"}`, tk[0]), 404, []string{`"code":"tasks.notFound"`}},
		{"adjust", "tasker", "POST", task + "/manual-adjust", fmt.Sprintf(`{"ticketId":%d,"ticketNumber":"1234567890100","amount":"20.00","date":"2026-11-24","currency":"USD","remarks":"balance","createdBy":"someone else"}`, tk[0]), 201, []string{`"isManualAdjust":true`, `"amount":"20.00"`, `"clientUniqueId":"1234567890100"`, `"createdBy":"tasker"`, `"currency":"USD"`}},
		{"balanced", "tasker", "GET", task + "/relations", nil, 200, []string{`"transactionCount":3`, `"transactionTotal":"150.00"`, `"balance":"0.00"`, `"isManualAdjust":true`}},
		// Stale and bad updates.
		{"stale put", "tasker", "PUT", task, map[string]any{"taskName": "Other", "isStatus": 2, "updatedOn": version}, 409, []string{`"code":"tasks.stale"`}},
		{"put without version", "tasker", "PUT", task, map[string]any{"taskName": "Other", "isStatus": 2}, 400, []string{`"field":"updatedOn"`}},
		{"patch other field", "tasker", "PATCH", task + "/field?field=IsStatus", `"3"`, 400, []string{`"field":"field"`, `"code":"tasks.fieldNotEditable"`}},
		{"patch empty name", "tasker", "PATCH", task + "/field?field=TaskName", `""`, 400, []string{`"field":"taskName"`}},
		{"patch stale", "tasker", "PATCH", task + "/field?field=TaskName&version=" + url.QueryEscape(version), `"Late"`, 409, []string{`"code":"tasks.stale"`}},
		{"patch name", "tasker", "PATCH", task + "/field?field=TaskName", `"Review of 2 tickets"`, 200, []string{`"taskName":"Review of 2 tickets"`}},
		{"patch remarks", "tasker", "PATCH", task + "/field?field=Remarks", `{"value":"Called the bank"}`, 200, []string{`"remarks":"Called the bank"`}},
		{"paged", "tasker", "GET", "/api/TaskTT/paged?page=1&pageSize=10&sort=TaskName%20asc&filters=taskName:review", nil, 200, []string{`"total":1`, `"taskName":"Review of 2 tickets"`, `"balance":"0.00"`}},
		{"paged bad sort", "tasker", "GET", "/api/TaskTT/paged?sort=Nope%20asc", nil, 400, []string{`"field":"sort"`}},
		{"paged bad order", "tasker", "GET", "/api/TaskTT/paged?sort=TaskName%20up", nil, 400, []string{`"field":"sort"`}},
		{"paged bad filter field", "tasker", "GET", "/api/TaskTT/paged?filters=nope:1", nil, 400, []string{`"field":"filters"`}},
		{"paged bad filter pair", "tasker", "GET", "/api/TaskTT/paged?filters=taskName", nil, 400, []string{`"field":"filters"`}},
		{"paged bad page", "tasker", "GET", "/api/TaskTT/paged?page=0", nil, 400, []string{`"field":"page"`}},
		{"paged bad page size", "tasker", "GET", "/api/TaskTT/paged?pageSize=100000", nil, 400, []string{`"field":"pageSize"`}},
		{"paged bad group", "tasker", "GET", "/api/TaskTT/paged?groupBy=nope", nil, 400, []string{`"field":"groupBy"`}},
		{"paged grouped", "tasker", "GET", "/api/TaskTT/paged?groupBy=isStatus", nil, 200, []string{`"total":1`}},
		{"export bad format", "tasker", "GET", "/api/TaskTT/export?format=pdf", nil, 400, []string{`"field":"format"`}},
		{"export bad column", "tasker", "GET", "/api/TaskTT/export?format=csv&columns=nope", nil, 400, []string{`"field":"columns"`}},
		{"delete adjustment of another task", "tasker", "DELETE", "/api/TaskTT/999999/manual-adjust/1", nil, 404, nil},
		{"delete an imported transaction", "tasker", "DELETE", fmt.Sprintf("%s/manual-adjust/%d", task, tx[0]), nil, 404, []string{`"code":"tasks.adjustmentNotFound"`}},
		{"bad transaction id", "tasker", "DELETE", task + "/manual-adjust/abc", nil, 400, []string{`"field":"transactionId"`}},
	}
	for _, s := range steps {
		tok := map[string]string{"admin": admin, "tasker": tasker}[s.user]
		a := w.do(s.method, s.path, tok, s.body)
		if a.status != s.status {
			t.Errorf("%s: status %d, want %d: %s", s.name, a.status, s.status, a.body)
			continue
		}
		for _, c := range s.contains {
			if !strings.Contains(string(a.body), c) {
				t.Errorf("%s: answer lacks %s: %s", s.name, c, a.body)
			}
		}
	}
	if n := w.count(`select count(*) from task`); n != tasksBefore {
		t.Errorf("bad input saved tasks: %d, want %d", n, tasksBefore)
	}
	if n := w.count(`select count(*) from card_transaction where is_manual_adjust`); n != 1 {
		t.Errorf("manual adjustments: %d, want 1", n)
	}
	if n := w.count(`select count(*) from card_transaction where is_manual_adjust and task_id = $1 and provider_actor = 'Manual adjustment' and import_file_id is null`, id); n != 1 {
		t.Errorf("the adjustment is not stored as a manual-adjustment transaction of the task")
	}

	// A PUT whose links are bad changes nothing, not even the fields sent with them.
	cur := w.must(200, "GET", task, tasker, nil)
	bad := w.do("PUT", task, tasker, map[string]any{"taskName": "Half", "isStatus": 2, "ticketIds": []int64{tk[0], 999999}, "updatedOn": cur["updatedOn"]})
	if bad.status != 400 || bad.env.Field != "ticketIds" {
		t.Errorf("PUT with an unknown ticket: %d %s", bad.status, bad.body)
	}
	if after := w.must(200, "GET", task, tasker, nil); after["taskName"] != cur["taskName"] || after["updatedOn"] != cur["updatedOn"] || len(after["ticketIds"].([]any)) != 2 {
		t.Errorf("a refused PUT changed the task: %v", after)
	}
	// A full PUT with the current version: fields, status and links.
	saved := w.must(200, "PUT", task, tasker, map[string]any{"id": id, "taskName": "Review", "assignedToId": adminID, "isStatus": 3,
		"remarks": "Done", "priority": 2, "ticketIds": fmt.Sprint(tk[0]), "transactionIds": []any{fmt.Sprint(tx[0])}, "updatedOn": cur["updatedOn"]})
	if saved["statusLabel"] != "Complete" || saved["assignedToName"] != "Admin User" && saved["assignedToName"] == nil || len(saved["ticketIds"].([]any)) != 1 ||
		len(saved["transactionIds"].([]any)) != 2 { // the adjustment stays linked
		t.Errorf("PUT: %v", saved)
	}
	// The adjustment, deleted: the balance moves back.
	rel := w.must(200, "GET", task+"/relations", tasker, nil)
	var adj string
	for _, x := range rel["transactions"].([]any) {
		if m := x.(map[string]any); m["isManualAdjust"] == true {
			adj = fmt.Sprint(m["transactionId"])
		}
	}
	w.must(204, "DELETE", task+"/manual-adjust/"+adj, tasker, nil)
	if rel := w.must(200, "GET", task+"/relations", tasker, nil); rel["balance"] != "10.00" || rel["transactionCount"].(float64) != 1 {
		t.Errorf("after deleting the adjustment: %v", rel)
	}
	w.must(404, "DELETE", task+"/manual-adjust/"+adj, tasker, nil)

	// A task without transactions cannot be adjusted.
	bare := w.must(201, "POST", "/api/TaskTT/with-items", tasker, map[string]any{"taskName": "Bare", "ticketIds": []int64{tk[1]}})
	a := w.do("POST", fmt.Sprintf("/api/TaskTT/%v/manual-adjust", bare["id"]), tasker, map[string]any{"ticketId": tk[1], "amount": 1, "date": "2026-11-24"})
	if a.status != 400 || a.env.Field != "transactionIds" || a.env.Code != "tasks.noTransactions" {
		t.Errorf("adjusting a task without transactions: %d %s", a.status, a.body)
	}

	// Every change is in the history, newest first, with before and after.
	hist := w.do("GET", task+"/history", tasker, nil)
	for _, want := range []string{`"action":"task.create"`, `"action":"task.field"`, `"action":"task.update"`, `"action":"task.links"`, `"action":"task.adjust"`, `"action":"task.adjust.delete"`, `"taskName":"Reconciliation Review (2T / 2X)"},"after":{`, `"actor":"tasker"`} {
		if !strings.Contains(string(hist.body), want) {
			t.Errorf("history lacks %s: %s", want, hist.body)
		}
	}
	if !strings.HasPrefix(strings.SplitN(string(hist.body), `"action":`, 2)[1], `"task.adjust.delete"`) {
		t.Errorf("history is not newest first: %s", hist.body)
	}

	// Export: CSV with the list's filter and sort, formula cells neutralised; Excel.
	w.must(200, "PATCH", task+"/field?field=Remarks", tasker, `"=HYPERLINK(1)"`)
	csv := w.do("GET", "/api/TaskTT/export?format=csv&sort=TaskName%20desc&filters=taskName:review&columns=id,taskName,remarks,balance", tasker, nil)
	body := strings.TrimPrefix(string(csv.body), "\uFEFF")
	if csv.status != 200 || !strings.HasPrefix(body, "Id,Task Name,Remarks,Balance\n") || !strings.Contains(body, fmt.Sprintf("%d,Review,'=HYPERLINK(1),10.00", id)) ||
		strings.Contains(body, "Bare") || !strings.Contains(csv.header.Get("Content-Disposition"), "Tasks.csv") {
		t.Errorf("CSV export: %d %q %s", csv.status, body, csv.header)
	}
	xlsx := w.do("GET", "/api/TaskTT/export?format=excel", tasker, nil)
	if xlsx.status != 200 || !strings.HasPrefix(string(xlsx.body), "PK") || !strings.Contains(xlsx.header.Get("Content-Disposition"), "Tasks.xlsx") {
		t.Errorf("Excel export: %d %s", xlsx.status, xlsx.header)
	}
}

// TestTaskExportInTheReadersZone (first user, second round, item 4): the
// Tasks export wrote "Created On (UTC)" 16:12 where the screen showed 17:12;
// with the reader's zone it writes the screen's time, as grid exports do.
func TestTaskExportInTheReadersZone(t *testing.T) {
	w := newWorld(t)
	admin := w.login("admin", adminPassword)
	made := w.must(201, "POST", "/api/TaskTT", admin, map[string]any{"taskName": "Zone check"})
	id := int64(made["id"].(float64))
	if _, err := w.pool.Exec(context.Background(), `update task set created_on = '2026-11-02 16:12:00+00' where id = $1`, id); err != nil {
		t.Fatal(err)
	}
	a := w.do("GET", "/api/TaskTT/export?format=csv&columns=id,createdOn&timeZone=Europe/Stockholm", admin, nil)
	if a.status != 200 || !strings.Contains(string(a.body), "17:12") || strings.Contains(string(a.body), "(UTC)") {
		t.Errorf("in Stockholm: %d %s", a.status, a.body)
	}
	a = w.do("GET", "/api/TaskTT/export?format=csv&columns=id,createdOn", admin, nil)
	if a.status != 200 || !strings.Contains(string(a.body), "16:12") {
		t.Errorf("without a zone (UTC, said in the header): %d %s", a.status, a.body)
	}
	if a := w.do("GET", "/api/TaskTT/export?format=csv&timeZone=Nowhere/City", admin, nil); a.status != 400 {
		t.Errorf("an unknown zone: %d %s", a.status, a.body)
	}
}

// The task list is the engine's grid of VW_Tasks: a name or remarks edited
// in place is checked like the editor's, refused when stale, and recorded
// in the task's own history; the expander's grids list the task's tickets,
// transactions and followed records, to those who may open tasks; and the
// export writes the status as the grid shows it, in the reader's language.
func TestTaskListIsTheEngineGrid(t *testing.T) {
	w := newWorld(t)
	admin := w.login("admin", adminPassword)
	_, tasker := w.addUser(admin, "tasker", 13, 14)
	_, clerk := w.addUser(admin, "clerk", 1)
	tk, tx := taskFixture(t, w)
	made := w.must(201, "POST", "/api/TaskTT/with-items", tasker, map[string]any{
		"taskName": "Review", "isStatus": 2, "ticketIds": []int64{tk[0], tk[1]}, "transactionIds": []int64{tx[0]},
	})
	id := int64(made["id"].(float64))
	ctx := context.Background()
	if _, err := w.pool.Exec(ctx, `insert into task_record (task_id, kind, record_id) values ($1, 'bank', 424242)`, id); err != nil {
		t.Fatal(err)
	}

	edit := func(values map[string]any, version any) answer {
		return w.do("PUT", "/api/grid/row", tasker, map[string]any{"ViewName": "VW_Tasks", "Key": id, "Values": values, "Version": version})
	}
	version := made["updatedOn"]
	for _, bad := range []struct {
		values  map[string]any
		version any
		status  int
		want    string
	}{
		{map[string]any{"taskName": "   "}, version, 400, `"field":"taskName"`},
		{map[string]any{"remarks": strings.Repeat("r", 2001)}, version, 400, `"field":"remarks"`},
		{map[string]any{"isStatus": "3"}, version, 400, `"code":"edit.notEditable"`},
		{map[string]any{"taskName": "Late"}, "2020-01-01T00:00:00Z", 409, `"code":"edit.stale"`},
	} {
		if a := edit(bad.values, bad.version); a.status != bad.status || !strings.Contains(string(a.body), bad.want) {
			t.Errorf("%v: %d %s, want %d with %s", bad.values, a.status, a.body, bad.status, bad.want)
		}
	}
	a := edit(map[string]any{"taskName": "  Review of two tickets  "}, version)
	if a.status != 200 || !strings.Contains(string(a.body), `"taskName":"Review of two tickets"`) {
		t.Fatalf("rename: %d %s", a.status, a.body)
	}
	history := w.do("GET", fmt.Sprintf("/api/TaskTT/%d/history", id), tasker, nil)
	if !strings.Contains(string(history.body), `"action":"grid.edit","before":{"taskName":"Review"},"after":{"taskName":"Review of two tickets"}`) {
		t.Errorf("the task's history lacks the rename: %s", history.body)
	}

	meta := w.do("GET", "/api/meta/views/VW_Tasks", tasker, nil)
	if !strings.Contains(string(meta.body), `"details":[{"view":"VW_TaskTickets","field":"taskId","title":"views.VW_TaskTickets.title"}`) {
		t.Errorf("the view's details: %s", meta.body)
	}
	detail := func(token, view string) answer {
		return w.do("POST", "/api/grid", token, map[string]any{"ViewName": view, "PageSize": 50, "PageNumber": 0,
			"Filters": []map[string]any{{"field": "taskId", "op": "equals", "value": id}}})
	}
	for view, want := range map[string][]string{
		"VW_TaskTickets":      {`"totalCount":2`, `"ticketNumber":"1234567890100"`, `"ticketNumber":"1234567890101"`, `"amount":"100.00"`},
		"VW_TaskTransactions": {`"totalCount":1`, `"clientUniqueId":"1234567890100"`, `"amount":"90.00"`, `"isManualAdjust":false`},
		"VW_TaskRecords":      {`"totalCount":1`, `"kind":"bank"`, `"ref":"#424242"`},
	} {
		a := detail(tasker, view)
		for _, s := range want {
			if a.status != 200 || !strings.Contains(string(a.body), s) {
				t.Errorf("%s: %d %s lacks %s", view, a.status, a.body, s)
			}
		}
		if a := detail(clerk, view); a.status != 403 {
			t.Errorf("%s to a user without the tasks screen: %d %s", view, a.status, a.body)
		}
	}

	if _, err := w.pool.Exec(ctx, `update app_user set language_code = 'sv' where username = 'tasker'`); err != nil {
		t.Fatal(err)
	}
	a = w.do("POST", "/api/grid/export", tasker, map[string]any{"ViewName": "VW_Tasks", "Format": "csv",
		"Filters": []map[string]any{{"field": "id", "op": "equals", "value": id}},
		"Columns": []map[string]string{{"field": "taskName", "header": "Uppgift"}, {"field": "isStatus", "header": "Status"}}})
	if a.status != 200 || !strings.Contains(string(a.body), "Review of two tickets,Pågår") {
		t.Errorf("the export's status in Swedish: %d %s", a.status, a.body)
	}
}
