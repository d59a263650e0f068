package server

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"
)

// TestBankOverviewAPI: the bank overview and its export through the HTTP
// API, for every kind of caller.
func TestBankOverviewAPI(t *testing.T) {
	w := newWorld(t)
	admin := w.login("admin", adminPassword)
	_, reporter := w.addUser(admin, "reporter", 15)
	_, clerk := w.addUser(admin, "clerk", 1, 7)
	tokens := map[string]string{"admin": admin, "reporter": reporter, "clerk": clerk, "anonymous": ""}
	if _, err := w.pool.Exec(context.Background(), `insert into bank_booking
		(bank_account, booked_date, in_or_out, amount_local, currency, actor, dist_rvn_settle, distr_driver, affects_balance, in_usd, out_usd, status)
		values ('A', '2026-01-30', 'IN', 10, 'USD', 'Card', 'Yes', 'No', 'Yes', 1234.5, null, 'Processed'),
		       ('A', '2026-02-02', 'IN', 10, 'USD', 'Card', 'Yes', 'No', 'Yes', 0.25, null, 'Processed'),
		       ('A', '2026-02-03', 'OUT', -3, 'USD', 'Bank', 'No', 'No', 'Yes', null, -3, 'Processed')`); err != nil {
		t.Fatal(err)
	}
	const path = "/api/reports/bank-overview"
	tests := []struct {
		name, user, method, path string
		body                     any
		status                   int
		contains                 string
	}{
		{"defaults", "reporter", "POST", path, `{}`, 200, `"Period":"2026-01","PeriodFrom":"2026-01-01","PeriodTo":"2026-01-31","Total":"1234.50"`},
		{"row total last", "reporter", "POST", path, `{}`, 200, `"Card":"1234.75","Id":3,"Period":"RowTotal"`},
		{"spec names", "admin", "POST", path, `{"inOutFilter":"Out","distribRvnFilter":"No","distribDriverFilter":"All","affectsBalanceFilter":"All","dateGroupingType":"Day"}`, 200, `"Bank":"-3.00","Id":1,"Period":"2026-02-03"`},
		{"columns", "admin", "POST", path, `{"dateGroupingType":"Year"}`, 200, `"columns":[{"key":"Period","kind":"period"},{"key":"Card","kind":"actor","actor":"Card"},{"key":"Total","kind":"total"}]`},
		{"parameters as applied", "admin", "POST", path, `{"dateGroupingType":"half-year"}`, 200, `"dateGroupingType":"Half-Year"`},
		{"nothing found", "admin", "POST", path, `{"distribDriverFilter":"Yes"}`, 200, `"data":[]`},
		{"bad in/out", "admin", "POST", path, `{"inOutFilter":"Both"}`, 400, `"field":"inOutFilter"`},
		{"bad grouping", "admin", "POST", path, `{"dateGroupingType":"Fortnight"}`, 400, `"code":"reports.badParameter"`},
		{"wrong type", "admin", "POST", path, `{"affectsBalanceFilter":true}`, 400, `"field":"affectsBalanceFilter"`},
		{"not an object", "admin", "POST", path, `[1]`, 400, `must be a JSON object`},
		{"no screen 15", "clerk", "POST", path, `{}`, 403, `permission`},
		{"anonymous", "anonymous", "POST", path, `{}`, 401, `Sign in`},
		{"export unknown period", "reporter", "POST", path + "/export", `{"periods":["1999-01"]}`, 400, `"field":"periods"`},
		{"export without rows", "reporter", "POST", path + "/export", `{"periods":[]}`, 400, `"field":"periods"`},
		{"export bad parameter", "reporter", "POST", path + "/export", `{"periods":["2026-01"],"inOutFilter":"x"}`, 400, `"field":"inOutFilter"`},
		{"export no screen 15", "clerk", "POST", path + "/export", `{"periods":["2026-01"]}`, 403, `permission`},
		{"export anonymous", "anonymous", "POST", path + "/export", `{"periods":["2026-01"]}`, 401, `Sign in`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := w.do(tt.method, tt.path, tokens[tt.user], tt.body)
			if a.status != tt.status || !strings.Contains(string(a.body), tt.contains) {
				t.Fatalf("status %d (want %d), body %s\nwant it to contain %s", a.status, tt.status, a.body, tt.contains)
			}
			if a.status >= 400 && (a.env.Succeeded || a.env.Error == "") {
				t.Errorf("an error answer needs succeeded=false and a message: %s", a.body)
			}
		})
	}

	t.Run("export holds the rows shown", func(t *testing.T) {
		a := w.do("POST", path+"/export", reporter, `{"periods":["2026-02","RowTotal"],"labels":{"Period":"Período","RowTotal":"Total general"},
			"periodLabels":{"2026-02":"02/2026"}}`)
		if a.status != 200 || !strings.Contains(a.header.Get("Content-Disposition"), "Bank_Overview.xlsx") {
			t.Fatalf("status %d %s", a.status, a.body)
		}
		f, err := excelize.OpenReader(bytes.NewReader(a.body))
		if err != nil {
			t.Fatal(err)
		}
		rows, _ := f.GetRows("Sheet1", excelize.Options{RawCellValue: true})
		// the period as the screen showed it (the reader's format), the amounts the database's
		want := [][]string{{"Período", "Card", "Total"}, {"02/2026", "0.25", "0.25"}, {"Total general", "1234.75", "1234.75"}}
		if len(rows) != len(want) {
			t.Fatalf("rows %v", rows)
		}
		for i := range want {
			if strings.Join(rows[i], "|") != strings.Join(want[i], "|") {
				t.Errorf("row %d: %v, want %v", i, rows[i], want[i])
			}
		}
	})
}
