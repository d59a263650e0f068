package engine

import (
	"strconv"
	"strings"

	"github.com/doug-martin/goqu/v9"
	"github.com/doug-martin/goqu/v9/exp"
)

// days: the whole days from a date column to today (an item's age; a
// negative number is a date still ahead). Shown and filtered as a number,
// served by the date column's index: a sort by days is the date's sort
// reversed, a filter on days a range of dates.
var _ = register(&FieldType{
	Name: "days", Ops: []string{OpEquals, OpLt, OpLte, OpGt, OpGte, OpBetween, OpIn, OpIsEmpty, OpIsNotEmpty},
	SQLTypes: []string{"date"}, UIType: "int",
	parse: parseDays,
	sort:  func(c *Column) (exp.Orderable, bool) { return goqu.I(c.Column), true }, // more days is an earlier date
	read:  func(c *Column) exp.Aliaseable { return goqu.L("current_date - ?", goqu.I(c.Column)) },
	cond: func(col *Column, _ filterTarget, c Cond, _ func() (any, error)) (exp.Expression, bool, error) {
		e, err := daysCond(col, c)
		return e, true, err
	},
})

// maxDays bounds a days value (about 2,700 years either way).
const maxDays = 1_000_000

func parseDays(c *Column, v any) (any, error) {
	s, err := asString(c, v)
	if err != nil {
		return nil, err
	}
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < -maxDays || n > maxDays {
		return nil, Invalid(c.Field, "%s must be a whole number of days from %d to %d.", c.Field, -maxDays, maxDays).
			With("grid.numberOutOfRange", "field", c.Field, "min", -maxDays, "max", maxDays)
	}
	return n, nil
}

// daysAgo is the date n days before today: what a days value n of a column
// compares with its date column.
func daysAgo(n any) exp.Expression { return goqu.L("current_date - ?::int", n) }

// daysCond is a filter on a days column as a range of its date column, so
// the date's index serves it: more than n days is a date before today - n.
func daysCond(col *Column, c Cond) (exp.Expression, error) {
	id := goqu.I(col.Column)
	values := func(v any) ([]any, error) {
		list, isList := v.([]any)
		if !isList {
			list = []any{v}
		}
		out := make([]any, len(list))
		for i, x := range list {
			if x == nil {
				return nil, Invalid("Filters", "Filter on %s: %s needs a value.", c.Field, c.Op).With("filter.needsValue", "field", c.Field, "op", c.Op)
			}
			n, err := col.ParseValue(x)
			if err != nil {
				return nil, err
			}
			out[i] = n
		}
		return out, nil
	}
	switch c.Op {
	case OpIsEmpty:
		return id.IsNull(), nil
	case OpIsNotEmpty:
		return id.IsNotNull(), nil
	case OpBetween:
		pair, ok := c.Value.([]any)
		if !ok || len(pair) != 2 {
			return nil, Invalid("Filters", "Filter on %s: between needs a value of two elements [from, to].", c.Field).With("filter.between", "field", c.Field)
		}
		ns, err := values(pair)
		if err != nil {
			return nil, err
		}
		return goqu.And(id.Gte(daysAgo(ns[1])), id.Lte(daysAgo(ns[0]))), nil
	case OpIn:
		list, ok := c.Value.([]any)
		if !ok || len(list) == 0 || len(list) > maxInValues {
			return nil, Invalid("Filters", "Filter on %s: in needs a list of 1 to %d values.", c.Field, maxInValues).With("filter.in", "field", c.Field, "max", maxInValues)
		}
		ns, err := values(list)
		if err != nil {
			return nil, err
		}
		dates := make([]any, len(ns))
		for i, n := range ns {
			dates[i] = daysAgo(n)
		}
		return id.In(dates...), nil
	}
	if _, isList := c.Value.([]any); isList {
		return nil, Invalid("Filters", "Filter on %s: %s takes one value.", c.Field, c.Op).With("filter.oneValue", "field", c.Field, "op", c.Op)
	}
	ns, err := values(c.Value)
	if err != nil {
		return nil, err
	}
	d := daysAgo(ns[0])
	switch c.Op {
	case OpEquals:
		return id.Eq(d), nil
	case OpLt: // fewer days: a later date
		return id.Gt(d), nil
	case OpLte:
		return id.Gte(d), nil
	case OpGt:
		return id.Lt(d), nil
	case OpGte:
		return id.Lte(d), nil
	}
	return nil, Invalid("Filters", "Filter on %s: operator %q is not available for this column.", c.Field, c.Op).With("filter.operator", "field", c.Field, "op", c.Op)
}
