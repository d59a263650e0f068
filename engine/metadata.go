package engine

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Metadata is the whole set of descriptors: every grid view of views.yaml and
// every form of forms/*.yaml, keyed by name.
type Metadata struct {
	Views map[string]*View
	Forms map[string]*Form
}

// View describes one server-paged grid (see views.yaml for the documented schema).
type View struct {
	Name        string    `yaml:"-"`
	Source      string    `yaml:"source"` // table or SQL view the grid reads
	Table       string    `yaml:"table"`  // base table for inline edits; empty: read-only
	Key         string    `yaml:"key"`    // key field (a Field of Columns)
	Screen      int       `yaml:"screen"` // screen id the caller's roles must grant
	DefaultSort SortSpec  `yaml:"defaultSort"`
	Export      string    `yaml:"export"`  // export file name, without extension
	Version     string    `yaml:"version"` // field used for optimistic concurrency
	Columns     []*Column `yaml:"columns"`
}

// SortSpec is a default sort.
type SortSpec struct {
	Field string `yaml:"field"`
	Order string `yaml:"order"` // asc or desc
}

// Column is one grid column: the API/UI name (Field) and the SQL name (Column).
type Column struct {
	Field     string   `yaml:"field"`
	Column    string   `yaml:"column"`
	Type      string   `yaml:"type"`
	Label     string   `yaml:"label"` // translation key; default views.<view>.fields.<field>
	Hidden    bool     `yaml:"hidden"`
	Editable  bool     `yaml:"editable"`
	MaxLength int      `yaml:"maxLength"`
	Scale     int      `yaml:"scale"`
	Values    []string `yaml:"values"`
	Width     int      `yaml:"width"`
}

// Form describes one add/edit dialog and the REST resource behind it.
type Form struct {
	Name     string       `yaml:"-"`
	Resource string       `yaml:"resource"` // path under /api, e.g. Country
	Table    string       `yaml:"table"`
	Key      FormKey      `yaml:"key"`
	Screen   int          `yaml:"screen"`
	Title    string       `yaml:"title"`
	Width    int          `yaml:"width"` // dialog width in px
	Fields   []*FormField `yaml:"fields"`
}

// FormKey names the key of a form's resource.
type FormKey struct {
	Field  string `yaml:"field"`
	Column string `yaml:"column"`
}

// FormField is one input of a form.
type FormField struct {
	Field     string   `yaml:"field"`
	Column    string   `yaml:"column"`
	Type      string   `yaml:"type"`
	Label     string   `yaml:"label"`
	Required  bool     `yaml:"required"`
	MaxLength int      `yaml:"maxLength"`
	Scale     int      `yaml:"scale"`
	Values    []string `yaml:"values"`
	Default   any      `yaml:"default"`
	Transform []string `yaml:"transform"` // trim, upper
}

// Types every column and form field may have.
var fieldTypes = map[string]bool{
	"text": true, "int": true, "decimal": true, "date": true, "datetime": true, "bool": true, "enum": true,
}

var transforms = map[string]bool{"trim": true, "upper": true}

// plainName is what identifiers in descriptors must look like: they end up in
// SQL as identifiers, so nothing but letters, digits and underscores, and an
// optional schema prefix.
var plainName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,62}(\.[A-Za-z_][A-Za-z0-9_]{0,62})?$`)

// LoadMetadata reads views.yaml and forms/*.yaml from fsys, refusing unknown
// keys, and checks every descriptor's structure. It returns every problem at
// once, one line each, naming the file and the view or form.
func LoadMetadata(fsys fs.FS) (*Metadata, error) {
	md := &Metadata{Views: map[string]*View{}, Forms: map[string]*Form{}}
	var problems []string
	add := func(file, name, format string, args ...any) {
		where := file
		if name != "" {
			where += ": " + name
		}
		problems = append(problems, where+": "+fmt.Sprintf(format, args...))
	}

	var views struct {
		Views map[string]*View `yaml:"views"`
	}
	if err := decodeStrict(fsys, "views.yaml", &views); err != nil {
		add("views.yaml", "", "%v", err)
	}
	for name, v := range views.Views {
		if v == nil {
			add("views.yaml", name, "empty view")
			continue
		}
		v.Name = name
		md.Views[name] = v
		for _, p := range v.check() {
			add("views.yaml", name, "%s", p)
		}
	}

	formFiles, err := fs.Glob(fsys, "forms/*.yaml")
	if err != nil {
		add("forms", "", "%v", err)
	}
	resources := map[string]string{}
	for _, file := range formFiles {
		f := &Form{Name: strings.TrimSuffix(path.Base(file), ".yaml")}
		if err := decodeStrict(fsys, file, f); err != nil {
			add(file, "", "%v", err)
			continue
		}
		md.Forms[f.Name] = f
		for _, p := range f.check() {
			add(file, f.Name, "%s", p)
		}
		if other, dup := resources[strings.ToLower(f.Resource)]; dup && f.Resource != "" {
			add(file, f.Name, "resource %q is also served by form %q", f.Resource, other)
		}
		resources[strings.ToLower(f.Resource)] = f.Name
	}

	if len(problems) > 0 {
		sort.Strings(problems)
		return nil, &Error{Code: CodeInvalid, Message: "invalid metadata:\n  " + strings.Join(problems, "\n  ")}
	}
	return md, nil
}

func decodeStrict(fsys fs.FS, name string, into any) error {
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return err
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(into); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

func (v *View) check() []string {
	var p []string
	if !plainName.MatchString(v.Name) {
		p = append(p, "the view name must be a plain name (letters, digits, underscore)")
	}
	if !plainName.MatchString(v.Source) {
		p = append(p, fmt.Sprintf("source %q must be a plain table or view name", v.Source))
	}
	if v.Table != "" && !plainName.MatchString(v.Table) {
		p = append(p, fmt.Sprintf("table %q must be a plain table name", v.Table))
	}
	if v.Screen <= 0 {
		p = append(p, "screen: a screen id (a positive number) is required")
	}
	if len(v.Columns) == 0 {
		p = append(p, "columns: at least one column is required")
	}
	fields := map[string]*Column{}
	for i, c := range v.Columns {
		if c == nil {
			p = append(p, fmt.Sprintf("column %d is empty", i+1))
			continue
		}
		if !plainName.MatchString(c.Field) {
			p = append(p, fmt.Sprintf("column %d: field %q must be a plain name", i+1, c.Field))
		}
		if c.Column == "" {
			c.Column = c.Field
		}
		if !plainName.MatchString(c.Column) {
			p = append(p, fmt.Sprintf("column %s: column %q must be a plain name", c.Field, c.Column))
		}
		if !fieldTypes[c.Type] {
			p = append(p, fmt.Sprintf("column %s: unknown type %q (text, int, decimal, date, datetime, bool, enum)", c.Field, c.Type))
		}
		if c.Type == "enum" && len(c.Values) == 0 {
			p = append(p, fmt.Sprintf("column %s: an enum needs values", c.Field))
		}
		if c.Editable && v.Table == "" {
			p = append(p, fmt.Sprintf("column %s: editable, but the view has no base table", c.Field))
		}
		if _, dup := fields[c.Field]; dup {
			p = append(p, fmt.Sprintf("column %s appears twice", c.Field))
		}
		fields[c.Field] = c
	}
	if _, ok := fields[v.Key]; !ok {
		p = append(p, fmt.Sprintf("key %q is not one of the columns", v.Key))
	}
	if v.DefaultSort.Field != "" {
		if _, ok := fields[v.DefaultSort.Field]; !ok {
			p = append(p, fmt.Sprintf("defaultSort: field %q is not one of the columns", v.DefaultSort.Field))
		}
	}
	if o := v.DefaultSort.Order; o != "" && o != "asc" && o != "desc" {
		p = append(p, fmt.Sprintf("defaultSort: order %q must be asc or desc", o))
	}
	if v.Version != "" {
		if _, ok := fields[v.Version]; !ok {
			p = append(p, fmt.Sprintf("version: field %q is not one of the columns", v.Version))
		}
	}
	if v.Export != "" && !plainName.MatchString(v.Export) {
		p = append(p, fmt.Sprintf("export %q must be a plain file name", v.Export))
	}
	return p
}

func (f *Form) check() []string {
	var p []string
	if !plainName.MatchString(f.Name) {
		p = append(p, "the form file name must be a plain name")
	}
	if !plainName.MatchString(f.Resource) {
		p = append(p, fmt.Sprintf("resource %q must be a plain name", f.Resource))
	}
	if !plainName.MatchString(f.Table) {
		p = append(p, fmt.Sprintf("table %q must be a plain table name", f.Table))
	}
	if !plainName.MatchString(f.Key.Field) || !plainName.MatchString(f.Key.Column) {
		p = append(p, "key: field and column must be plain names")
	}
	if f.Screen <= 0 {
		p = append(p, "screen: a screen id (a positive number) is required")
	}
	if len(f.Fields) == 0 {
		p = append(p, "fields: at least one field is required")
	}
	seen := map[string]bool{}
	for i, ff := range f.Fields {
		if ff == nil {
			p = append(p, fmt.Sprintf("field %d is empty", i+1))
			continue
		}
		if !plainName.MatchString(ff.Field) {
			p = append(p, fmt.Sprintf("field %d: name %q must be a plain name", i+1, ff.Field))
		}
		if ff.Column == "" {
			ff.Column = ff.Field
		}
		if !plainName.MatchString(ff.Column) {
			p = append(p, fmt.Sprintf("field %s: column %q must be a plain name", ff.Field, ff.Column))
		}
		if !fieldTypes[ff.Type] {
			p = append(p, fmt.Sprintf("field %s: unknown type %q", ff.Field, ff.Type))
		}
		if ff.Type == "enum" && len(ff.Values) == 0 {
			p = append(p, fmt.Sprintf("field %s: an enum needs values", ff.Field))
		}
		for _, t := range ff.Transform {
			if !transforms[t] {
				p = append(p, fmt.Sprintf("field %s: unknown transform %q (trim, upper)", ff.Field, t))
			}
		}
		if seen[ff.Field] {
			p = append(p, fmt.Sprintf("field %s appears twice", ff.Field))
		}
		seen[ff.Field] = true
	}
	return p
}
