package engine

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"github.com/doug-martin/goqu/v9/exp"
	"github.com/jackc/pgx/v5/pgtype"
)

// FieldType is one entry of the type registry: everything the engine does
// differently per type lives with the type, one file each (field_text.go,
// field_decimal.go, ...), as PocketBase's field types do: the filter
// operators it accepts, how a client value is parsed and checked, how a
// database value is written as JSON and as an export cell, which PostgreSQL
// types may back it, its form schema, its sort and its filter conditions.
// The rest of the engine asks the type; only a few rules name the type they
// require (a message column is text, a version column a datetime or an int).
type FieldType struct {
	Name string
	// Ops are the filter operators the type accepts; DefaultOp is the one a
	// condition without an operator means.
	Ops       []string
	DefaultOp string
	// SQLTypes are the catalogue types (information_schema data_type) a
	// column of this type may have.
	SQLTypes []string
	// UIType is the type the UI renders and filters the column as (the
	// type's own name when empty).
	UIType string
	// Caseless: compared, sorted and indexed on lower(column) ("gbp" finds
	// GBP), and contains, startsWith and endsWith are served by a trigram
	// index.
	Caseless bool
	// Instant: a point in time; an equality filter on it is a range (a day),
	// so an index made for equality on demand cannot serve it.
	Instant bool
	// Typed: text a user types, which lengths, patterns and transforms check.
	Typed bool
	// Scaled: a column declares its scale (the decimals kept and shown).
	// Bounded: min and max apply.
	Scaled, Bounded bool

	// parse turns a JSON value (string, number, bool) into the value bound as
	// a query parameter, checking the column's limits.
	parse func(c *Column, v any) (any, error)
	// json writes a value scanned from PostgreSQL as its JSON value (nil:
	// the value as scanned).
	json func(c *Column, v any) any
	// csv and xlsx write an export cell (ok false: the JSON value as text).
	csv        func(x *Export, c *Column, v any) (string, bool)
	xlsx       func(x *Export, c *Column, v any) (any, bool)
	xlsxFormat func(x *Export, c *Column) string // the cell's number format, if any
	// schema fills a form field's JSON Schema property and its uiSchema.
	schema func(ff *FormField, prop, ui map[string]any)
	// sort is what a sort on the column orders by and whether that runs
	// the other way (nil: the column as it is).
	sort func(c *Column) (e exp.Orderable, reversed bool)
	// read is what a page selects for the column (nil: the column).
	read func(c *Column) exp.Aliaseable
	// cond builds the type's own filter conditions; handled false leaves
	// the operator to the common ones (filter.go). one parses the single
	// value the operator takes.
	cond func(col *Column, id filterTarget, c Cond, one func() (any, error)) (e exp.Expression, handled bool, err error)
	// stored tells the column how the database stores it (its catalogue
	// data type): an enum in an integer column.
	stored func(c *Column, dataType string)
	// check reports what a column of the type must declare (an enum's
	// values, a decimal's scale).
	check func(what string, values []string, scale *int) []string
}

// Types is the registry, filled by the type files.
var Types = map[string]*FieldType{}

func register(t *FieldType) *FieldType {
	if t.DefaultOp == "" {
		t.DefaultOp = OpEquals
	}
	Types[t.Name] = t
	return t
}

// TypeNames are the registered types' names, sorted (for messages).
func TypeNames() string {
	names := make([]string, 0, len(Types))
	for n := range Types {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// typ is the column's type (nil for an unknown name: the structural checks
// report it before anything asks).
func (c *Column) typ() *FieldType { return Types[c.Type] }

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

// rangeOps are the operators of the ordered types.
var rangeOps = []string{OpEquals, OpNotEquals, OpLt, OpLte, OpGt, OpGte, OpBetween, OpIn, OpIsEmpty, OpIsNotEmpty}

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
	return c.typ().parse(c, v)
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

// jsonValue turns a value scanned from PostgreSQL into its JSON form for
// column c (its type's json; decimals as exact strings with the column's
// scale, dates as yyyy-MM-dd, times as RFC 3339 in UTC).
func (c *Column) jsonValue(v any) any {
	if v == nil {
		return nil
	}
	if t := c.typ(); t != nil && t.json != nil {
		return t.json(c, v)
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
