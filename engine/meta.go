package engine

import (
	"context"
	"sort"
)

// ViewMeta is what the UI needs to render a grid.
type ViewMeta struct {
	Name        string       `json:"name"`
	Key         string       `json:"key"`
	Screen      int          `json:"screen"`
	Export      string       `json:"export,omitempty"`
	Editable    bool         `json:"editable"`
	EditName    string       `json:"editName,omitempty"`
	Version     string       `json:"version,omitempty"`
	DefaultSort SortSpec     `json:"defaultSort"`
	Columns     []ColumnMeta `json:"columns"`
	CountCap    int          `json:"countCap"`
	MaxPageSize int          `json:"maxPageSize"`
	Params      []*Param     `json:"params,omitempty"`
	RowStatus   *RowStatus   `json:"rowStatus,omitempty"`
	// Details are the expander row's grids (views.yaml details), titled
	// views.<view>.title.
	Details []DetailMeta `json:"details,omitempty"`
}

// DetailMeta is one grid of the expander row.
type DetailMeta struct {
	View  string `json:"view"`
	Field string `json:"field"`
	Title string `json:"title"` // translation key
}

// ColumnMeta describes one column to the UI.
type ColumnMeta struct {
	Field     string   `json:"field"`
	Type      string   `json:"type"`
	Label     string   `json:"label"` // translation key
	Hidden    bool     `json:"hidden,omitempty"`
	Editable  bool     `json:"editable,omitempty"`
	Sortable  bool     `json:"sortable"`
	MaxLength int      `json:"maxLength,omitempty"`
	Scale     *int     `json:"scale,omitempty"` // decimals shown; set for every decimal column, 0 included
	Values    []string `json:"values,omitempty"`
	Width     int      `json:"width,omitempty"`
	Pinned    bool     `json:"pinned,omitempty"`
	Status    *Status  `json:"status,omitempty"`
	Ops       []string `json:"ops"`
}

// Meta describes a view for the UI.
func (v *View) Meta() ViewMeta {
	m := ViewMeta{Name: v.Name, Key: v.Key, Screen: v.Screen, Export: v.Export, Editable: v.Table != "",
		EditName: v.EditName, Version: v.Version, DefaultSort: v.DefaultSort, CountCap: CountCap, MaxPageSize: MaxPageSize, Params: v.Params, RowStatus: v.RowStatus}
	for _, d := range v.Details {
		m.Details = append(m.Details, DetailMeta{View: d.View, Field: d.Field, Title: "views." + d.View + ".title"})
	}
	for _, c := range v.Columns {
		label := c.Label
		if label == "" {
			label = "views." + v.Name + ".fields." + c.Field
		}
		var scale *int
		if c.typ().Scaled {
			scale = &c.Scale
		}
		m.Columns = append(m.Columns, ColumnMeta{Field: c.Field, Type: uiType(c.Type), Label: label, Hidden: c.Hidden,
			Editable: c.Editable, Sortable: c.IsSortable(), MaxLength: c.MaxLength, Scale: scale,
			Values: c.Values, Width: c.Width, Pinned: c.Pinned, Status: c.Status, Ops: c.Ops()})
	}
	return m
}

// ViewSummary is an entry of the view list.
type ViewSummary struct {
	Name   string `json:"name"`
	Screen int    `json:"screen"`
	Export string `json:"export,omitempty"`
}

// Views lists the views the caller may open.
func (e *Engine) Views(ctx context.Context) []ViewSummary {
	a := ActorFrom(ctx)
	md := e.Metadata()
	out := []ViewSummary{}
	for _, name := range sortedKeys(md.Views) {
		v := md.Views[name]
		if a.Can(v.Screen) {
			out = append(out, ViewSummary{Name: name, Screen: v.Screen, Export: v.Export})
		}
	}
	return out
}

// Screens lists the metadata screens the caller may open.
func (e *Engine) Screens(ctx context.Context) []*Screen {
	a := ActorFrom(ctx)
	out := []*Screen{}
	for _, sc := range e.Metadata().Screens {
		if a.Can(sc.Screen) {
			out = append(out, sc)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Route < out[j].Route })
	return out
}

// ScreenByRoute returns one metadata screen if the caller may open it.
func (e *Engine) ScreenByRoute(ctx context.Context, route string) (*Screen, error) {
	sc := e.Metadata().Screens[route]
	if sc == nil {
		return nil, NotFound("No screen %q is described in the metadata.", route).With("screen.unknown", "route", route)
	}
	if !ActorFrom(ctx).Can(sc.Screen) {
		return nil, Forbidden("You do not have permission for this screen.").With("screen.forbidden")
	}
	return sc, nil
}

// FormMeta is a form as JSON Schema + uiSchema for @rjsf, with the dialog's settings.
type FormMeta struct {
	Name     string `json:"name"`
	Resource string `json:"resource"`
	Key      string `json:"key"`
	Title    string `json:"title"`
	Width    int    `json:"width"`
	Success  string `json:"success,omitempty"`
	// SaveWhenValid: Save stays disabled until the form is valid.
	SaveWhenValid bool           `json:"saveWhenValid,omitempty"`
	Schema        map[string]any `json:"schema"`
	UISchema      map[string]any `json:"uiSchema"`
}

// Meta returns the form's JSON Schema and uiSchema. Titles are translation
// keys (forms.<name>.fields.<field>); the UI translates them.
func (f *Form) Meta() FormMeta {
	props := map[string]any{}
	required := []string{}
	ui := map[string]any{}
	order := []string{}
	for _, ff := range f.Fields {
		label := ff.Label
		if label == "" {
			label = "forms." + f.Name + ".fields." + ff.Field
		}
		p := map[string]any{"title": label}
		fieldUI := map[string]any{}
		if t := ff.col().typ(); t != nil && t.schema != nil {
			t.schema(ff, p, fieldUI)
		}
		if ff.Min != nil {
			p["minimum"] = *ff.Min
		}
		if ff.Max != nil {
			p["maximum"] = *ff.Max
		}
		if _, set := p["default"]; !set && ff.Default != nil { // a type may write its default its own way
			p["default"] = ff.Default
		}
		if ff.Options != "" {
			for _, l := range f.Lookups {
				if l.Name == ff.Options {
					fieldUI["ui:widget"] = "lookup"
					store := ff.OptionsStore
					if store == "" {
						store = "value"
					}
					fieldUI["ui:options"] = map[string]any{"lookup": "/" + f.Resource + "/" + l.Name, "valueField": l.ValueField, "labelField": l.LabelField, "store": store}
				}
			}
		}
		if len(ff.Transform) > 0 {
			opts, _ := fieldUI["ui:options"].(map[string]any)
			if opts == nil {
				opts = map[string]any{}
			}
			opts["transform"] = ff.Transform
			fieldUI["ui:options"] = opts
		}
		if ff.Required {
			required = append(required, ff.Field)
		}
		props[ff.Field] = p
		if len(fieldUI) > 0 {
			ui[ff.Field] = fieldUI
		}
		order = append(order, ff.Field)
	}
	ui["ui:order"] = order
	title := f.Title
	if title == "" {
		title = "forms." + f.Name + ".title"
	}
	return FormMeta{Name: f.Name, Resource: f.Resource, Key: f.Key.Field, Title: title, Width: f.Width, Success: f.Success, SaveWhenValid: f.SaveWhenValid,
		Schema: map[string]any{"type": "object", "required": required, "properties": props}, UISchema: ui}
}

func atoiOr(s string) any {
	n := 0
	for _, r := range s {
		if r < '0' || r > '9' {
			return s
		}
		n = n*10 + int(r-'0')
	}
	return n
}
