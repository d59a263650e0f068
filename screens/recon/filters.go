package recon

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"time"

	"ledgerdesk/engine"
)

// Filters are the dashboard's filter values (spec 03 sections 3.1 and 5).
type Filters struct {
	FromDate       string    `json:"fromDate"`
	ToDate         string    `json:"toDate"`
	Currency       valueList `json:"currency"`
	Provider       valueList `json:"provider"`
	ClientUniqueID string    `json:"clientUniqueId"`
}

// valueList takes the spec's lists either as plain values or as the
// objects the filter lists hold ({Code}, {TransProvider}).
type valueList []string

// UnmarshalJSON accepts ["USD"], [{"Code": "USD"}], [{"TransProvider": "amex"}] or null.
func (l *valueList) UnmarshalJSON(b []byte) error {
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		*l = nil
		return nil
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	out := make(valueList, 0, len(raw))
	for _, r := range raw {
		var s string
		if json.Unmarshal(r, &s) == nil {
			out = append(out, s)
			continue
		}
		var obj struct {
			Code          *string `json:"Code"`
			TransProvider *string `json:"TransProvider"`
		}
		if err := json.Unmarshal(r, &obj); err != nil || (obj.Code == nil && obj.TransProvider == nil) {
			return &json.UnmarshalTypeError{Value: "object", Type: reflect.TypeOf("")}
		}
		if obj.Code != nil {
			out = append(out, *obj.Code)
		} else {
			out = append(out, *obj.TransProvider)
		}
	}
	*l = out
	return nil
}

var ticketNumber = regexp.MustCompile(`^[0-9]{13}$`)

// Check validates the filters with the messages of spec 03 section 5 and
// normalises them (trimmed values, no empty list entries).
func (f *Filters) Check() error {
	f.FromDate, f.ToDate = strings.TrimSpace(f.FromDate), strings.TrimSpace(f.ToDate)
	f.ClientUniqueID = strings.TrimSpace(f.ClientUniqueID)
	if f.FromDate == "" || f.ToDate == "" {
		field := "fromDate"
		if f.FromDate != "" {
			field = "toDate"
		}
		return engine.Invalid(field, "From Date and To Date are required.").With("recon.datesRequired")
	}
	for _, d := range []struct{ field, value string }{{"fromDate", f.FromDate}, {"toDate", f.ToDate}} {
		if _, err := time.Parse("2006-01-02", d.value); err != nil {
			return engine.Invalid(d.field, "%s must be a date as yyyy-MM-dd.", d.field).With("recon.dateFormat", "field", d.field)
		}
	}
	if f.ToDate < f.FromDate {
		return engine.Invalid("toDate", "To Date cannot be earlier than From Date.").With("recon.dateOrder")
	}
	if f.ClientUniqueID != "" && !ticketNumber.MatchString(f.ClientUniqueID) {
		return engine.Invalid("clientUniqueId", "Please enter a valid ticket number (13 digits).").With("recon.ticketNumber")
	}
	f.Currency = clean(f.Currency)
	f.Provider = clean(f.Provider)
	for i, p := range f.Provider { // providers are compared ignoring case
		f.Provider[i] = strings.ToLower(p)
	}
	for _, c := range f.Currency {
		if len(c) != 3 {
			return engine.Invalid("currency", "A currency is a three-letter code, not %q.", c).With("recon.currencyCode", "value", c)
		}
	}
	return nil
}

func clean(l valueList) valueList {
	out := valueList{}
	for _, v := range l {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// Params are the filters as the report views' parameters.
func (f *Filters) Params(withTicket bool) map[string]any {
	p := map[string]any{"fromDate": f.FromDate, "toDate": f.ToDate, "currency": anyList(f.Currency), "provider": anyList(f.Provider)}
	if withTicket {
		p["clientUniqueId"] = f.ClientUniqueID
	}
	return p
}

func anyList(l valueList) []any {
	out := make([]any, len(l))
	for i, v := range l {
		out[i] = v
	}
	return out
}

// nullList is a list as a query argument: nil (all) when empty.
func nullList(l valueList) []string {
	if len(l) == 0 {
		return nil
	}
	return l
}

func nullText(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// Providers lists the incoming transaction providers (spec 03 section 7.1:
// {Id, TransProvider}).
func (s *Service) Providers(ctx context.Context) (json.RawMessage, error) {
	return s.jsonRaw(ctx, `select coalesce(json_agg(json_build_object('Id', id, 'TransProvider', providers) order by providers), '[]')
		from (select min(id) as id, providers from transaction_provider where in_out = 'IN' group by providers) p`)
}

// Currencies lists the currencies the filters offer ({Id, Code}): every
// currency of the documents (read from the report sums, the payouts and
// the bank bookings' currency index, not from a million documents), of the
// bank accounts and the exchange-rate table, and USD.
func (s *Service) Currencies(ctx context.Context) (json.RawMessage, error) {
	return s.jsonRaw(ctx, `select coalesce(json_agg(json_build_object('Id', n, 'Code', code) order by code), '[]')
		from (select code, row_number() over (order by code) as n from (
			select currency from recon_ticket_day
			union select currency from recon_transaction_day
			union select settlement_currency from recon_transaction_day where settlement_currency is not null
			union select settlement_currency from recon_payout_day
			union select currency from payout where currency is not null
			union (with recursive b(code) as (
				select min(currency) from bank_booking
				union all
				select (select min(currency) from bank_booking where currency > b.code) from b where b.code is not null)
			select code from b where code is not null)
			union select currency_code from bank_account_currency
			union select code from currency_exchange_rate
			union select 'USD') c(code) where code ~ '^[A-Z]{3}$') c`)
}

// jsonRaw runs a query that builds its answer as one JSON value (amounts
// stay exact: numeric is written as written).
func (s *Service) jsonRaw(ctx context.Context, sql string, args ...any) (json.RawMessage, error) {
	var raw []byte
	if err := s.pool.QueryRow(ctx, sql, args...).Scan(&raw); err != nil {
		return nil, err
	}
	return raw, nil
}
