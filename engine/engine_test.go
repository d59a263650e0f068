package engine

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/xuri/excelize/v2"

	"ledgerdesk/internal/pgtest"
)

// fixture is the repository's metadata over a fresh database with some rows.
type fixture struct {
	e    *Engine
	pool *pgxpool.Pool
	ctx  context.Context // an actor holding every screen
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	pool := pgtest.New(t)
	md, err := LoadMetadata(os.DirFS(".."))
	if err != nil {
		t.Fatal(err)
	}
	if err := Validate(context.Background(), pool, md); err != nil {
		t.Fatal(err)
	}
	screens := map[int]bool{}
	for i := 1; i <= 15; i++ {
		screens[i] = true
	}
	ctx := WithActor(context.Background(), &Actor{UserID: 0, Username: "tester", Screens: screens})
	return &fixture{e: New(Options{Pool: pool, Metadata: md}), pool: pool, ctx: ctx}
}

func (f *fixture) exec(t *testing.T, sql string, args ...any) {
	t.Helper()
	if _, err := f.pool.Exec(context.Background(), sql, args...); err != nil {
		t.Fatal(err)
	}
}

// seedCountries adds n countries C000..: names Country 000.. (the odd ones in "Northland").
func (f *fixture) seedCountries(t *testing.T, n int) {
	t.Helper()
	f.exec(t, `insert into country (country_code, country_name, trigram)
		select 'C' || lpad(i::text, 2, '0'), case when i % 2 = 1 then 'Northland ' else 'Country ' end || lpad(i::text, 3, '0'), 'T' || (i % 10)
		from generate_series(0, $1 - 1) i`, n)
}

func codeOf(err error) Code { return ErrorCode(err) }

func TestGridPaging(t *testing.T) {
	f := newFixture(t)
	f.seedCountries(t, 30)
	p, err := f.e.Page(f.ctx, GridRequest{ViewName: "VW_TblMasterCountry", PageSize: 10, PageNumber: 0})
	if err != nil {
		t.Fatal(err)
	}
	if p.TotalCount != 30 || p.TotalCapped || len(p.Rows()) != 10 {
		t.Fatalf("total %d capped %v rows %d", p.TotalCount, p.TotalCapped, len(p.Rows()))
	}
	if p.Rows()[0]["CountryName"] != "Country 000" { // default sort CountryName asc
		t.Errorf("first row %v", p.Rows()[0])
	}
	if _, ok := p.Rows()[0]["CountryID"].(int64); !ok {
		t.Errorf("key must be a number: %T", p.Rows()[0]["CountryID"])
	}
	// PageNumber is a row offset.
	p2, _ := f.e.Page(f.ctx, GridRequest{ViewName: "VW_TblMasterCountry", PageSize: 10, PageNumber: 25})
	if len(p2.Rows()) != 5 || p2.Rows()[0]["CountryName"] != "Northland 021" {
		t.Errorf("offset 25: %d rows, first %v", len(p2.Rows()), p2.Rows()[0]["CountryName"])
	}
	// Sorting on a column with duplicates stays stable by the key.
	s1, _ := f.e.Page(f.ctx, GridRequest{ViewName: "VW_TblMasterCountry", PageSize: 15, SortField: "Trigram", SortOrder: "desc"})
	s2, _ := f.e.Page(f.ctx, GridRequest{ViewName: "VW_TblMasterCountry", PageSize: 15, PageNumber: 15, SortField: "Trigram", SortOrder: "desc"})
	seen := map[any]bool{}
	for _, r := range append(s1.Rows(), s2.Rows()...) {
		if seen[r["CountryID"]] {
			t.Fatalf("row %v on two pages: the order is not stable", r["CountryID"])
		}
		seen[r["CountryID"]] = true
	}
	if s1.Rows()[0]["Trigram"] != "T9" {
		t.Errorf("desc sort: first trigram %v", s1.Rows()[0]["Trigram"])
	}
}

func TestGridFilters(t *testing.T) {
	f := newFixture(t)
	f.seedCountries(t, 30)
	count := func(r GridRequest) int64 {
		t.Helper()
		r.ViewName = "VW_TblMasterCountry"
		p, err := f.e.Page(f.ctx, r)
		if err != nil {
			t.Fatalf("%+v: %v", r, err)
		}
		return p.TotalCount
	}
	tests := []struct {
		name string
		req  GridRequest
		want int64
	}{
		{"contains, case-insensitive", GridRequest{Filters: []Cond{{"CountryName", "contains", "northLAND"}}}, 15},
		{"startsWith", GridRequest{Filters: []Cond{{"CountryName", "startsWith", "Country 01"}}}, 5},
		{"endsWith", GridRequest{Filters: []Cond{{"CountryName", "endsWith", "9"}}}, 3},
		{"equals", GridRequest{Filters: []Cond{{"CountryCode", "equals", "C07"}}}, 1},
		{"in", GridRequest{Filters: []Cond{{"CountryCode", "in", []any{"C01", "C02", "X"}}}}, 2},
		{"two filters AND", GridRequest{Filters: []Cond{{"CountryName", "contains", "north"}, {"Trigram", "equals", "T1"}}}, 3},
		{"isEmpty", GridRequest{Filters: []Cond{{"SubCountryCode", "isEmpty", nil}}}, 30},
		{"wildcards are literal", GridRequest{Filters: []Cond{{"CountryName", "contains", "%"}}}, 0},
		{"legacy text", GridRequest{Filter: "CountryName LIKE '%land 00%' AND Trigram = 'T1'"}, 1},
		{"legacy text OR", GridRequest{Filter: "CountryCode = 'C01' OR CountryCode = 'C02'"}, 2},
		{"legacy equals", GridRequest{Filter: "CountryName LIKE 'Country 000'"}, 1},
		{"numbers: key range", GridRequest{Filters: []Cond{{"CountryID", "between", []any{json.Number("1"), json.Number("5")}}}}, 5},
		{"numbers: gt", GridRequest{Filters: []Cond{{"CountryID", "gt", "25"}}}, 5},
		{"text equals ignores case", GridRequest{Filters: []Cond{{"CountryCode", "equals", "c07"}}}, 1},
		{"text notEquals ignores case", GridRequest{Filters: []Cond{{"CountryCode", "notEquals", "c07"}}}, 29},
		{"legacy equals ignores case", GridRequest{Filter: "Trigram = 't1'"}, 3},
		// Text equality is ILIKE without wildcards (so the trigram index
		// serves it): the client's % and _ stay literal characters.
		{"text equals: _ is literal", GridRequest{Filters: []Cond{{"CountryCode", "equals", "C_7"}}}, 0},
		{"text equals: % is literal", GridRequest{Filters: []Cond{{"CountryCode", "equals", "C%"}}}, 0},
		{"text equals is whole", GridRequest{Filters: []Cond{{"CountryCode", "equals", "C0"}}}, 0},
		{"text notEquals keeps the empty ones", GridRequest{Filters: []Cond{{"SubCountryCode", "notEquals", "x"}}}, 30},
		{"text notEquals: _ is literal", GridRequest{Filters: []Cond{{"CountryCode", "notEquals", "C_7"}}}, 30},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := count(tt.req); got != tt.want {
				t.Errorf("got %d, want %d", got, tt.want)
			}
		})
	}
}

// A status column filters on the labels the grid shows: the extraction log
// shows SUCCESS for Success and ERROR for anything else.
func TestGridStatusFilterOnLabels(t *testing.T) {
	f := newFixture(t)
	f.exec(t, `insert into extraction_log (module, description, status) values
		('Bank', 'a', 'Success'), ('Bank', 'b', 'Failed'), ('Bank', 'c', 'Failed'), ('Bank', 'd', 'Refused')`)
	tests := []struct {
		op, value string
		want      int64
	}{
		{"equals", "ERROR", 3}, {"equals", "error", 3}, {"contains", "err", 3}, {"equals", "SUCCESS", 1},
		{"contains", "s", 1}, {"notEquals", "error", 1}, {"equals", "Failed", 0}, {"startsWith", "x", 0},
	}
	for _, tt := range tests {
		p, err := f.e.Page(f.ctx, GridRequest{ViewName: "VW_BankFileExtractionLog", Filters: []Cond{{"Status", tt.op, tt.value}}})
		if err != nil {
			t.Fatalf("%s %s: %v", tt.op, tt.value, err)
		}
		if p.TotalCount != tt.want {
			t.Errorf("Status %s %q: %d rows, want %d", tt.op, tt.value, p.TotalCount, tt.want)
		}
	}
}

func TestGridDateFilters(t *testing.T) {
	f := newFixture(t)
	f.exec(t, `insert into extraction_log (module, description, status, created_on) values
		('Bank', 'a.csv', 'Success', '2026-11-20 08:00+00'), ('Bank', 'b.csv', 'Failed', '2026-11-20 23:59+00'),
		('Bank', 'c.csv', 'Success', '2026-11-21 00:00+00'), ('Settlement', 'd.csv', 'Success', '2026-11-20 10:00+00')`)
	count := func(view string, conds ...Cond) int64 {
		t.Helper()
		p, err := f.e.Page(f.ctx, GridRequest{ViewName: view, Filters: conds})
		if err != nil {
			t.Fatal(err)
		}
		return p.TotalCount
	}
	if n := count("VW_BankFileExtractionLog"); n != 3 {
		t.Errorf("bank log rows %d (the view keeps only module Bank)", n)
	}
	if n := count("VW_BankFileExtractionLog", Cond{"CreatedOn", "equals", "2026-11-20"}); n != 2 {
		t.Errorf("a date against a timestamp is the whole day: %d", n)
	}
	if n := count("VW_BankFileExtractionLog", Cond{"CreatedOn", "between", []any{"2026-11-20", "2026-11-20"}}); n != 2 {
		t.Errorf("between dates includes the last day: %d", n)
	}
	if n := count("VW_BankFileExtractionLog", Cond{"CreatedOn", "gt", "2026-11-20"}); n != 1 {
		t.Errorf("after the day: %d", n)
	}
}

func TestGridCountCap(t *testing.T) {
	f := newFixture(t)
	f.exec(t, `insert into extraction_log (module, description, status) select 'Transaction', 'f' || i, 'Success' from generate_series(1, $1) i`, CountCap+5)
	p, err := f.e.Page(f.ctx, GridRequest{ViewName: "VW_TransactionExtractionLog", PageSize: 10})
	if err != nil {
		t.Fatal(err)
	}
	if p.TotalCount != CountCap || !p.TotalCapped {
		t.Errorf("capped total: %d %v", p.TotalCount, p.TotalCapped)
	}
	p, _ = f.e.Page(f.ctx, GridRequest{ViewName: "VW_TransactionExtractionLog", PageSize: 10, ExactCount: true})
	if p.TotalCount != CountCap+5 || p.TotalCapped {
		t.Errorf("exact total on request: %d %v", p.TotalCount, p.TotalCapped)
	}
	// Far past the cap by the planner's estimate: capped without counting.
	f.exec(t, `insert into extraction_log (module, description, status) select 'Transaction', 'g' || i, 'Success' from generate_series(1, 60000) i`)
	f.exec(t, `analyze extraction_log`)
	p, err = f.e.Page(f.ctx, GridRequest{ViewName: "VW_TransactionExtractionLog", PageSize: 10, Filters: []Cond{{"Description", "startsWith", "g"}}})
	if err != nil || p.TotalCount != CountCap || !p.TotalCapped {
		t.Errorf("estimated total: %d %v %v", p.TotalCount, p.TotalCapped, err)
	}
	p, _ = f.e.Page(f.ctx, GridRequest{ViewName: "VW_TransactionExtractionLog", PageSize: 10, ExactCount: true, Filters: []Cond{{"Description", "startsWith", "g"}}})
	if p.TotalCount != 60000 {
		t.Errorf("exact count of the estimated case: %d", p.TotalCount)
	}
}

func TestGridBadInput(t *testing.T) {
	f := newFixture(t)
	tests := []struct {
		name  string
		req   GridRequest
		field string
	}{
		{"unknown view", GridRequest{ViewName: "VW_Nope"}, "ViewName"},
		{"page size over the cap", GridRequest{ViewName: "VW_TblMasterCountry", PageSize: MaxPageSize + 1}, "PageSize"},
		{"negative offset", GridRequest{ViewName: "VW_TblMasterCountry", PageNumber: -1}, "PageNumber"},
		{"unknown sort field", GridRequest{ViewName: "VW_TblMasterCountry", SortField: "password_hash"}, "SortField"},
		{"bad sort order", GridRequest{ViewName: "VW_TblMasterCountry", SortField: "CountryName", SortOrder: "sideways"}, "SortOrder"},
		{"unknown filter field", GridRequest{ViewName: "VW_TblMasterCountry", Filters: []Cond{{"id; drop table country", "equals", "1"}}}, "Filters"},
		{"operator not for the type", GridRequest{ViewName: "VW_TblMasterCountry", Filters: []Cond{{"CountryID", "contains", "1"}}}, "Filters"},
		{"wrong value type", GridRequest{ViewName: "VW_TblMasterCountry", Filters: []Cond{{"CountryID", "equals", "one"}}}, "CountryID"},
		{"between needs two", GridRequest{ViewName: "VW_TblMasterCountry", Filters: []Cond{{"CountryID", "between", []any{"1"}}}}, "Filters"},
		{"legacy text outside the grammar", GridRequest{ViewName: "VW_TblMasterCountry", Filter: "1=1; drop table country"}, "Filter"},
		{"legacy text with a subquery", GridRequest{ViewName: "VW_TblMasterCountry", Filter: "CountryName = (select 'x')"}, "Filter"},
		{"legacy text unknown field", GridRequest{ViewName: "VW_TblMasterCountry", Filter: "pg_sleep = '1'"}, "Filters"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := f.e.Page(f.ctx, tt.req)
			var e *Error
			if !asError(err, &e) || e.Code != CodeInvalid || e.Field != tt.field {
				t.Fatalf("got %v, want invalid %s", err, tt.field)
			}
			if strings.Contains(strings.ToLower(e.Message), "select ") {
				t.Errorf("SQL text in the message: %s", e.Message)
			}
		})
	}
}

func TestGridPermissions(t *testing.T) {
	f := newFixture(t)
	ctx := WithActor(context.Background(), &Actor{Username: "clerk", Screens: map[int]bool{1: true, 10: true}})
	if _, err := f.e.Page(ctx, GridRequest{ViewName: "VW_TblMasterCountry"}); err != nil {
		t.Fatalf("a granted view: %v", err)
	}
	if _, err := f.e.Page(ctx, GridRequest{ViewName: "VW_BankFinal"}); codeOf(err) != CodeForbidden {
		t.Fatalf("a view outside the roles: %v", err)
	}
	views := f.e.Views(ctx)
	if len(views) != 1 || views[0].Name != "VW_TblMasterCountry" {
		t.Errorf("only permitted views are listed: %v", views)
	}
	if _, err := f.e.FormByResource(ctx, "ConfigSettings"); codeOf(err) != CodeForbidden {
		t.Errorf("a form outside the roles: %v", err)
	}
}

// Classic injection payloads in every client-supplied string: each is a 400
// or a correctly filtered (empty) result, and the table is intact afterwards.
func TestInjection(t *testing.T) {
	f := newFixture(t)
	f.seedCountries(t, 3)
	payloads := []string{
		`' OR '1'='1`, `'; DROP TABLE country; --`, `1; select pg_sleep(5)`, `" OR ""="`, `\'; --`,
		`%' OR 1=1 --`, `) or (1=1`, `country_name"; --`, "x\x00y", `$1`, `'||(select password_hash from app_user)||'`,
	}
	for _, p := range payloads {
		reqs := []GridRequest{
			{ViewName: p},
			{ViewName: "VW_TblMasterCountry", SortField: p},
			{ViewName: "VW_TblMasterCountry", SortField: "CountryName", SortOrder: p},
			{ViewName: "VW_TblMasterCountry", Filter: p},
			{ViewName: "VW_TblMasterCountry", Filter: "CountryName = '" + strings.ReplaceAll(p, "'", "''") + "'"},
			{ViewName: "VW_TblMasterCountry", Filters: []Cond{{p, "equals", "x"}}},
			{ViewName: "VW_TblMasterCountry", Filters: []Cond{{"CountryName", p, "x"}}},
			{ViewName: "VW_TblMasterCountry", Filters: []Cond{{"CountryName", "contains", p}}},
			{ViewName: "VW_TblMasterCountry", Filters: []Cond{{"CountryName", "equals", p}}},
		}
		for i, r := range reqs {
			page, err := f.e.Page(f.ctx, r)
			if err != nil {
				if codeOf(err) != CodeInvalid {
					t.Errorf("payload %q request %d: %v (want 400 or a result)", p, i, err)
				}
				continue
			}
			if page.TotalCount != 0 {
				t.Errorf("payload %q request %d matched %d rows", p, i, page.TotalCount)
			}
		}
		_, err := f.e.UpdateRow(f.ctx, RowEdit{TableName: p, KeyColumnName: p, Key: p, Values: map[string]any{p: p}})
		if codeOf(err) != CodeInvalid {
			t.Errorf("edit with payload %q: %v", p, err)
		}
	}
	var n int
	if err := f.pool.QueryRow(context.Background(), "select count(*) from country").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 3 {
		t.Fatalf("country has %d rows after the payloads", n)
	}
}

func TestInlineEdit(t *testing.T) {
	f := newFixture(t)
	f.exec(t, `insert into bank_booking (bank_account, booked_date, amount_local, currency, text) values ('NO-1', '2026-11-02', 1200.50, 'NOK', 'Nuvei payout')`)
	page, err := f.e.Page(f.ctx, GridRequest{ViewName: "VW_BankFinal"})
	if err != nil {
		t.Fatal(err)
	}
	row := page.Rows()[0]
	if row["AmountLocal"] != "1200.50" || row["BookedDate"] != "2026-11-02" || row["IsModified"] != false {
		t.Fatalf("row as read: %v", row)
	}
	// The spec's pair: TableName BANK_FINAL with KeyColumnName Id.
	saved, err := f.e.UpdateRow(f.ctx, RowEdit{TableName: "BANK_FINAL", KeyColumnName: "Id", Key: row["Id"],
		Values: map[string]any{"Comments": "checked", "AmountUsd": json.Number("110.25")}, Version: row["UpdatedOn"]})
	if err != nil {
		t.Fatal(err)
	}
	if saved["Comments"] != "checked" || saved["AmountUsd"] != "110.25" || saved["IsModified"] != true {
		t.Errorf("saved row %v", saved)
	}
	// The old version is stale now: 409, nothing written.
	_, err = f.e.UpdateRow(f.ctx, RowEdit{ViewName: "VW_BankFinal", Key: row["Id"], Values: map[string]any{"Comments": "lost update"}, Version: row["UpdatedOn"]})
	if codeOf(err) != CodeConflict {
		t.Fatalf("stale edit: %v", err)
	}
	var comments string
	if err := f.pool.QueryRow(context.Background(), "select comments from bank_booking").Scan(&comments); err != nil {
		t.Fatal(err)
	}
	if comments != "checked" {
		t.Errorf("a stale edit overwrote: %q", comments)
	}
	var before, after string
	if err := f.pool.QueryRow(context.Background(), `select before::text, after::text from audit_log where action = 'grid.edit' and entity = 'VW_BankFinal'`).Scan(&before, &after); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(before, `"Comments": null`) || !strings.Contains(after, `"checked"`) {
		t.Errorf("audit before %s after %s", before, after)
	}

	bad := []struct {
		name  string
		edit  RowEdit
		field string
		code  Code
	}{
		{"not editable", RowEdit{ViewName: "VW_BankFinal", Key: row["Id"], Values: map[string]any{"AmountLocal": "1"}, Version: saved["UpdatedOn"]}, "AmountLocal", CodeInvalid},
		{"unknown field", RowEdit{ViewName: "VW_BankFinal", Key: row["Id"], Values: map[string]any{"is_modified": false}, Version: saved["UpdatedOn"]}, "is_modified", CodeInvalid},
		{"wrong type", RowEdit{ViewName: "VW_BankFinal", Key: row["Id"], Values: map[string]any{"ExchangeRate": "ten"}, Version: saved["UpdatedOn"]}, "ExchangeRate", CodeInvalid},
		{"too long", RowEdit{ViewName: "VW_BankFinal", Key: row["Id"], Values: map[string]any{"ManualProvider": strings.Repeat("x", 101)}, Version: saved["UpdatedOn"]}, "ManualProvider", CodeInvalid},
		{"no version", RowEdit{ViewName: "VW_BankFinal", Key: row["Id"], Values: map[string]any{"Comments": "x"}}, "Version", CodeInvalid},
		{"read-only view", RowEdit{ViewName: "VW_BankFileExtractionLog", Key: 1, Values: map[string]any{"Status": "x"}}, "ViewName", CodeInvalid},
		{"wrong key column", RowEdit{TableName: "TblMasterCountry", KeyColumnName: "CountryCode", Key: 1, Values: map[string]any{"CountryName": "x"}}, "KeyColumnName", CodeInvalid},
		{"missing row", RowEdit{ViewName: "VW_BankFinal", Key: 999999, Values: map[string]any{"Comments": "x"}, Version: saved["UpdatedOn"]}, "", CodeNotFound},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			_, err := f.e.UpdateRow(f.ctx, tt.edit)
			var e *Error
			if !asError(err, &e) || e.Code != tt.code || e.Field != tt.field {
				t.Fatalf("got %v (field %q), want %s %q", err, fieldOf(err), tt.code, tt.field)
			}
		})
	}
}

func TestFormCRUD(t *testing.T) {
	f := newFixture(t)
	form, err := f.e.FormByResource(f.ctx, "country")
	if err != nil {
		t.Fatal(err)
	}
	rec, err := f.e.Create(f.ctx, form, map[string]any{"countryCode": " se ", "countryName": "Sweden", "trigram": "swe", "unknown": "ignored"})
	if err != nil {
		t.Fatal(err)
	}
	if rec["countryCode"] != "SE" || rec["trigram"] != "SWE" || rec["CountryID"] == nil {
		t.Errorf("created %v (trim and upper-case transforms)", rec)
	}
	id := rec["CountryID"].(int64)
	if _, err := f.e.Create(f.ctx, form, map[string]any{"countryCode": "SE", "countryName": "Again"}); codeOf(err) != CodeConflict {
		t.Errorf("duplicate: %v", err)
	}
	upd, err := f.e.Update(f.ctx, form, id, map[string]any{"countryCode": "SE", "countryName": "Konungariket Sverige", "version": rec["version"]})
	if err != nil || upd["countryName"] != "Konungariket Sverige" || upd["trigram"] != nil {
		t.Errorf("update replaces the record: %v %v", upd, err)
	}
	list, err := f.e.List(f.ctx, form)
	if err != nil || len(list) != 1 {
		t.Errorf("list %v %v", list, err)
	}
	if err := f.e.Delete(f.ctx, form, id); err != nil {
		t.Fatal(err)
	}
	if _, err := f.e.Get(f.ctx, form, id); codeOf(err) != CodeNotFound {
		t.Errorf("after delete: %v", err)
	}
	if err := f.e.Delete(f.ctx, form, id); codeOf(err) != CodeNotFound {
		t.Errorf("delete twice: %v", err)
	}

	rates, _ := f.e.FormByResource(f.ctx, "CurrencyExchangeRate")
	invalid := []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"code": "USD", "currency": "US dollar"}, "exchangeRateOn"},
		{map[string]any{"exchangeRateOn": "2026-11-20", "code": "USDX", "currency": "x"}, "code"},
		{map[string]any{"exchangeRateOn": "2026-11-20", "code": "USD", "currency": "x", "eur": "abc"}, "eur"},
		{map[string]any{"exchangeRateOn": "2026-11-20", "code": "USD", "currency": "x", "eur": json.Number("0.123456789")}, "eur"},
		{map[string]any{"exchangeRateOn": "2026-11-20", "code": "USD", "currency": "x", "sek": json.Number("-1")}, "sek"},
		{map[string]any{"exchangeRateOn": "20/11/2026", "code": "USD", "currency": "x"}, "exchangeRateOn"},
		{map[string]any{"exchangeRateOn": "2026-11-20", "code": "  ", "currency": "x"}, "code"},
	}
	for _, tt := range invalid {
		_, err := f.e.Create(f.ctx, rates, tt.body)
		if fieldOf(err) != tt.field || codeOf(err) != CodeInvalid {
			t.Errorf("%v: got %v, want invalid %s", tt.body, err, tt.field)
		}
	}
	r, err := f.e.Create(f.ctx, rates, map[string]any{"exchangeRateOn": "2026-11-20", "code": "usd", "currency": "US dollar", "eur": json.Number("0.86543210")})
	if err != nil || r["eur"] != "0.86543210" || r["code"] != "USD" {
		t.Errorf("rate %v %v", r, err)
	}

	// Defaults and enums: IN_OUT defaults to IN; a provider still used is not blocked (no references yet).
	actors, _ := f.e.FormByResource(f.ctx, "TransactionProviders")
	a, err := f.e.Create(f.ctx, actors, map[string]any{"trans": "Card", "providers": "Nuvei"})
	if err != nil || a["IN_OUT"] != "IN" {
		t.Errorf("actor %v %v", a, err)
	}
	if _, err := f.e.Create(f.ctx, actors, map[string]any{"trans": "Card", "providers": "Amex", "IN_OUT": "SIDEWAYS"}); fieldOf(err) != "IN_OUT" {
		t.Errorf("enum: %v", err)
	}
	cfg, _ := f.e.FormByResource(f.ctx, "ConfigSettings")
	c, err := f.e.Create(f.ctx, cfg, map[string]any{"providerName": "Nuvei", "transactionType": json.Number("2"), "providerActor": "Card"})
	if err != nil || c["transactionType"] != "2" || fmt.Sprint(c["dateThreshold"]) != "0" {
		t.Errorf("config %v %v: dateThreshold defaults to 0", c, err)
	}
	if _, err := f.e.Create(f.ctx, cfg, map[string]any{"providerName": "Nuvei", "transactionType": "1", "providerActor": "Card", "dateThreshold": json.Number("400")}); fieldOf(err) != "dateThreshold" {
		t.Errorf("range: %v", err)
	}
	// Spec 03: the add form needs providerName, transactionType and providerActor.
	if _, err := f.e.Create(f.ctx, cfg, map[string]any{"providerName": "Nuvei", "transactionType": "1"}); fieldOf(err) != "providerActor" {
		t.Errorf("providerActor missing: %v", err)
	}
	providers, err := f.e.LookupList(f.ctx, cfg, "GetDistinctIncomingTransactions")
	if err != nil || len(providers) != 1 || providers[0]["TransProvider"] != "Nuvei" || providers[0]["Id"] == nil {
		t.Errorf("lookup %v %v", providers, err)
	}
	var audits int
	if err := f.pool.QueryRow(context.Background(), `select count(*) from audit_log where action like 'record.%' and actor = 'tester'`).Scan(&audits); err != nil {
		t.Fatal(err)
	}
	if audits < 6 {
		t.Errorf("record audit rows: %d", audits)
	}
}

func TestFormSchema(t *testing.T) {
	f := newFixture(t)
	form, _ := f.e.FormByName(f.ctx, "configSetting")
	m := form.Meta()
	b, _ := json.Marshal(m)
	s := string(b)
	for _, want := range []string{`"required":["providerName","transactionType","providerActor"]`, `"saveWhenValid":true`, `"default":0`, `"ui:widget":"lookup"`, `"lookup":"/ConfigSettings/GetDistinctIncomingTransactions"`,
		`"const":2`, `"title":"config.transactionTypes.settlement"`, `"maximum":365`, `"width":500`,
		// Decimals are exact strings end to end, never JSON numbers.
		`"amountThreshold":{"format":"decimal","minimum":0,"title":"forms.configSetting.fields.amountThreshold","type":"string"}`, `"amountThreshold":{"ui:options":{"scale":2},"ui:widget":"decimal"}`} {
		if !strings.Contains(s, want) {
			t.Errorf("schema lacks %s: %s", want, s)
		}
	}
}

func TestExport(t *testing.T) {
	f := newFixture(t)
	f.exec(t, `insert into bank_booking (bank_account, booked_date, amount_local, currency, text, created_on) values
		('NO-1', '2026-11-02', 1200.5, 'NOK', '=HYPERLINK("http://evil")', '2026-11-03 10:00+00'),
		('NO-1', '2026-11-03', -75.25, 'NOK', 'fee', '2026-11-04 10:00+00')`)
	req := ExportRequest{GridRequest: GridRequest{ViewName: "VW_BankFinal", Filters: []Cond{{"Currency", "equals", "NOK"}}},
		Format: "csv", Columns: []ExportColumn{{"BookedDate", "Bokföringsdag"}, {"AmountLocal", "Belopp"}, {"Text", "Text"}, {"CreatedOn", ""}}}
	x, err := f.e.PrepareExport(f.ctx, req, "DD/MM/YYYY HH:mm:ss")
	if err != nil {
		t.Fatal(err)
	}
	if x.FileName != "Bank_Final.csv" {
		t.Errorf("file name %s", x.FileName)
	}
	var buf bytes.Buffer
	if err := x.WriteTo(f.ctx, &buf); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(buf.String(), "\uFEFF"))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"Bokföringsdag", "Belopp", "Text", "CreatedOn (UTC)"},
		{"03/11/2026", "-75.25", "fee", "04/11/2026 10:00:00"},
		{"02/11/2026", "1200.50", `'=HYPERLINK("http://evil")`, "03/11/2026 10:00:00"},
	}
	if fmt.Sprint(recs) != fmt.Sprint(want) {
		t.Errorf("csv\n got %q\nwant %q", recs, want)
	}

	req.Format = "xlsx"
	x, _ = f.e.PrepareExport(f.ctx, req, "YYYY-MM-DD HH:mm:ss")
	buf.Reset()
	if err := x.WriteTo(f.ctx, &buf); err != nil {
		t.Fatal(err)
	}
	if _, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len())); err != nil {
		t.Fatalf("not an xlsx: %v", err)
	}
	xf, err := excelize.OpenReader(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := xf.GetCellValue("Sheet1", "B2"); v != "-75.25" {
		t.Errorf("B2 = %q (amount with 2 decimals)", v)
	}
	if ty, _ := xf.GetCellType("Sheet1", "B2"); ty != excelize.CellTypeNumber && ty != excelize.CellTypeUnset {
		t.Errorf("amount cell type %v, want a number", ty)
	}
	if f, _ := xf.GetCellFormula("Sheet1", "C3"); f != "" {
		t.Errorf("a text cell became a formula: %q", f)
	}
	if v, _ := xf.GetCellValue("Sheet1", "A2"); v != "2026-11-03" {
		t.Errorf("A2 = %q (date in the user's format)", v)
	}

	for _, bad := range []ExportRequest{
		{GridRequest: GridRequest{ViewName: "VW_UserList"}},
		{GridRequest: GridRequest{ViewName: "VW_BankFinal"}, Format: "pdf"},
		{GridRequest: GridRequest{ViewName: "VW_BankFinal"}, Columns: []ExportColumn{{"password_hash", "x"}}},
	} {
		if _, err := f.e.PrepareExport(f.ctx, bad, ""); codeOf(err) != CodeInvalid {
			t.Errorf("%+v: %v", bad, err)
		}
	}
}

func TestValidateAgainstDatabase(t *testing.T) {
	f := newFixture(t)
	bad := `
views:
  VW_X:
    source: country
    table: vw_user_list
    key: Id
    screen: 10
    afterEdit: no_such_function
    columns:
      - {field: Id, column: id, type: int}
      - {field: Name, column: no_such_column, type: text}
      - {field: Code, column: country_code, type: int, editable: true}
  VW_Z:
    source: config_setting
    key: Id
    screen: 11
    columns:
      - {field: Id, column: id, type: int}
      - {field: Threshold, column: currency_threshold, type: decimal, scale: 0}
  VW_Y:
    source: no_such_table
    key: Id
    screen: 99
    columns:
      - {field: Id, column: id, type: int}
`
	md, err := LoadMetadata(fstest.MapFS{"views.yaml": {Data: []byte(bad)}})
	if err != nil {
		t.Fatal(err)
	}
	err = Validate(context.Background(), f.pool, md)
	if err == nil {
		t.Fatal("accepted")
	}
	for _, want := range []string{`VW_X: table "vw_user_list" is not a base table`, `VW_X: column Name: "no_such_column" is not a column of country`,
		`VW_X: column Code: type int does not fit the database type text`, `VW_X: afterEdit: "no_such_function" is not a function`, `VW_Y: source "no_such_table" is not a table or view`,
		`VW_Z: column Threshold: scale 0 does not fit the database column, which keeps 2 decimals`,
		`VW_Y: screen 99 is not a screen of the web_screen table (ids 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17)`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

func asError(err error, target **Error) bool {
	if err == nil {
		return false
	}
	return errors.As(TranslatePG(err), target)
}

func fieldOf(err error) string {
	var e *Error
	if asError(err, &e) {
		return e.Field
	}
	return ""
}

// Currency codes: trimmed and upper-cased in the add dialog and inline,
// three letters or a message naming the field, never the database's check.
func TestCodeRulesInFormsAndInlineEdits(t *testing.T) {
	f := newFixture(t)
	form, err := f.e.FormByResource(f.ctx, "CurrencyExchangeRate")
	if err != nil {
		t.Fatal(err)
	}
	rec, err := f.e.Create(f.ctx, form, map[string]any{"exchangeRateOn": "2026-11-20", "code": " sek ", "currency": "Swedish krona", "usd": json.Number("0.095")})
	if err != nil {
		t.Fatal(err)
	}
	if rec["code"] != "SEK" || rec["dkk"] != "0.00000000" || rec["usd"] != "0.09500000" {
		t.Errorf("created %v: code upper-cased, unset rates 0", rec)
	}
	for code, want := range map[string]string{
		"SE":   "code must be at least 3 characters.",
		"S1K":  "code must be three letters, e.g. SEK.",
		"SEKX": "code must be at most 3 characters.",
	} {
		_, err := f.e.Create(f.ctx, form, map[string]any{"exchangeRateOn": "2026-11-21", "code": code, "currency": "x"})
		var e *Error
		if !asError(err, &e) || e.Code != CodeInvalid || e.Field != "code" || e.Message != want {
			t.Errorf("code %q: %v, want %q", code, err, want)
		}
	}

	page, err := f.e.Page(f.ctx, GridRequest{ViewName: "VW_CurrencyExchangeRate"})
	if err != nil {
		t.Fatal(err)
	}
	row := page.Rows()[0]
	saved, err := f.e.UpdateRow(f.ctx, RowEdit{TableName: "CurrencyExchangeRate", KeyColumnName: "ExchangeId", Key: row["ExchangeId"],
		Values: map[string]any{"Code": " nok "}, Version: row["UpdatedOn"]})
	if err != nil || saved["Code"] != "NOK" {
		t.Fatalf("inline edit of the code: %v %v", saved, err)
	}
	_, err = f.e.UpdateRow(f.ctx, RowEdit{ViewName: "VW_CurrencyExchangeRate", Key: row["ExchangeId"], Values: map[string]any{"Code": "n0k"}, Version: saved["UpdatedOn"]})
	var e *Error
	if !asError(err, &e) || e.Field != "Code" || e.Message != "Code must be three letters, e.g. SEK." {
		t.Errorf("inline edit to n0k: %v", err)
	}
}
