package bench

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"ledgerdesk/engine"
	"ledgerdesk/server"
)

// HomeDatabase holds the home benchmark's documents and matches.
const HomeDatabase = "ledgerdesk_bench_home"

// seedHome fills the documents of all three levels at the reconcile
// benchmark's scale (n tickets and n card transactions, n/2 payouts) over
// 900 days in three currencies, in date order as files arrive, with seven
// in ten records of each level matched and one partial, a thousand tasks,
// a run per level, n open items in the exception queue and 50 alerts.
func seedHome(ctx context.Context, pool *pgxpool.Pool, n int, out io.Writer) error {
	var have, open int
	pool.QueryRow(ctx, `select count(*) from ticket`).Scan(&have)
	pool.QueryRow(ctx, `select count(*) from recon_open_item`).Scan(&open)
	if have == n && open == n {
		return nil
	}
	fmt.Fprintf(out, "generating %d tickets, %d transactions, %d payouts and their matches (once; kept for later runs) ...\n", n, n, n/2)
	start := time.Now()
	for _, q := range []string{
		`truncate ticket, card_transaction, payout, recon_match, recon_run, task cascade`,
		`insert into currency_exchange_rate (exchange_rate_on, code, currency, usd) values ('2023-12-31', 'EUR', 'Euro', 1.08), ('2023-12-31', 'SEK', 'Krona', 0.095)
			on conflict do nothing`,
		`insert into ticket (ticket_number, trans_date, currency, sale_amount, natural_key, import_file_id)
			select lpad(i::text, 13, '0'), date '2024-01-01' + (i - 1) * 900 / $1, (array['USD','EUR','SEK'])[1 + i % 3], round((random() * 1000)::numeric, 2), 't' || i, 0
			from generate_series(1, $1) i`,
		`insert into card_transaction (client_unique_id, processing_date, provider_actor, currency, transaction_amount, natural_key, import_file_id)
			select lpad(i::text, 13, '0'), date '2024-01-01' + (i - 1) * 900 / $1, 'nuvei', (array['USD','EUR','SEK'])[1 + i % 3], round((random() * 1000)::numeric, 2), 'x' || i, 0
			from generate_series(1, $1) i`,
		`insert into payout (payout_key, provider_actor, currency, total_net, latest_date, settlement_count)
			select 'P' || i, 'nuvei', (array['USD','EUR','SEK'])[1 + i % 3], round((random() * 5000)::numeric, 2), date '2024-01-01' + (i - 1) * 1800 / $1, 2
			from generate_series(1, $1 / 2) i`,
		`insert into recon_match (level, left_id, right_id, status, rule, created_by)
			select l, i, i, case when i % 10 < 7 then 'matched' else 'partial' end, case when i % 10 < 7 then 'exact' else 'amount' end, 'bench'
			from generate_series(1, $1) i, (values (1), (2), (3)) v(l)
			where i % 10 < 8 and (l < 3 or i <= $1 / 2)`,
		`insert into task (task_name, is_status) select 'Task ' || i, 1 + i % 3 from generate_series(1, 1000) i`,
		`insert into recon_run (level, status, created_by, matched, partial) select l, 'succeeded', 'bench', 7, 1 from generate_series(1, 3) l`,
		// n open items in the exception queue (Home's ageing reads them
		// all), aged over the 900 days, a tenth past their SLA, and a
		// screenful of alerts
		`truncate recon_open_item, alert`,
		`insert into recon_open_item (level, side, record_id, kind, ref, date, amount, currency, status, due_on)
			select 1 + i % 3, 'left', i, 'ticket', lpad(i::text, 13, '0'), date '2024-01-01' + (i - 1) * 900 / $1, 100, 'USD', 'unmatched',
				case when i % 10 = 0 then current_date - 1 - i % 30 else current_date + 30 end
			from generate_series(1, $1) i`,
		`insert into alert (key, kind, screen, message, message_code, message_params)
			select 'run:' || i, 'runFailed', 13, 'failed', 'alert.runFailed', jsonb_build_object('runId', i, 'level', 1, 'detail', 'x')
			from generate_series(1, 50) i`,
		`vacuum analyze ticket, card_transaction, payout, recon_match, task, recon_open_item, alert`,
	} {
		var err error
		if strings.Contains(q, "$1") {
			_, err = pool.Exec(ctx, q, n)
		} else {
			_, err = pool.Exec(ctx, q)
		}
		if err != nil {
			return fmt.Errorf("%.60s: %w", q, err)
		}
	}
	fmt.Fprintf(out, "generated in %s\n", time.Since(start).Round(time.Second))
	return nil
}

// Home measures GET /api/home at the reconcile benchmark's scale: each of
// 30 months once uncached (the answer is cached a minute per month), then
// the same months again from the cache.
func Home(ctx context.Context, dbURL string, scfg server.Config, rows int, out io.Writer) error {
	pool, _, err := OpenNamed(ctx, dbURL, HomeDatabase, scfg, out)
	if err != nil {
		return err
	}
	defer pool.Close()
	if err := seedHome(ctx, pool, rows, out); err != nil {
		return err
	}
	eng := engine.New(engine.Options{Pool: pool, Metadata: &engine.Metadata{}, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	srv, err := startAPI(ctx, pool, eng)
	if err != nil {
		return err
	}
	defer srv.stop()
	client := &http.Client{}
	call := func(month string) (time.Duration, error) {
		start := time.Now()
		req, _ := http.NewRequestWithContext(ctx, "GET", srv.base+"/api/home?month="+month, nil)
		req.Header.Set("Authorization", "Bearer "+srv.token)
		res, err := client.Do(req)
		if err != nil {
			return 0, err
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			return 0, fmt.Errorf("home %s: %d %.200s", month, res.StatusCode, body)
		}
		return time.Since(start), nil
	}
	var months []string
	for m := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC); m.Before(time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)); m = m.AddDate(0, 1, 0) {
		months = append(months, m.Format("2006-01"))
	}
	call("2023-12") // warm the connections
	var fresh, cached []time.Duration
	for _, m := range months {
		d, err := call(m)
		if err != nil {
			return err
		}
		fresh = append(fresh, d)
	}
	for _, m := range months {
		d, err := call(m)
		if err != nil {
			return err
		}
		cached = append(cached, d)
	}
	fmt.Fprintf(out, "\nGET /api/home over %d tickets, %d transactions, %d payouts, %d open items (30 months, each once)\n\n", rows, rows, rows/2, rows)
	table(out, []string{"answer", "p50", "p95", "max"}, [][]string{
		{"computed (first call of a month)", ms(percentile(fresh, 50)), ms(percentile(fresh, 95)), ms(percentile(fresh, 100))},
		{"from the cache (within a minute)", ms(percentile(cached, 50)), ms(percentile(cached, 95)), ms(percentile(cached, 100))},
	})
	fmt.Fprintln(out, "\ntarget: under 300 ms.")
	for _, c := range []struct {
		name  string
		times []time.Duration
	}{{"GET /api/home, computed (first call of a month)", fresh}, {"GET /api/home, from the cache", cached}} {
		record(ctx, Figure{Bench: "home", Case: c.name, Count: len(c.times), P50: percentile(c.times, 50), P95: percentile(c.times, 95),
			Max: percentile(c.times, 100), Target: "p95 < 300 ms", Met: met(percentile(c.times, 95) < 300*time.Millisecond)})
	}
	return nil
}
