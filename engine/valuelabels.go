package engine

import (
	"fmt"
	"regexp"
	"strings"
)

// Value labels: the values of an enum or badge column as the grid shows
// them, in the reader's language, so that an export writes what the reader
// sees (a task's status "In Progress", not its code 2). A badge column
// (status:) shows its badge's label, any other enum the label
// views.<View>.values.<Field>.<value> of the metadata's labels; a value
// without a label is written as it is stored, as the grid shows it.

// valueLabeller turns a column's stored values into their labels in one
// language.
type valueLabeller struct {
	md    *Metadata
	lang  string
	texts Messages // the UI's own texts, which a label may nest as $t(key)
}

// labels are the labels of column c's values, nil when it has none.
func (l valueLabeller) labels(v *View, c *Column) map[string]string {
	out := map[string]string{}
	if c.Status != nil {
		for value, b := range c.Status.Values {
			out[value] = l.text(b.Label)
		}
		return out
	}
	if c.Type != "enum" {
		return nil
	}
	for _, value := range c.Values {
		if text, ok := l.lookup("views." + v.Name + ".values." + c.Field + "." + value); ok {
			out[value] = text
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// otherwise is the badge label of the values a badge column does not list
// ("" when it has no such badge).
func (l valueLabeller) otherwise(c *Column) string {
	if c.Status == nil || c.Status.Otherwise == nil {
		return ""
	}
	return l.text(c.Status.Otherwise.Label)
}

// text is a badge label as shown: a translation key's text, else the label
// itself (a badge may carry its words, as the extraction log's SUCCESS).
func (l valueLabeller) text(key string) string {
	if text, ok := l.lookup(key); ok {
		return text
	}
	return key
}

var nested = regexp.MustCompile(`\$t\(([^)]+)\)`)

// lookup finds key in the language's metadata labels, then the UI's texts,
// then English, resolving the $t(key) nesting i18next understands.
func (l valueLabeller) lookup(key string) (string, bool) {
	text, ok := l.find(key)
	if !ok {
		return "", false
	}
	return nested.ReplaceAllStringFunc(text, func(m string) string {
		if inner, ok := l.find(nested.FindStringSubmatch(m)[1]); ok {
			return inner
		}
		return m
	}), true
}

func (l valueLabeller) find(key string) (string, bool) {
	for _, lang := range []string{l.lang, "en"} {
		if lang == "" {
			continue
		}
		if labels := l.md.Labels[lang]; labels != nil {
			if text, ok := labels.Flat[key]; ok {
				return text, true
			}
		}
		if l.texts != nil {
			if text, ok := l.texts(lang)[key]; ok {
				return text, true
			}
		}
	}
	return "", false
}

// columnLabels are the value labels of an export's columns, by index in
// cols, with each badge column's fallback label; nil when none has any.
type columnLabels struct {
	values    map[int]map[string]string
	otherwise map[int]string
}

func (e *Engine) exportLabels(v *View, cols []*Column, lang string) *columnLabels {
	l := valueLabeller{md: e.Metadata(), lang: lang, texts: e.texts}
	var out *columnLabels
	for i, c := range cols {
		values := l.labels(v, c)
		other := l.otherwise(c)
		if values == nil && other == "" {
			continue
		}
		if out == nil {
			out = &columnLabels{values: map[int]map[string]string{}, otherwise: map[int]string{}}
		}
		out.values[i], out.otherwise[i] = values, other
	}
	return out
}

// label is the label of column i's value v (its JSON form), or v itself.
func (cl *columnLabels) label(i int, c *Column, v any) any {
	if cl == nil {
		return v
	}
	values, ok := cl.values[i]
	if !ok && cl.otherwise[i] == "" {
		return v
	}
	if v == nil { // a badge column shows its fallback badge for no value too
		if other := cl.otherwise[i]; other != "" {
			return other
		}
		return nil
	}
	key := strings.TrimSpace(fmt.Sprint(c.jsonValue(v)))
	if text, ok := values[key]; ok {
		return text
	}
	if other := cl.otherwise[i]; other != "" {
		return other
	}
	return v
}
