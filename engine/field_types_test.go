package engine

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
)

// One table per field type: what a client value parses to (or the message
// code refusing it), how a database value is written as JSON and as CSV and
// XLSX cells, and the form schema the type gives. Each type's behaviour is
// in its own file; these tables hold them to it.

type parseCase struct {
	in   any
	want string // fmt.Sprint of the parsed value, or "!code" for a refusal
}

func checkParse(t *testing.T, c *Column, cases []parseCase) {
	t.Helper()
	for _, tt := range cases {
		got, err := c.ParseValue(tt.in)
		if strings.HasPrefix(tt.want, "!") {
			var e *Error
			if err == nil || !asError(err, &e) || e.Key != tt.want[1:] || e.Field != c.Field {
				t.Errorf("%s %v: %v, %v; want refused with %s naming the field", c.Type, tt.in, got, err, tt.want[1:])
			}
			continue
		}
		if err != nil {
			t.Errorf("%s %v: %v", c.Type, tt.in, err)
			continue
		}
		s := fmt.Sprint(got)
		if n, ok := got.(pgtype.Numeric); ok {
			v, _ := n.Value()
			s = fmt.Sprint(v)
		}
		if tm, ok := got.(time.Time); ok {
			s = tm.UTC().Format(time.RFC3339)
		}
		if s != tt.want {
			t.Errorf("%s %v: %s, want %s", c.Type, tt.in, s, tt.want)
		}
	}
}

func numeric(s string) pgtype.Numeric {
	var n pgtype.Numeric
	if err := n.Scan(s); err != nil {
		panic(err)
	}
	return n
}

var testExport = func() *Export {
	zone, _ := time.LoadLocation("Europe/Stockholm")
	return &Export{dateFormat: "DD-MM-YYYY HH:mm:ss", dateLayout: "02-01-2006", timeLayout: "02-01-2006 15:04:05", zone: zone}
}()

type cellCase struct {
	db         any
	json, csv  string
	xlsx       any
	xlsxFormat string
}

func checkCells(t *testing.T, c *Column, cases []cellCase) {
	t.Helper()
	for _, tt := range cases {
		b, _ := json.Marshal(c.jsonValue(tt.db))
		if string(b) != tt.json {
			t.Errorf("%s %v: JSON %s, want %s", c.Type, tt.db, b, tt.json)
		}
		if got := testExport.text(c, tt.db); got != tt.csv {
			t.Errorf("%s %v: CSV %q, want %q", c.Type, tt.db, got, tt.csv)
		}
		if got := testExport.xlsxValue(c, tt.db); fmt.Sprintf("%T %v", got, got) != fmt.Sprintf("%T %v", tt.xlsx, tt.xlsx) {
			t.Errorf("%s %v: XLSX %T %v, want %T %v", c.Type, tt.db, got, got, tt.xlsx, tt.xlsx)
		}
		format := ""
		if f := c.typ().xlsxFormat; f != nil {
			format = f(testExport, c)
		}
		if format != tt.xlsxFormat {
			t.Errorf("%s: XLSX format %q, want %q", c.Type, format, tt.xlsxFormat)
		}
	}
}

func checkSchema(t *testing.T, ff *FormField, want string) {
	t.Helper()
	f := &Form{Name: "f", Fields: []*FormField{ff}}
	m := f.Meta()
	b, _ := json.Marshal(map[string]any{"p": m.Schema["properties"].(map[string]any)[ff.Field], "ui": m.UISchema[ff.Field]})
	if string(b) != want {
		t.Errorf("%s schema %s, want %s", ff.Type, b, want)
	}
}

func TestFieldText(t *testing.T) {
	c := &Column{Field: "Code", Type: "text", MaxLength: 3, MinLength: 2, pattern: compilePattern("[A-Z]+"), PatternHint: "capitals"}
	checkParse(t, c, []parseCase{{"SEK", "SEK"}, {"SEKX", "!field.maxLength"}, {"S", "!field.minLength"}, {"se", "!field.pattern"}, {12, "!field.text"}})
	checkCells(t, &Column{Field: "Name", Type: "text"}, []cellCase{
		{db: "Anna", json: `"Anna"`, csv: "Anna", xlsx: "Anna"},
		{db: "=1+1", json: `"=1+1"`, csv: "'=1+1", xlsx: "=1+1"}, // CSV defused; an XLSX inline string is never a formula
	})
	checkSchema(t, &FormField{Field: "code", Type: "text", MaxLength: 3, Pattern: "[A-Z]+"}, `{"p":{"maxLength":3,"pattern":"^(?:[A-Z]+)$","title":"forms.f.fields.code","type":"string"},"ui":null}`)
	if tp := Types["text"]; tp.DefaultOp != OpContains || !tp.Caseless || opIndex(tp, OpContains) != IndexTrigram {
		t.Errorf("text: default %s, caseless %v", tp.DefaultOp, tp.Caseless)
	}
}

func TestFieldEnum(t *testing.T) {
	c := &Column{Field: "Kind", Type: "enum", Values: []string{"1", "2"}, EnumInt: true}
	checkParse(t, c, []parseCase{{"1", "1"}, {json.Number("2"), "2"}, {"3", "!field.enum"}})
	checkCells(t, c, []cellCase{{db: int16(2), json: `"2"`, csv: "2", xlsx: "2"}})
	checkSchema(t, &FormField{Field: "kind", Type: "enum", Values: []string{"a", "b"}, Labels: map[string]string{"a": "forms.f.a"}},
		`{"p":{"oneOf":[{"const":"a","title":"forms.f.a"},{"const":"b","title":"b"}],"title":"forms.f.fields.kind","type":"string"},"ui":null}`)
}

func TestFieldInt(t *testing.T) {
	c := &Column{Field: "Days", Type: "int", intBits: 16}
	checkParse(t, c, []parseCase{{"12", "12"}, {json.Number("-3"), "-3"}, {"40000", "!grid.numberOutOfRange"}, {"1.5", "!field.wholeNumber"}})
	checkCells(t, c, []cellCase{{db: int32(7), json: `7`, csv: "7", xlsx: int32(7)}})
	checkSchema(t, &FormField{Field: "days", Type: "int"}, `{"p":{"title":"forms.f.fields.days","type":"integer"},"ui":null}`)
}

func TestFieldDecimal(t *testing.T) {
	c := &Column{Field: "Amount", Type: "decimal", Scale: 2, limitDecimals: true, intDigits: 4}
	checkParse(t, c, []parseCase{{"1234.5", "1234.50"}, {"0.50", "0.50"}, {"0.505", "!field.decimals"}, {"12345", "!grid.numberOutOfRange"},
		{"1e3", "!field.decimalPoint"}, {"abc", "!field.decimalPoint"}})
	whole := &Column{Field: "Count", Type: "decimal", Scale: 0, limitDecimals: true}
	checkParse(t, whole, []parseCase{{"3", "3"}, {"3.0", "3.0"}, {"3.5", "!field.wholeNumber"}})
	filter := &Column{Field: "Amount", Type: "decimal", Scale: 2} // a filter value may have any decimals
	checkParse(t, filter, []parseCase{{"0.505", "0.505"}})
	checkCells(t, c, []cellCase{
		{db: numeric("0.5"), json: `"0.50"`, csv: "0.50", xlsx: 0.5, xlsxFormat: "#,##0.00"},
		{db: numeric("2.345"), json: `"2.35"`, csv: "2.35", xlsx: 2.35, xlsxFormat: "#,##0.00"},
		{db: numeric("12345678901234567.25"), json: `"12345678901234567.25"`, csv: "12345678901234567.25", xlsx: "12345678901234567.25", xlsxFormat: "#,##0.00"},
	})
	checkCells(t, whole, []cellCase{{db: numeric("0.5"), json: `"1"`, csv: "1", xlsx: 1.0, xlsxFormat: "#,##0"}})
	scale := 2
	checkSchema(t, &FormField{Field: "amount", Type: "decimal", Scale: &scale, Default: 0},
		`{"p":{"default":"0","format":"decimal","title":"forms.f.fields.amount","type":"string"},"ui":{"ui:options":{"scale":2},"ui:widget":"decimal"}}`)
	if p := checkNumber("x", "decimal", nil, nil, nil, nil); len(p) != 1 || !strings.Contains(p[0], "declares its scale") {
		t.Errorf("a decimal without its scale: %v", p)
	}
}

func TestFieldDate(t *testing.T) {
	c := &Column{Field: "On", Type: "date"}
	checkParse(t, c, []parseCase{{"2026-11-27", "2026-11-27"}, {"2026-11-27T23:30:00Z", "2026-11-27"}, {"27-11-2026", "!field.date"}, {"1899-12-31", "!field.date"}})
	day := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	checkCells(t, c, []cellCase{
		{db: day, json: `"2026-11-27"`, csv: "27-11-2026", xlsx: day, xlsxFormat: "dd-mm-yyyy"},
		{db: pgtype.Infinity, json: `"infinity"`, csv: "infinity", xlsx: "infinity", xlsxFormat: "dd-mm-yyyy"},
	})
	checkSchema(t, &FormField{Field: "on", Type: "date"}, `{"p":{"format":"date","title":"forms.f.fields.on","type":"string"},"ui":null}`)
}

func TestFieldDateTime(t *testing.T) {
	c := &Column{Field: "At", Type: "datetime"}
	checkParse(t, c, []parseCase{{"2026-11-27T16:12:00Z", "2026-11-27T16:12:00Z"}, {"2026-11-27", "2026-11-27T00:00:00Z"}, {"yesterday", "!field.datetime"}})
	at := time.Date(2026, 11, 27, 16, 12, 0, 0, time.UTC)
	checkCells(t, c, []cellCase{{db: at, json: `"2026-11-27T16:12:00Z"`, csv: "27-11-2026 17:12:00", // the user's zone
		xlsx: time.Date(2026, 11, 27, 17, 12, 0, 0, time.UTC), xlsxFormat: "dd-mm-yyyy hh:mm:ss"}})
	checkSchema(t, &FormField{Field: "at", Type: "datetime"}, `{"p":{"format":"date-time","title":"forms.f.fields.at","type":"string"},"ui":null}`)
	// A bare date as a filter value is the whole day.
	e, handled, err := dateTimeCond(c, nil, Cond{Field: "At", Op: OpLt, Value: "2026-11-27"}, nil)
	if handled || e != nil || err != nil {
		t.Errorf("lt a date is the common condition: %v %v %v", e, handled, err)
	}
	if !Types["datetime"].Instant {
		t.Error("datetime is an instant")
	}
}

func TestFieldBool(t *testing.T) {
	c := &Column{Field: "On", Type: "bool"}
	checkParse(t, c, []parseCase{{true, "true"}, {"false", "false"}, {"yes", "!field.bool"}})
	checkCells(t, c, []cellCase{{db: true, json: `true`, csv: "true", xlsx: true}})
	checkSchema(t, &FormField{Field: "on", Type: "bool"}, `{"p":{"title":"forms.f.fields.on","type":"boolean"},"ui":null}`)
}

func TestFieldDays(t *testing.T) {
	c := &Column{Field: "Age", Column: "opened_on", Type: "days"}
	checkParse(t, c, []parseCase{{"30", "30"}, {"-2", "-2"}, {"2000000", "!grid.numberOutOfRange"}, {"x", "!grid.numberOutOfRange"}})
	if _, reversed := c.sortExpr(); !reversed {
		t.Error("a sort by days is its date's, reversed")
	}
	if uiType("days") != "int" {
		t.Errorf("days shows as %s", uiType("days"))
	}
}

// Every registered type has a file's worth of behaviour: a parser, SQL
// types, operators, a default operator and, where a form may use it, a schema.
func TestEveryTypeIsComplete(t *testing.T) {
	for name, tp := range Types {
		if tp.parse == nil || len(tp.SQLTypes) == 0 || len(tp.Ops) == 0 || tp.DefaultOp == "" {
			t.Errorf("%s is incomplete", name)
		}
		if name != "days" && tp.schema == nil {
			t.Errorf("%s has no form schema", name)
		}
	}
	if got := TypeNames(); got != "bool, date, datetime, days, decimal, enum, int, text" {
		t.Errorf("types %s", got)
	}
}
