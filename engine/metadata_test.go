package engine

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"testing/fstest"
)

const goodViews = `
views:
  VW_TblMasterCountry:
    source: country
    table: country
    key: CountryID
    screen: 10
    defaultSort: {field: CountryName, order: asc}
    export: Country_List
    columns:
      - {field: CountryID, column: id, type: int, hidden: true}
      - {field: CountryCode, column: country_code, type: text, editable: true, maxLength: 3}
      - {field: CountryName, column: country_name, type: text, editable: true}
`

const goodForm = `
resource: Country
table: country
key: {field: CountryID, column: id}
screen: 10
width: 500
fields:
  - {field: countryCode, column: country_code, type: text, required: true, maxLength: 3, transform: [trim, upper]}
  - {field: countryName, column: country_name, type: text, required: true}
`

func TestLoadMetadata(t *testing.T) {
	md, err := LoadMetadata(fstest.MapFS{
		"views.yaml":         {Data: []byte(goodViews)},
		"forms/country.yaml": {Data: []byte(goodForm)},
		"forms/README.md":    {Data: []byte("not a form")},
	})
	if err != nil {
		t.Fatal(err)
	}
	v := md.Views["VW_TblMasterCountry"]
	if v == nil || v.Name != "VW_TblMasterCountry" || len(v.Columns) != 3 || v.Columns[1].MaxLength != 3 || !v.Columns[1].Editable {
		t.Fatalf("view %+v", v)
	}
	f := md.Forms["country"]
	if f == nil || f.Resource != "Country" || f.Width != 500 || f.Fields[0].Transform[1] != "upper" {
		t.Fatalf("form %+v", f)
	}
	if len(md.Forms) != 1 {
		t.Errorf("%d forms; README.md must not count", len(md.Forms))
	}
}

func TestLoadMetadataProblems(t *testing.T) {
	tests := []struct {
		name, views, form string
		want              []string
	}{
		{"unknown key is a typo", strings.Replace(goodViews, "export:", "exprot:", 1), "", []string{"views.yaml", "field exprot not found"}},
		{"key not a column", strings.Replace(goodViews, "key: CountryID", "key: Nope", 1), "", []string{"VW_TblMasterCountry", `key "Nope" is not one of the columns`}},
		{"sort field not a column", strings.Replace(goodViews, "field: CountryName, order", "field: Nope, order", 1), "", []string{"defaultSort"}},
		{"sort order", strings.Replace(goodViews, "order: asc", "order: up", 1), "", []string{`order "up"`}},
		{"unknown type", strings.Replace(goodViews, "type: int", "type: money", 1), "", []string{`unknown type "money"`}},
		{"identifier injection", strings.Replace(goodViews, "column: country_name", `column: "name; drop table x"`, 1), "", []string{"must be a plain name"}},
		{"source injection", strings.Replace(goodViews, "source: country", `source: "country c, pg_shadow"`, 1), "", []string{"must be a plain table"}},
		{"missing screen", strings.Replace(goodViews, "screen: 10", "screen: 0", 1), "", []string{"screen"}},
		{"editable without table", strings.Replace(goodViews, "    table: country\n", "", 1), "", []string{"editable, but the view has no base table"}},
		{"afterEdit not a plain name", strings.Replace(goodViews, "    table: country\n", "    table: country\n    afterEdit: \"f(); drop table x\"\n", 1), "", []string{"afterEdit"}},
		{"duplicate column", strings.Replace(goodViews, "- {field: CountryName,", "- {field: CountryCode,", 1), "", []string{"appears twice"}},
		{"filters: an operator of another type", strings.Replace(goodViews, "type: int, hidden: true}", "type: int, hidden: true, filters: [contains]}", 1), "", []string{`column CountryID: filters: "contains" is not an operator of int columns`}},
		{"large with another table", strings.Replace(goodViews, "    table: country\n", "    table: country_view\n    large: true\n", 1), "", []string{"large: the view must read its table directly"}},
		{"form unknown key", "", goodForm + "colour: red\n", []string{"forms/country.yaml", "colour"}},
		{"form bad transform", "", strings.Replace(goodForm, "[trim, upper]", "[trim, shout]", 1), []string{`unknown transform "shout"`}},
		{"bad pattern", strings.Replace(goodViews, "type: text, editable: true}", "type: text, editable: true, pattern: '[A-Z'}", 1), "", []string{"column CountryName: pattern", "is not a regular expression"}},
		{"pattern on a number", strings.Replace(goodViews, "type: int, hidden: true}", "type: int, hidden: true, pattern: '[0-9]+'}", 1), "", []string{"column CountryID: minLength and pattern apply to text only"}},
		{"column bad transform", strings.Replace(goodViews, "type: text, editable: true}", "type: text, editable: true, transform: [lower]}", 1), "", []string{`column CountryName: unknown transform "lower"`}},
		{"form minLength over maxLength", "", strings.Replace(goodForm, "maxLength: 3,", "maxLength: 3, minLength: 4,", 1), []string{"field countryCode: minLength 4 must be between 0 and maxLength"}},
		{"form enum without values", "", strings.Replace(goodForm, "type: text, required: true}", "type: enum, required: true}", 1), []string{"an enum needs values"}},
		{"decimal without its scale", strings.Replace(goodViews, "type: int, hidden: true}", "type: int, hidden: true}\n      - {field: Rate, column: rate, type: decimal}", 1), "", []string{"column Rate: a decimal declares its scale"}},
		{"scale on text", strings.Replace(goodViews, "type: text, editable: true}", "type: text, editable: true, scale: 2}", 1), "", []string{"column CountryName: scale applies to decimals only"}},
		{"min on text", strings.Replace(goodViews, "type: text, editable: true}", "type: text, editable: true, min: 0}", 1), "", []string{"column CountryName: min and max apply to int and decimal only"}},
		{"min above max", strings.Replace(goodViews, "type: int, hidden: true}", "type: int, hidden: true, min: 5, max: 1}", 1), "", []string{"column CountryID: min 5 is above max 1"}},
		{"form decimal without its scale", "", strings.Replace(goodForm, "type: text, required: true}", "type: decimal, required: true}", 1), []string{"a decimal declares its scale"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			views, form := tt.views, tt.form
			if views == "" {
				views = goodViews
			}
			if form == "" {
				form = goodForm
			}
			_, err := LoadMetadata(fstest.MapFS{
				"views.yaml":         {Data: []byte(views)},
				"forms/country.yaml": {Data: []byte(form)},
			})
			if err == nil {
				t.Fatal("accepted")
			}
			if ErrorCode(err) != CodeInvalid {
				t.Errorf("code %v", ErrorCode(err))
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestLoadMetadataReportsAllProblemsAtOnce(t *testing.T) {
	bad := strings.Replace(strings.Replace(goodViews, "key: CountryID", "key: Nope", 1), "type: int", "type: money", 1)
	_, err := LoadMetadata(fstest.MapFS{"views.yaml": {Data: []byte(bad)}})
	if err == nil || !strings.Contains(err.Error(), "Nope") || !strings.Contains(err.Error(), "money") {
		t.Fatalf("got %v", err)
	}
}

// The committed metadata must always load: the server refuses to start otherwise.
func TestRepositoryMetadataLoads(t *testing.T) {
	if _, err := LoadMetadata(os.DirFS("..")); err != nil {
		t.Fatal(err)
	}
}

// A decimal column tells the UI its scale, the decimals it keeps and shows
// (a configuration threshold keeps two: 0.50 must not show as 1), and a
// column of another type has none.
func TestMetaScaleIsSent(t *testing.T) {
	md, err := LoadMetadata(os.DirFS(".."))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range md.Views["VW_ConfigSettings"].Meta().Columns {
		b, _ := json.Marshal(c)
		got[c.Field] = string(b)
	}
	for _, field := range []string{"CurrencyThreshold", "AmountThreshold"} {
		if !strings.Contains(got[field], `"scale":2`) {
			t.Errorf("%s: %s, want scale 2", field, got[field])
		}
	}
	if strings.Contains(got["DateThreshold"], `"scale"`) {
		t.Errorf("an int column has no scale: %s", got["DateThreshold"])
	}
}

// A column declared pinned tells the UI so (the payout id and the variance
// of the settlements-vs-bank report stay at the left); the others do not.
func TestMetaPinned(t *testing.T) {
	md, err := LoadMetadata(os.DirFS(".."))
	if err != nil {
		t.Fatal(err)
	}
	pinned := map[string]bool{}
	for _, c := range md.Views["VW_ReconSettlementBank"].Meta().Columns {
		b, _ := json.Marshal(c)
		pinned[c.Field] = strings.Contains(string(b), `"pinned":true`)
	}
	if !pinned["PayoutID"] || !pinned["AmountVariance"] || pinned["BookedDate"] {
		t.Errorf("pinned %v", pinned)
	}
}
