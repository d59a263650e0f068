package engine

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"
)

// An XLSX amount is the exact decimal with the column's scale (or its exact
// text past what a spreadsheet number holds), datetimes are written in the
// user's zone with the zone in the header, and a file cut at the row limit
// says so; CSV holds every row.
func TestExportExactZonedAndCut(t *testing.T) {
	f := newFixture(t)
	f.exec(t, `insert into bank_booking (bank_account, booked_date, amount_local, currency, text, created_on) values
		('NO-1', '2026-07-02', 123456789012345678.91, 'NOK', 'big', '2026-07-02 23:30+00'),
		('NO-1', '2026-07-03', 1200.5, 'NOK', 'small', '2026-07-03 10:00+00')`)
	req := ExportRequest{GridRequest: GridRequest{ViewName: "VW_BankFinal", SortField: "BookedDate", SortOrder: "asc"},
		Format: "xlsx", TimeZone: "Europe/Stockholm", Columns: []ExportColumn{{"AmountLocal", "Amount"}, {"CreatedOn", "Created"}}}
	export := func(r ExportRequest) (*Export, []byte) {
		t.Helper()
		x, err := f.e.PrepareExport(f.ctx, r, "YYYY-MM-DD HH:mm:ss")
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := x.WriteTo(f.ctx, &buf); err != nil {
			t.Fatal(err)
		}
		return x, buf.Bytes()
	}
	x, file := export(req)
	if x.CutAt != 0 {
		t.Errorf("a two-row file is cut at %d", x.CutAt)
	}
	xf, err := excelize.OpenReader(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	raw := func(cell string) string {
		t.Helper()
		v, err := xf.GetCellValue("Sheet1", cell, excelize.Options{RawCellValue: true})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	shown := func(cell string) string {
		t.Helper()
		v, err := xf.GetCellValue("Sheet1", cell)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for cell, want := range map[string]string{
		"B1": "Created (Europe/Stockholm)",
		"A2": "123456789012345678.91", // 20 digits: a double would make it ...678.9 something
		"A3": "1200.5",
		"B2": "2026-07-03 01:30:00", // 23:30 UTC is 01:30 the next day in Stockholm (summer time)
		"B3": "2026-07-03 12:00:00",
	} {
		got := raw(cell)
		if strings.HasPrefix(cell, "B") && cell != "B1" {
			got = shown(cell)
		}
		if got != want {
			t.Errorf("%s = %q, want %q", cell, got, want)
		}
	}
	if v := shown("A3"); v != "1,200.50" {
		t.Errorf("A3 shows %q, want the column's scale and grouping", v)
	}
	if ty, err := xf.GetCellType("Sheet1", "A3"); err != nil || (ty != excelize.CellTypeNumber && ty != excelize.CellTypeUnset) {
		t.Errorf("A3 type %v (%v), want a number", ty, err)
	}

	// Past the row limit: the file is cut, the handler is told, the sheet says so.
	defer func(limit int) { MaxXLSXRows = limit }(MaxXLSXRows)
	MaxXLSXRows = 1
	x, file = export(req)
	if x.CutAt != 1 {
		t.Errorf("CutAt %d, want 1", x.CutAt)
	}
	if xf, err = excelize.OpenReader(bytes.NewReader(file)); err != nil {
		t.Fatal(err)
	}
	if v := shown("A3"); !strings.Contains(v, "Cut at 1 rows") {
		t.Errorf("last line %q does not say the file is cut", v)
	}
	req.Format = "csv"
	x, file = export(req)
	recs, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(string(file), "\uFEFF"))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if x.CutAt != 0 || len(recs) != 3 || recs[0][1] != "Created (Europe/Stockholm)" || recs[1][0] != "123456789012345678.91" || recs[1][1] != "2026-07-03 01:30:00" {
		t.Errorf("csv (cut at %d): %q", x.CutAt, recs)
	}

	req.TimeZone = "Mars/Olympus"
	if _, err := f.e.PrepareExport(f.ctx, req, ""); fieldOf(err) != "TimeZone" {
		t.Errorf("unknown zone: %v", err)
	}
}

// A decimal is written as a number only while a spreadsheet number holds it
// exactly: the count of its significant digits decides, signs, points and
// leading zeros not counted.
func TestSignificantDigits(t *testing.T) {
	for s, want := range map[string]int{
		"0": 0, "0.00": 0, "-0.0012": 2, "1200.50": 6, "-1200.50": 6, "100": 3,
		"123456789012345.6": 16, "12345678901234.56": 16, "1234567890123.45": 15, "-0.000000000000001": 1,
	} {
		if got := significantDigits(s); got != want {
			t.Errorf("significantDigits(%q) = %d, want %d", s, got, want)
		}
	}
}
