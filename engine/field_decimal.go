package engine

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgtype"

	"ledgerdesk/internal/decimal"
)

// decimal: an exact number with its column's scale, the decimals it keeps
// and shows everywhere: the JSON (an exact string, never a float), the
// export (a number cell when a spreadsheet holds it exactly, else its text),
// a form's input (a string read in the user's language) and an edit, which
// refuses more decimals rather than round them.
var _ = register(&FieldType{
	Name: "decimal", Ops: rangeOps, Scaled: true, Bounded: true,
	SQLTypes: []string{"numeric"},
	parse:    parseDecimal,
	json: func(c *Column, v any) any {
		if n, ok := v.(pgtype.Numeric); ok {
			return numericString(n, c.Scale)
		}
		return v
	},
	csv: func(_ *Export, c *Column, v any) (string, bool) {
		n, ok := v.(pgtype.Numeric)
		if !ok {
			return "", false
		}
		s, _ := numericString(n, c.Scale).(string)
		return s, true
	},
	xlsx: func(_ *Export, c *Column, v any) (any, bool) {
		n, ok := v.(pgtype.Numeric)
		if !ok || !n.Valid {
			return nil, false
		}
		s, _ := numericString(n, c.Scale).(string)
		if significantDigits(s) > maxSafeDigits {
			return s, true
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return s, true
		}
		return f, true
	},
	xlsxFormat: func(_ *Export, c *Column) string {
		if c.Scale == 0 {
			return "#,##0"
		}
		return "#,##0." + strings.Repeat("0", c.Scale)
	},
	schema: func(ff *FormField, p, ui map[string]any) {
		// An exact decimal string ("1234.50"), never a JSON number: the UI's
		// decimal widget reads it in the user's language and sends it back
		// as a string, so no float sits between typing and numeric.
		p["type"], p["format"] = "string", "decimal"
		ui["ui:widget"] = "decimal"
		ui["ui:options"] = map[string]any{"scale": ff.col().Scale}
		if ff.Default != nil {
			p["default"] = fmt.Sprint(ff.Default)
		}
	},
	check: func(what string, _ []string, scale *int) []string {
		switch {
		case scale == nil:
			return []string{what + ": a decimal declares its scale (the decimals it keeps and shows)"}
		case *scale < 0 || *scale > maxScale:
			return []string{fmt.Sprintf("%s: scale %d must be from 0 to %d", what, *scale, maxScale)}
		}
		return nil
	},
})

// maxScale bounds a declared scale (PostgreSQL allows 1000; no figure here
// needs more than a rate's eight).
const maxScale = 20

func parseDecimal(c *Column, v any) (any, error) {
	s, err := asString(c, v)
	if err != nil {
		return nil, err
	}
	s = strings.TrimSpace(s)
	r, ok := new(big.Rat).SetString(s)
	if !ok || strings.ContainsAny(s, "/eE") || s == "" {
		return nil, Invalid(c.Field, "%s must be a number with a decimal point (for example 1234.56).", c.Field).With("field.decimalPoint", "field", c.Field)
	}
	if c.intDigits > 0 {
		whole, _, _ := strings.Cut(strings.TrimLeft(s, "+-"), ".")
		if whole = strings.TrimLeft(whole, "0"); len(whole) > c.intDigits {
			return nil, Invalid(c.Field, "%s has more than %d digits before the decimal point.", c.Field, c.intDigits).
				With("grid.numberOutOfRange", "field", c.Field, "digits", c.intDigits)
		}
	}
	if c.limitDecimals {
		// Trailing zeros change nothing; any other decimal past the scale would be rounded away.
		if _, frac, found := strings.Cut(s, "."); found && len(strings.TrimRight(frac, "0")) > c.Scale {
			if c.Scale == 0 {
				return nil, Invalid(c.Field, "%s must be a whole number.", c.Field).With("field.wholeNumber", "field", c.Field)
			}
			return nil, Invalid(c.Field, "%s has more than %d decimals.", c.Field, c.Scale).With("field.decimals", "field", c.Field, "max", c.Scale)
		}
	}
	var n pgtype.Numeric
	if err := n.Scan(r.FloatString(max(c.Scale, decimal.Scale(s)))); err != nil {
		return nil, Invalid(c.Field, "%s is not a valid number.", c.Field).With("field.number", "field", c.Field)
	}
	return n, nil
}

// numericString formats n exactly with scale decimals (rounding half away
// from zero when n has more).
func numericString(n pgtype.Numeric, scale int) any {
	if !n.Valid || n.NaN || n.InfinityModifier != pgtype.Finite {
		return nil
	}
	v, frac := n.Int, 0
	if n.Exp > 0 {
		v = new(big.Int).Mul(v, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n.Exp)), nil))
	} else {
		frac = int(-n.Exp)
	}
	// More decimals than wanted are rounded half away from zero, exactly.
	return decimal.Rescale(v, frac, scale)
}
