package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"ledgerdesk/engine"
	"ledgerdesk/server"
)

// ClicksDatabase holds the sweep's bank bookings, every column filled.
const ClicksDatabase = "ledgerdesk_bench_clicks"

// ClicksOptions size the every-click sweep.
type ClicksOptions struct {
	Rows     int    // bank_booking rows (2,000,000 for the target)
	Calls    int    // timed calls per click after one warm-up; the p50 is reported
	View     string // the view swept (VW_BankFinal)
	Database string // "" is ClicksDatabase
	// Slow is the p50 from which a click is listed by name (100 ms).
	Slow time.Duration
	// Isolation is how long each round of the isolation check runs (0: no
	// check): cheap clicks by 6 clients alone, then beside 2 clients on the
	// slowest clicks, with the grid lanes (as serve runs) and without.
	Isolation time.Duration
}

// seedFullBank fills bank_booking with n bookings whose every column holds
// what a processed booking holds, in realistic proportions: 40 accounts,
// files of 5,000 rows, 900 days, six currencies, seven actors and some
// without one, references unique per row, comments and manual providers
// on a few rows, a statement warning on very few.
func seedFullBank(ctx context.Context, pool *pgxpool.Pool, n int, out io.Writer) error {
	return seedBankRows(ctx, pool, n, `select count(*) from bank_booking where bank_archive_reference is not null`, "bank rows with every column",
		`insert into bank_booking (bank_account, file_name, import_date_time, booked_date, in_or_out,
			amount_local, currency, text, bank_charges_in_local, bank_charges, actor, recon_mapping,
			reco_amount_in_local_currency, reconcile_local_currency, exchange_rate, amount_usd,
			manual_provider, manual_creditor, comments, fee, charges, interest_date, number,
			booked_balance_local_currency, status, bank_archive_reference, main_key, provider, creditor,
			dist_rvn_settle, distr_driver, affects_balance, out_usd, in_usd, created_on, created_by, statement_warning)
		select 'ACC-' || lpad((i % 40)::text, 3, '0'), 'statement_' || (i / 5000) || '.csv',
		       timestamptz '2024-01-01' + make_interval(mins => (i / 5000) * 5000),
		       date '2024-01-01' + (i % 900), case when a < 0 then 'OUT' else 'IN' end,
		       a, cur, txt, case when i % 10 = 0 then round((i % 997) / 10.0, 2) end,
		       case when i % 10 = 0 then round((i % 997) / 10.0 * rate, 2) end, act,
		       case when act is not null then lower(act) || ' payout' end,
		       a, cur, rate, round(a * rate, 2),
		       case when i % 1000 = 3 then 'Manual ' || (i % 7) end, case when i % 1000 = 5 then 'Creditor ' || (i % 5) end,
		       case when i % 500 = 1 then 'Checked against the statement by ' || (array['anna','bo','carla'])[1 + i % 3] end,
		       case when i % 4 = 0 then round((i % 89) / 10.0, 2) end, case when i % 6 = 0 then round((i % 53) / 10.0, 2) end,
		       date '2024-01-01' + (i % 900), 'N' || i, round(((i % 100000) * 13.7)::numeric, 2),
		       (array['Booked','Booked','Booked','Pending','Returned'])[1 + i % 5], 'BAR' || lpad(i::text, 9, '0'),
		       'ACC-' || lpad((i % 40)::text, 3, '0') || '|' || (date '2024-01-01' + (i % 900)),
		       case when act is not null then act || ' Ltd' end, 'Creditor ' || (i % 50),
		       (array['Yes','No'])[1 + (i / 5) % 2], (array['Yes','No'])[1 + (i / 7) % 2], (array['Yes','Yes','No'])[1 + (i / 11) % 3],
		       case when a < 0 then round(-a * rate, 2) end, case when a >= 0 then round(a * rate, 2) end,
		       timestamptz '2024-01-01' + make_interval(mins => i), (array['system','system','system','anna','bo'])[1 + i % 5],
		       case when i % 50000 = 17 then 'The opening balance does not follow on from statement ' || (i / 5000 - 1) end
		from (select i, round((random() * 20000 - 5000)::numeric, 2) as a,
		             (array['USD','EUR','SEK','NOK','DKK','GBP'])[1 + i % 6] as cur,
		             (array[1, 1.08, 0.094, 0.092, 0.145, 1.27])[1 + i % 6]::numeric as rate,
		             case when i % 23 <> 0 then (array['Card','Bank','Amex','Nuvei','Adyen','Transfer','Interest'])[1 + (i / 3) % 7] end as act,
		             case when i % 20000 = 7 then 'Refund zyxwvu ' || i
		                  else (array['Nuvei payout','Amex settlement','Card fee','Bank charge','Transfer to savings','Interest'])[1 + (i / 7) % 6] || ' ref ' || i end as txt
		      from generate_series(1, $1) i) g`, out)
}

// clickSeeders generate the rows of the tables the sweep can read.
var clickSeeders = map[string]func(ctx context.Context, pool *pgxpool.Pool, n int, out io.Writer) error{
	"bank_booking":    seedFullBank,
	"recon_open_item": seedOpenItems,
}

// seedOpenItems fills the exception queue with n open items as a large
// backlog looks: the three levels and five kinds of record, 13-digit
// references, 400 days, six currencies, three providers (none for a
// ticket), most unmatched, an SLA on most, a task on a few. (The queue is
// kept by triggers from the documents; the sweep measures its reads, so it
// writes the rows themselves, after emptying the documents.)
func seedOpenItems(ctx context.Context, pool *pgxpool.Pool, n int, out io.Writer) error {
	var got int
	pool.QueryRow(ctx, `select count(*) from recon_open_item`).Scan(&got)
	if got == n {
		return nil
	}
	fmt.Fprintf(out, "generating %d open items (once; kept for later runs) ...\n", n)
	start := time.Now()
	for _, sql := range []string{`truncate recon_open_item`,
		`insert into recon_open_item (level, side, record_id, kind, ref, date, amount, currency, amount_usd, provider, status, due_on, task_id, assignee)
		select l, case when k in (0, 2, 3) then 'left' else 'right' end, i,
		       (array['ticket', 'transaction', 'transaction', 'payout', 'settlement', 'bank'])[1 + k],
		       case when k = 3 then 'PO-' || (array['NUVEI', 'AMEX', 'USARC'])[1 + i % 3] || '-' || (i % 5000)
		            when k = 5 then 'BAR' || lpad(i::text, 9, '0') else lpad((1250000000000 + i / 2)::text, 13, '0') end,
		       d, a, cur, round(a * rate, 2), case when k <> 0 then (array['Nuvei', 'Amex', 'USARC'])[1 + i % 3] end,
		       (array['unmatched', 'unmatched', 'unmatched', 'unmatched', 'unmatched', 'unmatched', 'unmatched', 'unmatched', 'partial', 'changed',
		              'investigation'])[1 + i % 11],
		       case when i % 10 <> 0 then d + (5 + i % 26) end,
		       case when i % 50 = 0 then i / 50 end, case when i % 50 = 0 then (array['anna', 'bo', 'carla'])[1 + i % 3] end
		from (select i, (array[1, 1, 2, 3, 2, 3])[1 + i % 6] as l, i % 6 as k, date '2025-10-01' + (i % 400) as d,
		             round((50 + (hashint8(i) % 250000) / 100.0)::numeric, 2) as a,
		             (array['USD', 'EUR', 'SEK', 'NOK', 'DKK', 'GBP'])[1 + i % 6] as cur,
		             (array[1, 1.08, 0.094, 0.092, 0.145, 1.27])[1 + i % 6]::numeric as rate
		      from generate_series(1, $1) i) g`,
		`vacuum analyze recon_open_item`} {
		args := []any{}
		if strings.Contains(sql, "$1") {
			args = append(args, n)
		}
		if _, err := pool.Exec(ctx, sql, args...); err != nil {
			return err
		}
	}
	fmt.Fprintf(out, "generated in %s\n", time.Since(start).Round(time.Second))
	return nil
}

// click is one thing a user can do to the grid: a sort, a filter, or both.
type click struct {
	kind  string // sort, filter, filter+sort
	class string // common or rare value ("" for a sort or an operator without a value)
	name  string
	req   engine.GridRequest
	p50   time.Duration
}

// columnSample is what the sweep knows of a column's values, from a sample.
type columnSample struct {
	values []string // non-empty values, sorted in the column's order
	mode   string   // the most frequent
	single string   // a value seen once in the sample (rare), or ""
}

// Clicks sweeps every click the view offers over o.Rows generated bank
// bookings, through the HTTP API: each sort in both directions, each
// filter operator the columns offer with a common and a rare value, and
// each filter with a sort on another column; p50 of o.Calls calls after a
// warm-up. The indexes the view needs are built first (as serve does).
func Clicks(ctx context.Context, dbURL string, cfg server.Config, o ClicksOptions, out io.Writer, md *engine.Metadata) error {
	name := o.Database
	if name == "" {
		name = ClicksDatabase
	}
	pool, _, err := OpenNamed(ctx, dbURL, name, cfg, out)
	if err != nil {
		return err
	}
	defer pool.Close()
	if err := engine.Validate(ctx, pool, md); err != nil {
		return err
	}
	view := md.Views[o.View]
	if view == nil {
		return fmt.Errorf("bench clicks: no view %s", o.View)
	}
	seed := clickSeeders[view.Source]
	if seed == nil {
		return fmt.Errorf("bench clicks: the sweep generates rows of bank_booking and recon_open_item; %s reads %s", o.View, view.Source)
	}
	if err := seed(ctx, pool, o.Rows, out); err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	start := time.Now()
	if err := engine.EnsureIndexes(ctx, pool, md, log); err != nil {
		return err
	}
	var indexes int
	var size string
	pool.QueryRow(ctx, `select count(*), pg_size_pretty(sum(pg_relation_size(indexrelid))) from pg_index
		where indrelid = 'bank_booking'::regclass`).Scan(&indexes, &size)
	fmt.Fprintf(out, "grid indexes built in %s; bank_booking has %d indexes, %s\n", time.Since(start).Round(time.Second), indexes, size)
	gaps, err := engine.IndexGaps(ctx, pool, md)
	if err != nil {
		return err
	}
	for _, g := range gaps {
		fmt.Fprintln(out, "not served:", g)
	}

	// The sweep and the isolation rounds measure the view's own indexes:
	// none made on demand (those of an earlier run are dropped first).
	if _, err := pool.Exec(ctx, `delete from grid_index_demand`); err != nil {
		return err
	}
	if err := engine.EnsureIndexes(ctx, pool, md, log); err != nil {
		return err
	}
	eng := engine.New(engine.Options{Pool: pool, Metadata: md, Log: log, QueryTimeout: cfg.GridTimeout, Lanes: cfg.Lanes(), NoDemand: true})
	srv, err := startAPI(ctx, pool, eng)
	if err != nil {
		return err
	}
	defer srv.stop()
	client := &http.Client{}

	samples, err := sampleColumns(ctx, pool, view)
	if err != nil {
		return err
	}
	clicks := sweepClicks(view, samples)
	fmt.Fprintf(out, "\nevery click of %s over %d rows: %d clicks, p50 of %d calls after a warm-up, one client\n\n", o.View, o.Rows, len(clicks), o.Calls)
	for i := range clicks {
		body, _ := json.Marshal(clicks[i].req)
		if _, err := srv.post(ctx, client, "/api/grid", body); err != nil {
			return fmt.Errorf("%s: %w", clicks[i].name, err)
		}
		var ds []time.Duration
		for range o.Calls {
			d, err := srv.post(ctx, client, "/api/grid", body)
			if err != nil {
				return fmt.Errorf("%s: %w", clicks[i].name, err)
			}
			ds = append(ds, d)
		}
		clicks[i].p50 = percentile(ds, 50)
	}
	printClicks(out, clicks, o.Slow)
	record(ctx, sweepFigure(o.View, clicks, o.Slow))
	if o.Isolation > 0 {
		plain := engine.New(engine.Options{Pool: pool, Metadata: md, Log: log, QueryTimeout: cfg.GridTimeout, NoDemand: true})
		plainSrv, err := startAPI(ctx, pool, plain)
		if err != nil {
			return err
		}
		defer plainSrv.stop()
		if err := isolation(ctx, out, srv, plainSrv, clicks, o.Isolation); err != nil {
			return err
		}
	}
	// Then as served: the slow clicks make their indexes on demand.
	demanding := engine.New(engine.Options{Pool: pool, Metadata: md, Log: log, QueryTimeout: cfg.GridTimeout, Lanes: cfg.Lanes()})
	demandSrv, err := startAPI(ctx, pool, demanding)
	if err != nil {
		return err
	}
	defer demandSrv.stop()
	return afterDemand(ctx, out, pool, demanding, demandSrv, client, clicks, o)
}

// afterDemand has the slow clicks made once more, by a server that makes
// indexes on demand (engine/demand.go), waits for those indexes and
// measures the slow clicks again.
func afterDemand(ctx context.Context, out io.Writer, pool *pgxpool.Pool, eng *engine.Engine, srv *apiServer, client *http.Client, clicks []click, o ClicksOptions) error {
	for _, c := range clicks {
		if c.p50 > o.Slow {
			body, _ := json.Marshal(c.req)
			if _, err := srv.post(ctx, client, "/api/grid", body); err != nil {
				return fmt.Errorf("%s: %w", c.name, err)
			}
		}
	}
	for {
		var building int
		if err := pool.QueryRow(ctx, `select count(*) from grid_index where state = 'building'`).Scan(&building); err != nil {
			return err
		}
		if building == 0 && !eng.BuildingIndexes() {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	made, err := engine.DemandedIndexes(ctx, pool)
	if err != nil || len(made) == 0 {
		return err
	}
	fmt.Fprintln(out, "\nindexes made on demand by the slow reads:")
	for _, d := range made {
		fmt.Fprintf(out, "  %s (%s) for %s: %s\n", d.Name, d.Columns, d.View, d.State)
	}
	fmt.Fprintln(out, "\nthe slow clicks again:")
	served := slices.Clone(clicks) // every click as served: the slow ones measured again
	for i := range served {
		c := &served[i]
		if c.p50 <= o.Slow {
			continue
		}
		body, _ := json.Marshal(c.req)
		var ds []time.Duration
		for range o.Calls + 1 {
			d, err := srv.post(ctx, client, "/api/grid", body)
			if err != nil {
				return fmt.Errorf("%s: %w", c.name, err)
			}
			ds = append(ds, d)
		}
		was := c.p50
		c.p50 = percentile(ds[1:], 50)
		fmt.Fprintf(out, "  %s: %s (was %s)\n", c.name, ms(c.p50), ms(was))
	}
	f := sweepFigure(o.View, served, o.Slow)
	f.Case += ", after the indexes made on demand"
	record(ctx, f)
	return nil
}

// isolation measures the cheap clicks (the grid benchmark's first two
// cases) of 6 clients alone, then beside 2 clients repeating the two
// slowest clicks of the sweep: with the lanes and without.
func isolation(ctx context.Context, out io.Writer, lanes, plain *apiServer, clicks []click, d time.Duration) error {
	cheap := [][]byte{[]byte(gridCases[0].req), []byte(gridCases[1].req)}
	sorted := append([]click(nil), clicks...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].p50 > sorted[j].p50 })
	var heavy [][]byte
	var heavyNames []string
	for _, c := range sorted[:min(2, len(sorted))] {
		b, _ := json.Marshal(c.req)
		heavy, heavyNames = append(heavy, b), append(heavyNames, c.name)
	}
	type round struct {
		name          string
		srv           *apiServer
		heavyClients  int
		cheap, costly []time.Duration
	}
	rounds := []*round{{name: "cheap clicks alone", srv: lanes}, {name: "beside 2 heavy clients, with lanes", srv: lanes, heavyClients: 2},
		{name: "beside 2 heavy clients, without lanes", srv: plain, heavyClients: 2}}
	for _, r := range rounds {
		var mu sync.Mutex
		var wg sync.WaitGroup
		var firstErr error
		stop := time.Now().Add(d)
		client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
		loop := func(bodies [][]byte, into *[]time.Duration, offset int) {
			defer wg.Done()
			for i := offset; time.Now().Before(stop); i++ {
				took, err := r.srv.post(ctx, client, "/api/grid", bodies[i%len(bodies)])
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
				}
				*into = append(*into, took)
				mu.Unlock()
			}
		}
		for c := range 6 {
			wg.Add(1)
			go loop(cheap, &r.cheap, c)
		}
		for c := range r.heavyClients {
			wg.Add(1)
			go loop(heavy, &r.costly, c)
		}
		wg.Wait()
		if firstErr != nil {
			return fmt.Errorf("isolation, %s: %w", r.name, firstErr)
		}
	}
	fmt.Fprintf(out, "\nisolation: 6 clients on cheap clicks (no filter; currency equals), %s a round; heavy clients on %s\n\n",
		d, strings.Join(heavyNames, " and "))
	alone := percentile(rounds[0].cheap, 95)
	var rows [][]string
	for _, r := range rounds {
		heavyP50 := "-"
		if len(r.costly) > 0 {
			heavyP50 = fmt.Sprintf("%s (%d calls)", ms(percentile(r.costly, 50)), len(r.costly))
		}
		rows = append(rows, []string{r.name, ms(percentile(r.cheap, 95)), ratio(percentile(r.cheap, 95), alone),
			fmt.Sprintf("%.0f/s", float64(len(r.cheap))/d.Seconds()), heavyP50})
		f := Figure{Bench: "clicks", Case: "isolation: " + r.name, Count: len(r.cheap), P50: percentile(r.cheap, 50),
			P95: percentile(r.cheap, 95), Throughput: perSecond(len(r.cheap), d), Unit: "calls/s"}
		if r.heavyClients > 0 {
			f.FloorRatio, f.Floor = ratioOf(f.P95, alone), "the cheap clicks alone (p95)"
			f.Target, f.Met = "p95 <= 2x alone", atMost(f.FloorRatio, 2)
			f.Note = "heavy p50 " + heavyP50
		}
		record(ctx, f)
	}
	table(out, []string{"round", "cheap p95", "vs alone", "cheap calls", "heavy p50"}, rows)
	fmt.Fprintln(out, "\ntarget: the cheap clicks' p95 beside the heavy ones within 2x of alone.")
	return nil
}

// sweepFigure sums the sweep up in one figure for `bench all`: how many
// clicks, how many over slow, their median and the slowest.
func sweepFigure(view string, clicks []click, slow time.Duration) Figure {
	var p50s []time.Duration
	var over int
	var slowest *click
	for i := range clicks {
		c := &clicks[i]
		p50s = append(p50s, c.p50)
		if c.p50 > slow {
			over++
		}
		if slowest == nil || c.p50 > slowest.p50 {
			slowest = c
		}
	}
	f := Figure{Bench: "clicks", Case: fmt.Sprintf("every click of %s: %d clicks, %d over %s", view, len(clicks), over, ms(slow)),
		Count: len(clicks), P50: percentile(p50s, 50), Target: "none over " + ms(slow), Met: met(over == 0)}
	if slowest != nil {
		f.Max, f.Note = slowest.p50, "slowest: "+slowest.name
	}
	return f
}

func printClicks(out io.Writer, clicks []click, slow time.Duration) {
	type group struct {
		kind, class string
		all         []time.Duration
		over        int
		slowest     *click
	}
	var groups []*group
	find := func(kind, class string) *group {
		for _, g := range groups {
			if g.kind == kind && g.class == class {
				return g
			}
		}
		g := &group{kind: kind, class: class}
		groups = append(groups, g)
		return g
	}
	var total, over int
	for i := range clicks {
		c := &clicks[i]
		g := find(c.kind, c.class)
		g.all = append(g.all, c.p50)
		if c.p50 > slow {
			g.over++
			over++
		}
		if g.slowest == nil || c.p50 > g.slowest.p50 {
			g.slowest = c
		}
		total++
	}
	var rows [][]string
	for _, g := range groups {
		what := g.kind
		if g.class != "" {
			what += " (" + g.class + " value)"
		}
		rows = append(rows, []string{what, strconv.Itoa(len(g.all)), strconv.Itoa(g.over), ms(percentile(g.all, 50)),
			ms(g.slowest.p50) + " (" + g.slowest.name + ")"})
	}
	table(out, []string{"clicks", "count", "over " + ms(slow), "median", "slowest"}, rows)
	fmt.Fprintf(out, "\n%d of %d clicks over %s (target: none)\n", over, total, ms(slow))
	for _, c := range clicks {
		if c.p50 > slow {
			fmt.Fprintf(out, "  %s: %s\n", c.name, ms(c.p50))
		}
	}
}

// sampleColumns reads about 1% of the rows and keeps, per visible column,
// its values in order, the most frequent and one seen once.
func sampleColumns(ctx context.Context, pool *pgxpool.Pool, v *engine.View) (map[string]*columnSample, error) {
	out := map[string]*columnSample{}
	for _, c := range v.Columns {
		if c.Hidden {
			continue
		}
		expr := pgx.Identifier{c.Column}.Sanitize() + "::text"
		order := pgx.Identifier{c.Column}.Sanitize()
		switch c.Type {
		case "datetime":
			expr = "to_char(" + order + " at time zone 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"
		case "days": // the days from the date to today, as the column shows them
			order = "(current_date - " + order + ")"
			expr = order + "::text"
		}
		rows, err := pool.Query(ctx, fmt.Sprintf(`select %s from %s tablesample system (1) repeatable (7)
			where %s is not null and %s::text <> '' order by %s`, expr, pgx.Identifier{v.Source}.Sanitize(), order, order, order))
		if err != nil {
			return nil, fmt.Errorf("sample %s: %w", c.Field, err)
		}
		vals, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return nil, fmt.Errorf("sample %s: %w", c.Field, err)
		}
		s := &columnSample{values: vals}
		counts := map[string]int{}
		for _, x := range vals {
			counts[x]++
		}
		best := 0
		for _, x := range vals { // in order, so ties go to the smallest
			if counts[x] > best {
				s.mode, best = x, counts[x]
			}
		}
		for _, x := range vals[len(vals)/3:] {
			if counts[x] == 1 {
				s.single = x
				break
			}
		}
		out[c.Field] = s
	}
	return out, nil
}

// Values no row holds, per type: the rare value of a filter that finds nothing.
var absent = map[string]string{"text": "qzxjv", "int": "987654321", "decimal": "-987654.31", "date": "1999-01-01", "datetime": "1999-01-01T00:00:00Z",
	"days": "-9999"}

// sweepClicks lists the clicks the view offers, with values from the samples.
func sweepClicks(v *engine.View, samples map[string]*columnSample) []click {
	var out []click
	var sortable []*engine.Column
	for _, c := range v.Columns {
		if !c.Hidden && c.IsSortable() {
			sortable = append(sortable, c)
		}
	}
	base := func() engine.GridRequest { return engine.GridRequest{ViewName: v.Name, PageSize: 100} }
	for _, c := range sortable {
		for _, dir := range []string{"asc", "desc"} {
			r := base()
			r.SortField, r.SortOrder = c.Field, dir
			out = append(out, click{kind: "sort", name: "sort " + c.Field + " " + dir, req: r})
		}
	}
	next := 0
	for _, c := range v.Columns {
		s := samples[c.Field]
		if c.Hidden || s == nil {
			continue
		}
		conds := filterValues(c, s)
		for _, fc := range conds {
			r := base()
			r.Filters = []engine.Cond{fc.cond}
			out = append(out, click{kind: "filter", class: fc.class, name: fc.name, req: r})
		}
		// The first operator with a value, with a sort on another column.
		for _, fc := range conds {
			if fc.class == "" || len(sortable) < 2 {
				continue
			}
			other := sortable[next%len(sortable)]
			if other == c {
				next++
				other = sortable[next%len(sortable)]
			}
			r := base()
			r.Filters = []engine.Cond{fc.cond}
			r.SortField, r.SortOrder = other.Field, "desc"
			out = append(out, click{kind: "filter+sort", class: fc.class, name: fc.name + ", sort " + other.Field + " desc", req: r})
			if fc.class == "rare" {
				next++
				break
			}
		}
	}
	return out
}

type filterClick struct {
	class string
	name  string
	cond  engine.Cond
}

// filterValues gives each operator the column offers a common and a rare
// value (operators without a value once).
func filterValues(c *engine.Column, s *columnSample) []filterClick {
	var out []filterClick
	add := func(op, class string, value any) {
		name := fmt.Sprintf("%s %s", c.Field, op)
		if value != nil {
			name += fmt.Sprintf(" %v", value)
		}
		out = append(out, filterClick{class: class, name: name, cond: engine.Cond{Field: c.Field, Op: op, Value: value}})
	}
	n := len(s.values)
	if n == 0 {
		return nil
	}
	rare := s.single
	if rare == "" {
		rare = absent[c.Type]
	}
	if c.Type == "enum" { // the value seen least, or one none has
		rare = ""
		for _, x := range c.Values {
			if !slices.Contains(s.values, x) {
				rare = x
			}
		}
		if rare == "" {
			rare = s.values[0]
			for _, x := range c.Values {
				if count(s.values, x) < count(s.values, rare) {
					rare = x
				}
			}
		}
	}
	if c.Type == "datetime" {
		s.mode = s.mode[:10] // a day
	}
	for _, op := range c.Ops() {
		switch op {
		case engine.OpIsEmpty, engine.OpIsNotEmpty:
			add(op, "", nil)
		case engine.OpContains:
			add(op, "common", word(s.mode))
			add(op, "rare", absent["text"])
		case engine.OpStartsWith:
			add(op, "common", s.mode[:min(3, len(s.mode))])
			add(op, "rare", absent["text"])
		case engine.OpEndsWith:
			add(op, "common", s.mode[max(0, len(s.mode)-3):])
			add(op, "rare", absent["text"])
		case engine.OpEquals, engine.OpNotEquals:
			add(op, "common", s.mode)
			add(op, "rare", rare)
		case engine.OpIn:
			add(op, "common", []any{s.mode})
			add(op, "rare", []any{rare})
		case engine.OpLt, engine.OpLte:
			add(op, "common", s.values[n/2])
			add(op, "rare", s.values[0])
		case engine.OpGt, engine.OpGte:
			add(op, "common", s.values[n/2])
			add(op, "rare", s.values[n-1])
		case engine.OpBetween:
			add(op, "common", []any{s.values[n/4], s.values[3*n/4]})
			add(op, "rare", []any{rare, rare})
		}
	}
	return out
}

func count(vals []string, x string) int {
	n := 0
	for _, v := range vals {
		if v == x {
			n++
		}
	}
	return n
}

// word is the longest word of a value (a common term of a text column).
func word(s string) string {
	words := strings.Fields(s)
	sort.SliceStable(words, func(i, j int) bool { return len(words[i]) > len(words[j]) })
	if len(words) == 0 {
		return s
	}
	return words[0]
}
