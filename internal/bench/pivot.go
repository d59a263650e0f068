package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"ledgerdesk/engine"
	"ledgerdesk/screens/reports"
	"ledgerdesk/server"
)

// PivotDatabase holds the pivot benchmark's processed bank bookings, apart
// from the grid benchmark's unprocessed ones.
const PivotDatabase = "ledgerdesk_bench_pivot"

// seedProcessedBank fills bank_booking with n processed bookings over 900
// days (2024-01-01 to 2026-06-18): two thirds in, seven actors and some
// without one, the distribution flags in every combination.
func seedProcessedBank(ctx context.Context, pool *pgxpool.Pool, n int, out io.Writer) error {
	return seedBankRows(ctx, pool, n, `select count(*) from bank_booking where in_or_out is not null`, "processed bank rows",
		`insert into bank_booking (bank_account, file_name, booked_date, in_or_out, amount_local, currency, text,
			status, actor, dist_rvn_settle, distr_driver, affects_balance, in_usd, out_usd)
		select 'ACC-' || lpad((i % 40)::text, 3, '0'), 'statement_' || (i / 5000) || '.csv', date '2024-01-01' + (i % 900),
		       case when i % 3 = 0 then 'OUT' else 'IN' end, a, 'USD', 'Booking ' || i, 'Processed',
		       case when i % 23 <> 0 then (array['Card','Bank','Amex','Nuvei','Adyen','Transfer','Interest'])[1 + (i / 3) % 7] end,
		       (array['Yes','No'])[1 + (i / 5) % 2], (array['Yes','No'])[1 + (i / 7) % 2], (array['Yes','Yes','No'])[1 + (i / 11) % 3],
		       case when i % 3 <> 0 then a end, case when i % 3 = 0 then -a end
		from (select i, round((random() * 20000)::numeric, 2) as a from generate_series(1, $1) i) g`, out)
}

// Pivot measures the bank overview over rows processed bookings for each
// grouping, through the HTTP API and as the same SQL alone on pgx.
func Pivot(ctx context.Context, dbURL string, scfg server.Config, rows, iterations int, out io.Writer) error {
	pool, _, err := OpenNamed(ctx, dbURL, PivotDatabase, scfg, out)
	if err != nil {
		return err
	}
	defer pool.Close()
	if err := seedProcessedBank(ctx, pool, rows, out); err != nil {
		return err
	}
	eng := engine.New(engine.Options{Pool: pool, Metadata: &engine.Metadata{}, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	srv, err := startAPI(ctx, pool, eng)
	if err != nil {
		return err
	}
	defer srv.stop()
	client := &http.Client{}

	api := func(p reports.Params) (time.Duration, error) {
		body, _ := json.Marshal(p)
		return srv.post(ctx, client, "/api/reports/bank-overview", body)
	}
	sqlAlone := func(p reports.Params) (time.Duration, error) {
		p, _ = p.Normalize()
		sql, args := reports.PivotSQL(p)
		start := time.Now()
		rows, err := pool.Query(ctx, sql, append([]any{pgx.QueryExecModeExec}, args...)...)
		if err != nil {
			return 0, err
		}
		for rows.Next() {
			if _, err := rows.Values(); err != nil {
				return 0, err
			}
		}
		rows.Close()
		return time.Since(start), rows.Err()
	}

	filters := []struct {
		name string
		p    reports.Params
	}{
		{"defaults (In, Yes, All, Yes)", reports.Defaults},
		{"every In booking (In, All, All, All)", reports.Params{InOut: "In", DistribRvn: "All", DistribDriver: "All", AffectsBalance: "All"}},
	}
	fmt.Fprintf(out, "\nbank overview pivot over %d processed bank rows, %d calls per case (1 client)\n\n", rows, iterations)
	var table_ [][]string
	for _, f := range filters {
		var matched int
		pool.QueryRow(ctx, `select count(*) from bank_booking where in_or_out = 'IN'
			and ($1 = 'All' or dist_rvn_settle = $1) and ($2 = 'All' or distr_driver = $2) and ($3 = 'All' or affects_balance = $3)`,
			f.p.DistribRvn, f.p.DistribDriver, f.p.AffectsBalance).Scan(&matched)
		for _, g := range reports.Groupings {
			p := f.p
			p.DateGrouping = g
			var apiTimes, sqlTimes []time.Duration
			for i := -2; i < iterations; i++ { // two to warm the caches
				a, err := api(p)
				if err != nil {
					return err
				}
				s, err := sqlAlone(p)
				if err != nil {
					return err
				}
				if i >= 0 {
					apiTimes, sqlTimes = append(apiTimes, a), append(sqlTimes, s)
				}
			}
			table_ = append(table_, []string{f.name, fmt.Sprintf("%d", matched), string(g),
				ms(percentile(apiTimes, 50)), ms(percentile(apiTimes, 95)), ms(percentile(sqlTimes, 50)), ms(percentile(sqlTimes, 95)),
				ratio(percentile(apiTimes, 50), percentile(sqlTimes, 50))})
			record(ctx, Figure{Bench: "pivot", Case: fmt.Sprintf("%s, by %s", f.name, g), Count: len(apiTimes), P50: percentile(apiTimes, 50),
				P95: percentile(apiTimes, 95), FloorRatio: ratioOf(percentile(apiTimes, 50), percentile(sqlTimes, 50)),
				Floor: "the same statement alone on pgx (p50)", Target: "p95 < 500 ms", Met: met(percentile(apiTimes, 95) < 500*time.Millisecond)})
		}
	}
	table(out, []string{"filters", "rows summed", "grouping", "API p50", "API p95", "SQL p50", "SQL p95", "API / SQL p50"}, table_)
	fmt.Fprintln(out, "\ntarget (DESIGN.md 7): under 500 ms for each grouping.")
	return nil
}
