package engine

import (
	"errors"
	"strconv"
	"strings"
)

// int: a whole number within its column's width (smallint, integer,
// bigint); a value past it is bad input, not a database error.
var _ = register(&FieldType{
	Name: "int", Ops: rangeOps, Bounded: true,
	SQLTypes: []string{"smallint", "integer", "bigint"},
	parse:    parseInt,
	csv: func(_ *Export, _ *Column, v any) (string, bool) {
		switch n := v.(type) {
		case int64:
			return strconv.FormatInt(n, 10), true
		case int32:
			return strconv.FormatInt(int64(n), 10), true
		case int16:
			return strconv.FormatInt(int64(n), 10), true
		}
		return "", false
	},
	xlsx:   func(_ *Export, _ *Column, v any) (any, bool) { return v, true },
	schema: func(_ *FormField, p, _ map[string]any) { p["type"] = "integer" },
})

func parseInt(c *Column, v any) (any, error) {
	s, err := asString(c, v)
	if err != nil {
		return nil, err
	}
	bits := c.intBits
	if bits == 0 {
		bits = 64
	}
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, bits)
	if errors.Is(err, strconv.ErrRange) {
		limit := int64(1)<<(bits-1) - 1
		return nil, Invalid(c.Field, "%s must be a whole number from %d to %d.", c.Field, -limit-1, limit).
			With("grid.numberOutOfRange", "field", c.Field, "min", -limit-1, "max", limit)
	}
	if err != nil {
		return nil, Invalid(c.Field, "%s must be a whole number.", c.Field).With("field.wholeNumber", "field", c.Field)
	}
	return n, nil
}
