package recon

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"ledgerdesk/engine"
	"ledgerdesk/internal/pgtest"
)

// testDefinition is the product's recon.yaml; Levels its levels in order.
var (
	testDefinition = mustLoad()
	Levels         = testDefinition.Levels
)

func mustLoad() *Definition {
	d, err := Load(os.DirFS("../.."))
	if err != nil {
		panic(err)
	}
	return d
}

// fixture builds reconciliation data record by record on a fresh database
// and runs the service with a real job queue.
type fixture struct {
	t    *testing.T
	pool *pgxpool.Pool
	ctx  context.Context
	svc  *Service
	seq  int
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	pool := pgtest.New(t)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if err := testDefinition.Sync(context.Background(), pool); err != nil {
		t.Fatal(err)
	}
	svc := NewService(pool, testDefinition, log)
	svc.Wait = 30 * time.Second
	workers := river.NewWorkers()
	river.AddWorker(workers, &AutoWorker{Service: svc})
	queue, err := river.NewClient(riverpgxv5.New(pool), &river.Config{Queues: map[string]river.QueueConfig{Queue: {MaxWorkers: 1}},
		Workers: workers, FetchCooldown: 20 * time.Millisecond, FetchPollInterval: 50 * time.Millisecond, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	if err := queue.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { queue.Stop(context.Background()) })
	svc.SetQueue(queue)
	ctx := engine.WithActor(context.Background(), &engine.Actor{UserID: 0, Username: "rita"})
	return &fixture{t: t, pool: pool, ctx: ctx, svc: svc}
}

func (f *fixture) exec(sql string, args ...any) {
	f.t.Helper()
	if _, err := f.pool.Exec(f.ctx, sql, args...); err != nil {
		f.t.Fatalf("%s: %v", sql, err)
	}
}

func (f *fixture) id(sql string, args ...any) int64 {
	f.t.Helper()
	var id int64
	if err := f.pool.QueryRow(f.ctx, sql, args...).Scan(&id); err != nil {
		f.t.Fatalf("%s: %v", sql, err)
	}
	return id
}

func (f *fixture) key() string {
	f.seq++
	return fmt.Sprint("k", f.seq)
}

// tolerance adds a config_setting row: provider, level, amount, days, currency percent ("" for none).
func (f *fixture) tolerance(provider string, level int, amount string, days int, currency string) {
	f.t.Helper()
	var cur *string
	if currency != "" {
		cur = &currency
	}
	f.exec(`insert into config_setting (provider_name, transaction_type, provider_actor, amount_threshold, date_threshold, currency_threshold)
		values ($1, $2, $1, $3, $4, $5)`, provider, level, amount, days, cur)
}

func (f *fixture) rate(code, on, usd string) {
	f.t.Helper()
	f.exec(`insert into currency_exchange_rate (exchange_rate_on, code, currency, usd) values ($1, $2, $2, $3)`, on, code, usd)
}

func (f *fixture) ticket(number, amount, currency, date string) int64 {
	f.t.Helper()
	return f.id(`insert into ticket (ticket_number, trans_date, payment_type, country_code, currency, transaction_code, sale_amount, natural_key, import_file_id)
		values ($1, $2, 'CC', 'US', $3, 'TKTT', $4, $5, 1) returning id`, number, date, currency, amount, f.key())
}

func (f *fixture) transaction(client, provider, amount, currency, date string) int64 {
	f.t.Helper()
	return f.id(`insert into card_transaction (client_unique_id, processing_date, provider_actor, acquiring_bank, payment_method, currency,
		transaction_amount, transaction_type, natural_key, import_file_id)
		values ($1, $2, $3, 'Acq', 'Visa', $4, $5, 'Sale', $6, 1) returning id`, client, date, provider, currency, amount, f.key())
}

// settlement adds a settlement; gross "" leaves it empty (net + fees
// count), fees "" too.
func (f *fixture) settlement(payout, client, provider, currency, date, gross, fees, net string) int64 {
	f.t.Helper()
	var g, fe *string
	if gross != "" {
		g = &gross
	}
	if fees != "" {
		fe = &fees
	}
	return f.id(`insert into settlement (payout_id, client_unique_id, settlement_date, provider_actor, acquirer_bank, settlement_currency,
		gross_amount, fees, settlement_net, natural_key, import_file_id)
		values ($1, $2, $3, $4, 'Acq', $5, $6, $7, $8, $9, 1) returning id`, payout, client, date, provider, currency, g, fe, net, f.key())
}

// booking adds a processed bank booking of provider (manual provider when given).
func (f *fixture) booking(amount, charges, currency, date, provider, manual string) int64 {
	f.t.Helper()
	var m, ch *string
	if manual != "" {
		m = &manual
	}
	if charges != "" {
		ch = &charges
	}
	return f.id(`insert into bank_booking (bank_account, booked_date, amount_local, currency, text, bank_charges_in_local, provider,
		manual_provider, reco_amount_in_local_currency, status, in_or_out)
		values ('ACC-'||$3, $4, $1, $3, 'payout', $2, $5, $6, $1, 'Processed', 'IN') returning id`, amount, ch, currency, date, provider, m)
}

func (f *fixture) auto(l *Level) *Run {
	f.t.Helper()
	r, err := f.svc.Auto(f.ctx, l)
	if err != nil {
		f.t.Fatalf("auto %s: %v", l.Slug, err)
	}
	if r.Status != "succeeded" {
		f.t.Fatalf("auto %s: run %+v", l.Slug, r)
	}
	// The run's counts (made before matching, less its matches) are those
	// counted afresh after it.
	var left, right int
	if err := f.pool.QueryRow(f.ctx, unmatchedSQL(l, "left")).Scan(&left); err != nil {
		f.t.Fatal(err)
	}
	if err := f.pool.QueryRow(f.ctx, unmatchedSQL(l, "right")).Scan(&right); err != nil {
		f.t.Fatal(err)
	}
	if r.LeftUnmatched != left || r.RightUnmatched != right {
		f.t.Errorf("auto %s: run counts %d %s and %d %s unmatched, there are %d and %d",
			l.Slug, r.LeftUnmatched, l.Left.Name, r.RightUnmatched, l.Right.Name, left, right)
	}
	return r
}

// live is the live match of a left record at a level, or nil.
func (f *fixture) live(l *Level, leftID int64) *Match {
	f.t.Helper()
	m, err := f.svc.scanMatch(f.pool.QueryRow(f.ctx, `select `+matchColumns+` from recon_match where level = $1 and left_id = $2 and undone_on is null`, l.N, leftID))
	if err != nil {
		return nil
	}
	return m
}

func (f *fixture) liveRight(l *Level, rightID int64) *Match {
	f.t.Helper()
	m, err := f.svc.scanMatch(f.pool.QueryRow(f.ctx, `select `+matchColumns+` from recon_match where level = $1 and right_id = $2 and undone_on is null`, l.N, rightID))
	if err != nil {
		return nil
	}
	return m
}

func (f *fixture) payoutID(key string) int64 {
	f.t.Helper()
	return f.id(`select id from payout where payout_key = $1`, key)
}
