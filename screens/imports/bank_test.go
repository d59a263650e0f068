package imports

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"

	"ledgerdesk/engine"
)

// bankDesk is a bank booking processed as on import, edited through the
// metadata engine as the grid does (PUT /api/grid/row), and reprocessed.
type bankDesk struct {
	l   *loader
	e   *engine.Engine
	ctx context.Context
	id  int64
}

func newBankDesk(t *testing.T) *bankDesk {
	t.Helper()
	l := newLoader(t)
	md, err := engine.LoadMetadata(os.DirFS("../.."))
	if err != nil {
		t.Fatal(err)
	}
	if err := engine.Validate(context.Background(), l.pool, md); err != nil {
		t.Fatal(err)
	}
	d := &bankDesk{l: l, e: engine.New(engine.Options{Pool: l.pool, Metadata: md}),
		ctx: engine.WithActor(context.Background(), &engine.Actor{Username: "bank-test", Screens: map[int]bool{7: true}})}
	for _, sql := range []string{
		`insert into transaction_provider (trans, providers, priority, recon_mapping) values ('Card', 'Nuvei', 5, 'NUVEI')`,
		`insert into currency_exchange_rate (exchange_rate_on, code, currency, usd) values ('2026-11-01', 'NOK', 'Norwegian krone', 0.1)`,
		`insert into bank_booking (bank_account, booked_date, amount_local, currency, text) values ('NO-1', '2026-11-02', 1200.50, 'NOK', 'NUVEI payout 2211')`,
	} {
		d.exec(t, sql)
	}
	if err := d.l.pool.QueryRow(context.Background(), `select id from bank_booking`).Scan(&d.id); err != nil {
		t.Fatal(err)
	}
	d.reprocess(t)
	return d
}

func (d *bankDesk) exec(t *testing.T, sql string, args ...any) {
	t.Helper()
	if _, err := d.l.pool.Exec(context.Background(), sql, args...); err != nil {
		t.Fatal(err)
	}
}

func (d *bankDesk) reprocess(t *testing.T) {
	t.Helper()
	if err := pgx.BeginFunc(context.Background(), d.l.pool, func(tx pgx.Tx) error { return ProcessBank(context.Background(), tx, nil) }); err != nil {
		t.Fatal(err)
	}
}

// row reads the booking as the grid shows it.
func (d *bankDesk) row(t *testing.T) map[string]any {
	t.Helper()
	page, err := d.e.Page(d.ctx, engine.GridRequest{ViewName: "VW_BankFinal", Filters: []engine.Cond{{Field: "Id", Op: "equals", Value: json.Number(jsonInt(d.id))}}})
	if err != nil {
		t.Fatal(err)
	}
	rows := page.Rows()
	if len(rows) != 1 {
		t.Fatalf("%d rows for booking %d", len(rows), d.id)
	}
	return rows[0]
}

// edit saves one inline edit with the row's current version.
func (d *bankDesk) edit(t *testing.T, field string, value any) (map[string]any, error) {
	t.Helper()
	return d.e.UpdateRow(d.ctx, engine.RowEdit{ViewName: "VW_BankFinal", Key: d.row(t)["Id"], Values: map[string]any{field: value}, Version: d.row(t)["UpdatedOn"]})
}

func (d *bankDesk) want(t *testing.T, step string, got map[string]any, rate, usd, in string) {
	t.Helper()
	if got["ExchangeRate"] != rate || got["AmountUsd"] != usd || got["InUsd"] != in || got["OutUsd"] != nil {
		t.Errorf("%s: rate %v, USD %v, in %v, out %v; want %s, %s, %s", step, got["ExchangeRate"], got["AmountUsd"], got["InUsd"], got["OutUsd"], rate, usd, in)
	}
}

func jsonInt(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// Manual overrides are kept per field (spec 02), derived figures follow an
// edit in its own transaction (views.yaml afterEdit), and an explicit USD
// amount wins over a recomputation.
func TestBankEditsKeepOverridesPerField(t *testing.T) {
	d := newBankDesk(t)
	d.want(t, "processed", d.row(t), "0.10000000", "120.05", "120.05")

	// A comment-only edit freezes nothing: a corrected rate is picked up on reprocessing.
	if _, err := d.edit(t, "Comments", "checked"); err != nil {
		t.Fatal(err)
	}
	d.exec(t, `update currency_exchange_rate set usd = 0.2 where code = 'NOK'`)
	d.reprocess(t)
	d.want(t, "reprocessed after a comment-only edit", d.row(t), "0.20000000", "240.10", "240.10")

	// A rate typed by hand gives a new USD amount and In (USD) at once, and survives reprocessing.
	saved, err := d.edit(t, "ExchangeRate", "0.15")
	if err != nil {
		t.Fatal(err)
	}
	d.want(t, "rate edited", saved, "0.15000000", "180.08", "180.08")
	d.reprocess(t)
	d.want(t, "reprocessed after the rate edit", d.row(t), "0.15000000", "180.08", "180.08")

	// A USD amount typed by hand wins over later rate edits and reprocessing.
	saved, err = d.edit(t, "AmountUsd", "150")
	if err != nil {
		t.Fatal(err)
	}
	d.want(t, "USD amount edited", saved, "0.15000000", "150.00", "150.00")
	saved, err = d.edit(t, "ExchangeRate", "0.3")
	if err != nil {
		t.Fatal(err)
	}
	d.want(t, "rate edited after the USD amount", saved, "0.30000000", "150.00", "150.00")
	d.reprocess(t)
	d.want(t, "reprocessed with both set by hand", d.row(t), "0.30000000", "150.00", "150.00")

	// Clearing the USD amount hands it back to the computation; clearing the rate too.
	saved, err = d.edit(t, "AmountUsd", nil)
	if err != nil {
		t.Fatal(err)
	}
	d.want(t, "USD amount cleared", saved, "0.30000000", "360.15", "360.15")
	saved, err = d.edit(t, "ExchangeRate", nil)
	if err != nil {
		t.Fatal(err)
	}
	d.want(t, "rate cleared", saved, "0.20000000", "240.10", "240.10")

	// More decimals than the column holds are refused, naming the field; nothing is rounded.
	for _, tt := range []struct{ field, value string }{{"AmountUsd", "1234.567"}, {"ExchangeRate", "0.123456789"}} {
		_, err := d.edit(t, tt.field, tt.value)
		var e *engine.Error
		if !errors.As(err, &e) || e.Code != engine.CodeInvalid || e.Field != tt.field || e.Key != "field.decimals" {
			t.Errorf("%s %s: %v", tt.field, tt.value, err)
		}
	}
	if _, err := d.edit(t, "AmountUsd", "1234.560"); err != nil {
		t.Errorf("trailing zeros are no extra decimals: %v", err)
	}
}

// A recon mapping is matched literally: '_' and '%' are characters, not wildcards.
func TestReconMappingMatchesLiterally(t *testing.T) {
	d := newBankDesk(t)
	d.exec(t, `insert into transaction_provider (trans, providers, priority, recon_mapping) values
		('Wild', 'Underscore', 1, 'N_VEI'), ('Wild', 'Percent', 2, 'NUV%2211'), ('Exact', 'Lower case', 3, 'payout 22')`)
	d.reprocess(t)
	if got := d.row(t); got["Actor"] != "Exact" || got["ReconMapping"] != "payout 22" {
		t.Errorf("actor %v mapping %v, want Exact by 'payout 22' (case-insensitive, literal)", got["Actor"], got["ReconMapping"])
	}
}
