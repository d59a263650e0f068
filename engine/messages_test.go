package engine

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"strings"
	"testing"

	"ledgerdesk/ui"
)

// A message column (the extraction log's Description and ErrorDescription,
// stored in English with a code and parameters) is filtered and exported in
// the caller's profile language, as the grid shows it.
func TestMessageColumnsInTheCallersLanguage(t *testing.T) {
	f := newFixture(t)
	f.e.messages = ui.ServerMessages
	f.exec(t, `insert into extraction_log (module, description, description_code, description_params, status, error_description, error_code, error_params) values
		('Bank', 'a.csv: 3 rows read, 2 loaded', 'log.loaded', '{"file": "a.csv", "read": 3, "loaded": 2}', 'Success', null, null, null),
		('Bank', 'old.csv: loaded before codes', null, null, 'Success', null, null, null),
		('Bank', 'mt.sta: 0 rows read, nothing loaded', 'log.failed', '{"file": "mt.sta", "read": 0}', 'Failed',
		 'mt.sta: line 2, column 1: the line is not an MT940 field (a field starts like :20:)', 'import.file.notMt940Field', '{"file": "mt.sta", "line": 2, "column": 1}')`)
	as := func(lang string) context.Context {
		a := *ActorFrom(f.ctx)
		a.Language = lang
		return WithActor(context.Background(), &a)
	}
	sv := as("sv")
	files := func(ctx context.Context, conds ...Cond) string {
		t.Helper()
		p, err := f.e.Page(ctx, GridRequest{ViewName: "VW_BankFileExtractionLog", Filters: conds, SortField: "Id", SortOrder: "asc"})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, r := range p.Rows() {
			names = append(names, strings.SplitN(r["Description"].(string), ":", 2)[0])
		}
		return strings.Join(names, " ")
	}
	for _, tt := range []struct {
		ctx  context.Context
		cond Cond
		want string
	}{
		{sv, Cond{"Description", "contains", "inlästa"}, "a.csv"},        // the Swedish text of log.loaded
		{sv, Cond{"Description", "contains", "2 loaded"}, ""},            // not the stored English
		{sv, Cond{"Description", "contains", "before codes"}, "old.csv"}, // no code: the stored text
		{sv, Cond{"Description", "equals", "A.CSV: 3 RADER LÄSTA, 2 INLÄSTA"}, "a.csv"},
		{sv, Cond{"ErrorDescription", "contains", "rad 2, kolumn 1: raden är inget MT940-fält"}, "mt.sta"},
		{sv, Cond{"ErrorDescription", "isEmpty", nil}, "a.csv old.csv"},
		{as("es"), Cond{"Description", "contains", "filas leídas"}, "a.csv mt.sta"},
		{f.ctx, Cond{"Description", "contains", "2 loaded"}, "a.csv"}, // no language: the stored text
	} {
		if got := files(tt.ctx, tt.cond); got != tt.want {
			t.Errorf("%s as %s: %q, want %q", tt.cond, ActorFrom(tt.ctx).Language, got, tt.want)
		}
	}

	req := ExportRequest{GridRequest: GridRequest{ViewName: "VW_BankFileExtractionLog", SortField: "Id", SortOrder: "asc"}, Format: "csv",
		Columns: []ExportColumn{{"Description", "Beskrivning"}, {"Status", "Status"}, {"ErrorDescription", "Fel"}}}
	x, err := f.e.PrepareExport(sv, req, "YYYY-MM-DD HH:mm:ss")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := x.WriteTo(sv, &buf); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(buf.String(), "\uFEFF"))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"Beskrivning", "Status", "Fel"},
		// The status as the grid shows it: its badge (valuelabels.go).
		{"a.csv: 3 rader lästa, 2 inlästa", "SUCCESS", ""},
		{"old.csv: loaded before codes", "SUCCESS", ""},
		{"mt.sta: 0 rader lästa, inget inläst", "ERROR", "mt.sta: rad 2, kolumn 1: raden är inget MT940-fält (ett fält börjar som :20:)"},
	}
	if strings.Join(flat(recs), "|") != strings.Join(flat(want), "|") {
		t.Errorf("csv as sv\n got %q\nwant %q", recs, want)
	}
}

func flat(recs [][]string) []string {
	var out []string
	for _, r := range recs {
		out = append(out, strings.Join(r, ";"))
	}
	return out
}

// The built-in role's seeded description reads in the caller's language;
// one an administrator wrote reads as written (migration 00038).
func TestSeededRoleDescriptionInTheCallersLanguage(t *testing.T) {
	f := newFixture(t)
	f.e.messages = ui.ServerMessages
	f.exec(t, `insert into role (role_name, description, is_admin) values ('Administrator', 'Built-in role: every screen', true),
		('Clerks', 'Built-in role: every screen', false), ('Auditors', 'Our own words', false)`)
	a := *ActorFrom(f.ctx)
	a.Language = "sv"
	sv := WithActor(context.Background(), &a)
	p, err := f.e.Page(sv, GridRequest{ViewName: "VW_RolesList", SortField: "RoleName", SortOrder: "asc"})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range p.Rows() {
		got[r["RoleName"].(string)] = fmt.Sprint(r["DescriptionCode"])
	}
	want := map[string]string{"Administrator": "roles.adminDescription", "Clerks": "<nil>", "Auditors": "<nil>"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("codes %v, want %v", got, want)
	}
	hits, err := f.e.Page(sv, GridRequest{ViewName: "VW_RolesList", Filters: []Cond{{"Description", "contains", "alla skärmar"}}})
	if err != nil {
		t.Fatal(err)
	}
	if rows := hits.Rows(); len(rows) != 1 || rows[0]["RoleName"] != "Administrator" {
		t.Errorf("filtered by the Swedish text: %v", rows)
	}
}
