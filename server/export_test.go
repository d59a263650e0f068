package server

import (
	"testing"

	"ledgerdesk/engine"
)

// An XLSX export past the row limit says so before its first byte (the UI
// tells the user); a CSV export holds every row and says nothing.
func TestExportSaysWhenItIsCut(t *testing.T) {
	w := newWorld(t)
	admin := w.login("admin", adminPassword)
	for _, code := range []string{"AA", "BB"} {
		w.must(201, "POST", "/api/Country", admin, map[string]string{"countryCode": code, "countryName": "Land " + code})
	}
	defer func(limit int) { engine.MaxXLSXRows = limit }(engine.MaxXLSXRows)
	engine.MaxXLSXRows = 1
	tests := []struct{ format, cut string }{{"xlsx", "1"}, {"csv", ""}}
	for _, tt := range tests {
		a := w.do("POST", "/api/grid/export", admin, map[string]any{"ViewName": "VW_TblMasterCountry", "Format": tt.format, "TimeZone": "Europe/Lisbon"})
		if a.status != 200 || a.header.Get("X-Export-Cut-At") != tt.cut {
			t.Errorf("%s: status %d, X-Export-Cut-At %q, want %q", tt.format, a.status, a.header.Get("X-Export-Cut-At"), tt.cut)
		}
	}
	if a := w.do("POST", "/api/grid/export", admin, map[string]any{"ViewName": "VW_TblMasterCountry", "TimeZone": "Nowhere/City"}); a.status != 400 || a.env.Field != "TimeZone" {
		t.Errorf("unknown zone: %d %s", a.status, a.body)
	}
}
