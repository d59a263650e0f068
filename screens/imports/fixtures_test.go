package imports

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"
)

// The XLSX fixtures are generated with excelize by this test under -update
// (go test -run TestGenerateFixtures -update ./screens/imports/) and
// committed; normal runs only read them.

type sheetSpec struct {
	name string
	rows [][]any // time.Time values become date cells
}

func writeWorkbook(t *testing.T, file string, sheets []sheetSpec) {
	t.Helper()
	f := excelize.NewFile()
	defer f.Close()
	style, err := f.NewStyle(&excelize.Style{NumFmt: 14})
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range sheets {
		if i == 0 {
			if err := f.SetSheetName("Sheet1", s.name); err != nil {
				t.Fatal(err)
			}
		} else if _, err := f.NewSheet(s.name); err != nil {
			t.Fatal(err)
		}
		for r, row := range s.rows {
			for c, v := range row {
				if v == nil {
					continue
				}
				cell, _ := excelize.CoordinatesToCellName(c+1, r+1)
				if err := f.SetCellValue(s.name, cell, v); err != nil {
					t.Fatal(err)
				}
				if _, ok := v.(time.Time); ok {
					f.SetCellStyle(s.name, cell, cell, style)
				}
			}
		}
	}
	f.SetActiveSheet(0)
	if err := f.SaveAs(filepath.Join("testdata", "files", file)); err != nil {
		t.Fatal(err)
	}
}

func headerRow(kind Kind) []any {
	var h []any
	for _, f := range Fields(kind) {
		h = append(h, f.Name)
	}
	return h
}

func TestGenerateFixtures(t *testing.T) {
	if !*update {
		t.Skip("run with -update to regenerate")
	}
	d := func(s string) time.Time { return date(s) }
	writeWorkbook(t, "ticket.xlsx", []sheetSpec{{name: "Tickets", rows: [][]any{
		headerRow(Ticket),
		// ticket numbers and amounts stored as numbers, dates as ISO text
		{1251234567890, "2026-11-02", "CC", "SE", "SEK", "TKTT", 1450.0},
		{"125-1234567891", "2026-11-02", "CC", "NO", "NOK", "TKTT", 2199.5},
		{"0571234567892", "2026-11-03", "CA", "DK", "DKK", "RFND", -350},
		{1251234567893, "2026-11-03", nil, nil, "EUR", nil, "89.90"},
	}}})
	writeWorkbook(t, "transaction.xlsx", []sheetSpec{{name: "Transactions", rows: [][]any{
		headerRow(Transaction),
		// real date cells; one amount carrying a binary-float artefact
		{"1251234567890", d("2026-11-02"), "Nuvei", "Nuvei Acquiring", "Visa", "SEK", 1450.0, "Sale"},
		{"1251234567891", d("2026-11-02"), "Nuvei", "Nuvei Acquiring", "Mastercard", "NOK", 0.1 + 0.2, "Sale"},
		{"0571234567892", d("2026-11-03"), "Amex", "American Express", "Amex", "DKK", -350.25, "Refund"},
		{},
		{"AX-2026-11-03-0007", "2026-11-03", "Amex", nil, "Amex", "EUR", 89.9, nil},
	}}})
	writeWorkbook(t, "settlement.xlsx", []sheetSpec{{name: "Settlements", rows: [][]any{
		headerRow(Settlement),
		{"PO-778899", "1251234567890", d("2026-11-05"), "Nuvei", "Nuvei Acquiring", "SEK", 1450, -21.75, 1428.25},
		{"PO-778899", "1251234567891", d("2026-11-05"), "Nuvei", "Nuvei Acquiring", "SEK", "1980.30", "-29.70", "1950.60"},
		{"AMX-0042", nil, d("2026-11-06"), "Amex", "American Express", "EUR", nil, nil, 1185},
	}}})
	writeWorkbook(t, "bank.xlsx", []sheetSpec{{name: "Bank", rows: [][]any{
		headerRow(Bank),
		{"SE4550000000058398257466", d("2026-11-02"), d("2026-11-02"), "NUVEI LIMITED PAYOUT 778899", 25000, "SEK", "ARCH-0001", "1", 125000},
		{"SE4550000000058398257466", d("2026-11-02"), d("2026-11-02"), "Avgift kortinlösen", -125.5, "SEK", "ARCH-0002", 2, 124874.5},
	}}})
	writeWorkbook(t, "amex-settlements.xlsx", []sheetSpec{
		{name: "Summary", rows: [][]any{{"Total payments", 2}, {"Net", 2355.1}}},
		{name: "Settlements", rows: [][]any{
			{"American Express Settlement Details"},
			{"Merchant 1234567890", "Period 11/01/2026 - 11/07/2026"},
			{"Settlement Date", "Payment Reference", "Merchant Number", "Currency", "Submission Amount", "Discount Amount", "Net Amount"},
			{"11/06/2026", "AMX-0042", "1234567890", "EUR", 1215.3, -30.3, 1185},
			{"11/07/2026", "AMX-0043", "1234567890", "USD", 1200, -29.9, 1170.1},
			{"Total", nil, nil, nil, 2415.3, -60.2, 2355.1},
		}},
	})
	for _, name := range []string{"ticket.xlsx", "transaction.xlsx", "settlement.xlsx", "bank.xlsx", "amex-settlements.xlsx"} {
		st, err := os.Stat(filepath.Join("testdata", "files", name))
		if err != nil {
			t.Fatal(err)
		}
		if st.Size() > 20<<10 {
			t.Errorf("%s is %d bytes, over 20 KB", name, st.Size())
		}
		fmt.Println(name, st.Size())
	}
	writeSeeds(t)
}
