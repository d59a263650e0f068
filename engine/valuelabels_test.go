package engine

import (
	"strings"
	"testing"
	"testing/fstest"
)

const detailViews = `
views:
  VW_Task:
    source: task_list
    table: task
    key: id
    auditAs: task
    screen: 14
    details:
      - {view: VW_TaskTicket, field: taskId}
    columns:
      - {field: id, type: int}
      - {field: status, column: is_status, type: enum, values: ['1', '2', '3']}
      - {field: kind, type: enum, values: [a, b]}
      - {field: result, type: text, status: {values: {ok: {label: views.VW_Task.badges.ok, severity: success}}, otherwise: {label: FAILED, severity: danger}}}
  VW_TaskTicket:
    source: task_ticket_list
    key: ticketId
    screen: 14
    columns:
      - {field: ticketId, type: int}
      - {field: taskId, type: int, hidden: true}
`

// An export writes an enum's and a badge's values as the grid shows them:
// the value's label in the reader's language (English where that language
// lacks it), a nested UI text resolved, a badge's own words, and the value
// itself where nothing labels it.
func TestValueLabels(t *testing.T) {
	md, err := LoadMetadata(fstest.MapFS{
		"views.yaml": {Data: []byte(detailViews)},
		"labels/en.yaml": {Data: []byte(`
views:
  VW_Task:
    values: {status: {"1": "$t(tasks.status.1)", "2": In Progress, "3": Complete}}
    badges: {ok: Fine}
`)},
		"labels/sv.yaml": {Data: []byte(`
views:
  VW_Task:
    values: {status: {"1": "$t(tasks.status.1)", "2": Pågår}}
`)},
	})
	if err != nil {
		t.Fatal(err)
	}
	texts := func(lang string) map[string]string {
		return map[string]map[string]string{"en": {"tasks.status.1": "New"}, "sv": {"tasks.status.1": "Ny"}}[lang]
	}
	v := md.Views["VW_Task"]
	e := New(Options{Metadata: md, Texts: texts})
	cl := e.exportLabels(v, v.Columns, "sv")
	for _, tt := range []struct {
		field string
		value any
		want  any
	}{
		{"status", int16(1), "Ny"},       // nested UI text, in Swedish
		{"status", int16(2), "Pågår"},    // the Swedish label
		{"status", int16(3), "Complete"}, // no Swedish label: English
		{"status", int16(7), int16(7)},   // not a listed value: as stored
		{"kind", "a", "a"},               // an enum without labels
		{"result", "ok", "Fine"},         // a badge's translated label
		{"result", "boom", "FAILED"},     // any other value: the fallback badge
		{"result", nil, "FAILED"},        // no value: the fallback badge too
		{"id", int64(5), int64(5)},       // not an enum
	} {
		i := -1
		for j, c := range v.Columns {
			if c.Field == tt.field {
				i = j
			}
		}
		if got := cl.label(i, v.Columns[i], tt.value); got != tt.want {
			t.Errorf("%s %v: %v, want %v", tt.field, tt.value, got, tt.want)
		}
	}
	if v.AuditEntity() != "task" || md.Views["VW_TaskTicket"].AuditEntity() != "VW_TaskTicket" {
		t.Errorf("audit entities: %q, %q", v.AuditEntity(), md.Views["VW_TaskTicket"].AuditEntity())
	}
	meta := v.Meta()
	if len(meta.Details) != 1 || meta.Details[0] != (DetailMeta{View: "VW_TaskTicket", Field: "taskId", Title: "views.VW_TaskTicket.title"}) {
		t.Errorf("details: %+v", meta.Details)
	}
	if _, ok := md.LabelKeys()["views.VW_TaskTicket.title"]; !ok {
		t.Errorf("a detail's title is a label the metadata shows")
	}
}

// A detail names a view of the same screen with the field it is filtered
// by; auditAs needs a base table.
func TestDetailsAreChecked(t *testing.T) {
	for _, tt := range []struct{ from, to, want string }{
		{"{view: VW_TaskTicket, field: taskId}", "{view: VW_Nope, field: taskId}", "details: VW_Nope: not a view"},
		{"{view: VW_TaskTicket, field: taskId}", "{view: VW_TaskTicket, field: nope}", `field "nope" is not one of its columns`},
		{"{view: VW_TaskTicket, field: taskId}", "{view: VW_Task, field: id}", "a view cannot be its own detail"},
		{"{view: VW_TaskTicket, field: taskId}", "{view: VW_TaskTicket, field: taskId}\n      - {view: VW_TaskTicket, field: taskId}", "listed twice"},
		{"    screen: 14\n    columns:\n      - {field: ticketId", "    screen: 15\n    columns:\n      - {field: ticketId", "its screen 15 is not the view's screen 14"},
		{"    table: task\n", "", `auditAs "task" must be a plain entity name on a view with a base table`},
	} {
		bad := strings.Replace(detailViews, tt.from, tt.to, 1)
		if bad == detailViews {
			t.Fatalf("%q is not in the fixture", tt.from)
		}
		_, err := LoadMetadata(fstest.MapFS{"views.yaml": {Data: []byte(bad)}})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.to, err, tt.want)
		}
	}
}
