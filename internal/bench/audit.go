package bench

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"ledgerdesk/engine"
	"ledgerdesk/server"
)

// AuditDatabase holds the audit benchmark's rows.
const AuditDatabase = "ledgerdesk_bench_audit"

// Audit measures what the hash chain of the audit trail (migration 00035)
// costs an inline edit: edits of the country grid through the engine,
// each writing its audit row, with the chain on and with its triggers off
// (the table as it was before the chain), in alternating rounds. The
// target: at most 5 % slower (issue: controls). An automatic run writes
// one audit row per run, sealed the same way.
func Audit(ctx context.Context, dbURL string, scfg server.Config, edits int, out io.Writer, md *engine.Metadata) error {
	pool, _, err := OpenNamed(ctx, dbURL, AuditDatabase, scfg, out)
	if err != nil {
		return err
	}
	defer pool.Close()
	if _, err := pool.Exec(ctx, `insert into country (country_code, country_name)
		select i::text, 'Country ' || i from generate_series(100, 299) i
		where not exists (select 1 from country where country_code = i::text)`); err != nil {
		return err
	}
	eng := engine.New(engine.Options{Pool: pool, Metadata: md, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	actor := &engine.Actor{UserID: 1, Username: "bench", Screens: map[int]bool{10: true}}
	ctx = engine.WithActor(ctx, actor)
	type row struct {
		id      int64
		version any
	}
	var rows []row
	r, err := pool.Query(ctx, `select id from country where country_code ~ '^[0-9]{3}$' order by id`)
	if err != nil {
		return err
	}
	for r.Next() {
		var x row
		if err := r.Scan(&x.id); err != nil {
			return err
		}
		rows = append(rows, x)
	}
	r.Close()
	for i := range rows {
		page, err := eng.Page(ctx, engine.GridRequest{ViewName: "VW_TblMasterCountry", PageSize: 1,
			Filters: []engine.Cond{{Field: "CountryID", Op: "equals", Value: fmt.Sprint(rows[i].id)}}})
		if err != nil {
			return err
		}
		rows[i].version = page.Rows()[0]["UpdatedOn"]
	}

	chain := func(on bool) error {
		verb := "disable"
		if on {
			verb = "enable"
		}
		_, err := pool.Exec(ctx, fmt.Sprintf(`alter table audit_log %[1]s trigger audit_log_sealed; alter table audit_log %[1]s trigger audit_log_append_only`, verb))
		return err
	}
	defer chain(true)
	n := 0
	round := func(count int) ([]time.Duration, error) {
		took := make([]time.Duration, 0, count)
		for i := 0; i < count; i++ {
			x := &rows[n%len(rows)]
			n++
			start := time.Now()
			saved, err := eng.UpdateRow(ctx, engine.RowEdit{ViewName: "VW_TblMasterCountry", Key: x.id, Version: x.version,
				Values: map[string]any{"CountryName": fmt.Sprintf("Country %d", n)}})
			if err != nil {
				return nil, err
			}
			took = append(took, time.Since(start))
			x.version = saved["UpdatedOn"]
		}
		return took, nil
	}
	var on, off []time.Duration
	const rounds = 6
	per := max(edits/rounds, 50)
	if _, err := round(per); err != nil { // warm-up
		return err
	}
	for i := 0; i < rounds; i++ {
		chained := i%2 == 1
		if err := chain(chained); err != nil {
			return err
		}
		took, err := round(per)
		if err != nil {
			return err
		}
		if chained {
			on = append(on, took...)
		} else {
			off = append(off, took...)
		}
	}
	if err := chain(true); err != nil {
		return err
	}
	if _, err := pool.Exec(ctx, `select audit_seal()`); err != nil { // the rows written with the chain off
		return err
	}
	fmt.Fprintf(out, "\ninline edits with their audit row (%d with the chain, %d without, in %d alternating rounds)\n\n", len(on), len(off), rounds)
	fmt.Fprintf(out, "| | p50 | p95 |\n|---|---|---|\n")
	fmt.Fprintf(out, "| hash chain off (floor) | %s | %s |\n", ms(percentile(off, 50)), ms(percentile(off, 95)))
	fmt.Fprintf(out, "| hash chain on | %s | %s |\n", ms(percentile(on, 50)), ms(percentile(on, 95)))
	fmt.Fprintf(out, "| ratio | %s | %s |\n\ntarget: at most 1.05x\n", ratio(percentile(on, 50), percentile(off, 50)), ratio(percentile(on, 95), percentile(off, 95)))
	return nil
}
