package engine

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"ledgerdesk/internal/pgtest"
)

const largeViews = `
views:
  VW_Gadgets:
    source: gadget
    table: gadget
    key: Id
    screen: 10
    large: true
    defaultSort: {field: Made, order: desc}
    columns:
      - {field: Code, column: code, type: text, filters: [equals, in]}
      - {field: Name, column: name, type: text, sortable: false, filters: [contains, isNotEmpty]}
      - {field: Amount, column: amount, type: decimal, scale: 2}
      - {field: Made, column: made, type: date, filters: []}
      - {field: Note, column: note, type: text, sortable: false, filters: []}
      - {field: Id, column: id, type: int, hidden: true}
`

// The indexes a large view needs follow from what it offers: a sort or a
// comparison needs a btree leading with the column (lower(column) for
// text, whose sorts and equality ignore case), a text pattern a trigram
// index, not-equals cannot be served at all; a hidden column or one
// offering nothing needs none.
func TestIndexNeedsFollowTheOffers(t *testing.T) {
	md, err := LoadMetadata(fstest.MapFS{"views.yaml": {Data: []byte(largeViews)}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range md.Views["VW_Gadgets"].IndexNeeds() {
		got = append(got, n.Field+" "+n.Kind+" "+strings.Join(n.Clicks, ","))
	}
	want := []string{
		"Code btree sort,equals,in",
		"Name btree isNotEmpty",
		"Name trgm contains",
		"Amount btree sort,equals,lt,lte,gt,gte,between,in,isEmpty,isNotEmpty",
		"Amount none notEquals",
		"Made btree sort",
	}
	if !slices.Equal(got, want) {
		t.Errorf("needs\n got %q\nwant %q", got, want)
	}
	small, _ := LoadMetadata(fstest.MapFS{"views.yaml": {Data: []byte(strings.Replace(largeViews, "    large: true\n", "", 1))}})
	if n := small.Views["VW_Gadgets"].IndexNeeds(); n != nil {
		t.Errorf("a view not declared large needs %v", n)
	}
}

// EnsureIndexes builds what the large views lack, records each build, leaves
// what no index can serve to `check`, rebuilds an index a failed build left
// invalid, and builds nothing while another node holds the build.
func TestEnsureIndexes(t *testing.T) {
	pool := pgtest.New(t)
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if _, err := pool.Exec(ctx, `create table gadget (id bigint generated always as identity primary key,
		code text, name text, amount numeric(12, 2), made date, note text)`); err != nil {
		t.Fatal(err)
	}
	// An index of the schema's own serves Made's sort: none is built for it.
	if _, err := pool.Exec(ctx, `create index gadget_made_idx on gadget (made desc, id desc)`); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `insert into gadget (code, name, amount, made)
		select 'G' || (i % 7), 'Gadget ' || i, i, date '2026-01-01' + i from generate_series(1, 200) i`); err != nil {
		t.Fatal(err)
	}
	md, err := LoadMetadata(fstest.MapFS{"views.yaml": {Data: []byte(largeViews)}})
	if err != nil {
		t.Fatal(err)
	}
	gapNames := func() []string {
		t.Helper()
		gaps, err := IndexGaps(ctx, pool, md)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, g := range gaps {
			out = append(out, g.Field+" "+g.Kind)
		}
		return out
	}
	if got, want := gapNames(), []string{"Code btree", "Name btree", "Name trgm", "Amount btree", "Amount none"}; !slices.Equal(got, want) {
		t.Fatalf("gaps before: %q, want %q", got, want)
	}
	if err := EnsureIndexes(ctx, pool, md, log); err != nil {
		t.Fatal(err)
	}
	if got := gapNames(); !slices.Equal(got, []string{"Amount none"}) {
		t.Fatalf("gaps after: %q", got)
	}
	// The table is analyzed after the builds: lower(code) has statistics
	// (without them the planner takes every code for rare).
	var stats int
	pool.QueryRow(ctx, `select count(*) from pg_stats where tablename = 'gadget_code_grid'`).Scan(&stats)
	if stats == 0 {
		t.Error("no statistics of lower(code) after the build")
	}
	gaps, _ := IndexGaps(ctx, pool, md)
	if msg := gaps[0].String(); !strings.Contains(msg, "VW_Gadgets: column Amount offers notEquals, which no index can serve") {
		t.Errorf("the gap reads %q", msg)
	}
	var ready int
	pool.QueryRow(ctx, `select count(*) from grid_index where state = 'ready' and finished_on is not null and error is null`).Scan(&ready)
	if ready != 4 {
		t.Errorf("%d builds recorded as ready, want 4", ready)
	}
	for name, want := range map[string]string{
		"gadget_name_grid_trgm": "USING gin (name gin_trgm_ops)",
		"gadget_code_grid":      "USING btree (lower(code), id)",
		"gadget_amount_grid":    "USING btree (amount, id)",
	} {
		var def string
		pool.QueryRow(ctx, `select indexdef from pg_indexes where indexname = $1`, name).Scan(&def)
		if !strings.Contains(def, want) {
			t.Errorf("%s: %q, want %q", name, def, want)
		}
	}

	// A build interrupted half-way leaves an invalid index: it serves nothing
	// and is built again.
	if _, err := pool.Exec(ctx, `update pg_index set indisvalid = false where indexrelid = 'gadget_amount_grid'::regclass`); err != nil {
		t.Fatal(err)
	}
	if got := gapNames(); !slices.Contains(got, "Amount btree") {
		t.Fatalf("an invalid index counted as serving: gaps %q", got)
	}
	if err := EnsureIndexes(ctx, pool, md, log); err != nil {
		t.Fatal(err)
	}
	if got := gapNames(); !slices.Equal(got, []string{"Amount none"}) {
		t.Fatalf("gaps after the rebuild: %q", got)
	}

	// While another node builds, this one leaves the work to it.
	if _, err := pool.Exec(ctx, `drop index gadget_code_grid`); err != nil {
		t.Fatal(err)
	}
	other, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Exec(ctx, `select pg_advisory_lock($1)`, indexBuildLock); err != nil {
		t.Fatal(err)
	}
	if err := EnsureIndexes(ctx, pool, md, log); err != nil {
		t.Fatal(err)
	}
	if got := gapNames(); !slices.Contains(got, "Code btree") {
		t.Errorf("built while another node held the build: gaps %q", got)
	}
	other.Exec(ctx, `select pg_advisory_unlock($1)`, indexBuildLock)
	other.Release()
	if err := EnsureIndexes(ctx, pool, md, log); err != nil {
		t.Fatal(err)
	}
	if got := gapNames(); !slices.Equal(got, []string{"Amount none"}) {
		t.Errorf("gaps at the end: %q", got)
	}

	// A column that no longer offers a filter loses the index built for it;
	// the schema's own indexes stay whatever the views offer.
	fewer, err := LoadMetadata(fstest.MapFS{"views.yaml": {Data: []byte(strings.Replace(largeViews, "filters: [contains, isNotEmpty]", "filters: [isNotEmpty]", 1))}})
	if err != nil {
		t.Fatal(err)
	}
	if err := EnsureIndexes(ctx, pool, fewer, log); err != nil {
		t.Fatal(err)
	}
	var left []string
	rows, _ := pool.Query(ctx, `select indexname from pg_indexes where tablename = 'gadget' order by 1`)
	for rows.Next() {
		var n string
		rows.Scan(&n)
		left = append(left, n)
	}
	rows.Close()
	if want := []string{"gadget_amount_grid", "gadget_code_grid", "gadget_made_idx", "gadget_name_grid", "gadget_pkey"}; !slices.Equal(left, want) {
		t.Errorf("indexes left: %q, want %q", left, want)
	}
	var recorded int
	pool.QueryRow(ctx, `select count(*) from grid_index where name = 'gadget_name_grid_trgm'`).Scan(&recorded)
	if recorded != 0 {
		t.Error("the dropped index is still recorded")
	}
}

// A large view refuses what it does not offer, with the field named, and
// tells the UI what it offers.
func TestGridOffersOnlyWhatItServes(t *testing.T) {
	f := newFixture(t)
	tests := []struct {
		name string
		req  GridRequest
		code string
	}{
		{"a column offering no filter", GridRequest{Filters: []Cond{{"Month", "equals", "5"}}}, "filter.field"},
		{"an operator the column does not offer", GridRequest{Filters: []Cond{{"Currency", "contains", "SE"}}}, "filter.operator"},
		{"not equals on a large view", GridRequest{Filters: []Cond{{"AmountLocal", "notEquals", "5"}}}, "filter.operator"},
		{"a column not sortable", GridRequest{SortField: "Month", SortOrder: "asc"}, "grid.sortField"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.req.ViewName = "VW_BankFinal"
			_, err := f.e.Page(f.ctx, tt.req)
			var e *Error
			if !errors.As(err, &e) || e.Code != CodeInvalid || e.Key != tt.code {
				t.Fatalf("got %v, want %s", err, tt.code)
			}
		})
	}
	if _, err := f.e.Page(f.ctx, GridRequest{ViewName: "VW_BankFinal", Filters: []Cond{{"Currency", "equals", "sek"}}}); err != nil {
		t.Errorf("an offered filter: %v", err)
	}
	meta := f.e.Metadata().Views["VW_BankFinal"].Meta()
	for _, c := range meta.Columns {
		switch c.Field {
		case "Month":
			if c.Sortable || len(c.Ops) != 0 {
				t.Errorf("Month offers sort %v, filters %v", c.Sortable, c.Ops)
			}
		case "Currency":
			if !slices.Equal(c.Ops, []string{"equals", "in"}) {
				t.Errorf("Currency offers %v", c.Ops)
			}
		}
	}
}

// A large view's filtered page is read from its matches after a count;
// the rows, their order and the total are those of the same request on
// the same view not declared large (the planner's own way), page by page.
func TestLargeViewPageFromMatches(t *testing.T) {
	f := newFixture(t)
	f.exec(t, `insert into bank_booking (bank_account, file_name, booked_date, amount_local, currency, text, actor, provider, created_on)
		select 'ACC-' || (i % 7), 'f' || (i / 50) || '.csv', date '2026-01-01' + (i % 40), round(((i * 37) % 1000 - 300)::numeric / 7, 2),
		       (array['SEK','EUR','USD'])[1 + i % 3], 'Booking ' || i, case when i % 5 <> 0 then (array['Card','bank','Amex'])[1 + i % 3] end,
		       case when i % 4 <> 0 then (array['Nuvei','Adyen'])[1 + i % 2] end, timestamptz '2026-01-01' + make_interval(mins => i % 97)
		from generate_series(1, 600) i`)
	plain := *f.e.Metadata().Views["VW_BankFinal"]
	plain.Name, plain.Large = "VW_BankFinalPlain", false
	md := *f.e.Metadata()
	md.Views = map[string]*View{"VW_BankFinal": md.Views["VW_BankFinal"], "VW_BankFinalPlain": &plain}
	e := New(Options{Pool: f.pool, Metadata: &md})
	reqs := []GridRequest{
		{Filters: []Cond{{"Currency", "equals", "sek"}}, SortField: "AmountLocal", SortOrder: "desc", PageSize: 30},
		{Filters: []Cond{{"Actor", "isEmpty", nil}}, SortField: "Provider", SortOrder: "asc", PageSize: 25},
		{Filters: []Cond{{"Actor", "in", []any{"CARD", "amex"}}}, SortField: "Actor", SortOrder: "desc", PageSize: 50},
		{Filters: []Cond{{"BookedDate", "between", []any{"2026-01-03", "2026-01-09"}}}, PageSize: 40},
		{Filters: []Cond{{"Text", "contains", "ing 1"}, {"Provider", "equals", "NUVEI"}}, SortField: "BankAccount", SortOrder: "asc", PageSize: 20},
		{Filters: []Cond{{"FileName", "equals", "nothing.csv"}}, PageSize: 20},
	}
	for i, r := range reqs {
		for offset := 0; offset <= 300; offset += r.PageSize {
			r.PageNumber = offset
			r.ViewName = "VW_BankFinal"
			got, err := e.Page(f.ctx, r)
			if err != nil {
				t.Fatalf("request %d: %v", i, err)
			}
			r.ViewName = "VW_BankFinalPlain"
			want, err := e.Page(f.ctx, r)
			if err != nil {
				t.Fatalf("request %d: %v", i, err)
			}
			if string(got.data) != string(want.data) || got.TotalCount != want.TotalCount || got.TotalCapped != want.TotalCapped {
				t.Fatalf("request %d at %d: large %d rows of %d, plain %d rows of %d\n%.300s\n%.300s", i, offset,
					got.rows, got.TotalCount, want.rows, want.TotalCount, got.data, want.data)
			}
			if want.rows < r.PageSize {
				break
			}
		}
	}
}
