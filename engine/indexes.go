package engine

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"
)

// LargeView is the row count from which IndexWarnings looks at a view's
// columns: below it a scan is cheap enough.
const LargeView = 100_000

// IndexWarnings lists the sortable or filterable columns of large views that
// no index supports (DESIGN.md section 7: "contains + sort" over 2,000,000
// rows without one sorts hundreds of thousands of rows per page). Sorting
// and equality want a btree leading with the column; contains on text wants
// a trigram index. Views over SQL views are skipped (their plans depend on
// the underlying tables).
func IndexWarnings(ctx context.Context, pool *pgxpool.Pool, md *Metadata) ([]string, error) {
	var out []string
	for _, name := range sortedKeys(md.Views) {
		v := md.Views[name]
		var rows float64
		var isTable bool
		err := pool.QueryRow(ctx, `select c.reltuples, c.relkind in ('r', 'p') from pg_class c
			where c.oid = to_regclass(current_schema() || '.' || $1)`, v.Source).Scan(&rows, &isTable)
		if err != nil || !isTable || rows < LargeView {
			continue
		}
		btree, trgm := map[string]bool{}, map[string]bool{}
		irows, err := pool.Query(ctx, `
			select a.attname, am.amname, coalesce(opc.opcname, '')
			from pg_index i
			join pg_class ic on ic.oid = i.indexrelid
			join pg_am am on am.oid = ic.relam
			join pg_attribute a on a.attrelid = i.indrelid and a.attnum = i.indkey[0]
			left join pg_opclass opc on opc.oid = i.indclass[0]
			where i.indrelid = to_regclass(current_schema() || '.' || $1)`, v.Source)
		if err != nil {
			return nil, fmt.Errorf("index warnings %s: %w", name, err)
		}
		for irows.Next() {
			var col, method, opclass string
			if err := irows.Scan(&col, &method, &opclass); err != nil {
				irows.Close()
				return nil, err
			}
			if method == "btree" {
				btree[col] = true
			}
			if method == "gin" && opclass == "gin_trgm_ops" || method == "gist" && opclass == "gist_trgm_ops" {
				trgm[col] = true
			}
		}
		irows.Close()
		for _, c := range v.Columns {
			if c.Hidden {
				continue
			}
			if !btree[c.Column] {
				out = append(out, fmt.Sprintf("views.yaml: %s: column %s (%s): %s has about %.0f rows and no btree index leading with %s; sorting or filtering by equality scans the table",
					name, c.Field, c.Column, v.Source, rows, c.Column))
			}
			if c.Type == "text" && !trgm[c.Column] {
				out = append(out, fmt.Sprintf("views.yaml: %s: column %s (%s): no trigram index (gin_trgm_ops); a contains filter scans the table",
					name, c.Field, c.Column))
			}
		}
	}
	return out, nil
}
