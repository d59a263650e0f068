package engine

import (
	"strings"
	"testing"
	"testing/fstest"
)

// The labels files: one per language, nested keys, text leaves; every key
// the metadata shows is named when a language lacks it, and so is a key of
// the English labels another language lacks.
func TestLabels(t *testing.T) {
	files := fstest.MapFS{
		"views.yaml":         {Data: []byte(goodViews)},
		"forms/country.yaml": {Data: []byte(goodForm)},
		"labels/en.yaml": {Data: []byte(`
views:
  VW_TblMasterCountry:
    fields: {CountryCode: Country Code, CountryName: Country Name}
forms:
  country: {title: Add Country, fields: {countryCode: Code, countryName: Name}}
extra: {note: Only in English}
`)},
		"labels/sv.yaml": {Data: []byte(`
views:
  VW_TblMasterCountry:
    fields: {CountryCode: Landskod}
`)},
	}
	md, err := LoadMetadata(files)
	if err != nil {
		t.Fatal(err)
	}
	if got := md.LabelsTree("en")["views"].(map[string]any)["VW_TblMasterCountry"].(map[string]any)["fields"].(map[string]any)["CountryCode"]; got != "Country Code" {
		t.Errorf("tree: %v", got)
	}
	if len(md.LabelsTree("pt")) != 0 {
		t.Errorf("a language without labels has an empty tree")
	}
	missing := strings.Join(md.MissingLabels(func(lang string) map[string]string {
		if lang == "pt" {
			return map[string]string{"views.VW_TblMasterCountry.fields.CountryName": "Nome do país"}
		}
		return nil
	}), "\n")
	for _, want := range []string{
		"labels/sv.yaml: missing views.VW_TblMasterCountry.fields.CountryName (views.yaml VW_TblMasterCountry)",
		"labels/sv.yaml: missing forms.country.title (forms/country.yaml)",
		"labels/sv.yaml: missing extra.note (labels/en.yaml has it)",
		"labels/es.yaml: missing views.VW_TblMasterCountry.fields.CountryCode",
		"labels/pt.yaml: missing views.VW_TblMasterCountry.fields.CountryCode",
	} {
		if !strings.Contains(missing, want) {
			t.Errorf("missing lacks %q:\n%s", want, missing)
		}
	}
	for _, never := range []string{"labels/en.yaml: missing", "labels/sv.yaml: missing views.VW_TblMasterCountry.fields.CountryCode", "labels/pt.yaml: missing views.VW_TblMasterCountry.fields.CountryName"} {
		if strings.Contains(missing, never) {
			t.Errorf("missing names %q, which is there:\n%s", never, missing)
		}
	}
}

func TestLabelsFileProblems(t *testing.T) {
	_, err := LoadMetadata(fstest.MapFS{
		"views.yaml":       {Data: []byte(goodViews)},
		"labels/en.yaml":   {Data: []byte("views: {VW_X: {fields: {A: '', B: 12, C: [x]}}}\n")},
		"labels/de.yaml":   {Data: []byte("a: b\n")},
		"labels/README.md": {Data: []byte("notes")},
	})
	if err == nil {
		t.Fatal("accepted")
	}
	for _, want := range []string{"labels/en.yaml: views.VW_X.fields.A: empty text", "labels/en.yaml: views.VW_X.fields.B: 12 is not text",
		"views.VW_X.fields.C: [x] is not text", "labels/de.yaml: not a labels file"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "README") {
		t.Errorf("a README beside the labels is no problem: %v", err)
	}
}
