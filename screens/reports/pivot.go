package reports

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"ledgerdesk/engine"
)

// Column keys of the pivot rows besides the actors.
const (
	KeyID         = "Id"         // row number, hidden (spec 03 section 2.4)
	KeyPeriod     = "Period"     // the period's label: 2026, 2026-H1, 2026-Q3, 2026-03, 2026-W09, 2026-03-14
	KeyPeriodFrom = "PeriodFrom" // first day of the period (ISO date), for links to the bookings
	KeyPeriodTo   = "PeriodTo"   // last day of the period
	KeyTotal      = "Total"      // the row's sum over the actors
	KeyNoActor    = "(none)"     // bookings no actor was found for
	RowTotal      = "RowTotal"   // the Period of the last row: the sums of the columns
)

// QueryTimeout bounds the pivot's statement.
const QueryTimeout = 30 * time.Second

// Service computes the reports.
type Service struct {
	pool       *pgxpool.Pool
	maxPeriods int
}

// DefaultMaxPeriods is the most rows (periods) an overview may have unless
// the service is told otherwise (PIVOT_MAX_PERIODS).
const DefaultMaxPeriods = 2000

// New returns the reports service reading from pool (a replica will do);
// an overview of more than maxPeriods rows is refused (0: DefaultMaxPeriods).
func New(pool *pgxpool.Pool, maxPeriods int) *Service {
	if maxPeriods <= 0 {
		maxPeriods = DefaultMaxPeriods
	}
	return &Service{pool: pool, maxPeriods: maxPeriods}
}

// Column describes one pivot column.
type Column struct {
	Key   string  `json:"key"`
	Kind  string  `json:"kind"`            // period, actor or total
	Actor *string `json:"actor,omitempty"` // the actor of an actor column; absent for bookings without one
}

// Overview is the answer of the bank overview: the parameters as applied,
// the columns in order and the rows keyed by column key (data.data).
type Overview struct {
	Parameters Params           `json:"parameters"`
	Columns    []Column         `json:"columns"`
	Data       []map[string]any `json:"data"`
}

// period says how one grouping turns a date into its period: the first day
// (start, over the column d), the step to the next period (a PostgreSQL
// interval) and the label (over the period's first day p).
type period struct {
	start, step, label string
}

var periods = map[Grouping]period{
	Year:     {`date_trunc('year', d::timestamp)::date`, `1 year`, `to_char(p, 'YYYY')`},
	HalfYear: {`make_date(extract(year from d)::int, case when extract(month from d) <= 6 then 1 else 7 end, 1)`, `6 months`, `to_char(p, 'YYYY') || case when extract(month from p) = 1 then '-H1' else '-H2' end`},
	Quarter:  {`date_trunc('quarter', d::timestamp)::date`, `3 months`, `to_char(p, 'YYYY-"Q"Q')`},
	Month:    {`date_trunc('month', d::timestamp)::date`, `1 month`, `to_char(p, 'YYYY-MM')`},
	Week:     {`date_trunc('week', d::timestamp)::date`, `7 days`, `to_char(p, 'IYYY-"W"IW')`},
	Day:      {`d`, `1 day`, `to_char(p, 'YYYY-MM-DD')`},
}

// flagFilters are the Yes/No/All parameters and the column each filters.
var flagFilters = []struct {
	column string
	value  func(Params) string
}{
	{"dist_rvn_settle", func(p Params) string { return p.DistribRvn }},
	{"distr_driver", func(p Params) string { return p.DistribDriver }},
	{"affects_balance", func(p Params) string { return p.AffectsBalance }},
}

// PivotSQL is the bank overview statement for p (normalized) and its
// arguments. It reads the sums per day, actor, direction and flags that
// migration 00013 keeps (bank_booking_day), adds them up per period and
// actor, and lists every period between the first and the last with
// bookings (a month without bookings is a row with empty cells, so the
// chart's axis does not skip it). A sum is null where none of its bookings
// has a USD amount. The row kinds of the result: 0 a period (first day,
// label, last day), 1 a cell (period, actor, sum), 2 a period's total, 3 an
// actor's total, 4 the grand total.
func PivotSQL(p Params) (string, []any) {
	per := periods[p.DateGrouping]
	// In and Out amounts are separate columns; both are kept with their sign.
	amount, direction := "case when sum(in_count) > 0 then sum(in_usd) end", "IN"
	if p.InOut == "Out" {
		amount, direction = "case when sum(out_count) > 0 then sum(out_usd) end", "OUT"
	}
	where, args := filterSQL(p, direction)
	return `
with days as (
	select booked_date as d, actor, ` + amount + ` as amount
	from bank_booking_day
	where ` + where + `
	group by booked_date, actor
), cells as (
	select ` + per.start + ` as p, actor, sum(amount) as amount
	from days group by 1, 2
), span as (
	select g::date as p
	from (select min(p) as lo, max(p) as hi from cells) b, generate_series(b.lo, b.hi, interval '` + per.step + `') g
), sums as (
	select p, actor, sum(amount) as amount, grouping(p, actor) as g
	from cells group by grouping sets ((p, actor), (p), (actor), ())
)
select 0 as kind, p::text, ` + per.label + `, (p + interval '` + per.step + `' - interval '1 day')::date::text, null
from span
union all
select 1 + g, p::text, null, actor, amount::text
from sums
order by 1, 2, 4`, args
}

// filterSQL is the condition on bank_booking_day of p's direction and flags.
func filterSQL(p Params, direction string) (string, []any) {
	args := []any{direction}
	var where strings.Builder
	where.WriteString("in_or_out = $1")
	for _, f := range flagFilters {
		if v := f.value(p); v != "All" {
			args = append(args, v)
			fmt.Fprintf(&where, " and %s = $%d", f.column, len(args))
		}
	}
	return where.String(), args
}

// periodCount is how many periods of g lie from lo's to hi's, both included.
func periodCount(lo, hi time.Time, g Grouping) int {
	months := (hi.Year()*12 + int(hi.Month())) - (lo.Year()*12 + int(lo.Month()))
	switch g {
	case Year:
		return hi.Year() - lo.Year() + 1
	case HalfYear:
		return (hi.Year()*2 + (int(hi.Month())-1)/6) - (lo.Year()*2 + (int(lo.Month())-1)/6) + 1
	case Quarter:
		return (hi.Year()*4 + (int(hi.Month())-1)/3) - (lo.Year()*4 + (int(lo.Month())-1)/3) + 1
	case Month:
		return months + 1
	case Week:
		monday := func(t time.Time) time.Time { return t.AddDate(0, 0, -(int(t.Weekday())+6)%7) }
		return int(monday(hi).Sub(monday(lo)).Hours()/24)/7 + 1
	}
	return int(hi.Sub(lo).Hours()/24) + 1
}

// BankOverview computes the pivot for the parameters.
func (s *Service) BankOverview(ctx context.Context, in Params) (*Overview, error) {
	p, err := in.Normalize()
	if err != nil {
		return nil, err
	}
	sql, args := PivotSQL(p)
	o := &Overview{Parameters: p, Data: []map[string]any{}}
	ctx, cancel := context.WithTimeout(ctx, QueryTimeout)
	defer cancel()
	err = pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, fmt.Sprintf("set local statement_timeout = %d", QueryTimeout.Milliseconds())); err != nil {
			return err
		}
		// Bounded before it is built: one booking dated 1900 and one 2999
		// would make a Day overview of 400,000 rows.
		direction := "IN"
		if p.InOut == "Out" {
			direction = "OUT"
		}
		where, fargs := filterSQL(p, direction)
		var lo, hi *time.Time
		if err := tx.QueryRow(ctx, `select min(booked_date), max(booked_date) from bank_booking_day where `+where, fargs...).Scan(&lo, &hi); err != nil {
			return err
		}
		if lo != nil && hi != nil {
			if n := periodCount(*lo, *hi, p.DateGrouping); n > s.maxPeriods {
				return engine.Invalid("dateGroupingType", "Grouped by %s the overview would have %d rows (%s to %s), more than the %d it may have; choose a wider grouping.",
					p.DateGrouping, n, lo.Format("2006-01-02"), hi.Format("2006-01-02"), s.maxPeriods).
					With("reports.tooManyPeriods", "grouping", string(p.DateGrouping), "count", n, "max", s.maxPeriods,
						"from", lo.Format("2006-01-02"), "to", hi.Format("2006-01-02"))
			}
		}
		// Exec mode: a custom plan for the values of each call, never a
		// cached generic one.
		rows, err := tx.Query(ctx, sql, append([]any{pgx.QueryExecModeExec}, args...)...)
		if err != nil {
			return err
		}
		defer rows.Close()
		return o.fill(rows)
	})
	if err != nil {
		return nil, fmt.Errorf("bank overview: %w", engine.TranslatePG(err))
	}
	return o, nil
}

// fill turns the statement's rows (ordered by kind) into the pivot rows.
func (o *Overview) fill(rows pgx.Rows) error {
	byPeriod := map[string]map[string]any{}
	var total map[string]any
	keys := map[actorKey]string{}
	var cells [][3]*string // period, actor, amount: keyed once every actor is known
	for rows.Next() {
		var kind int
		var p, label, actor, amount *string
		if err := rows.Scan(&kind, &p, &label, &actor, &amount); err != nil {
			return err
		}
		switch kind {
		case 0: // a period; actor holds its last day here
			row := map[string]any{KeyID: len(o.Data) + 1, KeyPeriod: *label, KeyPeriodFrom: *p, KeyPeriodTo: *actor, KeyTotal: nil}
			byPeriod[*p] = row
			o.Data = append(o.Data, row)
		case 1:
			cells = append(cells, [3]*string{p, actor, amount})
		case 2:
			byPeriod[*p][KeyTotal] = value(amount)
		case 3:
			keys[keyOf(actor)] = ""
			cells = append(cells, [3]*string{nil, actor, amount})
		case 4:
			total = map[string]any{KeyID: len(o.Data) + 1, KeyPeriod: RowTotal, KeyTotal: value(amount)}
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	// The grand total has a row even without bookings (an empty grouping
	// set always has one); no periods means nothing was found.
	if len(o.Data) == 0 {
		o.Columns = []Column{{Key: KeyPeriod, Kind: "period"}, {Key: KeyTotal, Kind: "total"}}
		return nil
	}
	total[KeyPeriodFrom] = o.Data[0][KeyPeriodFrom]
	total[KeyPeriodTo] = o.Data[len(o.Data)-1][KeyPeriodTo]
	o.Columns = append(o.Columns, Column{Key: KeyPeriod, Kind: "period"})
	for _, a := range sortedActors(keys) {
		keys[a] = a.key()
		o.Columns = append(o.Columns, Column{Key: keys[a], Kind: "actor", Actor: a.ptr()})
	}
	o.Columns = append(o.Columns, Column{Key: KeyTotal, Kind: "total"})
	for _, row := range append(o.Data, total) {
		for _, c := range o.Columns[1 : len(o.Columns)-1] {
			row[c.Key] = nil
		}
	}
	for _, c := range cells {
		row := total
		if c[0] != nil {
			row = byPeriod[*c[0]]
		}
		row[keys[keyOf(c[1])]] = value(c[2])
	}
	o.Data = append(o.Data, total)
	return nil
}

func value(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}
