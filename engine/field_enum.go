package engine

import (
	"fmt"
	"strconv"
	"strings"
)

// enum: one of the column's values, stored as text or as an integer (then
// shown as its text); a form offers the values as choices, with their
// labels.
var _ = register(&FieldType{
	Name: "enum", Ops: []string{OpEquals, OpNotEquals, OpIn, OpIsEmpty, OpIsNotEmpty},
	SQLTypes: []string{"text", "character varying", "character", "smallint", "integer"},
	parse:    parseEnum,
	stored:   func(c *Column, dataType string) { c.EnumInt = dataType == "smallint" || dataType == "integer" },
	json: func(c *Column, v any) any {
		if c.EnumInt {
			return fmt.Sprint(v)
		}
		return v
	},
	schema: func(ff *FormField, p, _ map[string]any) {
		p["type"] = "string"
		if ff.enumInt {
			p["type"] = "integer"
		}
		var oneOf []map[string]any
		for _, v := range ff.Values {
			title := v
			if l, ok := ff.Labels[v]; ok {
				title = l
			}
			var c any = v
			if ff.enumInt {
				c = atoiOr(v)
			}
			oneOf = append(oneOf, map[string]any{"const": c, "title": title})
		}
		p["oneOf"] = oneOf
	},
	check: func(what string, values []string, _ *int) []string {
		if len(values) == 0 {
			return []string{what + ": an enum needs values"}
		}
		return nil
	},
})

func parseEnum(c *Column, v any) (any, error) {
	s, err := asString(c, v)
	if err != nil {
		return nil, err
	}
	for _, allowed := range c.Values {
		if s == allowed {
			if c.EnumInt {
				n, _ := strconv.Atoi(s)
				return n, nil
			}
			return s, nil
		}
	}
	return nil, Invalid(c.Field, "%s must be one of %s.", c.Field, strings.Join(c.Values, ", ")).With("field.enum", "field", c.Field, "values", strings.Join(c.Values, ", "))
}
