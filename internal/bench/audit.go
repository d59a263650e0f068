package bench

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"ledgerdesk/engine"
	"ledgerdesk/server"
)

// AuditDatabase holds the audit benchmark's rows.
const AuditDatabase = "ledgerdesk_bench_audit"

// Audit measures what the hash chain of the audit trail (migration 00035)
// costs an inline edit: edits of the country grid through the engine,
// each writing its audit row, with the chain (its guard, its indexes and
// the sealer running beside) and without (the table as it was before), in
// alternating rounds. The target: at most 5 % slower (issue: controls). A
// manual match writes one audit row the same way, and an automatic run one
// per run.
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

	// The floor: audit_log as it was before the chain (no guard, none of the
	// chain's or the audit screen's indexes); on: as migrated, with the
	// server's sealer running beside the edits.
	chainIndexes := map[string]string{
		"audit_log_unsealed_idx":     `create index audit_log_unsealed_idx on audit_log (id) where seq is null`,
		"audit_log_actor_idx":        `create index audit_log_actor_idx on audit_log (lower(actor), at)`,
		"audit_log_action_idx":       `create index audit_log_action_idx on audit_log (lower(action), at)`,
		"audit_log_entity_lower_idx": `create index audit_log_entity_lower_idx on audit_log (lower(entity), at)`,
	}
	chain := func(on bool) error {
		verb := "disable"
		if on {
			verb = "enable"
		}
		if _, err := pool.Exec(ctx, `alter table audit_log `+verb+` trigger audit_log_append_only`); err != nil {
			return err
		}
		for name, create := range chainIndexes {
			sql := `drop index if exists ` + name
			if on {
				sql = strings.Replace(create, "create index", "create index if not exists", 1)
			}
			if _, err := pool.Exec(ctx, sql); err != nil {
				return err
			}
		}
		return nil
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
		sealing, stop := context.WithCancel(ctx)
		sealed := make(chan struct{})
		go func() {
			defer close(sealed)
			if chained {
				engine.KeepAuditSealed(sealing, pool, slog.New(slog.NewTextHandler(io.Discard, nil)))
			}
		}()
		took, err := round(per)
		stop()
		<-sealed
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
	f := Figure{Bench: "audit", Case: "inline edit with its audit row, hash chain on", Count: len(on), P50: percentile(on, 50), P95: percentile(on, 95),
		FloorRatio: ratioOf(percentile(on, 50), percentile(off, 50)), Floor: "the same edits with the chain off (p50)",
		Target: "<= 1.05x chain off", Note: "p95 " + ratio(percentile(on, 95), percentile(off, 95)) + " the chain off"}
	f.Met = atMost(f.FloorRatio, 1.05)
	record(ctx, f)
	return nil
}
