package engine

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// catalogColumn is a column as the database catalogue describes it.
type catalogColumn struct {
	dataType string
	nullable bool
	hasDef   bool
	scale    *int // numeric scale, when the column has one
	// intDigits is how many digits a numeric(p, s) column holds before the
	// decimal point (p - s); 0 for any other type or an unbounded numeric.
	intDigits int
}

type relation struct {
	isTable bool
	columns map[string]catalogColumn
}

// intBits is the width of each whole-number database type.
var intBits = map[string]int{"smallint": 16, "integer": 32, "bigint": 64}

// loadCatalogue reads every table and view of the current schema.
func loadCatalogue(ctx context.Context, pool *pgxpool.Pool) (map[string]*relation, error) {
	rows, err := pool.Query(ctx, `
		select c.table_name, t.table_type = 'BASE TABLE', c.column_name, c.data_type, c.is_nullable = 'YES',
		       c.column_default is not null or c.is_identity = 'YES' or c.is_generated = 'ALWAYS', c.numeric_scale::int,
		       case when c.data_type = 'numeric' and c.numeric_precision is not null then c.numeric_precision - coalesce(c.numeric_scale, 0) else 0 end
		from information_schema.columns c
		join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
		where c.table_schema = current_schema()`)
	if err != nil {
		return nil, fmt.Errorf("read the database catalogue: %w", err)
	}
	defer rows.Close()
	rels := map[string]*relation{}
	for rows.Next() {
		var table, column, dataType string
		var isTable, nullable, hasDef bool
		var scale *int
		var intDigits int
		if err := rows.Scan(&table, &isTable, &column, &dataType, &nullable, &hasDef, &scale, &intDigits); err != nil {
			return nil, err
		}
		r := rels[table]
		if r == nil {
			r = &relation{isTable: isTable, columns: map[string]catalogColumn{}}
			rels[table] = r
		}
		r.columns[column] = catalogColumn{dataType: dataType, nullable: nullable, hasDef: hasDef, scale: scale, intDigits: intDigits}
	}
	return rels, rows.Err()
}

// Validate checks the metadata against the live database: every source,
// table, column and key exists, column types fit the declared field types,
// editable columns belong to the base table. It also settles enum storage
// (text or integer). It returns every problem, one line each.
func Validate(ctx context.Context, pool *pgxpool.Pool, md *Metadata) error {
	rels, err := loadCatalogue(ctx, pool)
	if err != nil {
		return err
	}
	funcs, err := loadFunctions(ctx, pool)
	if err != nil {
		return err
	}
	var problems []string
	add := func(file, name, format string, args ...any) {
		problems = append(problems, fmt.Sprintf("%s: %s: %s", file, name, fmt.Sprintf(format, args...)))
	}
	typeFits := func(c catalogColumn, fieldType string) bool {
		for _, t := range Types[fieldType].SQLTypes {
			if t == c.dataType {
				return true
			}
		}
		return false
	}

	// Every screen id names a row of web_screen (the ids roles are granted).
	known, err := ScreenIDs(ctx, pool)
	if err != nil {
		return err
	}
	unknownScreen := func(file, name string, id int) {
		if !known[id] {
			add(file, name, "screen %d is not a screen of the web_screen table (ids %s)", id, idList(known))
		}
	}
	for _, route := range sortedKeys(md.Screens) {
		unknownScreen("views.yaml", "screens."+route, md.Screens[route].Screen)
	}
	for _, name := range sortedKeys(md.Forms) {
		unknownScreen("forms/"+name+".yaml", name, md.Forms[name].Screen)
	}

	for _, name := range sortedKeys(md.Views) {
		v := md.Views[name]
		unknownScreen("views.yaml", name, v.Screen)
		src := rels[v.Source]
		if len(v.Params) > 0 {
			src = nil
			if f := funcs[v.Source]; f != nil {
				src = &relation{columns: f.columns}
				for _, p := range v.checkFunction(f) {
					add("views.yaml", name, "%s", p)
				}
			} else {
				add("views.yaml", name, "source %q is not a set-returning function in the database (a view with params reads one)", v.Source)
				continue
			}
		}
		if src == nil {
			add("views.yaml", name, "source %q is not a table or view in the database", v.Source)
			continue
		}
		var base *relation
		if v.Table != "" {
			if base = rels[v.Table]; base == nil || !base.isTable {
				add("views.yaml", name, "table %q is not a base table in the database", v.Table)
				base = nil
			}
		}
		if base != nil {
			v.stampUpdated = hasColumns(base, "updated_on", "updated_by")
		}
		for _, c := range v.Columns {
			cc, ok := src.columns[c.Column]
			if !ok {
				add("views.yaml", name, "column %s: %q is not a column of %s", c.Field, c.Column, v.Source)
				continue
			}
			if !typeFits(cc, c.Type) {
				add("views.yaml", name, "column %s: type %s does not fit the database type %s", c.Field, c.Type, cc.dataType)
			}
			if t := c.typ(); t.stored != nil {
				t.stored(c, cc.dataType)
			}
			if c.typ().Scaled {
				if msg := scaleFits(c.Scale, cc); msg != "" {
					add("views.yaml", name, "column %s: %s", c.Field, msg)
				}
			}
			c.intBits, c.intDigits = intBits[cc.dataType], cc.intDigits
			if base != nil && (c.Editable || c.Field == v.Key || c.Field == v.Version) {
				bc, ok := base.columns[c.Column]
				if !ok {
					add("views.yaml", name, "column %s: %q is not a column of the base table %s", c.Field, c.Column, v.Table)
				}
				// An edit with more decimals than the column keeps is refused, not rounded.
				c.limitDecimals = ok && c.Editable
				if ok && c.Editable && c.typ().Scaled && cc.scale == nil { // a source with its own scale was checked above
					if msg := scaleFits(c.Scale, bc); msg != "" {
						add("views.yaml", name, "column %s: %s (base table %s)", c.Field, msg, v.Table)
					}
				}
			}
		}
		if v.Version != "" && base != nil {
			if col := v.column(v.Version); col != nil && !col.typ().Instant && col.typ() != Types["int"] {
				add("views.yaml", name, "version %s must be a datetime or int column", v.Version)
			}
		}
		if v.AfterEdit != "" {
			var found bool
			err := pool.QueryRow(ctx, `select exists (select 1 from pg_proc p join pg_namespace n on n.oid = p.pronamespace
				where n.nspname = current_schema() and p.proname = $1 and p.pronargs = 2)`, v.AfterEdit).Scan(&found)
			if err != nil {
				return fmt.Errorf("read the database functions: %w", err)
			}
			if !found {
				add("views.yaml", name, "afterEdit: %q is not a function of two arguments (key, columns) in the database", v.AfterEdit)
			}
		}
		for col := range v.EditSets {
			if base != nil {
				if _, ok := base.columns[col]; !ok {
					add("views.yaml", name, "editSets: %q is not a column of %s", col, v.Table)
				}
			}
		}
	}

	for _, name := range sortedKeys(md.Forms) {
		f := md.Forms[name]
		file := "forms/" + name + ".yaml"
		t := rels[f.Table]
		if t == nil || !t.isTable {
			add(file, name, "table %q is not a base table in the database", f.Table)
			continue
		}
		f.stampCreated = hasColumns(t, "created_on", "created_by")
		f.stampUpdated = hasColumns(t, "updated_on", "updated_by")
		if _, ok := t.columns[f.Key.Column]; !ok {
			add(file, name, "key column %q is not a column of %s", f.Key.Column, f.Table)
		}
		for _, ff := range f.Fields {
			cc, ok := t.columns[ff.Column]
			if !ok {
				add(file, name, "field %s: %q is not a column of %s", ff.Field, ff.Column, f.Table)
				continue
			}
			if !typeFits(cc, ff.Type) {
				add(file, name, "field %s: type %s does not fit the database type %s", ff.Field, ff.Type, cc.dataType)
			}
			if t := ff.col().typ(); t.stored != nil {
				t.stored(ff.col(), cc.dataType)
				ff.enumInt = ff.col().EnumInt
			}
			if ff.col().typ().Scaled {
				if msg := scaleFits(ff.col().Scale, cc); msg != "" {
					add(file, name, "field %s: %s", ff.Field, msg)
				}
			}
			ff.col().intBits, ff.col().intDigits = intBits[cc.dataType], cc.intDigits
			if !cc.nullable && !cc.hasDef && !ff.Required && ff.Default == nil {
				add(file, name, "field %s: the column is NOT NULL without a default, so the field must be required or have a default", ff.Field)
			}
		}
		for _, l := range f.Lookups {
			src := rels[l.Source]
			if src == nil {
				add(file, name, "lookup %s: source %q is not a table or view", l.Name, l.Source)
				continue
			}
			for _, col := range []string{l.Value, l.Label} {
				if _, ok := src.columns[col]; !ok {
					add(file, name, "lookup %s: %q is not a column of %s", l.Name, col, l.Source)
				}
			}
		}
	}
	if len(problems) > 0 {
		return &Error{Code: CodeInvalid, Message: "metadata does not match the database:\n  " + strings.Join(problems, "\n  ")}
	}
	return nil
}

// ScreenIDs are the screen ids of the web_screen table: what roles grant and
// what every `screen:` of the metadata and every route's check must name.
func ScreenIDs(ctx context.Context, pool *pgxpool.Pool) (map[int]bool, error) {
	rows, err := pool.Query(ctx, `select id from web_screen`)
	if err != nil {
		return nil, fmt.Errorf("read the screens: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int])
	if err != nil {
		return nil, fmt.Errorf("read the screens: %w", err)
	}
	known := make(map[int]bool, len(ids))
	for _, id := range ids {
		known[id] = true
	}
	return known, nil
}

func idList(known map[int]bool) string {
	ids := make([]int, 0, len(known))
	for id := range known {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	return strings.Trim(fmt.Sprint(ids), "[]")
}

func sortedKeys[T any](m map[string]T) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func hasColumns(r *relation, names ...string) bool {
	for _, n := range names {
		if _, ok := r.columns[n]; !ok {
			return false
		}
	}
	return true
}

// scaleFits says why a decimal's declared scale does not fit a database
// column with a scale of its own ("" when it does): the scale is the
// decimals kept and shown, so a scale below the column's would show 0.50 as
// 1 and refuse to write back what it shows, one above it would show digits
// the column never keeps. A numeric without a scale (a computed figure)
// takes any.
func scaleFits(scale int, c catalogColumn) string {
	if c.scale == nil || *c.scale == scale {
		return ""
	}
	return fmt.Sprintf("scale %d does not fit the database column, which keeps %d decimals (scale is the decimals kept and shown)", scale, *c.scale)
}
