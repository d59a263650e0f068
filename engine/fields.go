package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/doug-martin/goqu/v9"
	"github.com/doug-martin/goqu/v9/exp"
	"github.com/jackc/pgx/v5/pgtype"

	"ledgerdesk/internal/decimal"
)

// FieldType is one entry of the type registry: everything the engine does
// differently per type lives here - the filter operators it accepts, how a
// client value is parsed and checked, how a database value is shown in JSON,
// which PostgreSQL types may back it, and how an export cell is written.
type FieldType struct {
	Name string
	// Ops are the filter operators the type accepts.
	Ops []string
	// parse turns a JSON value (string, number, bool) into the value bound as
	// a query parameter, checking the column's limits.
	parse func(c *Column, v any) (any, error)
	// SQLTypes are the catalogue types (information_schema data_type) a
	// column of this type may have.
	SQLTypes []string
	// UIType is the type the UI renders and filters the column as (the
	// type's own name when empty).
	UIType string
}

// uiType is the type the UI is told for a column of type name.
func uiType(name string) string {
	if t := Types[name]; t != nil && t.UIType != "" {
		return t.UIType
	}
	return name
}

// Filter operators.
const (
	OpContains   = "contains"
	OpStartsWith = "startsWith"
	OpEndsWith   = "endsWith"
	OpEquals     = "equals"
	OpNotEquals  = "notEquals"
	OpLt         = "lt"
	OpLte        = "lte"
	OpGt         = "gt"
	OpGte        = "gte"
	OpBetween    = "between"
	OpIn         = "in"
	OpIsEmpty    = "isEmpty"
	OpIsNotEmpty = "isNotEmpty"
)

var (
	rangeOps = []string{OpEquals, OpNotEquals, OpLt, OpLte, OpGt, OpGte, OpBetween, OpIn, OpIsEmpty, OpIsNotEmpty}
	textOps  = []string{OpContains, OpStartsWith, OpEndsWith, OpEquals, OpNotEquals, OpIn, OpIsEmpty, OpIsNotEmpty}
)

// Types is the registry.
var Types = map[string]*FieldType{
	"text": {Name: "text", Ops: textOps, parse: parseText,
		SQLTypes: []string{"text", "character varying", "character"}},
	"enum": {Name: "enum", Ops: []string{OpEquals, OpNotEquals, OpIn, OpIsEmpty, OpIsNotEmpty}, parse: parseEnum,
		SQLTypes: []string{"text", "character varying", "character", "smallint", "integer"}},
	"int": {Name: "int", Ops: rangeOps, parse: parseInt,
		SQLTypes: []string{"smallint", "integer", "bigint"}},
	"decimal": {Name: "decimal", Ops: rangeOps, parse: parseDecimal,
		SQLTypes: []string{"numeric"}},
	"date": {Name: "date", Ops: rangeOps, parse: parseDate,
		SQLTypes: []string{"date"}},
	"datetime": {Name: "datetime", Ops: rangeOps, parse: parseDateTime,
		SQLTypes: []string{"timestamp with time zone", "timestamp without time zone"}},
	"bool": {Name: "bool", Ops: []string{OpEquals, OpIsEmpty, OpIsNotEmpty}, parse: parseBool,
		SQLTypes: []string{"boolean"}},
	// days: the whole days from a date column to today (an item's age; a
	// negative number is a date still ahead). Shown and filtered as a
	// number, served by the date column's index: a sort by days is the
	// date's sort reversed, a filter on days a range of dates.
	"days": {Name: "days", Ops: []string{OpEquals, OpLt, OpLte, OpGt, OpGte, OpBetween, OpIn, OpIsEmpty, OpIsNotEmpty},
		parse: parseDays, SQLTypes: []string{"date"}, UIType: "int"},
}

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

func (t *FieldType) allows(op string) bool {
	for _, o := range t.Ops {
		if o == op {
			return true
		}
	}
	return false
}

// ParseValue turns a client value for column c into a query parameter, or
// an Invalid error naming the field. nil stays nil (SQL NULL).
func (c *Column) ParseValue(v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	return Types[c.Type].parse(c, v)
}

func asString(c *Column, v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case json.Number:
		return x.String(), nil
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), nil
	case bool:
		return strconv.FormatBool(x), nil
	case int:
		return strconv.Itoa(x), nil
	case int32:
		return strconv.FormatInt(int64(x), 10), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	}
	return "", Invalid(c.Field, "%s: unexpected value %v.", c.Field, v).With("field.format", "field", c.Field)
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

// jsonValue turns a value scanned from PostgreSQL into its JSON form for
// column c: decimals as exact strings with the column's scale, dates as
// yyyy-MM-dd, times as RFC 3339 in UTC.
func (c *Column) jsonValue(v any) any {
	if v == nil {
		return nil
	}
	switch c.Type {
	case "decimal":
		if n, ok := v.(pgtype.Numeric); ok {
			return numericString(n, c.Scale)
		}
	case "date":
		if t, ok := v.(time.Time); ok {
			return t.Format("2006-01-02")
		}
		return infinity(v)
	case "datetime":
		if t, ok := v.(time.Time); ok {
			return t.UTC().Format(time.RFC3339Nano)
		}
		return infinity(v)
	case "enum":
		if c.EnumInt {
			return fmt.Sprint(v)
		}
	}
	return v
}

// infinity spells PostgreSQL's infinite dates and timestamps as it does.
func infinity(v any) any {
	switch v {
	case pgtype.Infinity:
		return "infinity"
	case pgtype.NegativeInfinity:
		return "-infinity"
	}
	return v
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

func abs(n int32) int32 {
	if n < 0 {
		return -n
	}
	return n
}
