package engine

import "strconv"

// bool: true or false.
var _ = register(&FieldType{
	Name: "bool", Ops: []string{OpEquals, OpIsEmpty, OpIsNotEmpty},
	SQLTypes: []string{"boolean"},
	parse:    parseBool,
	xlsx:     func(_ *Export, _ *Column, v any) (any, bool) { return v, true },
	schema:   func(_ *FormField, p, _ map[string]any) { p["type"] = "boolean" },
})

func parseBool(c *Column, v any) (any, error) {
	switch x := v.(type) {
	case bool:
		return x, nil
	case string:
		if b, err := strconv.ParseBool(x); err == nil {
			return b, nil
		}
	}
	return nil, Invalid(c.Field, "%s must be true or false.", c.Field).With("field.bool", "field", c.Field)
}
