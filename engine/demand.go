package engine

import (
	"context"
	"fmt"
	"hash/fnv"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Indexes made on demand. A large view's single-column indexes answer each
// offered click alone, and a filter with a sort on another column as long
// as the filter's rows are spread along the sort's index. When they are
// not (Currency = NOK with the biggest USD amounts first: the NOK rows lie
// at the far end of the amount index) the read walks most of the table. A
// composite index on (the filters' columns, the sort's column, the key)
// reads exactly the page, in order. There are too many such pairs to build
// them all, so they are built for the requests users actually make that
// turn out slow (as Baserow does per view): a read of a large view that
// outlasts the quick lane with equality filters and a sort records its
// index in grid_index_demand, and EnsureIndexes builds the most demanded
// DemandedPerTable of each table and drops those that fall out of them.
//
// A range on one further column (DueOn after a day, oldest first) has the
// same trouble when its rows lie at the far end of the sort's order - the
// two columns go together: the due day follows the date - and its own
// index gives half the table to sort. Its column comes last in the index,
// after the key: the index is read in the sort's order and the range is
// tested on each entry of the index, not on each row of the table, so the
// read skips the rows outside it without fetching them.

// DemandedPerTable is how many indexes made on demand a table keeps: each
// one slows every write to the table a little.
const DemandedPerTable = 5

// demandIndex is a composite index that serves a filtered, sorted request.
type demandIndex struct {
	name, view, table string
	filterFields      []string // sorted, distinct
	sortField         string
	rangeField        string   // "": none
	keys              []string // SQL of the index's key, in order
	columns           string   // the key as shown: lower(currency), amount_usd, id
}

// demandOf is the index that serves equality filters on filterFields and a
// range on rangeField ("": none) with a sort by sortField, or false when
// one cannot: up to two equality columns (a datetime column's equality is
// a day, a range) and at most one range, one of them at least, the sort on
// another sortable column.
func (v *View) demandOf(filterFields []string, sortField, rangeField string) (demandIndex, bool) {
	fields := append([]string{}, filterFields...) // never nil: stored as an array
	slices.Sort(fields)
	fields = slices.Compact(fields)
	sortCol := v.column(sortField)
	if !v.Large || len(fields) == 0 && rangeField == "" || len(fields) > 2 || sortCol == nil || !sortCol.IsSortable() ||
		slices.Contains(fields, sortField) || sortField == v.Key || rangeField == sortField || slices.Contains(fields, rangeField) {
		return demandIndex{}, false
	}
	var rangeCol *Column
	if rangeField != "" {
		rangeCol = v.column(rangeField)
		if rangeCol == nil || rangeCol.Column == sortCol.Column || !slices.ContainsFunc(rangeCol.Ops(), isRangeOp) {
			return demandIndex{}, false
		}
	}
	d := demandIndex{view: v.Name, table: v.Source, filterFields: fields, sortField: sortField, rangeField: rangeField}
	var shown []string
	add := func(c *Column) {
		key, show := pgx.Identifier{c.Column}.Sanitize(), c.Column
		if c.typ().Caseless {
			key, show = "lower("+key+")", "lower("+show+")"
		}
		d.keys, shown = append(d.keys, key), append(shown, show)
	}
	for _, f := range fields {
		c := v.column(f)
		if c == nil || c.typ().Instant || !slices.Contains(c.Ops(), OpEquals) {
			return demandIndex{}, false
		}
		add(c)
	}
	add(sortCol)
	key := v.column(v.Key)
	d.keys, shown = append(d.keys, pgx.Identifier{key.Column}.Sanitize()), append(shown, key.Column)
	if rangeCol != nil {
		add(rangeCol)
	}
	d.columns = strings.Join(shown, ", ")
	h := fnv.New32a()
	h.Write([]byte(d.table + ":" + d.columns))
	d.name = fmt.Sprintf("%.40s_demand_%08x", d.table, h.Sum32())
	return d, true
}

// demandFor is the index that would serve request r, if it is of the kind.
func (v *View) demandFor(r GridRequest) (demandIndex, bool) {
	if strings.TrimSpace(r.Filter) != "" || len(r.Filters) == 0 {
		return demandIndex{}, false
	}
	var fields []string
	rangeField := ""
	for _, c := range r.Filters {
		switch {
		case c.Value == nil:
			return demandIndex{}, false
		case c.Op == OpEquals:
			fields = append(fields, c.Field)
		case isRangeOp(c.Op) && (rangeField == "" || rangeField == c.Field):
			rangeField = c.Field
		default:
			return demandIndex{}, false
		}
	}
	sortField := r.SortField
	if sortField == "" {
		sortField = v.DefaultSort.Field
	}
	return v.demandOf(fields, sortField, rangeField)
}

// isRangeOp reports a filter operator that compares with bounds.
func isRangeOp(op string) bool {
	return op == OpLt || op == OpLte || op == OpGt || op == OpGte || op == OpBetween
}

func (d demandIndex) createSQL() string {
	return fmt.Sprintf("create index concurrently %s on %s (%s)", pgx.Identifier{d.name}.Sanitize(),
		pgx.Identifier{d.table}.Sanitize(), strings.Join(d.keys, ", "))
}

// recordDemand notes that a read of r was slow, for the index that would
// serve it, and has the indexes built soon.
func (e *Engine) recordDemand(ctx context.Context, r GridRequest) {
	v := e.Metadata().Views[r.ViewName]
	if v == nil || e.noDemand {
		return
	}
	d, ok := v.demandFor(r)
	if !ok {
		return
	}
	_, err := e.pool.Exec(context.WithoutCancel(ctx), `insert into grid_index_demand (name, view_name, table_name, filter_fields, sort_field,
			range_field, columns)
		values ($1, $2, $3, $4, $5, nullif($6, ''), $7)
		on conflict (name) do update set demanded = grid_index_demand.demanded + 1, last_on = now()`,
		d.name, d.view, d.table, d.filterFields, d.sortField, d.rangeField, d.columns)
	if err != nil {
		e.log.Error("index demand not recorded", "index", d.name, "err", err)
		return
	}
	e.buildIndexesSoon()
}

// buildIndexesSoon runs EnsureIndexes in the background, once more if it
// was asked again meanwhile; the shapes the lanes took for heavy are
// forgotten after it (an index may have made them quick).
func (e *Engine) buildIndexesSoon() {
	if !e.building.CompareAndSwap(false, true) {
		e.buildAgain.Store(true)
		return
	}
	go func() {
		defer e.building.Store(false)
		for {
			e.buildAgain.Store(false)
			if err := EnsureIndexes(context.Background(), e.pool, e.Metadata(), e.log); err != nil {
				e.log.Error("grid indexes not all built", "err", err)
			}
			if e.lanes != nil {
				e.lanes.forgetAll()
			}
			if !e.buildAgain.Load() {
				return
			}
		}
	}()
}

// BuildingIndexes reports whether indexes made on demand are being built.
func (e *Engine) BuildingIndexes() bool { return e.building.Load() }

// keptDemands are, per table of a large view, the DemandedPerTable most
// demanded indexes that still fit the metadata (a field renamed or no
// longer offered drops its demand's index).
func keptDemands(ctx context.Context, conn *pgx.Conn, md *Metadata) ([]demandIndex, error) {
	rows, err := conn.Query(ctx, `select name, view_name, filter_fields, sort_field, coalesce(range_field, '') from grid_index_demand
		order by table_name, demanded desc, last_on desc, name`)
	if err != nil {
		return nil, err
	}
	type rec struct {
		name, view string
		fields     []string
		sort, rng  string
	}
	recs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (rec, error) {
		var x rec
		return x, r.Scan(&x.name, &x.view, &x.fields, &x.sort, &x.rng)
	})
	if err != nil {
		return nil, err
	}
	perTable := map[string]int{}
	var out []demandIndex
	for _, x := range recs {
		v := md.Views[x.view]
		if v == nil {
			continue
		}
		d, ok := v.demandOf(x.fields, x.sort, x.rng)
		if !ok || d.name != x.name || perTable[d.table] >= DemandedPerTable {
			continue
		}
		perTable[d.table]++
		out = append(out, d)
	}
	return out, nil
}

// buildDemand builds an index made on demand unless a valid one is there.
func buildDemand(ctx context.Context, conn *pgx.Conn, d demandIndex, log *slog.Logger) error {
	var valid bool
	conn.QueryRow(ctx, `select i.indisvalid from pg_index i where i.indexrelid = to_regclass(current_schema() || '.' || $1)`, d.name).Scan(&valid)
	if valid {
		return nil
	}
	why := d.view + ": "
	if len(d.filterFields) > 0 {
		why += "equals on " + strings.Join(d.filterFields, ", ") + ", "
	}
	if d.rangeField != "" {
		why += "range on " + d.rangeField + ", "
	}
	return recordBuild(ctx, conn, d.name, d.table, d.columns, "demand", why+"sort "+d.sortField, d.createSQL(), log)
}

// DemandedIndex is an index made on demand, as `ledgerdesk check` lists it.
type DemandedIndex struct {
	Name, View, Table, Columns, State string
	Demanded                          int
	LastOn                            time.Time
}

// DemandedIndexes lists the demands and the state of their indexes.
func DemandedIndexes(ctx context.Context, pool *pgxpool.Pool) ([]DemandedIndex, error) {
	rows, err := pool.Query(ctx, `select d.name, d.view_name, d.table_name, d.columns, d.demanded, d.last_on, coalesce(g.state, 'not built')
		from grid_index_demand d left join grid_index g on g.name = d.name
		order by d.table_name, d.demanded desc, d.last_on desc`)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (DemandedIndex, error) {
		var d DemandedIndex
		return d, r.Scan(&d.Name, &d.View, &d.Table, &d.Columns, &d.Demanded, &d.LastOn, &d.State)
	})
}
