package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/doug-martin/goqu/v9"
	_ "github.com/doug-martin/goqu/v9/dialect/postgres" // registers the dialect
	"github.com/doug-martin/goqu/v9/exp"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Grid limits.
const (
	MaxPageSize     = 500
	DefaultPageSize = 100
	// CountCap is how far totals are counted exactly: an exact count of a
	// broad filter over millions of rows costs more than the page itself, so
	// past it the answer says "at least CountCap" (the UI shows 10,000+).
	CountCap            = 10_000
	DefaultQueryTimeout = 10 * time.Second
	// estimateOver: past this many times CountCap in the planner's estimate,
	// the total is reported as capped without counting.
	estimateOver = 5
)

var dialect = goqu.Dialect("postgres")

// Engine serves grids, edits, CRUD and exports from the current metadata.
// The metadata can be swapped at run time (reload); each call uses the set
// that was current when it began.
type Engine struct {
	pool    *pgxpool.Pool
	read    *pgxpool.Pool // replica for reads, or pool
	md      atomic.Pointer[Metadata]
	timeout time.Duration
	log     *slog.Logger
	now     func() time.Time
	// messages renders message columns in the caller's language (nil: stored texts).
	messages Messages
	// texts are the UI's own texts by key, which a metadata label may nest
	// ($t(key)); nil: none.
	texts    Messages
	lanes    *Lanes // nil: no quick and heavy lanes
	noDemand bool
	// building, buildAgain: indexes made on demand are being built, and
	// were asked for again meanwhile (buildIndexesSoon).
	building, buildAgain atomic.Bool
	// approvals are asked by the edits of views and forms that name a
	// four-eyes rule (approval:); nil: none.
	approvals Approvals
	// replayed is the read replica's replay position last asked (an LSN;
	// see reader).
	replayed atomic.Uint64
}

// Options configure an Engine.
type Options struct {
	Pool         *pgxpool.Pool
	ReadPool     *pgxpool.Pool // optional
	Metadata     *Metadata
	QueryTimeout time.Duration
	Log          *slog.Logger
	Now          func() time.Time
	// Messages are the UI's server-message texts: with them, filters and
	// exports of a message column use the text in the caller's language.
	Messages Messages
	// Texts are the UI's own texts by dotted key (a label may nest one as
	// $t(key)): with them an export writes enum and badge values as the
	// grid shows them.
	Texts Messages
	// Lanes keep heavy grid reads from starving quick ones (nil: none).
	Lanes *Lanes
	// NoDemand: slow reads make no indexes on demand (benchmarks measuring
	// the indexes of the metadata alone).
	NoDemand bool
}

// New returns an engine over validated metadata.
func New(o Options) *Engine {
	e := &Engine{pool: o.Pool, read: o.ReadPool, timeout: o.QueryTimeout, log: o.Log, now: o.Now, messages: o.Messages, texts: o.Texts, lanes: o.Lanes, noDemand: o.NoDemand}
	if e.read == nil {
		e.read = o.Pool
	}
	if e.timeout == 0 {
		e.timeout = DefaultQueryTimeout
	}
	if e.now == nil {
		e.now = time.Now
	}
	if e.log == nil {
		e.log = slog.Default()
	}
	e.md.Store(o.Metadata)
	return e
}

// Metadata is the current metadata.
func (e *Engine) Metadata() *Metadata { return e.md.Load() }

// SetMetadata swaps in new, already validated metadata.
func (e *Engine) SetMetadata(md *Metadata) { e.md.Store(md) }

// GridRequest is the spec's paged-grid request. JSON names match the spec
// (ViewName, PageSize, ...); PageNumber is a row offset, as the spec says.
type GridRequest struct {
	ViewName            string `json:"ViewName"`
	StoredProcedureName string `json:"StoredProcedureName"` // accepted and ignored: the engine is the procedure
	PageSize            int    `json:"PageSize"`
	PageNumber          int    `json:"PageNumber"`
	Filter              string `json:"Filter"`
	Filters             []Cond `json:"Filters"`
	SortField           string `json:"SortField"`
	SortOrder           string `json:"SortOrder"`
	ExactCount          bool   `json:"ExactCount"` // count past CountCap
	// Params are the values of a report view's declared parameters, by name.
	Params map[string]any `json:"Params"`
}

// GridPage is one page of rows with the total. It is encoded as
// {dataList, totalCount, totalCapped}, each row an object in column order.
type GridPage struct {
	TotalCount int64
	// TotalCapped: the total is at least TotalCount (counting stopped at CountCap).
	TotalCapped bool
	rows        int    // rows on the page
	data        []byte // the rows as comma-separated JSON objects
}

// Rows returns the page's rows as maps keyed by field (numbers as int64
// when whole, else float64), for callers that want values, not JSON.
func (p *GridPage) Rows() []map[string]any {
	var rows []map[string]any
	d := json.NewDecoder(bytes.NewReader(append(append([]byte{'['}, p.data...), ']')))
	d.UseNumber()
	if err := d.Decode(&rows); err != nil {
		panic(fmt.Sprintf("grid page JSON: %v", err)) // the engine wrote it
	}
	for _, r := range rows {
		for k, v := range r {
			if n, ok := v.(json.Number); ok {
				if i, err := n.Int64(); err == nil {
					r[k] = i
				} else {
					r[k], _ = n.Float64()
				}
			}
		}
	}
	return rows
}

// MarshalJSON writes the page around the rows' JSON, made as they were read.
func (p *GridPage) MarshalJSON() ([]byte, error) {
	return p.AppendJSON(make([]byte, 0, len(p.data)+64)), nil
}

// AppendJSON appends the page's JSON to buf.
func (p *GridPage) AppendJSON(buf []byte) []byte {
	buf = append(buf, `{"dataList":[`...)
	buf = append(buf, p.data...)
	buf = append(buf, `],"totalCount":`...)
	buf = strconv.AppendInt(buf, p.TotalCount, 10)
	buf = append(buf, `,"totalCapped":`...)
	buf = strconv.AppendBool(buf, p.TotalCapped)
	return append(buf, '}')
}

// JSONSize is about the length of the page's JSON.
func (p *GridPage) JSONSize() int { return len(p.data) + 64 }

// View returns the view named name if the actor may open it.
func (e *Engine) View(ctx context.Context, name string) (*View, error) {
	v := e.Metadata().Views[name]
	if v == nil {
		return nil, Invalid("ViewName", "Unknown view %q.", name).With("grid.unknownView", "view", name)
	}
	if !ActorFrom(ctx).Can(v.Screen) {
		return nil, Forbidden("You do not have permission for the view %s.", name).With("grid.forbidden", "view", name)
	}
	return v, nil
}

// query is a grid request resolved against its view: the SQL pieces every
// read of the grid (page, count, export) shares.
type query struct {
	view  *View
	from  exp.Expression // the source, or a report's function call
	where exp.Expression
	order []exp.OrderedExpression
}

func (e *Engine) resolve(ctx context.Context, r *GridRequest) (*query, error) {
	v, err := e.View(ctx, r.ViewName)
	if err != nil {
		return nil, err
	}
	w := Where{}
	if strings.TrimSpace(r.Filter) != "" {
		if w, err = ParseFilterText(r.Filter); err != nil {
			return nil, err
		}
	}
	if len(r.Filters) > 0 {
		if len(w) == 0 {
			w = Where{nil}
		}
		for i := range w { // structured filters apply to every OR group
			w[i] = append(w[i], r.Filters...)
		}
	}
	if n := len(r.Filters); n > 50 {
		return nil, Invalid("Filters", "At most 50 filters, got %d.", n).With("grid.tooManyFilters", "count", n)
	}
	where, err := v.whereExpr(w, e.messageTexts(ctx))
	if err != nil {
		return nil, err
	}
	order, err := v.orderBy(r.SortField, r.SortOrder)
	if err != nil {
		return nil, err
	}
	args, err := v.paramArgs(r.Params)
	if err != nil {
		return nil, err
	}
	return &query{view: v, from: v.from(args), where: where, order: order}, nil
}

// orderBy validates the sort and appends the key so pages are stable.
func (v *View) orderBy(field, order string) ([]exp.OrderedExpression, error) {
	sortCol := v.column(v.DefaultSort.Field)
	desc := strings.EqualFold(v.DefaultSort.Order, "desc")
	if field != "" {
		sortCol = v.column(field)
		if sortCol == nil || !sortCol.IsSortable() {
			return nil, Invalid("SortField", "SortField %q is not a sortable column of %s.", field, v.Name).With("grid.sortField", "field", field)
		}
		switch strings.ToLower(strings.TrimSpace(order)) {
		case "", "asc", "ascending", "1":
			desc = false
		case "desc", "descending", "-1":
			desc = true
		default:
			return nil, Invalid("SortOrder", "SortOrder must be asc or desc, got %q.", order).With("grid.sortOrder", "order", order)
		}
	}
	key := v.column(v.Key)
	var out []exp.OrderedExpression
	// PostgreSQL's own null placement (last ascending, first descending):
	// an explicit NULLS clause would stop plain indexes from serving the sort.
	dir := func(c *Column) exp.OrderedExpression {
		return orderExpr(c, desc)
	}
	if sortCol != nil {
		out = append(out, dir(sortCol))
		if _, reversed := sortCol.sortExpr(); reversed { // (days) the date's sort, reversed: its index serves it with the key reversed too
			desc = !desc
		}
	}
	if sortCol == nil || sortCol != key {
		out = append(out, dir(key))
	}
	return out, nil
}

// orderExpr is the sort by column c, as its type sorts (text ignoring case,
// "anna" beside "Anna", as equality ignores case; days by its date,
// reversed). A btree on the same expression with the key after it serves it
// (IndexNeeds).
func orderExpr(c *Column, desc bool) exp.OrderedExpression {
	e, reversed := c.sortExpr()
	if desc != reversed {
		return e.Desc()
	}
	return e.Asc()
}

// sortExpr is what a sort on the column orders by, and whether that runs
// the other way.
func (c *Column) sortExpr() (exp.Orderable, bool) {
	if t := c.typ(); t.sort != nil {
		return t.sort(c)
	}
	return goqu.I(c.Column), false
}

// selectExpr is what a page reads for the column: the column, or what its
// type reads (days: the days from it to today).
func (c *Column) selectExpr() exp.Aliaseable {
	if t := c.typ(); t.read != nil {
		return t.read(c)
	}
	return goqu.I(c.Column)
}

// IsSortable reports whether the grid may sort by the column (default: yes).
func (c *Column) IsSortable() bool { return c.Sortable == nil || *c.Sortable }

// Ops are the filter operators the grid offers on the column: its filters,
// or every operator of its type when it declares none.
func (c *Column) Ops() []string {
	if c.Filters != nil {
		return *c.Filters
	}
	if t := Types[c.Type]; t != nil {
		return t.Ops
	}
	return nil
}

func (q *query) dataset() *goqu.SelectDataset {
	cols := make([]any, len(q.view.Columns))
	for i, c := range q.view.Columns {
		cols[i] = c.selectExpr().As(c.Field)
	}
	ds := dialect.From(q.from).Prepared(true).Select(cols...)
	if q.where != nil {
		ds = ds.Where(q.where)
	}
	return ds.Order(q.order...)
}

// GridSQL is the SQL a grid request runs: the page and the (capped) count.
// Benchmarks run it alone to compare the API with the database.
type GridSQL struct {
	Page, Count         string
	PageArgs, CountArgs []any
	// Match selects the matching rows without paging (for the planner's estimate).
	Match     string
	MatchArgs []any
	query     *query
	request   GridRequest
}

// SQL validates a grid request and returns the statements it runs.
func (e *Engine) SQL(ctx context.Context, r GridRequest) (*GridSQL, error) {
	g, err := e.pageSQL(ctx, r)
	if err != nil {
		return nil, err
	}
	return g, g.countSQL()
}

// pageSQL validates a grid request and builds its page statement; the count
// statements (countSQL) are built only for a page that needs them.
func (e *Engine) pageSQL(ctx context.Context, r GridRequest) (*GridSQL, error) {
	q, err := e.resolve(ctx, &r)
	if err != nil {
		return nil, err
	}
	if r.PageSize == 0 {
		r.PageSize = DefaultPageSize
	}
	if r.PageSize < 1 || r.PageSize > MaxPageSize {
		return nil, Invalid("PageSize", "PageSize must be from 1 to %d, got %d.", MaxPageSize, r.PageSize).With("grid.pageSize", "max", MaxPageSize)
	}
	if r.PageNumber < 0 {
		return nil, Invalid("PageNumber", "PageNumber is a row offset and cannot be negative.").With("grid.pageNumber")
	}
	g := &GridSQL{query: q, request: r}
	if g.Page, g.PageArgs, err = q.dataset().Limit(uint(r.PageSize)).Offset(uint(r.PageNumber)).ToSQL(); err != nil {
		return nil, Internal(fmt.Errorf("grid %s: %w", r.ViewName, err))
	}
	return g, nil
}

// countSQL builds the match and count statements.
func (g *GridSQL) countSQL() error {
	q, r := g.query, g.request
	countDS := dialect.From(q.from).Prepared(true).Select(goqu.L("1"))
	if q.where != nil {
		countDS = countDS.Where(q.where)
	}
	var err error
	if g.Match, g.MatchArgs, err = countDS.ToSQL(); err != nil {
		return Internal(fmt.Errorf("grid %s match: %w", r.ViewName, err))
	}
	if !r.ExactCount {
		countDS = countDS.Limit(CountCap + 1)
	}
	if g.Count, g.CountArgs, err = dialect.From(countDS.As("matches")).Prepared(true).Select(goqu.COUNT(goqu.Star())).ToSQL(); err != nil {
		return Internal(fmt.Errorf("grid %s count: %w", r.ViewName, err))
	}
	return nil
}

// Page returns one page of a grid and its total, in the quick lane or the
// heavy one (lanes.go) when the engine has lanes.
func (e *Engine) Page(ctx context.Context, r GridRequest) (*GridPage, error) {
	if l := e.lanes; l != nil && l.Quick > 0 && l.Quick < e.timeout {
		return e.pageInLanes(ctx, r, l)
	}
	return e.page(ctx, r, readMode{timeout: e.timeout})
}

// readMode is how a read runs: its statement timeout, and in the heavy
// lane on one core.
type readMode struct {
	timeout time.Duration
	heavy   bool
}

// page reads one page of a grid and its total (Page, in one lane).
//
// A filtered page of a large view is counted first: when at most CountCap
// rows match, the page is read from them (found by the filter's index,
// sorted in memory), whatever the planner would guess. Guessing, it may
// walk the sort's index looking for matches that lie at its far end, or
// that do not exist (a value its statistics do not know, a filter that
// runs with the sort order): a whole-table walk for an empty page.
func (e *Engine) page(ctx context.Context, r GridRequest, mode readMode) (*GridPage, error) {
	g, err := e.pageSQL(ctx, r)
	if err != nil {
		return nil, err
	}
	if r.PageSize == 0 {
		r.PageSize = DefaultPageSize
	}
	countFirst := g.CountFirst()
	page := &GridPage{}
	err = e.readTxMode(ctx, mode, func(tx pgx.Tx) error {
		pageSQL := g.Page
		if countFirst {
			if err := g.countSQL(); err != nil {
				return err
			}
			n, err := g.count(ctx, tx)
			if err != nil {
				return err
			}
			page.TotalCount = n
			if n <= CountCap {
				if pageSQL, err = g.fromMatchesSQL(); err != nil {
					return err
				}
			}
		}
		rows, err := tx.Query(ctx, pageSQL, g.PageArgs...)
		if err != nil {
			return err
		}
		buf := make([]byte, 0, 64+r.PageSize*len(g.query.view.Columns)*16)
		if page.data, page.rows, err = g.query.view.writeRows(buf, rows); err != nil {
			return err
		}
		if countFirst {
			return nil
		}
		// A page that is not full ends the result: its total needs no count.
		if n := page.rows; n < r.PageSize && (n > 0 || r.PageNumber == 0) {
			page.TotalCount = int64(r.PageNumber + n)
			return nil
		}
		if err := g.countSQL(); err != nil {
			return err
		}
		page.TotalCount, err = g.count(ctx, tx)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("grid %s: %w", r.ViewName, TranslatePG(err))
	}
	if !r.ExactCount && page.TotalCount > CountCap {
		page.TotalCount, page.TotalCapped = CountCap, true
	}
	return page, nil
}

// CountFirst reports whether the page is counted before it is read: a
// filtered page of a large view (Page).
func (g *GridSQL) CountFirst() bool {
	return g.query.view.Large && g.query.where != nil && !g.request.ExactCount
}

// PageFromMatches is the page statement read from the matching rows alone,
// which Page runs when a counted-first page has at most CountCap matches.
func (g *GridSQL) PageFromMatches() (string, []any, error) {
	sql, err := g.fromMatchesSQL()
	return sql, g.PageArgs, err
}

// count runs the count statement: up to CountCap + 1, or exactly with
// ExactCount. Counting even to the cap costs a scan of that many matches,
// so when the planner expects far more it says "at least" at once. A
// report (a view with params) reads a set-returning function, whose size
// the planner does not know: it is counted.
func (g *GridSQL) count(ctx context.Context, tx pgx.Tx) (int64, error) {
	if !g.request.ExactCount && len(g.query.view.Params) == 0 {
		var plan []struct {
			Plan struct {
				Rows float64 `json:"Plan Rows"`
			} `json:"Plan"`
		}
		var raw []byte
		if err := tx.QueryRow(ctx, "explain (format json) "+g.Match, g.MatchArgs...).Scan(&raw); err != nil {
			return 0, err // the transaction is aborted: a timeout, a lock
		}
		if json.Unmarshal(raw, &plan) == nil && len(plan) == 1 && plan[0].Plan.Rows > estimateOver*CountCap {
			return CountCap + 1, nil
		}
	}
	var n int64
	err := tx.QueryRow(ctx, g.Count, g.CountArgs...).Scan(&n)
	return n, err
}

// fromMatchesSQL is the page read from the matching rows alone: the filter
// in a subquery the planner cannot merge (OFFSET 0), so its rows are found
// by the filter's index and only they are sorted. The arguments are the
// page statement's, in the same order.
func (g *GridSQL) fromMatchesSQL() (string, error) {
	q, r := g.query, g.request
	cols := make([]any, len(q.view.Columns))
	for i, c := range q.view.Columns {
		cols[i] = c.selectExpr().As(c.Field)
	}
	matches := goqu.L("(SELECT * FROM ? WHERE ? OFFSET 0)", q.from, q.where).As("matches")
	sql, args, err := dialect.From(matches).Prepared(true).Select(cols...).Order(q.order...).
		Limit(uint(r.PageSize)).Offset(uint(r.PageNumber)).ToSQL()
	if err != nil {
		return "", Internal(fmt.Errorf("grid %s: %w", r.ViewName, err))
	}
	if len(args) != len(g.PageArgs) {
		return "", Internal(fmt.Errorf("grid %s: the page from its matches has %d arguments, the page %d", r.ViewName, len(args), len(g.PageArgs)))
	}
	g.PageArgs = args
	return sql, nil
}

// readTx runs fn in a read-only transaction on the read pool with the
// statement timeout and custom plans (a cached generic plan can walk a sort
// index over millions of rows; see DESIGN.md section 7).
func (e *Engine) readTx(ctx context.Context, fn func(pgx.Tx) error) error {
	return e.readTxMode(ctx, readMode{timeout: e.timeout}, fn)
}

// readTxMode is readTx with the lane's timeout; a heavy read plans no
// parallel workers, so it holds one core and leaves the rest to quick reads.
func (e *Engine) readTxMode(ctx context.Context, mode readMode, fn func(pgx.Tx) error) error {
	return pgx.BeginTxFunc(ctx, e.reader(ctx), pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, LimitSQL, fmt.Sprint(mode.timeout.Milliseconds())); err != nil {
			return err
		}
		if mode.heavy {
			if _, err := tx.Exec(ctx, `select set_config('max_parallel_workers_per_gather', '0', true)`); err != nil {
				return err
			}
		}
		return fn(tx)
	})
}

// collect reads rows into maps keyed by field, with JSON-ready values.
func (v *View) collect(rows pgx.Rows) ([]map[string]any, error) {
	defer rows.Close()
	out := []map[string]any{}
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return nil, err
		}
		row := make(map[string]any, len(vals))
		for i, c := range v.Columns {
			row[c.Field] = c.jsonValue(vals[i])
		}
		out = append(out, row)
	}
	return out, rows.Err()
}

// LimitSQL sets, for the transaction only, the statement timeout ($1, in
// milliseconds) and custom plans, in one round trip.
const LimitSQL = "select set_config('statement_timeout', $1, true), set_config('plan_cache_mode', 'force_custom_plan', true)"

// limitTx bounds every statement of tx by the engine's timeout.
func (e *Engine) limitTx(ctx context.Context, tx pgx.Tx) error {
	_, err := tx.Exec(ctx, LimitSQL, fmt.Sprint(e.timeout.Milliseconds()))
	return err
}
