package engine

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Metadata is the whole set of descriptors: every grid view of views.yaml and
// every form of forms/*.yaml, keyed by name.
type Metadata struct {
	Views   map[string]*View
	Forms   map[string]*Form
	Screens map[string]*Screen // keyed by route (the part after dashboard/)
	// Labels are the metadata's labels by language (labels/<lang>.yaml).
	Labels map[string]*Labels
}

// Screen is a whole metadata-built screen: tabs, each a grid with its add
// dialog, row delete and action buttons.
type Screen struct {
	Route  string `yaml:"-" json:"route"`
	Screen int    `yaml:"screen" json:"screen"`
	Title  string `yaml:"title" json:"title"` // translation key
	Tabs   []*Tab `yaml:"tabs" json:"tabs"`
	// ShowTabs shows the tab strip of a one-tab screen too (the spec names
	// its one tab); without it such a screen is just its grid.
	ShowTabs bool `yaml:"showTabs" json:"showTabs,omitempty"`
	// Menu puts a screen that has no fixed menu entry into the sidebar.
	Menu *MenuEntry `yaml:"menu" json:"menu,omitempty"`
}

// MenuEntry places a metadata screen in the sidebar.
type MenuEntry struct {
	Group string `yaml:"group" json:"group"` // main, settings or administration
	Icon  string `yaml:"icon" json:"icon"`   // primeicons name, e.g. pi-history
	// After is the route (under dashboard/) of the entry of its group this
	// one follows, e.g. bank-settlement; else it comes last in its group.
	After string `yaml:"after" json:"after,omitempty"`
	// Label is the translation key of the entry (default: the screen's title).
	Label string `yaml:"label" json:"label,omitempty"`
}

// menuLabel is the translation key the screen's menu entry shows.
func (sc *Screen) menuLabel() string {
	if sc.Menu != nil && sc.Menu.Label != "" {
		return sc.Menu.Label
	}
	return sc.Title
}

// Tab is one grid of a screen.
type Tab struct {
	ID      string `yaml:"id" json:"id"`
	Title   string `yaml:"title" json:"title"` // translation key
	View    string `yaml:"view" json:"view"`
	Add     string `yaml:"add" json:"add,omitempty"`         // form opened by the add button
	AddText string `yaml:"addText" json:"addText,omitempty"` // translation key of the add button
	Delete  string `yaml:"delete" json:"delete,omitempty"`   // form whose resource deletes a row (trash icon)
	// DeleteRoute is the API path that deletes a row ({id} is its key) where
	// no form describes the resource (roles: /roles/{id}); a trash icon too.
	DeleteRoute string `yaml:"deleteRoute" json:"deleteRoute,omitempty"`
	Height      int    `yaml:"height" json:"height,omitempty"`
	// AddRoute and EditRoute send the add button and a row's pencil icon to a
	// hand-written form screen instead of a dialog ({key} is the row's key).
	AddRoute  string    `yaml:"addRoute" json:"addRoute,omitempty"`
	EditRoute string    `yaml:"editRoute" json:"editRoute,omitempty"`
	Actions   []*Action `yaml:"actions" json:"actions,omitempty"`
}

// Action is a button that calls the API (reprocess, sync).
type Action struct {
	ID      string `yaml:"id" json:"id"`
	Label   string `yaml:"label" json:"label"`     // translation key
	Icon    string `yaml:"icon" json:"icon"`       // primeicons name, e.g. pi-refresh
	Method  string `yaml:"method" json:"method"`   // POST
	Path    string `yaml:"path" json:"path"`       // under /api, e.g. /bank/reprocess
	Confirm string `yaml:"confirm" json:"confirm"` // translation key of a confirmation question
	Success string `yaml:"success" json:"success"` // translation key of the success toast
	Failure string `yaml:"failure" json:"failure"` // translation key of the fallback error toast
	// Selection: the action acts on the rows chosen in the grid (a column
	// of check boxes appears); the body's items are the chosen rows' Send
	// fields (the key when none). One: exactly one row.
	Selection bool     `yaml:"selection" json:"selection,omitempty"`
	One       bool     `yaml:"one" json:"one,omitempty"`
	Send      []string `yaml:"send" json:"send,omitempty"`
	// Inputs are asked for in a dialog before the call and sent by name.
	Inputs []*ActionInput `yaml:"inputs" json:"inputs,omitempty"`
	// Link opens a screen for the chosen row instead of calling the API:
	// a path under #/ whose {Field}s are the row's values (method and
	// path are then not needed).
	Link string `yaml:"link" json:"link,omitempty"`
	// RowFields are body keys filled from the one chosen row's fields
	// (e.g. {level: Level}). The path may name the row's fields and the
	// inputs as {Name}: '/periods/{Month}/reopen'.
	RowFields map[string]string `yaml:"rowFields" json:"rowFields,omitempty"`
}

// ActionInput is a value an action asks for before it calls the API.
type ActionInput struct {
	Name      string `yaml:"name" json:"name"`   // the body's key
	Label     string `yaml:"label" json:"label"` // translation key
	Type      string `yaml:"type" json:"type"`   // text, textarea, month (yyyy-mm) or select
	Required  bool   `yaml:"required" json:"required,omitempty"`
	MaxLength int    `yaml:"maxLength" json:"maxLength,omitempty"`
	// Default is the translation key of the text an input starts with.
	Default string `yaml:"default" json:"default,omitempty"`
	// Options (select): an API path answering a list; OptionValue and
	// OptionLabel name the fields of each element that are sent and shown.
	Options     string `yaml:"options" json:"options,omitempty"`
	OptionValue string `yaml:"optionValue" json:"optionValue,omitempty"`
	OptionLabel string `yaml:"optionLabel" json:"optionLabel,omitempty"`
	// Translate: the option labels are translation keys. Placeholder is
	// the translation key shown while nothing is chosen (an optional
	// select's meaning of none).
	Translate   bool   `yaml:"translate" json:"translate,omitempty"`
	Placeholder string `yaml:"placeholder" json:"placeholder,omitempty"`
}

// View describes one server-paged grid (see views.yaml for the documented schema).
type View struct {
	Name        string   `yaml:"-"`
	Source      string   `yaml:"source"` // table or SQL view the grid reads
	Table       string   `yaml:"table"`  // base table for inline edits; empty: read-only
	Key         string   `yaml:"key"`    // key field (a Field of Columns)
	Screen      int      `yaml:"screen"` // screen id the caller's roles must grant
	DefaultSort SortSpec `yaml:"defaultSort"`
	Export      string   `yaml:"export"`  // export file name, without extension
	Version     string   `yaml:"version"` // field used for optimistic concurrency
	// EditName is the TableName the spec's inline-edit call sends for this
	// view (e.g. TblMasterCountry); KeyColumnName must then be the key field.
	EditName string `yaml:"editName"`
	// EditSets are columns of the base table set on every inline edit
	// (e.g. is_modified: true on the bank-final record).
	EditSets map[string]any `yaml:"editSets"`
	// AfterEdit names a database function run after every inline edit, in
	// the edit's transaction, as fn(key, columns text[]) with the row's key
	// and the columns the edit wrote: derived figures are recomputed there,
	// so the engine stays generic (e.g. bank_booking_recompute).
	AfterEdit string `yaml:"afterEdit"`
	// Approval names the four-eyes rule an inline edit of the view asks
	// (e.g. tolerance): above it, the edit waits for a second user.
	Approval string `yaml:"approval"`
	// Large declares that the source table grows to millions of rows: every
	// sort and filter the view offers must then be served by an index, and
	// the engine builds the ones its columns need (engine/indexes.go).
	Large   bool      `yaml:"large"`
	Columns []*Column `yaml:"columns"`
	// Params make the view a report: Source is then a set-returning SQL
	// function taking these parameters in order (see Param).
	Params []*Param `yaml:"params"`
	// RowStatus colours whole rows by one column's value (the
	// reconciliation reports: matched green, partial yellow, unmatched red),
	// with the label a colour-blind reader sees beside the colour.
	RowStatus *RowStatus `yaml:"rowStatus"`
	// AuditAs is the entity the audit rows of inline edits name (default
	// the view's name), where a record's own history reads its audit rows
	// by entity: a task renamed in the grid is in the task's history.
	AuditAs string `yaml:"auditAs"`
	// Details are the grids of a row's expander: views of the records
	// related to the row, each filtered by one of its fields equal to the
	// row's key (a task's tickets and transactions).
	Details []*Detail `yaml:"details"`

	stampUpdated bool // base table has updated_on / updated_by (set by Validate)
}

// Detail is one grid of a view's expander row: the rows of View whose
// Field equals the expanded row's key. Its title is the label
// views.<View>.title.
type Detail struct {
	View  string `yaml:"view" json:"view"`
	Field string `yaml:"field" json:"field"`
}

// SortSpec is a default sort.
type SortSpec struct {
	Field string `yaml:"field" json:"field"`
	Order string `yaml:"order" json:"order"` // asc or desc
}

// Column is one grid column: the API/UI name (Field) and the SQL name (Column).
type Column struct {
	Field     string `yaml:"field"`
	Column    string `yaml:"column"`
	Type      string `yaml:"type"`
	Label     string `yaml:"label"` // translation key; default views.<view>.fields.<field>
	Hidden    bool   `yaml:"hidden"`
	Editable  bool   `yaml:"editable"`
	MaxLength int    `yaml:"maxLength"`
	MinLength int    `yaml:"minLength"`
	// Pattern is a regular expression an edited text value must match in
	// full (after Transform); PatternHint says in words what it wants
	// ("three letters, e.g. SEK") for the error message.
	Pattern     string   `yaml:"pattern"`
	PatternHint string   `yaml:"patternHint"`
	Transform   []string `yaml:"transform"` // trim, upper: applied to inline edits
	// Scale is a decimal column's one scale: the decimals it keeps and
	// shows, in the grid, the JSON, the export and the edit (which refuses
	// more). It is declared (scale:) on every decimal column and must be
	// the database column's own scale where that has one.
	Scale     int      `yaml:"-"`
	ScaleDecl *int     `yaml:"scale"`
	Values    []string `yaml:"values"`
	Width     int      `yaml:"width"`
	// Pinned keeps the column at the left while the grid scrolls sideways
	// (a key column, the variance), until the user's own layout says else.
	Pinned   bool    `yaml:"pinned"`
	Status   *Status `yaml:"status"` // colour rule: values shown as labelled badges
	Sortable *bool   `yaml:"sortable"`
	// Filters are the filter operators the grid offers on the column
	// (default: every operator of its type; an empty list: none). A large
	// view offers only what an index serves (see IndexNeeds).
	Filters *[]string `yaml:"filters"`
	// Min and Max bound an edited number. A column without them takes those
	// of a form field on the same table and column: a bound is declared
	// once, and an inline edit cannot write what the form refuses.
	Min *float64 `yaml:"min"`
	Max *float64 `yaml:"max"`
	// EnumInt is set by validation when an enum is stored in an integer column.
	EnumInt bool `yaml:"-"`
	// limitDecimals: a value sent with more decimals than Scale is refused
	// (edits and forms), not rounded; a filter value may have any.
	limitDecimals bool
	pattern       *regexp.Regexp // Pattern, compiled by the structural checks
	// intBits is the width of an int column's database type (16, 32 or 64),
	// set by validation: a value past it is bad input, not a database error.
	intBits int
	// intDigits bounds the digits before the decimal point of a decimal
	// column (numeric(p, s): p - s), set by validation; 0: unbounded.
	intDigits int
}

// Status colours a column by value: a value listed in Values gets that
// label and severity, any other value (an empty one too) gets Otherwise (extraction
// logs: Success is SUCCESS in green, anything else ERROR in red).
type Status struct {
	Values    map[string]Badge `yaml:"values" json:"values"`
	Otherwise *Badge           `yaml:"otherwise" json:"otherwise,omitempty"`
}

var severities = map[string]bool{"success": true, "info": true, "warning": true, "danger": true}

// check reports badges without a label or with an unknown severity.
func (s *Status) check(what string) []string {
	var p []string
	badges := map[string]*Badge{}
	for v, b := range s.Values {
		badges["value "+v] = &b
	}
	if s.Otherwise != nil {
		badges["otherwise"] = s.Otherwise
	}
	for name, b := range badges {
		if b.Label == "" || !severities[b.Severity] {
			p = append(p, fmt.Sprintf("%s: %s needs a label and a severity (success, info, warning, danger)", what, name))
		}
	}
	sort.Strings(p)
	return p
}

// RowStatus is a colour rule for whole rows: the badge of Field's value.
type RowStatus struct {
	Field  string `yaml:"field" json:"field"`
	Status `yaml:",inline"`
}

// Badge is a label with a severity: success, info, warning or danger.
type Badge struct {
	Label    string `yaml:"label" json:"label"`
	Severity string `yaml:"severity" json:"severity"`
	// Closed: a row of this status needs nothing more although its
	// severity is not success (a rejected request); "Open only" leaves it out.
	Closed bool `yaml:"closed" json:"closed,omitempty"`
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
	// Lookups are read-only option lists served at /api/{resource}/{name}
	// (e.g. ConfigSettings/GetDistinctCurrency) and used by select fields.
	Lookups []*Lookup `yaml:"lookups"`
	// OrderBy sorts the resource's GET list (a field; default the key).
	OrderBy SortSpec `yaml:"orderBy"`
	// Success is the translation key of the toast after a successful add.
	Success string `yaml:"success"`
	// SaveWhenValid keeps the dialog's Save button disabled until every
	// field is valid (else Save is always on and reports what is missing).
	SaveWhenValid bool `yaml:"saveWhenValid"`
	// View is the grid of the form's records (served at POST /{resource}/grid).
	View string `yaml:"view"`
	// Approval names the four-eyes rule a create, update or delete of the
	// form's records asks (e.g. tolerance).
	Approval string `yaml:"approval"`

	stampCreated, stampUpdated bool // table has created_by/on, updated_by/on (set by Validate)
}

// Lookup is a list of {value, label} pairs read from a table or view.
type Lookup struct {
	Name       string `yaml:"name"`
	Source     string `yaml:"source"`
	Value      string `yaml:"value"`      // column
	Label      string `yaml:"label"`      // column
	ValueField string `yaml:"valueField"` // JSON name of the value (default value)
	LabelField string `yaml:"labelField"` // JSON name of the label (default label)
	Distinct   bool   `yaml:"distinct"`   // one entry per label
}

// FormKey names the key of a form's resource.
type FormKey struct {
	Field  string `yaml:"field"`
	Column string `yaml:"column"`
}

// FormField is one input of a form.
type FormField struct {
	Field     string `yaml:"field"`
	Column    string `yaml:"column"`
	Type      string `yaml:"type"`
	Label     string `yaml:"label"`
	Required  bool   `yaml:"required"`
	MaxLength int    `yaml:"maxLength"`
	MinLength int    `yaml:"minLength"`
	// Pattern and PatternHint: as on a view column.
	Pattern     string   `yaml:"pattern"`
	PatternHint string   `yaml:"patternHint"`
	Scale       *int     `yaml:"scale"` // a decimal's decimals kept and shown (see Column.Scale)
	Values      []string `yaml:"values"`
	Default     any      `yaml:"default"`
	Transform   []string `yaml:"transform"` // trim, upper
	Options     string   `yaml:"options"`   // a lookup of the form whose entries the field offers
	Min         *float64 `yaml:"min"`
	Max         *float64 `yaml:"max"`
	// Labels translate enum values (translation keys by value), e.g. Yes/No.
	Labels map[string]string `yaml:"labels"`
	// OptionsStore says which side of an options lookup the field stores:
	// value (default) or label (e.g. a provider's name).
	OptionsStore string `yaml:"optionsStore"`

	column  *Column
	enumInt bool
}

// col is the field as a Column, so forms share the type registry's parsing.
func (ff *FormField) col() *Column {
	if ff.column == nil {
		ff.column = &Column{Field: ff.Field, Column: ff.Column, Type: ff.Type, MaxLength: ff.MaxLength, MinLength: ff.MinLength,
			Pattern: ff.Pattern, PatternHint: ff.PatternHint, ScaleDecl: ff.Scale, Values: ff.Values, limitDecimals: true}
		if ff.Scale != nil {
			ff.column.Scale = *ff.Scale
		}
		ff.column.pattern = compilePattern(ff.Pattern)
	}
	return ff.column
}

// compilePattern compiles a column's pattern anchored at both ends; nil for
// none or a bad one (the structural checks report those).
func compilePattern(p string) *regexp.Regexp {
	if p == "" {
		return nil
	}
	re, err := regexp.Compile(`^(?:` + p + `)$`)
	if err != nil {
		return nil
	}
	return re
}

// checkText reports what is wrong with the length and pattern options of a
// text column or field named what.
func checkText(what, typ string, minLength, maxLength int, pattern string, transform []string) []string {
	var p []string
	if t := Types[typ]; (minLength != 0 || pattern != "") && t != nil && !t.Typed {
		p = append(p, fmt.Sprintf("%s: minLength and pattern apply to text only", what))
	}
	if minLength < 0 || maxLength > 0 && minLength > maxLength {
		p = append(p, fmt.Sprintf("%s: minLength %d must be between 0 and maxLength", what, minLength))
	}
	if pattern != "" {
		if _, err := regexp.Compile(pattern); err != nil {
			p = append(p, fmt.Sprintf("%s: pattern %q is not a regular expression: %v", what, pattern, err))
		}
	}
	for _, t := range transform {
		if !transforms[t] {
			p = append(p, fmt.Sprintf("%s: unknown transform %q (trim, upper)", what, t))
		}
	}
	return p
}

// checkNumber reports what the type asks to be declared (an enum's values,
// a decimal's scale: the decimals it keeps and shows, one meaning
// everywhere, so it is never guessed), a scale on a type without one, and
// bounds on what is not a number or that cross.
func checkNumber(what, typ string, values []string, scale *int, minimum, maximum *float64) []string {
	t := Types[typ]
	if t == nil {
		return nil // reported as an unknown type
	}
	var p []string
	if t.check != nil {
		p = append(p, t.check(what, values, scale)...)
	}
	if !t.Scaled && scale != nil {
		p = append(p, fmt.Sprintf("%s: scale applies to decimals only", what))
	}
	if (minimum != nil || maximum != nil) && !t.Bounded {
		p = append(p, fmt.Sprintf("%s: min and max apply to int and decimal only", what))
	}
	if minimum != nil && maximum != nil && *minimum > *maximum {
		p = append(p, fmt.Sprintf("%s: min %v is above max %v", what, *minimum, *maximum))
	}
	return p
}

// Types every column and form field may have.

var transforms = map[string]bool{"trim": true, "upper": true}

// plainName is what identifiers in descriptors must look like: they end up in
// SQL as identifiers, so nothing but letters, digits and underscores, and an
// optional schema prefix.
// pathField is a {Name} of an action's path.
var pathField = regexp.MustCompile(`\{([A-Za-z_][A-Za-z0-9_ ]*)\}`)

var plainName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,62}(\.[A-Za-z_][A-Za-z0-9_]{0,62})?$`)

// fieldName is what a column's field (its name on the wire) may look like:
// a plain name, or words with single spaces between them where the spec
// names a field so ("Bank Account"). It is only ever an alias, quoted.
var fieldName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*( [A-Za-z0-9_]+)*$`)

// LoadMetadata reads views.yaml and forms/*.yaml from fsys, refusing unknown
// keys, and checks every descriptor's structure. It returns every problem at
// once, one line each, naming the file and the view or form.
func LoadMetadata(fsys fs.FS) (*Metadata, error) {
	md := &Metadata{Views: map[string]*View{}, Forms: map[string]*Form{}, Screens: map[string]*Screen{}}
	var problems []string
	add := func(file, name, format string, args ...any) {
		where := file
		if name != "" {
			where += ": " + name
		}
		problems = append(problems, where+": "+fmt.Sprintf(format, args...))
	}

	var views struct {
		Views   map[string]*View   `yaml:"views"`
		Screens map[string]*Screen `yaml:"screens"`
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

	for name, v := range md.Views {
		for _, p := range v.checkDetails(md) {
			add("views.yaml", name, "%s", p)
		}
	}

	for route, sc := range views.Screens {
		if sc == nil {
			add("views.yaml", "screens."+route, "empty screen")
			continue
		}
		sc.Route = route
		md.Screens[route] = sc
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

	for name, f := range md.Forms {
		if f.View != "" && md.Views[f.View] == nil {
			add("forms/"+name+".yaml", name, "view %q is not in views.yaml", f.View)
		}
	}
	md.inheritBounds()
	md.Labels = loadLabels(fsys, add)
	for route, sc := range md.Screens {
		for _, p := range sc.check(md) {
			add("views.yaml", "screens."+route, "%s", p)
		}
	}

	if len(problems) > 0 {
		sort.Strings(problems)
		return nil, &Error{Code: CodeInvalid, Message: "invalid metadata:\n  " + strings.Join(problems, "\n  ")}
	}
	return md, nil
}

// inheritBounds gives each view column without min or max those of a form
// field writing the same column of the same table.
func (md *Metadata) inheritBounds() {
	for _, f := range md.Forms {
		for _, ff := range f.Fields {
			for _, v := range md.Views {
				if v.Table == "" || v.Table != f.Table {
					continue
				}
				for _, c := range v.Columns {
					if c.Column != ff.Column {
						continue
					}
					if c.Min == nil {
						c.Min = ff.Min
					}
					if c.Max == nil {
						c.Max = ff.Max
					}
				}
			}
		}
	}
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
	if v.Approval != "" && !approvalActions[v.Approval] {
		p = append(p, fmt.Sprintf("approval %q is not a four-eyes rule (%s)", v.Approval, approvalActionList()))
	}
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
	p = append(p, v.checkParams()...)
	if v.RowStatus != nil {
		if v.column(v.RowStatus.Field) == nil {
			p = append(p, fmt.Sprintf("rowStatus: field %q is not one of the columns", v.RowStatus.Field))
		}
		p = append(p, v.RowStatus.check("rowStatus")...)
	}
	if len(v.Params) > 0 && v.Table != "" {
		p = append(p, "a view with params is a report and cannot have a base table for edits")
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
		if !fieldName.MatchString(c.Field) {
			p = append(p, fmt.Sprintf("column %d: field %q must be a plain name (spaces allowed inside)", i+1, c.Field))
		}
		if c.Column == "" {
			c.Column = c.Field
		}
		if !plainName.MatchString(c.Column) {
			p = append(p, fmt.Sprintf("column %s: column %q must be a plain name", c.Field, c.Column))
		}
		if Types[c.Type] == nil {
			p = append(p, fmt.Sprintf("column %s: unknown type %q (%s)", c.Field, c.Type, TypeNames()))
		}
		if c.Editable && v.Table == "" {
			p = append(p, fmt.Sprintf("column %s: editable, but the view has no base table", c.Field))
		}
		if t := Types[c.Type]; t != nil && c.Filters != nil {
			for _, op := range *c.Filters {
				if !t.allows(op) {
					p = append(p, fmt.Sprintf("column %s: filters: %q is not an operator of %s columns (%s)", c.Field, op, c.Type, strings.Join(t.Ops, ", ")))
				}
			}
		}
		p = append(p, checkText("column "+c.Field, c.Type, c.MinLength, c.MaxLength, c.Pattern, c.Transform)...)
		p = append(p, checkNumber("column "+c.Field, c.Type, c.Values, c.ScaleDecl, c.Min, c.Max)...)
		if c.ScaleDecl != nil {
			c.Scale = *c.ScaleDecl
		}
		c.pattern = compilePattern(c.Pattern)
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
	if v.EditName != "" && !plainName.MatchString(v.EditName) {
		p = append(p, fmt.Sprintf("editName %q must be a plain name", v.EditName))
	}
	if v.AfterEdit != "" && (v.Table == "" || !plainName.MatchString(v.AfterEdit)) {
		p = append(p, fmt.Sprintf("afterEdit %q must be a plain function name on a view with a base table", v.AfterEdit))
	}
	if len(v.EditSets) > 0 && v.Table == "" {
		p = append(p, "editSets needs a base table")
	}
	for col, val := range v.EditSets {
		if !plainName.MatchString(col) {
			p = append(p, fmt.Sprintf("editSets: %q must be a plain column name", col))
		}
		switch val.(type) {
		case bool, int, string:
		default:
			p = append(p, fmt.Sprintf("editSets: %s must be a constant (true, a number or text)", col))
		}
	}
	if v.Large && (len(v.Params) > 0 || v.Table != "" && v.Table != v.Source) {
		p = append(p, "large: the view must read its table directly (source the same as table, no params): indexes are built on the source")
	}
	if v.Export != "" && !plainName.MatchString(v.Export) {
		p = append(p, fmt.Sprintf("export %q must be a plain file name", v.Export))
	}
	if v.AuditAs != "" && (v.Table == "" || !plainName.MatchString(v.AuditAs)) {
		p = append(p, fmt.Sprintf("auditAs %q must be a plain entity name on a view with a base table", v.AuditAs))
	}
	return p
}

// checkDetails checks the expander's grids against the other views: each
// names a view of the same screen (whoever opens the row may open its
// details) with the field it is filtered by, and no view twice.
func (v *View) checkDetails(md *Metadata) []string {
	var p []string
	seen := map[string]bool{}
	for i, d := range v.Details {
		if d == nil {
			p = append(p, fmt.Sprintf("details: entry %d is empty", i+1))
			continue
		}
		what := fmt.Sprintf("details: %s", d.View)
		dv := md.Views[d.View]
		switch {
		case dv == nil:
			p = append(p, what+": not a view of views.yaml")
		case dv == v:
			p = append(p, what+": a view cannot be its own detail")
		case dv.Screen != v.Screen:
			p = append(p, fmt.Sprintf("%s: its screen %d is not the view's screen %d (who opens a row must be able to open its details)", what, dv.Screen, v.Screen))
		case len(dv.Params) > 0:
			p = append(p, what+": a report (params) cannot be a detail")
		case dv.column(d.Field) == nil:
			p = append(p, fmt.Sprintf("%s: field %q is not one of its columns", what, d.Field))
		case !dv.column(d.Field).typ().allows(OpEquals):
			p = append(p, fmt.Sprintf("%s: field %q cannot be compared for equality", what, d.Field))
		}
		if seen[d.View] {
			p = append(p, what+": listed twice")
		}
		seen[d.View] = true
	}
	return p
}

// AuditEntity is the entity the audit rows of the view's inline edits name.
func (v *View) AuditEntity() string {
	if v.AuditAs != "" {
		return v.AuditAs
	}
	return v.Name
}

func (f *Form) check() []string {
	var p []string
	if f.Approval != "" && !approvalActions[f.Approval] {
		p = append(p, fmt.Sprintf("approval %q is not a four-eyes rule (%s)", f.Approval, approvalActionList()))
	}
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
	lookups := map[string]bool{}
	for i, l := range f.Lookups {
		if l == nil || !plainName.MatchString(l.Name) || !plainName.MatchString(l.Source) || !plainName.MatchString(l.Value) || !plainName.MatchString(l.Label) {
			p = append(p, fmt.Sprintf("lookup %d: name, source, value and label must be plain names", i+1))
			continue
		}
		if l.ValueField == "" {
			l.ValueField = "value"
		}
		if l.LabelField == "" {
			l.LabelField = "label"
		}
		if !plainName.MatchString(l.ValueField) || !plainName.MatchString(l.LabelField) {
			p = append(p, fmt.Sprintf("lookup %s: valueField and labelField must be plain names", l.Name))
		}
		lookups[l.Name] = true
	}
	if f.OrderBy.Order != "" && f.OrderBy.Order != "asc" && f.OrderBy.Order != "desc" {
		p = append(p, fmt.Sprintf("orderBy: order %q must be asc or desc", f.OrderBy.Order))
	}
	seen := map[string]bool{}
	if f.OrderBy.Field != "" {
		found := f.OrderBy.Field == f.Key.Field
		for _, ff := range f.Fields {
			found = found || ff != nil && ff.Field == f.OrderBy.Field
		}
		if !found {
			p = append(p, fmt.Sprintf("orderBy: field %q is not a field of the form", f.OrderBy.Field))
		}
	}
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
		if Types[ff.Type] == nil {
			p = append(p, fmt.Sprintf("field %s: unknown type %q (%s)", ff.Field, ff.Type, TypeNames()))
		}
		p = append(p, checkText("field "+ff.Field, ff.Type, ff.MinLength, ff.MaxLength, ff.Pattern, ff.Transform)...)
		p = append(p, checkNumber("field "+ff.Field, ff.Type, ff.Values, ff.Scale, ff.Min, ff.Max)...)
		if ff.Options != "" && !lookups[ff.Options] {
			p = append(p, fmt.Sprintf("field %s: options %q is not a lookup of the form", ff.Field, ff.Options))
		}
		if seen[ff.Field] {
			p = append(p, fmt.Sprintf("field %s appears twice", ff.Field))
		}
		seen[ff.Field] = true
	}
	return p
}

var routeName = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,62}$`)

func (sc *Screen) check(md *Metadata) []string {
	var p []string
	if !routeName.MatchString(sc.Route) {
		p = append(p, "the route must be lower-case letters, digits and dashes")
	}
	if sc.Screen <= 0 {
		p = append(p, "screen: a screen id (a positive number) is required")
	}
	if len(sc.Tabs) == 0 {
		p = append(p, "tabs: at least one tab is required")
	}
	if m := sc.Menu; m != nil && m.Group != "main" && m.Group != "settings" && m.Group != "administration" {
		p = append(p, fmt.Sprintf("menu: group %q must be main, settings or administration", m.Group))
	}
	if m := sc.Menu; m != nil && m.After != "" && !routeName.MatchString(m.After) {
		p = append(p, fmt.Sprintf("menu: after %q must be a route (lower-case letters, digits and dashes)", m.After))
	}
	ids := map[string]bool{}
	for i, t := range sc.Tabs {
		if t == nil {
			p = append(p, fmt.Sprintf("tab %d is empty", i+1))
			continue
		}
		if t.ID == "" || ids[t.ID] {
			p = append(p, fmt.Sprintf("tab %d: a unique id is required", i+1))
		}
		ids[t.ID] = true
		v := md.Views[t.View]
		if v == nil {
			p = append(p, fmt.Sprintf("tab %s: view %q is not in views", t.ID, t.View))
		} else if v.Screen != sc.Screen {
			p = append(p, fmt.Sprintf("tab %s: view %s has screen %d, the screen has %d", t.ID, t.View, v.Screen, sc.Screen))
		}
		for _, form := range []string{t.Add, t.Delete} {
			if form != "" && md.Forms[form] == nil {
				p = append(p, fmt.Sprintf("tab %s: form %q is not in forms/", t.ID, form))
			}
		}
		if t.DeleteRoute != "" && (!strings.HasPrefix(t.DeleteRoute, "/") || !strings.Contains(t.DeleteRoute, "{id}") || t.Delete != "") {
			p = append(p, fmt.Sprintf("tab %s: deleteRoute is an API path with {id}, starting with /, instead of delete", t.ID))
		}
		for _, a := range t.Actions {
			p = append(p, checkAction(t, a, md)...)
		}
	}
	return p
}

// checkAction reports what a tab's action lacks.
func checkAction(t *Tab, a *Action, md *Metadata) []string {
	var p []string
	switch {
	case a == nil || a.ID == "":
		return []string{fmt.Sprintf("tab %s: an action needs an id", t.ID)}
	case a.Link != "":
		if !strings.HasPrefix(a.Link, "/") || !a.Selection || !a.One {
			p = append(p, fmt.Sprintf("tab %s: action %s: a link is a path starting with / and opens one chosen row (selection: true, one: true)", t.ID, a.ID))
		}
	case !strings.HasPrefix(a.Path, "/") || (a.Method != "POST" && a.Method != "PUT" && a.Method != "DELETE"):
		p = append(p, fmt.Sprintf("tab %s: action %s needs method (POST, PUT or DELETE) and a path starting with /", t.ID, a.ID))
	}
	if v := md.Views[t.View]; v != nil {
		for _, f := range a.Send {
			if v.column(f) == nil {
				p = append(p, fmt.Sprintf("tab %s: action %s sends %s, which is not a column of %s", t.ID, a.ID, f, t.View))
			}
		}
	}
	if len(a.Send) > 0 && !a.Selection {
		p = append(p, fmt.Sprintf("tab %s: action %s sends row fields but takes no selection", t.ID, a.ID))
	}
	if len(a.RowFields) > 0 && !a.One {
		p = append(p, fmt.Sprintf("tab %s: action %s: rowFields come from one chosen row (selection: true, one: true)", t.ID, a.ID))
	}
	// the path's {Name}s: the one chosen row's fields, or the inputs
	inputs := map[string]bool{}
	for _, in := range a.Inputs {
		if in != nil {
			inputs[in.Name] = true
		}
	}
	fields := []string{}
	for _, m := range pathField.FindAllStringSubmatch(a.Path, -1) {
		fields = append(fields, m[1])
	}
	for _, f := range a.RowFields {
		fields = append(fields, f)
	}
	if v := md.Views[t.View]; v != nil {
		for _, f := range fields {
			switch {
			case inputs[f] && !slices.Contains(slices.Collect(maps.Values(a.RowFields)), f):
			case v.column(f) == nil:
				p = append(p, fmt.Sprintf("tab %s: action %s names %s, which is neither an input nor a column of %s", t.ID, a.ID, f, t.View))
			case !a.One:
				p = append(p, fmt.Sprintf("tab %s: action %s names the row's %s but does not act on one chosen row (one: true)", t.ID, a.ID, f))
			}
		}
	}
	for _, in := range a.Inputs {
		switch {
		case in == nil || in.Name == "" || in.Label == "":
			p = append(p, fmt.Sprintf("tab %s: action %s: an input needs name and label", t.ID, a.ID))
		case in.Type != "text" && in.Type != "textarea" && in.Type != "month" && in.Type != "select":
			p = append(p, fmt.Sprintf("tab %s: action %s: input %s: type is text, textarea, month or select", t.ID, a.ID, in.Name))
		case in.Type == "select" && (!strings.HasPrefix(in.Options, "/") || in.OptionValue == "" || in.OptionLabel == ""):
			p = append(p, fmt.Sprintf("tab %s: action %s: input %s: a select needs options (an API path), optionValue and optionLabel", t.ID, a.ID, in.Name))
		}
	}
	return p
}
