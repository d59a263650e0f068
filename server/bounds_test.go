package server

import (
	"context"
	"testing"
)

// TestInlineEditKeepsTheFormsBounds (first user, second round, item 1): an
// exchange rate of -1 was saved by inline edit, though the form refuses it.
// A view column takes the min and max of the form field writing the same
// column, so both refuse alike, naming the field.
func TestInlineEditKeepsTheFormsBounds(t *testing.T) {
	w := newWorld(t)
	admin := w.login("admin", adminPassword)
	var id int64
	var version string
	if err := w.pool.QueryRow(context.Background(), `insert into currency_exchange_rate (exchange_rate_on, code, currency, dkk, eur, usd, sek, nok)
		values ('2026-11-02', 'GBP', 'Pound sterling', 8.5, 1.14, 1.27, 13.9, 14.1) returning id, updated_on::text`).Scan(&id, &version); err != nil {
		t.Fatal(err)
	}
	page := w.must(200, "POST", "/api/grid", admin, map[string]any{"ViewName": "VW_CurrencyExchangeRate", "PageSize": 10})
	rows, _ := page["dataList"].([]any)
	if len(rows) != 1 {
		t.Fatalf("rows %v", page)
	}
	row := rows[0].(map[string]any)
	a := w.do("PUT", "/api/grid/row", admin, map[string]any{"ViewName": "VW_CurrencyExchangeRate", "Key": row["ExchangeId"], "Version": row["UpdatedOn"],
		"Values": map[string]any{"USD": "-1"}})
	if a.status != 400 || a.env.Code != "field.min" || a.env.Field != "USD" {
		t.Errorf("a rate of -1: %d %s", a.status, a.body)
	}
	a = w.do("PUT", "/api/grid/row", admin, map[string]any{"ViewName": "VW_CurrencyExchangeRate", "Key": row["ExchangeId"], "Version": row["UpdatedOn"],
		"Values": map[string]any{"USD": "1.2"}})
	if a.status != 200 {
		t.Errorf("a rate of 1.2: %d %s", a.status, a.body)
	}
	var usd string
	w.pool.QueryRow(context.Background(), `select usd::text from currency_exchange_rate where id = $1`, id).Scan(&usd)
	if usd != "1.20000000" && usd != "1.2" && usd != "1.200000" {
		t.Errorf("usd %s", usd)
	}
}
