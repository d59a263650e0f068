package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"ledgerdesk/engine"
	"ledgerdesk/internal/pgtest"
)

// planNode is the part of an EXPLAIN (FORMAT JSON) node the checks read.
type planNode struct {
	Type      string     `json:"Node Type"`
	Index     string     `json:"Index Name"`
	IndexCond string     `json:"Index Cond"`
	Plans     []planNode `json:"Plans"`
}

// String is the plan in one line: each node with its index and condition.
func (n planNode) String() string {
	var parts []string
	n.walk(func(n planNode) {
		p := n.Type
		if n.Index != "" {
			p += " " + n.Index
		}
		if n.IndexCond != "" {
			p += " [" + n.IndexCond + "]"
		}
		parts = append(parts, p)
	})
	return strings.Join(parts, " > ")
}

func (n planNode) walk(fn func(planNode)) {
	fn(n)
	for _, c := range n.Plans {
		c.walk(fn)
	}
}

// Every sort and filter a large view offers is served by an index, checked
// in the plans PostgreSQL makes for the grid's own statements with what
// reads everything priced out (PostgreSQL still uses it when nothing else
// can answer, so its presence shows the gap):
//   - a sort's page, with table scans and sorts off, has no Sort node: an
//     index gives the order, ties broken by the key as the grid sorts;
//   - a filter's rows, with table scans and whole-index walks off, are found
//     by a bitmap scan of an index of its column with a condition on it (or
//     a partial index over the column's non-empty rows).
//
// The clicks are the benchmark sweep's, so what is measured is what is
// checked; the indexes are those the server builds from views.yaml.
func TestEveryOfferedClickIsServed(t *testing.T) {
	pool := pgtest.New(t)
	ctx := context.Background()
	md, err := engine.LoadMetadata(os.DirFS("../.."))
	if err != nil {
		t.Fatal(err)
	}
	if err := engine.Validate(ctx, pool, md); err != nil {
		t.Fatal(err)
	}
	if err := seedFullBank(ctx, pool, 20_000, io.Discard); err != nil {
		t.Fatal(err)
	}
	if err := engine.EnsureIndexes(ctx, pool, md, slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		t.Fatal(err)
	}
	gaps, err := engine.IndexGaps(ctx, pool, md)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range gaps {
		t.Errorf("not served: %s", g)
	}
	// Which column each index of bank_booking is on (its first key, a
	// column or lower() of one), and whether it is partial.
	onColumn, partial := map[string]string{}, map[string]bool{}
	rows, err := pool.Query(ctx, `select c.relname,
		    regexp_replace(split_part(pg_get_indexdef(i.indexrelid, 1, true), ' ', 1), '^lower\((.*)\)$', '\1'),
		    i.indpred is not null
		from pg_index i join pg_class c on c.oid = i.indexrelid
		where i.indrelid = 'bank_booking'::regclass`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var name, col string
		var part bool
		rows.Scan(&name, &col, &part)
		onColumn[name], partial[name] = col, part
	}
	rows.Close()

	actor := engine.WithActor(ctx, &engine.Actor{Username: "tester", Screens: map[int]bool{7: true}})
	eng := engine.New(engine.Options{Pool: pool, Metadata: md})
	view := md.Views["VW_BankFinal"]
	samples, err := sampleColumns(ctx, pool, view)
	if err != nil {
		t.Fatal(err)
	}
	explain := func(sql string, args []any, off ...string) planNode {
		t.Helper()
		var plan []struct {
			Plan planNode `json:"Plan"`
		}
		err := pgx.BeginTxFunc(ctx, pool, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
			for _, set := range off {
				if _, err := tx.Exec(ctx, "select set_config($1, 'off', true)", set); err != nil {
					return err
				}
			}
			if _, err := tx.Exec(ctx, "select set_config('plan_cache_mode', 'force_custom_plan', true)"); err != nil {
				return err
			}
			var raw []byte
			if err := tx.QueryRow(ctx, "explain (format json) "+sql, args...).Scan(&raw); err != nil {
				return err
			}
			return json.Unmarshal(raw, &plan)
		})
		if err != nil || len(plan) != 1 {
			t.Fatalf("explain %s: %v", sql, err)
		}
		return plan[0].Plan
	}
	clicks := sweepClicks(view, samples)
	checked := map[string]int{}
	for _, c := range clicks {
		if c.kind == "filter+sort" {
			continue // both halves are checked alone
		}
		g, err := eng.SQL(actor, c.req)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		checked[c.kind]++
		if c.kind == "sort" {
			plan := explain(g.Page, g.PageArgs, "enable_seqscan", "enable_sort", "enable_incremental_sort")
			plan.walk(func(n planNode) {
				if strings.Contains(n.Type, "Sort") {
					t.Errorf("%s: the page is sorted, not read in an index's order: %s", c.name, plan)
				}
			})
			continue
		}
		col := view.Columns[0]
		for _, vc := range view.Columns {
			if vc.Field == c.req.Filters[0].Field {
				col = vc
			}
		}
		served := false
		plan := explain(g.Match, g.MatchArgs, "enable_seqscan", "enable_indexscan", "enable_indexonlyscan")
		plan.walk(func(n planNode) {
			if onColumn[n.Index] == col.Column && (strings.Contains(n.IndexCond, col.Column) || partial[n.Index]) {
				served = true
			}
		})
		if !served {
			t.Errorf("%s: no index on %s finds the rows: %s", c.name, col.Column, plan)
		}
	}
	if checked["sort"] < 20 || checked["filter"] < 100 {
		t.Errorf("checked %v: the sweep lost its clicks", checked)
	}
}

// The sweep runs end to end at a small scale, so it cannot rot between the
// runs that measure (no figure is asserted).
func TestClicksBenchRuns(t *testing.T) {
	database, md, cfg := smallRun(t)
	var out bytes.Buffer
	err := Clicks(context.Background(), pgtest.AdminURL(), cfg, ClicksOptions{Rows: 3000, Calls: 1, View: "VW_BankFinal",
		Database: database, Slow: 100_000_000, Isolation: 200_000_000}, &out, md)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	outputHas(t, out.String(), "every click of VW_BankFinal over 3000 rows", "| sort ", "| filter (rare value) ", "| filter+sort (common value) ",
		"clicks over 100.0 ms", "beside 2 heavy clients, with lanes")
	if strings.Contains(out.String(), "not served:") {
		t.Errorf("a click is not served:\n%s", out.String())
	}
}
