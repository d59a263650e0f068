package engine

import (
	"context"
	"encoding/json"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/doug-martin/goqu/v9"
)

// A message column holds a stored server text whose message code and
// parameters sit beside it in the view, as the columns <Field>Code and
// <Field>Params (the extraction log's Description and ErrorDescription).
// The grid shows it in the reader's language (serverMessages.<code> of the
// UI's translations); filters and exports work on that same text, rendered
// in the language of the caller's profile, so that what is found and
// written is what the user reads. A row without a code keeps its stored
// text.

// Messages gives the message texts of a language by code, with {{name}}
// placeholders (the UI's serverMessages); nil for an unknown language.
type Messages func(lang string) map[string]string

// RenderMessage is a stored message as a reader of lang reads it: the text
// of code among texts (Messages(lang)) with params put in, else text; as
// the grid shows message columns and the UI shows server errors.
func RenderMessage(lang string, texts map[string]string, code string, params map[string]any, text string) string {
	b, err := json.Marshal(params)
	if err != nil || params == nil {
		b = nil
	}
	return (&messageTexts{lang: lang, texts: texts}).render(code, string(b), text, "", time.UTC)
}

// messageParts returns the code and params columns of a message column,
// nil when c is not one.
func (v *View) messageParts(c *Column) (code, params *Column) {
	if c.Type != "text" {
		return nil, nil
	}
	code, params = v.column(c.Field+"Code"), v.column(c.Field+"Params")
	if code == nil || params == nil || code.Type != "text" || params.Type != "text" {
		return nil, nil
	}
	return code, params
}

// messageTexts is the caller's language and its message texts: nil when
// the engine has no Messages or the caller no language (stored texts then).
type messageTexts struct {
	lang  string
	texts map[string]string
}

func (e *Engine) messageTexts(ctx context.Context) *messageTexts {
	lang := ActorFrom(ctx).Language
	if e.messages == nil || lang == "" {
		return nil
	}
	texts := e.messages(lang)
	if texts == nil {
		return nil
	}
	return &messageTexts{lang: lang, texts: texts}
}

var placeholder = regexp.MustCompile(`\{\{\s*([A-Za-z0-9_]+)\s*\}\}`)

// render is the text the UI shows for a stored message (client.ts,
// serverMessage): the code's text with its parameters, else the stored
// text; a bare error kind (error.*) leads the stored text in another
// language than English. timeLayout formats timestamp parameters ("" keeps them).
func (m *messageTexts) render(code, paramsJSON, text, timeLayout string, zone *time.Location) string {
	tmpl, ok := m.texts[code]
	if code == "" || !ok {
		return text
	}
	if strings.HasPrefix(code, "error.") {
		if m.lang == "en" && text != "" {
			return text
		}
		if text == "" {
			return tmpl
		}
		return tmpl + " (" + text + ")"
	}
	var params map[string]any
	if paramsJSON != "" && json.Unmarshal([]byte(paramsJSON), &params) != nil {
		return text
	}
	return placeholder.ReplaceAllStringFunc(tmpl, func(s string) string {
		v, ok := params[placeholder.FindStringSubmatch(s)[1]]
		if !ok || v == nil {
			return s // as i18next leaves a missing value
		}
		if str, isStr := v.(string); isStr {
			if t, err := time.Parse(time.RFC3339, str); err == nil && timeLayout != "" {
				return t.In(zone).Format(timeLayout)
			}
			return str
		}
		b, _ := json.Marshal(v)
		return string(b)
	})
}

// sql is the message column c rendered in SQL, for filters: a CASE over the
// codes whose text concatenates its literal parts and the parameters read
// from the params column; any other row keeps its stored text. The
// extraction log is one row per file, so the CASE's cost does not matter;
// timestamps in parameters stay ISO (the grid shows them in the user's
// format, so a filter on a date inside a message matches the ISO form only).
func (m *messageTexts) sql(c, code, params *Column) filterTarget {
	stored := goqu.I(c.Column)
	codes := make([]string, 0, len(m.texts))
	for k := range m.texts {
		codes = append(codes, k)
	}
	sort.Strings(codes) // stable SQL text
	ce := goqu.Case().Value(goqu.I(code.Column))
	n := 0
	for _, k := range codes {
		tmpl := m.texts[k]
		var parts []any
		if strings.HasPrefix(k, "error.") {
			if m.lang == "en" {
				continue
			}
			parts = []any{lit(tmpl + " ("), stored, lit(")")}
		} else {
			last := 0
			for _, loc := range placeholder.FindAllStringSubmatchIndex(tmpl, -1) {
				if loc[0] > last {
					parts = append(parts, lit(tmpl[last:loc[0]]))
				}
				name := tmpl[loc[2]:loc[3]]
				parts = append(parts, goqu.L("coalesce(?::jsonb ->> ?::text, ?::text)", goqu.I(params.Column), name, tmpl[loc[0]:loc[1]]))
				last = loc[1]
			}
			if last < len(tmpl) {
				parts = append(parts, lit(tmpl[last:]))
			}
		}
		if len(parts) == 0 {
			continue
		}
		ce = ce.When(k, goqu.Func("concat", parts...))
		n++
	}
	if n == 0 {
		return stored
	}
	return goqu.L("(?)", ce.Else(stored))
}

// lit is a text value with its type, as concat's arguments need one.
func lit(s string) any { return goqu.L("?::text", s) }
