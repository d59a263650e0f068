package engine

import (
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
)

// The labels of the metadata (view columns, forms, screens, tabs, menus,
// actions and their messages) live beside views.yaml, one file per language
// (labels/en.yaml, ...), as nested keys the way the UI's translations nest
// them:
//
//	views:
//	  VW_TblMasterCountry:
//	    fields:
//	      CountryCode: Country Code
//
// The server serves a language's labels (GET /api/meta/labels/{lang}) and the
// UI merges them into its translations at run time, so a new screen needs no
// UI build. The UI's own texts stay in the UI.

// Languages are the languages every labels file set must cover.
var Languages = []string{"en", "sv", "es", "pt"}

// Labels are a language's metadata labels: Tree as served (nested), Flat by
// dotted key.
type Labels struct {
	Tree map[string]any
	Flat map[string]string
}

// loadLabels reads labels/<lang>.yaml for every language; a file of another
// name, a value that is not text or a nested mapping, and an empty text are
// problems. A missing folder is no labels at all (a metadata set that uses
// only the UI's own keys).
func loadLabels(fsys fs.FS, add func(file, name, format string, args ...any)) map[string]*Labels {
	out := map[string]*Labels{}
	files, err := fs.Glob(fsys, "labels/*")
	if err != nil {
		add("labels", "", "%v", err)
		return out
	}
	known := map[string]bool{}
	for _, l := range Languages {
		known[l+".yaml"] = true
	}
	for _, file := range files {
		base := path.Base(file)
		if !known[base] {
			if !strings.HasPrefix(base, ".") && !strings.HasSuffix(base, ".md") {
				add(file, "", "not a labels file: the files are %s.yaml", strings.Join(Languages, ".yaml, "))
			}
			continue
		}
		var tree map[string]any
		if err := decodeStrict(fsys, file, &tree); err != nil {
			add(file, "", "%v", err)
			continue
		}
		l := &Labels{Tree: map[string]any{}, Flat: map[string]string{}}
		for _, p := range flattenLabels(tree, "", l.Tree, l.Flat) {
			add(file, "", "%s", p)
		}
		out[strings.TrimSuffix(base, ".yaml")] = l
	}
	return out
}

// flattenLabels copies tree into out (nested, keys as strings) and flat (by
// dotted key), reporting values that are neither text nor a mapping.
func flattenLabels(tree map[string]any, prefix string, out map[string]any, flat map[string]string) []string {
	var p []string
	for k, v := range tree {
		key := prefix + k
		switch x := v.(type) {
		case string:
			if strings.TrimSpace(x) == "" {
				p = append(p, fmt.Sprintf("%s: empty text", key))
			}
			out[k], flat[key] = x, x
		case map[string]any:
			sub := map[string]any{}
			out[k] = sub
			p = append(p, flattenLabels(x, key+".", sub, flat)...)
		default:
			p = append(p, fmt.Sprintf("%s: %v is not text (quote it)", key, v))
		}
	}
	return p
}

// LabelKeys are the translation keys the metadata shows, each with where it
// is used: screen, tab and menu titles, buttons, action inputs and messages,
// column and parameter labels, status badges, form titles, fields and enum
// choices.
func (md *Metadata) LabelKeys() map[string]string {
	keys := map[string]string{}
	use := func(key, where string) {
		if key != "" && strings.Contains(key, ".") {
			keys[key] = where
		}
	}
	for route, sc := range md.Screens {
		where := "views.yaml screens." + route
		use(sc.Title, where)
		if sc.Menu != nil {
			use(sc.menuLabel(), where+" menu")
		}
		for _, tab := range sc.Tabs {
			use(tab.Title, where+" tab "+tab.ID)
			use(tab.AddText, where+" tab "+tab.ID)
			for _, a := range tab.Actions {
				w := where + " action " + a.ID
				for _, k := range []string{a.Label, a.Success, a.Failure, a.Confirm} {
					use(k, w)
				}
				for _, in := range a.Inputs {
					use(in.Label, w+" input "+in.Name)
					use(in.Placeholder, w+" input "+in.Name)
					if in.Type != "select" {
						use(in.Default, w+" input "+in.Name)
					}
				}
			}
		}
	}
	for name, v := range md.Views {
		where := "views.yaml " + name
		for _, c := range v.Meta().Columns {
			if !c.Hidden {
				use(c.Label, where)
			}
			if c.Status != nil {
				for _, b := range c.Status.Values {
					use(b.Label, where+" column "+c.Field+" status")
				}
				if c.Status.Otherwise != nil {
					use(c.Status.Otherwise.Label, where+" column "+c.Field+" status")
				}
			}
		}
		for _, p := range v.Params {
			use(p.Label, where+" param "+p.Name)
		}
		for _, d := range v.Meta().Details {
			use(d.Title, where+" details")
		}
		if rs := v.RowStatus; rs != nil {
			for _, b := range rs.Values {
				use(b.Label, where+" rowStatus")
			}
			if rs.Otherwise != nil {
				use(rs.Otherwise.Label, where+" rowStatus")
			}
		}
	}
	for name, f := range md.Forms {
		where := "forms/" + name + ".yaml"
		m := f.Meta()
		use(m.Title, where)
		use(m.Success, where)
		for field, p := range m.Schema["properties"].(map[string]any) {
			prop := p.(map[string]any)
			use(prop["title"].(string), where+" field "+field)
			if oneOf, ok := prop["oneOf"].([]map[string]any); ok {
				for _, o := range oneOf {
					use(o["title"].(string), where+" field "+field)
				}
			}
		}
	}
	return keys
}

// MissingLabels names, per language, every key the metadata shows that
// neither its labels file nor the UI's own texts (bundled, by dotted key;
// nil for none) have, and every key of the English labels another
// language's file lacks: all at once, sorted.
func (md *Metadata) MissingLabels(bundled func(lang string) map[string]string) []string {
	var out []string
	keys := md.LabelKeys()
	en := md.Labels["en"]
	for _, lang := range Languages {
		file := "labels/" + lang + ".yaml"
		have := md.Labels[lang]
		var ui map[string]string
		if bundled != nil {
			ui = bundled(lang)
		}
		has := func(key string) bool {
			if have != nil && have.Flat[key] != "" {
				return true
			}
			return ui[key] != ""
		}
		var missing []string
		for key, where := range keys {
			if !has(key) {
				missing = append(missing, fmt.Sprintf("%s: missing %s (%s)", file, key, where))
			}
		}
		if en != nil && lang != "en" {
			for key := range en.Flat {
				if _, used := keys[key]; !used && (have == nil || have.Flat[key] == "") {
					missing = append(missing, fmt.Sprintf("%s: missing %s (labels/en.yaml has it)", file, key))
				}
			}
		}
		sort.Strings(missing)
		out = append(out, missing...)
	}
	return out
}

// LabelsTree is the tree of a language's labels as the UI merges it (an
// empty object for a language without labels).
func (md *Metadata) LabelsTree(lang string) map[string]any {
	if l := md.Labels[lang]; l != nil {
		return l.Tree
	}
	return map[string]any{}
}
