package main

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"ledgerdesk/engine"
)

// Every translation key the metadata names (screen and tab titles, buttons,
// messages, column and field labels) exists in all four language files, so
// a screen added in YAML never shows a raw key.
func TestMetadataKeysAreTranslated(t *testing.T) {
	md, err := engine.LoadMetadata(os.DirFS("."))
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]string{} // key -> where it is used
	use := func(key, where string) {
		if key != "" {
			keys[key] = where
		}
	}
	for route, sc := range md.Screens {
		use(sc.Title, "screens."+route)
		for _, tab := range sc.Tabs {
			use(tab.Title, "screens."+route+" tab "+tab.ID)
			use(tab.AddText, "screens."+route+" tab "+tab.ID)
			for _, a := range tab.Actions {
				use(a.Label, "action "+a.ID)
				use(a.Success, "action "+a.ID)
				use(a.Failure, "action "+a.ID)
				use(a.Confirm, "action "+a.ID)
			}
		}
	}
	for name, v := range md.Views {
		for _, c := range v.Meta().Columns {
			if !c.Hidden {
				use(c.Label, "view "+name)
			}
		}
		for _, p := range v.Params {
			use(p.Label, "view "+name+" param "+p.Name)
		}
		if rs := v.RowStatus; rs != nil {
			for _, b := range rs.Values {
				use(b.Label, "view "+name+" rowStatus")
			}
			if rs.Otherwise != nil {
				use(rs.Otherwise.Label, "view "+name+" rowStatus")
			}
		}
	}
	for name, f := range md.Forms {
		m := f.Meta()
		use(m.Title, "form "+name)
		use(m.Success, "form "+name)
		for field, p := range m.Schema["properties"].(map[string]any) {
			prop := p.(map[string]any)
			use(prop["title"].(string), "form "+name+" field "+field)
			if oneOf, ok := prop["oneOf"].([]map[string]any); ok {
				for _, o := range oneOf {
					if title := o["title"].(string); strings.Contains(title, ".") {
						use(title, "form "+name+" field "+field)
					}
				}
			}
		}
	}
	missingIn(t, keys, "")
}

// missingIn fails t for every key (under prefix) that one of the four
// language files lacks or leaves empty; keys maps a key to where it is used.
func missingIn(t *testing.T, keys map[string]string, prefix string) {
	t.Helper()
	for _, lang := range []string{"en", "sv", "es", "pt"} {
		b, err := os.ReadFile("ui/src/i18n/" + lang + ".json")
		if err != nil {
			t.Fatal(err)
		}
		var tree map[string]any
		if err := json.Unmarshal(b, &tree); err != nil {
			t.Fatalf("%s.json: %v", lang, err)
		}
		var missing []string
		for key, where := range keys {
			if s, ok := lookup(tree, prefix+key).(string); !ok || strings.TrimSpace(s) == "" {
				missing = append(missing, key+" ("+where+")")
			}
		}
		sort.Strings(missing)
		if len(missing) > 0 {
			t.Errorf("%s.json lacks %d keys under %q:\n  %s", lang, len(missing), prefix, strings.Join(missing, "\n  "))
		}
	}
}

func lookup(tree map[string]any, key string) any {
	var cur any = tree
	for _, part := range strings.Split(key, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[part]
	}
	return cur
}

// Every message code the server sends or stores (engine.Error.With, Key:,
// the extraction-log and row-error codes) and every error kind's fallback
// code (error.<kind>) has its text in all four language files under
// serverMessages, so the UI can show it in the reader's language.
func TestServerMessageCodesAreTranslated(t *testing.T) {
	patterns := []*regexp.Regexp{
		regexp.MustCompile(`\.\s*With\(\s*"([a-zA-Z]+\.[A-Za-z.]+)"`),
		regexp.MustCompile(`\bKey:\s*"([a-zA-Z]+\.[A-Za-z.]+)"`),
		regexp.MustCompile(`"((?:log|import\.row|import\.file)\.[A-Za-z0-9.]+)"`),
		regexp.MustCompile(`(?m), "(password\.[a-z]+)"$`), // passwordProblem's codes
	}
	codes := map[string]string{} // code -> file using it
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (path == "ui" || strings.HasPrefix(d.Name(), ".")) && path != "." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var code strings.Builder // the source without its comment lines
		for _, line := range strings.Split(string(b), "\n") {
			if !strings.HasPrefix(strings.TrimSpace(line), "//") {
				code.WriteString(line + "\n")
			}
		}
		for _, re := range patterns {
			for _, m := range re.FindAllStringSubmatch(code.String(), -1) {
				codes[m[1]] = path
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range []engine.Code{engine.CodeInvalid, engine.CodeUnauthorized, engine.CodeForbidden, engine.CodeNotFound,
		engine.CodeConflict, engine.CodeTooLarge, engine.CodeRateLimited, engine.CodeUnavailable, engine.CodeInternal} {
		codes["error."+string(kind)] = "server/errors.go"
	}
	if len(codes) < 50 {
		t.Fatalf("found only %d message codes; is the pattern still right?", len(codes))
	}
	missingIn(t, codes, "serverMessages.")
}
