package engine

import (
	"context"
	"database/sql/driver"
	"fmt"
	"strings"

	"github.com/doug-martin/goqu/v9"
	"github.com/doug-martin/goqu/v9/exp"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Param is a declared, typed parameter of a view whose source is a
// set-returning SQL function (a report): the function takes the parameters
// in the order declared, and the client sends their values by name in the
// grid request's Params. Values are parsed by the field-type registry and
// bound, never written into SQL.
type Param struct {
	Name     string `yaml:"name" json:"name"`
	Type     string `yaml:"type" json:"type"` // text, int, decimal, date, bool, enum
	List     bool   `yaml:"list" json:"list,omitempty"`
	Required bool   `yaml:"required" json:"required,omitempty"`
	// NotBefore names another date parameter this one may not precede (a
	// date range's end).
	NotBefore   string   `yaml:"notBefore" json:"notBefore,omitempty"`
	MaxLength   int      `yaml:"maxLength" json:"maxLength,omitempty"`
	Pattern     string   `yaml:"pattern" json:"pattern,omitempty"`
	PatternHint string   `yaml:"patternHint" json:"patternHint,omitempty"`
	Values      []string `yaml:"values" json:"values,omitempty"`
	Label       string   `yaml:"label" json:"label,omitempty"` // translation key

	column *Column
}

// paramSQLTypes is the SQL type a parameter of each field type is bound as.
var paramSQLTypes = map[string]string{"text": "text", "enum": "text", "int": "bigint", "decimal": "numeric", "date": "date", "bool": "boolean"}

func (p *Param) col() *Column {
	if p.column == nil {
		p.column = &Column{Field: p.Name, Column: p.Name, Type: p.Type, MaxLength: p.MaxLength, Pattern: p.Pattern,
			PatternHint: p.PatternHint, Values: p.Values}
		p.column.pattern = compilePattern(p.Pattern)
	}
	return p.column
}

// sqlType is the parameter's type in the function call, e.g. text[].
func (p *Param) sqlType() string {
	t := paramSQLTypes[p.Type]
	if p.List {
		t += "[]"
	}
	return t
}

// checkParams reports what is wrong with a view's parameters.
func (v *View) checkParams() []string {
	var problems []string
	names := map[string]*Param{}
	for i, p := range v.Params {
		if p == nil {
			problems = append(problems, fmt.Sprintf("param %d is empty", i+1))
			continue
		}
		if !plainName.MatchString(p.Name) {
			problems = append(problems, fmt.Sprintf("param %d: name %q must be a plain name", i+1, p.Name))
		}
		if _, ok := paramSQLTypes[p.Type]; !ok {
			problems = append(problems, fmt.Sprintf("param %s: unknown type %q (text, int, decimal, date, bool, enum)", p.Name, p.Type))
		}
		if p.List && p.Type != "text" && p.Type != "enum" && p.Type != "int" && p.Type != "date" {
			problems = append(problems, fmt.Sprintf("param %s: a list holds text, enum, int or date values", p.Name))
		}
		problems = append(problems, checkText("param "+p.Name, p.Type, 0, p.MaxLength, p.Pattern, nil)...)
		if _, dup := names[p.Name]; dup {
			problems = append(problems, fmt.Sprintf("param %s appears twice", p.Name))
		}
		names[p.Name] = p
	}
	for _, p := range v.Params {
		if p != nil && p.NotBefore != "" {
			if other := names[p.NotBefore]; other == nil || other.Type != "date" || p.Type != "date" {
				problems = append(problems, fmt.Sprintf("param %s: notBefore %q must name another date param", p.Name, p.NotBefore))
			}
		}
	}
	return problems
}

// sqlList is a list parameter bound as a PostgreSQL array literal (goqu
// would spread a Go slice into a list of placeholders).
type sqlList []string

// Value writes the array literal, every element quoted.
func (l sqlList) Value() (driver.Value, error) {
	var b strings.Builder
	b.WriteByte('{')
	esc := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	for i, s := range l {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('"')
		b.WriteString(esc.Replace(s))
		b.WriteByte('"')
	}
	b.WriteByte('}')
	return b.String(), nil
}

// paramArgs parses the request's parameter values in declaration order: a
// missing or empty optional value is NULL, a missing required one, an
// unknown name or a bad value is an Invalid error naming the parameter.
func (v *View) paramArgs(values map[string]any) ([]any, error) {
	declared := map[string]bool{}
	for _, p := range v.Params {
		declared[p.Name] = true
	}
	for name := range values {
		if !declared[name] {
			return nil, Invalid(name, "%s is not a parameter of %s.", name, v.Name).With("grid.unknownParam", "param", name)
		}
	}
	args := make([]any, len(v.Params))
	parsed := map[string]string{}
	for i, p := range v.Params {
		val, err := p.parse(values[p.Name])
		if err != nil {
			return nil, err
		}
		if val == nil && p.Required {
			return nil, Invalid(p.Name, "%s is required.", p.Name).With("grid.paramRequired", "param", p.Name)
		}
		if s, ok := val.(string); ok {
			parsed[p.Name] = s
		}
		args[i] = val
	}
	for _, p := range v.Params {
		if p.NotBefore != "" && parsed[p.Name] != "" && parsed[p.NotBefore] != "" && parsed[p.Name] < parsed[p.NotBefore] {
			return nil, Invalid(p.Name, "%s cannot be earlier than %s.", p.Name, p.NotBefore).
				With("grid.paramBefore", "param", p.Name, "other", p.NotBefore)
		}
	}
	return args, nil
}

// parse turns one client value into a bound value (nil for none).
func (p *Param) parse(v any) (any, error) {
	if !p.List {
		if s, ok := v.(string); ok && strings.TrimSpace(s) == "" {
			return nil, nil
		}
		return p.col().ParseValue(v)
	}
	if v == nil {
		return nil, nil
	}
	items, ok := v.([]any)
	if !ok {
		return nil, Invalid(p.Name, "%s must be a list.", p.Name).With("grid.paramList", "param", p.Name)
	}
	if len(items) > 1000 {
		return nil, Invalid(p.Name, "%s holds at most 1000 values.", p.Name).With("grid.paramListLength", "param", p.Name)
	}
	if len(items) == 0 {
		return nil, nil
	}
	out := make(sqlList, 0, len(items))
	for _, item := range items {
		val, err := p.col().ParseValue(item)
		if err != nil {
			return nil, err
		}
		if val == nil {
			return nil, Invalid(p.Name, "%s cannot hold an empty value.", p.Name).With("grid.paramList", "param", p.Name)
		}
		out = append(out, fmt.Sprint(val))
	}
	return out, nil
}

// from is what a grid reads: its source, or for a report the call of its
// function with the bound parameters.
func (v *View) from(args []any) exp.Expression {
	if len(v.Params) == 0 {
		return goqu.I(v.Source)
	}
	marks := make([]string, len(v.Params))
	for i, p := range v.Params {
		marks[i] = "?::" + p.sqlType()
	}
	// The name and types come from validated metadata, never from a client.
	return goqu.L(v.Source+"("+strings.Join(marks, ", ")+")", args...).As("report")
}

// loadFunctions reads the set-returning functions of the current schema:
// their input argument types and result columns, in the shape the
// catalogue has for tables and views.
func loadFunctions(ctx context.Context, pool *pgxpool.Pool) (map[string]*function, error) {
	rows, err := pool.Query(ctx, `
		select p.proname, a.name, format_type(a.type, null), a.mode
		from pg_proc p
		cross join lateral unnest(coalesce(p.proargnames, array[]::text[]), p.proallargtypes::oid[], p.proargmodes::text[])
		     with ordinality as a(name, type, mode, ord)
		where p.pronamespace = current_schema()::regnamespace and p.proretset and p.proallargtypes is not null
		order by p.proname, a.ord`)
	if err != nil {
		return nil, fmt.Errorf("read the database functions: %w", err)
	}
	defer rows.Close()
	out := map[string]*function{}
	for rows.Next() {
		var fn, name, typ, mode string
		if err := rows.Scan(&fn, &name, &typ, &mode); err != nil {
			return nil, err
		}
		f := out[fn]
		if f == nil {
			f = &function{columns: map[string]catalogColumn{}}
			out[fn] = f
		}
		switch mode {
		case "i":
			f.args = append(f.args, typ)
		case "t", "o":
			f.columns[name] = catalogColumn{dataType: typ, nullable: true}
		}
	}
	return out, rows.Err()
}

// function is a set-returning function of the catalogue.
type function struct {
	args    []string
	columns map[string]catalogColumn
}

// checkFunction reports where a report view's parameters disagree with its
// function's arguments.
func (v *View) checkFunction(f *function) []string {
	if len(f.args) != len(v.Params) {
		return []string{fmt.Sprintf("source %s takes %d arguments, the view declares %d params", v.Source, len(f.args), len(v.Params))}
	}
	var problems []string
	for i, p := range v.Params {
		if f.args[i] != p.sqlType() && !(p.sqlType() == "text" && f.args[i] == "character varying") {
			problems = append(problems, fmt.Sprintf("param %s: the function's argument %d is %s, the param is %s", p.Name, i+1, f.args[i], p.sqlType()))
		}
	}
	return problems
}
