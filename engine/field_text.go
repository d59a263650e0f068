package engine

import (
	"strings"

	"github.com/doug-martin/goqu/v9"
	"github.com/doug-martin/goqu/v9/exp"
)

// text: compared, sorted and indexed ignoring case (on lower(column)), an
// empty text counts as empty, contains, startsWith and endsWith are served by
// a trigram index, and an export cell is neutralised against formulas.
var _ = register(&FieldType{
	Name: "text", Ops: textOps, DefaultOp: OpContains, Caseless: true, Typed: true,
	SQLTypes: []string{"text", "character varying", "character"},
	parse:    parseText,
	csv: func(_ *Export, _ *Column, v any) (string, bool) {
		s, ok := v.(string)
		return neutralise(s), ok
	},
	xlsx: func(_ *Export, _ *Column, v any) (any, bool) {
		s, ok := v.(string)
		return s, ok
	},
	schema: func(ff *FormField, p, _ map[string]any) {
		p["type"] = "string"
		if ff.MaxLength > 0 {
			p["maxLength"] = ff.MaxLength
		}
		if ff.MinLength > 0 {
			p["minLength"] = ff.MinLength
		}
		if ff.Pattern != "" {
			p["pattern"] = "^(?:" + ff.Pattern + ")$"
		}
	},
	sort: func(c *Column) (exp.Orderable, bool) { return goqu.Func("lower", goqu.I(c.Column)), false },
	cond: textCond,
})

var textOps = []string{OpContains, OpStartsWith, OpEndsWith, OpEquals, OpNotEquals, OpIn, OpIsEmpty, OpIsNotEmpty}

// textCond: equality, in and the empty tests ignore case, on lower(), so one
// index serves them all ("gbp" finds GBP).
func textCond(col *Column, id filterTarget, c Cond, one func() (any, error)) (exp.Expression, bool, error) {
	switch c.Op {
	case OpIsEmpty, OpIsNotEmpty:
		low := goqu.Func("lower", id)
		e := exp.Expression(goqu.Or(low.IsNull(), low.Eq("")))
		if c.Op == OpIsNotEmpty {
			// The column's own "is not null" first: the planner knows from
			// its statistics how few rows have a value (40 statement
			// warnings in 2,000,000 rows), where the negation alone of the
			// test on lower() reads as nearly all of them, and a page of
			// the few was then looked for along the sort's whole index.
			e = goqu.L("? IS NOT NULL AND NOT (?)", id, e)
		}
		return e, true, nil
	case OpIn:
		vals, err := inValues(col, c)
		if err != nil {
			return nil, true, err
		}
		for i, v := range vals {
			vals[i] = goqu.Func("lower", v)
		}
		return goqu.Func("lower", id).In(vals...), true, nil
	case OpEquals, OpNotEquals:
		val, err := one()
		if err != nil {
			return nil, true, err
		}
		if c.Op == OpEquals {
			return goqu.L("lower(?) = lower(?)", id, val), true, nil
		}
		return goqu.L("lower(?) IS DISTINCT FROM lower(?)", id, val), true, nil
	}
	return nil, false, nil
}

func parseText(c *Column, v any) (any, error) {
	s, ok := v.(string)
	if !ok {
		return nil, Invalid(c.Field, "%s must be text.", c.Field).With("field.text", "field", c.Field)
	}
	if c.MaxLength > 0 && len([]rune(s)) > c.MaxLength {
		return nil, Invalid(c.Field, "%s must be at most %d characters.", c.Field, c.MaxLength).With("field.maxLength", "field", c.Field, "max", c.MaxLength)
	}
	if c.MinLength > 0 && len([]rune(s)) < c.MinLength {
		return nil, Invalid(c.Field, "%s must be at least %d characters.", c.Field, c.MinLength).With("field.minLength", "field", c.Field, "min", c.MinLength)
	}
	if c.pattern != nil && !c.pattern.MatchString(s) {
		if c.PatternHint != "" {
			return nil, Invalid(c.Field, "%s must be %s.", c.Field, c.PatternHint).With("field.pattern", "field", c.Field, "hint", c.PatternHint)
		}
		return nil, Invalid(c.Field, "%s has the wrong format.", c.Field).With("field.format", "field", c.Field)
	}
	if strings.ContainsRune(s, 0) {
		return nil, Invalid(c.Field, "%s contains a NUL character.", c.Field).With("field.nul", "field", c.Field)
	}
	return s, nil
}
