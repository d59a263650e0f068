package engine

import (
	"strings"
	"time"

	"github.com/doug-martin/goqu/v9"
	"github.com/doug-martin/goqu/v9/exp"
)

// datetime: a point in time, RFC 3339 in UTC in JSON and the wall-clock
// time in the user's zone in an export (its header names the zone). A bare
// date as a filter value means that whole day.
var _ = register(&FieldType{
	Name: "datetime", Ops: rangeOps, Instant: true,
	SQLTypes: []string{"timestamp with time zone", "timestamp without time zone"},
	parse:    parseDateTime,
	json: func(_ *Column, v any) any {
		if t, ok := v.(time.Time); ok {
			return t.UTC().Format(time.RFC3339Nano)
		}
		return infinity(v)
	},
	csv: func(x *Export, _ *Column, v any) (string, bool) {
		t, ok := v.(time.Time)
		return t.In(x.zone).Format(x.timeLayout), ok
	},
	xlsx: func(x *Export, _ *Column, v any) (any, bool) {
		t, ok := v.(time.Time)
		if !ok {
			return nil, false
		}
		local := t.In(x.zone)
		return time.Date(local.Year(), local.Month(), local.Day(), local.Hour(), local.Minute(), local.Second(), local.Nanosecond(), time.UTC), true
	},
	xlsxFormat: func(x *Export, _ *Column) string { return excelDateFormat(x.dateFormat, true) },
	schema:     func(_ *FormField, p, _ map[string]any) { p["type"], p["format"] = "string", "date-time" },
	cond:       dateTimeCond,
})

// dateTimeCond: a date against a timestamp means the whole day (to a date,
// to the end of that day).
func dateTimeCond(col *Column, id filterTarget, c Cond, one func() (any, error)) (exp.Expression, bool, error) {
	if c.Op == OpBetween {
		pair, ok := c.Value.([]any)
		if !ok || len(pair) != 2 || !isDateOnly(pair[1]) {
			return nil, false, nil
		}
		lo, err := col.ParseValue(pair[0])
		if err != nil {
			return nil, true, err
		}
		hi, err := col.ParseValue(pair[1])
		if err != nil {
			return nil, true, err
		}
		return goqu.And(id.Gte(lo), id.Lt(hi.(time.Time).AddDate(0, 0, 1))), true, nil
	}
	if !isDateOnly(c.Value) {
		return nil, false, nil
	}
	switch c.Op {
	case OpEquals, OpNotEquals, OpLte, OpGt:
	default:
		return nil, false, nil
	}
	val, err := one()
	if err != nil {
		return nil, true, err
	}
	day := val.(time.Time)
	next := day.AddDate(0, 0, 1)
	switch c.Op {
	case OpEquals:
		return goqu.And(id.Gte(day), id.Lt(next)), true, nil
	case OpNotEquals:
		return goqu.Or(id.Lt(day), id.Gte(next), id.IsNull()), true, nil
	case OpLte:
		return id.Lt(next), true, nil
	}
	return id.Gte(next), true, nil // OpGt
}

func parseDateTime(c *Column, v any) (any, error) {
	s, err := asString(c, v)
	if err != nil {
		return nil, err
	}
	s = strings.TrimSpace(s)
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return nil, Invalid(c.Field, "%s must be a date and time (yyyy-MM-ddTHH:mm:ssZ) or a date (yyyy-MM-dd).", c.Field).With("field.datetime", "field", c.Field)
}
