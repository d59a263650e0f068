package engine

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Every click a grid offers on a table of millions of rows must be answered
// by an index: a sort on an unindexed column sorts every row for one page,
// and a filter that finds little reads them all (DESIGN.md section 7). A
// view declared large: true therefore gets, from its metadata, the indexes
// its sorts and filters need; what it offers and what serves it are one
// definition. IndexNeeds derives them, IndexGaps compares them with the
// database, EnsureIndexes builds what is missing and `ledgerdesk check`
// reports what is still not served.

// LargeView is the row count from which a view not declared large is
// reported by IndexWarnings: below it a scan is cheap enough.
const LargeView = 100_000

// Index kinds a click needs.
const (
	// IndexBtree: a btree index leading with the column serves
	// comparisons, in, between and empty tests; on (column, key) it serves
	// the grid's sort in both directions. For text the column is lower(col):
	// text sorts, equality, in and empty tests ignore case.
	IndexBtree = "btree"
	// IndexTrigram: a trigram index (pg_trgm) on the column serves the
	// text patterns (contains, starts with, ends with).
	IndexTrigram = "trgm"
	// IndexNone: no index serves the click (not equals: the rows that
	// differ from a value cannot be looked up), so a large view cannot
	// offer it.
	IndexNone = "none"
)

// opIndex is the index kind that serves filter op on a column of type t.
func opIndex(t *FieldType, op string) string {
	switch {
	case op == OpNotEquals:
		return IndexNone
	case t.Caseless && slices.Contains([]string{OpContains, OpStartsWith, OpEndsWith}, op):
		return IndexTrigram
	}
	return IndexBtree
}

// IndexNeed is one index a large view's offered clicks need.
type IndexNeed struct {
	View, Field string
	Table       string
	Column      string
	// KeyColumn is the view's key: a sort by Column breaks ties by it, so
	// the btree that serves a sort is on (Column, KeyColumn).
	KeyColumn string
	Kind      string   // IndexBtree, IndexTrigram or IndexNone
	Clicks    []string // what needs it: sort, and filter operators
	Text      bool     // a text column: its btree is on lower(Column)
}

// expr is what a btree for the need is on: lower(column) for text.
func (n IndexNeed) expr() string {
	if n.Text {
		return "lower(" + n.Column + ")"
	}
	return n.Column
}

// Name is the name the engine gives the index it builds for the need.
func (n IndexNeed) Name() string {
	name := n.Table + "_" + n.Column + "_grid"
	if n.Kind == IndexTrigram {
		name += "_trgm"
	}
	if len(name) > 63 { // PostgreSQL's limit: shorten, keeping it unique
		h := fnv.New32a()
		h.Write([]byte(name))
		name = fmt.Sprintf("%s_%08x", name[:54], h.Sum32())
	}
	return name
}

// createSQL is the statement that builds the index without blocking writes.
func (n IndexNeed) createSQL() string {
	col := pgx.Identifier{n.Column}.Sanitize()
	lead := col
	if n.Text {
		lead = "lower(" + col + ")"
	}
	using := "btree (" + lead + ", " + pgx.Identifier{n.KeyColumn}.Sanitize() + ")"
	if n.Kind == IndexTrigram {
		using = "gin (" + col + " gin_trgm_ops)"
	}
	return fmt.Sprintf("create index concurrently %s on %s using %s",
		pgx.Identifier{n.Name()}.Sanitize(), pgx.Identifier{n.Table}.Sanitize(), using)
}

// IndexNeeds lists, for a large view, the index each visible column's
// offered sort and filters need (one need per column and kind). The key
// and hidden columns are left out: the grid shows no control for them.
func (v *View) IndexNeeds() []IndexNeed {
	if !v.Large {
		return nil
	}
	var out []IndexNeed
	key := v.column(v.Key).Column
	for _, c := range v.Columns {
		if c.Hidden {
			continue
		}
		byKind := map[string][]string{}
		if c.IsSortable() {
			byKind[IndexBtree] = append(byKind[IndexBtree], "sort")
		}
		for _, op := range c.Ops() {
			k := opIndex(c.typ(), op)
			byKind[k] = append(byKind[k], op)
		}
		for _, k := range []string{IndexBtree, IndexTrigram, IndexNone} {
			if clicks := byKind[k]; len(clicks) > 0 {
				out = append(out, IndexNeed{View: v.Name, Field: c.Field, Table: v.Source, Column: c.Column, KeyColumn: key, Kind: k, Clicks: clicks, Text: c.typ().Caseless})
			}
		}
	}
	return out
}

// tableIndexes are the valid indexes of a table, as what they serve.
type tableIndexes struct {
	isTable bool
	// btree: a btree leading with the column (no predicate) finds its rows.
	btree map[string]bool
	// ordered[col][key]: a btree on (col, key), both ascending or both
	// descending, reads the rows in a sort by col with key breaking ties,
	// as the grid sorts, in both directions.
	ordered map[string]map[string]bool
	// trgm: a trigram index on the column (no predicate, or only "col IS
	// NOT NULL", which every pattern implies).
	trgm map[string]bool
	// notNull: a btree leading with the column over its non-empty rows
	// only, which serves "is not empty" alone.
	notNull map[string]bool
}

func readIndexes(ctx context.Context, q *pgxpool.Pool, table string) (*tableIndexes, error) {
	ti := &tableIndexes{btree: map[string]bool{}, ordered: map[string]map[string]bool{}, trgm: map[string]bool{}, notNull: map[string]bool{}}
	err := q.QueryRow(ctx, `select coalesce((select relkind in ('r', 'p') from pg_class
		where oid = to_regclass(current_schema() || '.' || $1)), false)`, table).Scan(&ti.isTable)
	if err != nil || !ti.isTable {
		return ti, err
	}
	// One row per index key: its definition (a column or an expression such
	// as lower(col)), position, operator class and whether it is descending
	// (bit 0 of indoption).
	rows, err := q.Query(ctx, `
		select i.indexrelid::oid, pg_get_indexdef(i.indexrelid, k.pos::int, true), am.amname,
		       coalesce(opc.opcname, ''), k.pos::int, (i.indoption[k.pos - 1] & 1) = 1,
		       coalesce(pg_get_expr(i.indpred, i.indrelid), '')
		from pg_index i
		join pg_class ic on ic.oid = i.indexrelid
		join pg_am am on am.oid = ic.relam
		cross join lateral generate_series(1, i.indnkeyatts) k(pos)
		left join pg_opclass opc on opc.oid = i.indclass[k.pos - 1]
		where i.indrelid = to_regclass(current_schema() || '.' || $1)
		  and i.indisvalid and i.indisready
		order by 1, 5`, table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	type key struct {
		def  string
		desc bool
	}
	first := map[uint32]key{}
	for rows.Next() {
		var oid uint32
		var def, method, opclass, pred string
		var pos int
		var desc bool
		if err := rows.Scan(&oid, &def, &method, &opclass, &pos, &desc, &pred); err != nil {
			return nil, err
		}
		// "currency gin_trgm_ops" -> currency; names need no quotes here.
		def, _, _ = strings.Cut(strings.ReplaceAll(def, `"`, ""), " ")
		pred = strings.ReplaceAll(pred, `"`, "")
		switch {
		case method == "btree" && pos == 1 && pred == "":
			ti.btree[def] = true
			first[oid] = key{def, desc}
		case method == "btree" && pos == 2 && pred == "":
			if f, ok := first[oid]; ok && f.desc == desc {
				if ti.ordered[f.def] == nil {
					ti.ordered[f.def] = map[string]bool{}
				}
				ti.ordered[f.def][def] = true
			}
		case method == "btree" && pos == 1 && pred == "("+def+" IS NOT NULL)":
			ti.notNull[def] = true
		case (method == "gin" && opclass == "gin_trgm_ops" || method == "gist" && opclass == "gist_trgm_ops") &&
			(pred == "" || pred == "("+def+" IS NOT NULL)"):
			ti.trgm[def] = true
		}
	}
	return ti, rows.Err()
}

// serves reports whether the table's indexes serve the need.
func (ti *tableIndexes) serves(n IndexNeed) bool {
	switch n.Kind {
	case IndexTrigram:
		return ti.trgm[n.Column]
	case IndexBtree:
		if slices.Contains(n.Clicks, "sort") {
			return ti.ordered[n.expr()][n.KeyColumn]
		}
		// "Is not empty" alone is also served by a partial index over the
		// column's non-empty rows (lower() of an empty value is empty too).
		return ti.btree[n.expr()] || slices.Equal(n.Clicks, []string{OpIsNotEmpty}) && ti.notNull[n.Column]
	}
	return false
}

// IndexGap is a need no index of the database serves yet.
type IndexGap struct {
	IndexNeed
	// Buildable: EnsureIndexes can build it (false for IndexNone, and for a
	// source that is not a table).
	Buildable bool
}

func (g IndexGap) String() string {
	clicks := strings.Join(g.Clicks, ", ")
	switch {
	case g.Kind == IndexNone:
		return fmt.Sprintf("views.yaml: %s: column %s offers %s, which no index can serve on a large view: leave it out of the column's filters",
			g.View, g.Field, clicks)
	case !g.Buildable:
		return fmt.Sprintf("views.yaml: %s: large, but its source %s is not a table: its column %s (%s) cannot get an index",
			g.View, g.Table, g.Field, clicks)
	}
	on := g.Column
	if g.Kind == IndexBtree {
		on = g.expr() + ", " + g.KeyColumn
	}
	return fmt.Sprintf("views.yaml: %s: column %s offers %s, which need a %s index on %s(%s): none is there yet (serve and migrate build it as %s)",
		g.View, g.Field, clicks, g.Kind, g.Table, on, g.Name())
}

// IndexGaps lists the needs of every large view that no index serves.
func IndexGaps(ctx context.Context, pool *pgxpool.Pool, md *Metadata) ([]IndexGap, error) {
	tables := map[string]*tableIndexes{}
	var out []IndexGap
	for _, name := range sortedKeys(md.Views) {
		for _, n := range md.Views[name].IndexNeeds() {
			ti := tables[n.Table]
			if ti == nil {
				var err error
				if ti, err = readIndexes(ctx, pool, n.Table); err != nil {
					return nil, fmt.Errorf("indexes of %s: %w", n.Table, err)
				}
				tables[n.Table] = ti
			}
			switch {
			case n.Kind == IndexNone || !ti.isTable:
				out = append(out, IndexGap{IndexNeed: n})
			case !ti.serves(n):
				out = append(out, IndexGap{IndexNeed: n, Buildable: true})
			}
		}
	}
	return out, nil
}

// indexBuildLock is the advisory lock one node holds while it builds the
// grid indexes: two servers starting together do not build them twice.
const indexBuildLock = 0x6c64_6978 // "ldix"

// EnsureIndexes builds the indexes the large views need and lack, and the
// most demanded ones made on demand (demand.go), one at a time and
// concurrently (writes go on meanwhile), each recorded in grid_index with
// its state and time, and drops those it built that nothing needs any more. Serve runs it in the background at
// start and after a metadata reload; migrate runs it to the end. When
// another node holds the build it returns at once.
func EnsureIndexes(ctx context.Context, pool *pgxpool.Pool, md *Metadata, log *slog.Logger) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	var locked bool
	if err := conn.QueryRow(ctx, `select pg_try_advisory_lock($1)`, indexBuildLock).Scan(&locked); err != nil || !locked {
		return err
	}
	defer conn.Exec(context.WithoutCancel(ctx), `select pg_advisory_unlock($1)`, indexBuildLock)
	gaps, err := IndexGaps(ctx, pool, md)
	if err != nil {
		return err
	}
	// An index build is bounded by nothing but its size.
	if _, err := conn.Exec(ctx, `set statement_timeout = 0`); err != nil {
		return err
	}
	defer conn.Exec(context.WithoutCancel(ctx), `reset statement_timeout`)
	var failed []error
	demands, err := keptDemands(ctx, conn.Conn(), md)
	if err != nil {
		return err
	}
	if err := dropUnneeded(ctx, conn.Conn(), md, demands, log); err != nil {
		failed = append(failed, err)
	}
	built, tables := map[string]bool{}, map[string]bool{}
	for _, g := range gaps {
		if !g.Buildable || built[g.Name()] {
			continue
		}
		built[g.Name()] = true
		if err := buildIndex(ctx, conn.Conn(), g.IndexNeed, log); err != nil {
			failed = append(failed, err)
		} else {
			tables[g.Table] = true
		}
	}
	for _, d := range demands {
		if err := buildDemand(ctx, conn.Conn(), d, log); err != nil {
			failed = append(failed, err)
		}
	}
	// An index on lower(column) has no statistics until the table is next
	// analyzed: the planner would take every value for rare (0.5 % of the
	// rows), count a value held by a third of them and sort its rows for
	// one page instead of walking the sort's index.
	for table := range tables {
		if _, err := conn.Exec(ctx, "analyze "+pgx.Identifier{table}.Sanitize()); err != nil {
			failed = append(failed, fmt.Errorf("analyze %s after building its grid indexes: %w", table, err))
		}
	}
	return errors.Join(failed...)
}

// dropUnneeded drops the indexes the engine built (those in grid_index)
// that no large view needs any more and that are not among the demanded
// ones kept: a click no longer offered should not slow every write to its
// table. Indexes of the schema are never touched.
func dropUnneeded(ctx context.Context, conn *pgx.Conn, md *Metadata, demands []demandIndex, log *slog.Logger) error {
	needed := map[string]bool{}
	for _, v := range md.Views {
		for _, n := range v.IndexNeeds() {
			needed[n.Name()] = true
		}
	}
	for _, d := range demands {
		needed[d.name] = true
	}
	rows, err := conn.Query(ctx, `select name from grid_index`)
	if err != nil {
		return err
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	for _, name := range names {
		if needed[name] {
			continue
		}
		if _, err := conn.Exec(ctx, "drop index concurrently if exists "+pgx.Identifier{name}.Sanitize()); err != nil {
			return fmt.Errorf("index %s, no longer needed: %w", name, err)
		}
		if _, err := conn.Exec(ctx, `delete from grid_index where name = $1`, name); err != nil {
			return err
		}
		log.Info("grid index dropped: no large view offers what it served", "index", name)
	}
	return nil
}

func buildIndex(ctx context.Context, conn *pgx.Conn, n IndexNeed, log *slog.Logger) error {
	on := n.Column
	if n.Kind == IndexBtree {
		on = n.expr() + ", " + n.KeyColumn
	}
	return recordBuild(ctx, conn, n.Name(), n.Table, on, n.Kind, n.View+"."+n.Field+": "+strings.Join(n.Clicks, ", "), n.createSQL(), log)
}

// recordBuild builds an index with create (a create index concurrently),
// recorded in grid_index with its state and time. An index of the name
// that does not serve (left invalid by an interrupted build, or of an
// earlier definition) goes first.
func recordBuild(ctx context.Context, conn *pgx.Conn, name, table, columns, kind, needed, create string, log *slog.Logger) error {
	if _, err := conn.Exec(ctx, "drop index concurrently if exists "+pgx.Identifier{name}.Sanitize()); err != nil {
		return fmt.Errorf("index %s: drop the one that does not serve: %w", name, err)
	}
	if _, err := conn.Exec(ctx, `insert into grid_index (name, table_name, column_name, kind, needed_by, state, started_on)
		values ($1, $2, $3, $4, $5, 'building', now())
		on conflict (name) do update set column_name = excluded.column_name, kind = excluded.kind, needed_by = excluded.needed_by,
			state = 'building', started_on = now(), finished_on = null, error = null`,
		name, table, columns, kind, needed); err != nil {
		return fmt.Errorf("index %s: %w", name, err)
	}
	log.Info("building a grid index", "index", name, "for", needed)
	start := time.Now()
	_, err := conn.Exec(ctx, create)
	state, msg := "ready", ""
	if err != nil {
		state, msg = "failed", TranslatePG(err).Error()
		log.Error("grid index not built", "index", name, "err", err)
	} else {
		log.Info("grid index built", "index", name, "seconds", time.Since(start).Seconds())
	}
	if _, uerr := conn.Exec(context.WithoutCancel(ctx), `update grid_index set state = $2, finished_on = now(),
		seconds = $3, error = nullif($4, '') where name = $1`, name, state, time.Since(start).Seconds(), msg); uerr != nil && err == nil {
		err = uerr
	}
	if err != nil {
		return fmt.Errorf("index %s: %w", name, err)
	}
	return nil
}

// IndexWarnings lists the views not declared large whose table has grown
// past LargeView rows: their clicks have no index derived for them.
func IndexWarnings(ctx context.Context, pool *pgxpool.Pool, md *Metadata) ([]string, error) {
	var out []string
	for _, name := range sortedKeys(md.Views) {
		v := md.Views[name]
		if v.Large || len(v.Params) > 0 {
			continue
		}
		var rows float64
		var isTable bool
		err := pool.QueryRow(ctx, `select c.reltuples, c.relkind in ('r', 'p') from pg_class c
			where c.oid = to_regclass(current_schema() || '.' || $1)`, v.Source).Scan(&rows, &isTable)
		if err != nil || !isTable || rows < LargeView {
			continue
		}
		out = append(out, fmt.Sprintf("views.yaml: %s: %s has about %.0f rows, but the view is not declared large: true, so its sorts and filters get no indexes",
			name, v.Source, rows))
	}
	sort.Strings(out)
	return out, nil
}
