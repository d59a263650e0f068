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
	"ledgerdesk/ui"
)

// Every translation key the metadata names (screen, tab and menu titles,
// buttons, messages, column and field labels) has its text in all four
// languages, in the metadata's labels files or the UI's own texts, so a
// screen added in YAML never shows a raw key; and the labels files cover the
// same keys.
func TestMetadataKeysAreTranslated(t *testing.T) {
	md, err := engine.LoadMetadata(os.DirFS("."))
	if err != nil {
		t.Fatal(err)
	}
	if len(md.LabelKeys()) < 300 {
		t.Fatalf("only %d label keys: the metadata's labels are not all collected", len(md.LabelKeys()))
	}
	for _, lang := range engine.Languages {
		if md.Labels[lang] == nil || len(md.Labels[lang].Flat) < 300 {
			t.Errorf("labels/%s.yaml: missing or nearly empty", lang)
		}
	}
	if missing := md.MissingLabels(ui.Texts); len(missing) > 0 {
		t.Errorf("%d labels missing:\n  %s", len(missing), strings.Join(missing, "\n  "))
	}
}

// A label is defined once: a key of the metadata's labels is not also one of
// the UI's own texts (which would then say two things, one of them unseen).
func TestLabelsAreNotAlsoUITexts(t *testing.T) {
	md, err := engine.LoadMetadata(os.DirFS("."))
	if err != nil {
		t.Fatal(err)
	}
	var twice []string
	bundled := map[string]any{}
	b, err := os.ReadFile("ui/src/i18n/en.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &bundled); err != nil {
		t.Fatal(err)
	}
	for key := range md.Labels["en"].Flat {
		if lookup(bundled, key) != nil {
			twice = append(twice, key)
		}
	}
	sort.Strings(twice)
	if len(twice) > 0 {
		t.Errorf("in labels/en.yaml and ui/src/i18n/en.json both:\n  %s", strings.Join(twice, "\n  "))
	}
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
