package engine

import (
	"strings"
	"time"
)

// date: a day, yyyy-MM-dd in JSON and in the user's date format in an
// export (a date cell in a spreadsheet).
var _ = register(&FieldType{
	Name: "date", Ops: rangeOps,
	SQLTypes: []string{"date"},
	parse:    parseDate,
	json: func(_ *Column, v any) any {
		if t, ok := v.(time.Time); ok {
			return t.Format("2006-01-02")
		}
		return infinity(v)
	},
	csv: func(x *Export, _ *Column, v any) (string, bool) {
		t, ok := v.(time.Time)
		return t.Format(x.dateLayout), ok
	},
	xlsx: func(_ *Export, _ *Column, v any) (any, bool) {
		t, ok := v.(time.Time)
		return t, ok
	},
	xlsxFormat: func(x *Export, _ *Column) string { return excelDateFormat(x.dateFormat, false) },
	schema:     func(_ *FormField, p, _ map[string]any) { p["type"], p["format"] = "string", "date" },
})

func parseDate(c *Column, v any) (any, error) {
	s, err := asString(c, v)
	if err != nil {
		return nil, err
	}
	s = strings.TrimSpace(s)
	if len(s) > 10 { // a full timestamp: the date part counts
		if t, err := time.Parse(time.RFC3339, s); err == nil {
			return t.UTC().Format("2006-01-02"), nil
		}
	}
	t, err := time.Parse("2006-01-02", s)
	if err != nil || t.Year() < 1900 || t.Year() > 9999 {
		return nil, Invalid(c.Field, "%s must be a date as yyyy-MM-dd.", c.Field).With("field.date", "field", c.Field)
	}
	return t.Format("2006-01-02"), nil
}
