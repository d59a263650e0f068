package engine

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/doug-martin/goqu/v9"
	"github.com/doug-martin/goqu/v9/exp"
)

// Cond is one column filter: {field, op, value}. Between takes value as a
// two-element array, in an array of up to maxInValues.
type Cond struct {
	Field string `json:"field"`
	Op    string `json:"op"`
	Value any    `json:"value"`
}

// Where is a filter in disjunctive form: the groups are ORed, the conditions
// inside a group ANDed. Structured Filters make one group; the legacy text
// grammar may make several.
type Where [][]Cond

const maxInValues = 100

// ParseFilterText reads the legacy Filter text of the spec in its strict
// grammar: comparisons `Field op 'value'` joined by AND / OR, where op is
// = <> != < <= > >= LIKE or NOT LIKE, or `Field IS [NOT] NULL`. LIKE patterns
// may only put % at the start, the end or both (contains, startsWith,
// endsWith). AND binds tighter than OR; parentheses are not accepted.
// Anything else is an Invalid error.
func ParseFilterText(s string) (Where, error) {
	toks, err := lex(s)
	if err != nil {
		return nil, err
	}
	if len(toks) == 0 {
		return nil, nil
	}
	p := &parser{toks: toks}
	var where Where
	group := []Cond{}
	for {
		c, err := p.comparison()
		if err != nil {
			return nil, err
		}
		group = append(group, c)
		if p.done() {
			break
		}
		switch kw := p.next(); {
		case kw.is("AND"):
		case kw.is("OR"):
			where = append(where, group)
			group = []Cond{}
		default:
			return nil, filterErr("expected AND or OR, found %s", kw.text)
		}
	}
	return append(where, group), nil
}

func filterErr(format string, args ...any) *Error {
	return Invalid("Filter", "Filter: "+format+". Use Field = 'value' joined by AND or OR, or send structured Filters.", args...).With("filter.syntax", "detail", fmt.Sprintf(format, args...))
}

type token struct {
	kind byte // 'i' identifier or keyword, 's' quoted string, 'o' operator
	text string
}

func (t token) is(kw string) bool { return t.kind == 'i' && strings.EqualFold(t.text, kw) }

func lex(s string) ([]token, error) {
	var toks []token
	r := []rune(s)
	for i := 0; i < len(r); {
		c := r[i]
		switch {
		case unicode.IsSpace(c):
			i++
		case c == '\'':
			var b strings.Builder
			i++
			for {
				if i >= len(r) {
					return nil, filterErr("a quoted value is not closed")
				}
				if r[i] == '\'' {
					if i+1 < len(r) && r[i+1] == '\'' { // '' is a quote inside a value
						b.WriteRune('\'')
						i += 2
						continue
					}
					i++
					break
				}
				b.WriteRune(r[i])
				i++
			}
			toks = append(toks, token{'s', b.String()})
		case c == '_' || unicode.IsLetter(c):
			j := i
			for j < len(r) && (r[j] == '_' || unicode.IsLetter(r[j]) || unicode.IsDigit(r[j])) {
				j++
			}
			toks = append(toks, token{'i', string(r[i:j])})
			i = j
		case strings.ContainsRune("=<>!", c):
			j := i + 1
			if j < len(r) && strings.ContainsRune("=>", r[j]) {
				j++
			}
			op := string(r[i:j])
			switch op {
			case "=", "<>", "!=", "<", "<=", ">", ">=":
			default:
				return nil, filterErr("unknown operator %s", op)
			}
			toks = append(toks, token{'o', op})
			i = j
		default:
			return nil, filterErr("unexpected character %q", c)
		}
	}
	return toks, nil
}

type parser struct {
	toks []token
	pos  int
}

func (p *parser) done() bool { return p.pos >= len(p.toks) }

func (p *parser) next() token {
	if p.done() {
		return token{kind: 'e', text: "the end"}
	}
	t := p.toks[p.pos]
	p.pos++
	return t
}

func (p *parser) comparison() (Cond, error) {
	f := p.next()
	if f.kind != 'i' || f.is("AND") || f.is("OR") || f.is("NOT") {
		return Cond{}, filterErr("expected a field name, found %s", f.text)
	}
	c := Cond{Field: f.text}
	op := p.next()
	switch {
	case op.kind == 'o':
		c.Op = map[string]string{"=": OpEquals, "<>": OpNotEquals, "!=": OpNotEquals, "<": OpLt, "<=": OpLte, ">": OpGt, ">=": OpGte}[op.text]
		v := p.next()
		if v.kind != 's' {
			return Cond{}, filterErr("the value after %s %s must be in single quotes", f.text, op.text)
		}
		c.Value = v.text
	case op.is("LIKE"), op.is("NOT"):
		if op.is("NOT") {
			if like := p.next(); !like.is("LIKE") {
				return Cond{}, filterErr("expected LIKE after NOT")
			}
			return Cond{}, filterErr("NOT LIKE is not supported")
		}
		v := p.next()
		if v.kind != 's' {
			return Cond{}, filterErr("the pattern after LIKE must be in single quotes")
		}
		pat := v.text
		inner := strings.TrimSuffix(strings.TrimPrefix(pat, "%"), "%")
		if strings.ContainsAny(inner, "%_") {
			return Cond{}, filterErr("a LIKE pattern may only have %% at its start or end")
		}
		switch starts, ends := strings.HasPrefix(pat, "%"), strings.HasSuffix(pat, "%") && len(pat) > 1; {
		case starts && ends:
			c.Op = OpContains
		case starts:
			c.Op = OpEndsWith
		case ends:
			c.Op = OpStartsWith
		default:
			c.Op = OpEquals
		}
		c.Value = inner
	case op.is("IS"):
		c.Op = OpIsEmpty
		n := p.next()
		if n.is("NOT") {
			c.Op = OpIsNotEmpty
			n = p.next()
		}
		if !n.is("NULL") {
			return Cond{}, filterErr("expected NULL after IS")
		}
	default:
		return Cond{}, filterErr("expected an operator after %s, found %s", f.text, op.text)
	}
	return c, nil
}

// likeEscape escapes the LIKE wildcards in a user's search text.
func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// whereExpr turns a validated Where into SQL over the view's columns. Field
// names are looked up in the view (never quoted from client text) and every
// value is a bind parameter.
func (v *View) whereExpr(w Where, msgs *messageTexts) (exp.Expression, error) {
	var groups []exp.Expression
	for _, group := range w {
		var conds []exp.Expression
		for _, c := range group {
			e, err := v.condExpr(c, msgs)
			if err != nil {
				return nil, err
			}
			conds = append(conds, e)
		}
		if len(conds) > 0 {
			groups = append(groups, goqu.And(conds...))
		}
	}
	switch len(groups) {
	case 0:
		return nil, nil
	case 1:
		return groups[0], nil
	}
	return goqu.Or(groups...), nil
}

// filterTarget is what a condition compares: a column, or the text a
// message column shows.
type filterTarget interface {
	exp.Expression
	exp.Comparable
	exp.Inable
	exp.Isable
	exp.Likeable
	exp.Rangeable
}

func (v *View) condExpr(c Cond, msgs *messageTexts) (exp.Expression, error) {
	col := v.column(c.Field)
	if col == nil {
		return nil, Invalid("Filters", "Filter field %q is not a column of %s.", c.Field, v.Name).With("filter.field", "field", c.Field)
	}
	t := col.typ()
	if c.Op == "" {
		c.Op = t.DefaultOp
	}
	if ops := col.Ops(); !slices.Contains(ops, c.Op) {
		if len(ops) == 0 {
			return nil, Invalid("Filters", "The column %s cannot be filtered.", c.Field).With("filter.field", "field", c.Field)
		}
		return nil, Invalid("Filters", "Filter on %s: operator %q is not available for this column (use one of %s).", c.Field, c.Op, strings.Join(ops, ", ")).With("filter.operator", "field", c.Field, "op", c.Op)
	}
	var id filterTarget = goqu.I(col.Column)
	if code, params := v.messageParts(col); code != nil && msgs != nil {
		id = msgs.sql(col, code, params)
	}
	if col.Status != nil && t.Caseless && slices.Contains(labelOps, c.Op) {
		return statusCond(col, c)
	}
	one := func() (any, error) {
		if c.Value == nil {
			return nil, Invalid("Filters", "Filter on %s: %s needs a value.", c.Field, c.Op).With("filter.needsValue", "field", c.Field, "op", c.Op)
		}
		if _, isList := c.Value.([]any); isList {
			return nil, Invalid("Filters", "Filter on %s: %s takes one value.", c.Field, c.Op).With("filter.oneValue", "field", c.Field, "op", c.Op)
		}
		return col.ParseValue(c.Value)
	}
	if t.cond != nil { // the type's own conditions first
		if e, handled, err := t.cond(col, id, c, one); handled {
			return e, err
		}
	}
	switch c.Op {
	case OpIsEmpty, OpIsNotEmpty:
		e := exp.Expression(id.IsNull())
		if c.Op == OpIsNotEmpty {
			return goqu.L("NOT (?)", e), nil
		}
		return e, nil
	case OpContains, OpStartsWith, OpEndsWith:
		val, err := one()
		if err != nil {
			return nil, err
		}
		pat := likeEscape(val.(string))
		switch c.Op {
		case OpContains:
			pat = "%" + pat + "%"
		case OpStartsWith:
			pat += "%"
		default:
			pat = "%" + pat
		}
		return id.ILike(pat), nil
	case OpBetween:
		pair, ok := c.Value.([]any)
		if !ok || len(pair) != 2 {
			return nil, Invalid("Filters", "Filter on %s: between needs a value of two elements [from, to].", c.Field).With("filter.between", "field", c.Field)
		}
		lo, err := col.ParseValue(pair[0])
		if err != nil {
			return nil, err
		}
		hi, err := col.ParseValue(pair[1])
		if err != nil {
			return nil, err
		}
		return id.Between(exp.NewRangeVal(lo, hi)), nil
	case OpIn:
		vals, err := inValues(col, c)
		if err != nil {
			return nil, err
		}
		return id.In(vals...), nil
	}
	val, err := one()
	if err != nil {
		return nil, err
	}
	switch c.Op {
	case OpEquals:
		return id.Eq(val), nil
	case OpNotEquals:
		return goqu.L("? IS DISTINCT FROM ?", id, val), nil
	case OpLt:
		return id.Lt(val), nil
	case OpLte:
		return id.Lte(val), nil
	case OpGt:
		return id.Gt(val), nil
	case OpGte:
		return id.Gte(val), nil
	}
	return nil, Invalid("Filters", "Filter on %s: unknown operator %q.", c.Field, c.Op).With("filter.operator", "field", c.Field, "op", c.Op)
}

// inValues are the parsed values of an in condition: a list of 1 to
// maxInValues.
func inValues(col *Column, c Cond) ([]any, error) {
	list, ok := c.Value.([]any)
	if !ok || len(list) == 0 || len(list) > maxInValues {
		return nil, Invalid("Filters", "Filter on %s: in needs a list of 1 to %d values.", c.Field, maxInValues).With("filter.in", "field", c.Field, "max", maxInValues)
	}
	vals := make([]any, len(list))
	for i, x := range list {
		p, err := col.ParseValue(x)
		if err != nil {
			return nil, err
		}
		vals[i] = p
	}
	return vals, nil
}

// labelOps are the text operators a status column applies to its labels.
var labelOps = []string{OpContains, OpStartsWith, OpEndsWith, OpEquals, OpNotEquals}

// statusCond filters a status column on what the grid shows, its badge
// labels, not on the stored values (an extraction log shows ERROR for any
// value but Success, so "ERROR" must find the rows stored as Failed). The
// label test ignores case; the stored values whose badge passes are kept,
// and when the otherwise badge passes, every value not listed too.
func statusCond(col *Column, c Cond) (exp.Expression, error) {
	want, ok := c.Value.(string)
	if !ok || want == "" {
		return nil, Invalid("Filters", "Filter on %s: %s needs a value.", c.Field, c.Op).With("filter.needsValue", "field", c.Field, "op", c.Op)
	}
	want = strings.ToLower(strings.TrimSpace(want))
	passes := func(label string) bool {
		label = strings.ToLower(label)
		switch c.Op {
		case OpContains:
			return strings.Contains(label, want)
		case OpStartsWith:
			return strings.HasPrefix(label, want)
		case OpEndsWith:
			return strings.HasSuffix(label, want)
		case OpNotEquals:
			return label != want
		}
		return label == want
	}
	id := goqu.I(col.Column)
	var listed, kept []any
	for _, value := range sortedKeys(col.Status.Values) {
		listed = append(listed, value)
		if passes(col.Status.Values[value].Label) {
			kept = append(kept, value)
		}
	}
	var or []exp.Expression
	if len(kept) > 0 {
		or = append(or, id.In(kept...))
	}
	if col.Status.Otherwise != nil && passes(col.Status.Otherwise.Label) {
		or = append(or, id.IsNull())
		if len(listed) > 0 {
			or = append(or, id.NotIn(listed...))
		} else {
			or = append(or, id.IsNotNull())
		}
	}
	if len(or) == 0 {
		return goqu.L("false"), nil
	}
	return goqu.Or(or...), nil
}

func isDateOnly(v any) bool {
	s, ok := v.(string)
	return ok && len(strings.TrimSpace(s)) == 10
}

// column returns the column named field (exact, then case-insensitive).
func (v *View) column(field string) *Column {
	for _, c := range v.Columns {
		if c.Field == field {
			return c
		}
	}
	for _, c := range v.Columns {
		if strings.EqualFold(c.Field, field) {
			return c
		}
	}
	return nil
}

func (c Cond) String() string { return fmt.Sprintf("%s %s %v", c.Field, c.Op, c.Value) }
