package imports

import (
	"testing"
)

func TestDateFormats(t *testing.T) {
	tests := []struct {
		format, in, want string // want "" means invalid
	}{
		{"yyyy-MM-dd", "2026-11-02", "2026-11-02"},
		{"yyyy-MM-dd", "2026-11-02T13:45:00Z", "2026-11-02"},
		{"yyyy-MM-dd", "2026-11-02 13:45", "2026-11-02"},
		{"yyyy-MM-dd", "2026-11-02T23:30:00.123+01:00", "2026-11-02"},
		{"yyyy-MM-dd", "2026-11-02x", ""},
		{"yyyy-MM-dd", "2026-02-29", ""},
		{"yyyy-MM-dd", "2028-02-29", "2028-02-29"},
		{"yyyy-MM-dd", "2026-1-02", ""},
		{"yyyy-MM-dd", "0026-01-02", ""},
		{"dd.MM.yyyy", "02.11.2026", "2026-11-02"},
		{"dd.MM.yyyy", "31.11.2026", ""},
		{"d.M.yyyy", "2.11.2026", "2026-11-02"},
		{"MM/dd/yyyy", "11/02/2026", "2026-11-02"},
		{"MM/dd/yyyy", "13/02/2026", ""},
		{"yyyyMMdd", "20261102", "2026-11-02"},
		{"yyyyMMdd", "2026112", ""},
		{"dd/MM/yy", "02/11/26", "2026-11-02"},
		{"dd-MMM-yyyy", "02-Nov-2026", "2026-11-02"},
		{"dd.MM.yyyy HH:mm:ss", "02.11.2026 10:14:03", "2026-11-02"},
		{"dd.MM.yyyy HH:mm:ss", "02.11.2026 25:14:03", ""},
		{"yyyy-MM-dd'T'HH:mm", "2026-11-02T10:14", "2026-11-02"},
	}
	for _, tc := range tests {
		l, err := compileDate(tc.format)
		if err != nil {
			t.Fatalf("%s: %v", tc.format, err)
		}
		got, ok := l.parse(tc.in)
		switch {
		case tc.want == "" && ok:
			t.Errorf("%s %q: got %s, want invalid", tc.format, tc.in, got.Format("2006-01-02"))
		case tc.want != "" && (!ok || got != date(tc.want)):
			t.Errorf("%s %q: got %v %v, want %s", tc.format, tc.in, got, ok, tc.want)
		}
	}
	for _, bad := range []string{"", "yyyy-MM", "dd/mm/yyyy", "yyyy-MM-dd 'T", "YYYY-MM-DD"} {
		if _, err := compileDate(bad); err == nil {
			t.Errorf("format %q accepted", bad)
		}
	}
}

func TestDecimals(t *testing.T) {
	tests := []struct {
		in       string
		dec      byte
		th, want string // want "" means invalid
	}{
		{"1234.50", '.', "", "1234.50"},
		{"-1234.50", '.', "", "-1234.50"},
		{"+7", '.', "", "7"},
		{"1234.50-", '.', "", "-1234.50"},
		{"(1234.50)", '.', "", "-1234.50"},
		{"0001.5", '.', "", "1.5"},
		{".5", '.', "", "0.5"},
		{"5.", '.', "", "5"},
		{"-0.00", '.', "", "0.00"},
		{"1,234.50", '.', ",", "1234.50"},
		{"1,23.50", '.', ",", ""},
		{"1234,50", '.', ",", ""},
		{"1.234,50", ',', ".", "1234.50"},
		{"-3 400,00", ',', " ", "-3400.00"},
		{"1\u00a0234,5", ',', "\u00a0", "1234.5"},
		{"1'234.5", '.', "'", "1234.5"},
		{"12,5", ',', "", "12.5"},
		{"1.5", ',', "", ""},
		{"1.2.3", '.', "", ""},
		{"", '.', "", ""},
		{"-", '.', "", ""},
		{"()", '.', "", ""},
		{"1e5", '.', "", ""},
		{"$5", '.', "", ""},
		{"12345678901234567890123", '.', "", ""},
		{"1.1234567890123", '.', "", ""},
	}
	for _, tc := range tests {
		got, ok := parseDecimal(tc.in, tc.dec, tc.th)
		if tc.want == "" && ok || tc.want != "" && got != tc.want {
			t.Errorf("parseDecimal(%q, %q, %q) = %q, %v; want %q", tc.in, tc.dec, tc.th, got, ok, tc.want)
		}
	}
}

func TestMachineNumbers(t *testing.T) {
	for in, want := range map[string]string{
		"0.30000000000000004": "0.3",
		"12.300000000000001":  "12.3",
		"-350.25":             "-350.25",
		"1.5E-2":              "0.015",
		"1.2512345678E+12":    "1251234567800",
	} {
		if got, ok := parseMachineNumber(in); !ok || got != want {
			t.Errorf("parseMachineNumber(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}

func TestAddDecimal(t *testing.T) {
	for _, tc := range [][3]string{
		{"100000.00", "25000.00", "125000.00"},
		{"124874.50", "-3400", "121474.50"},
		{"-200.00", "500.00", "300.00"},
		{"0.5", "-0.75", "-0.25"},
		{"-0.05", "0.05", "0.00"},
	} {
		if got := addDecimal(tc[0], tc[1]); got != tc[2] {
			t.Errorf("%s + %s = %s, want %s", tc[0], tc[1], got, tc[2])
		}
	}
}

func TestTicketAndCurrency(t *testing.T) {
	for in, want := range map[string]string{"1251234567890": "1251234567890", "125-1234567890": "1251234567890", "125 1234567890": "1251234567890",
		"125123456789": "", "12512345678901": "", "125123456789O": ""} {
		got, ok := checkTicket(in)
		if want == "" && ok || want != "" && got != want {
			t.Errorf("checkTicket(%q) = %q, %v", in, got, ok)
		}
	}
	for in, want := range map[string]string{"SEK": "SEK", "sek": "SEK", "SE": "", "SEKK": "", "S1K": "", "ÅSK": ""} {
		got, ok := checkCurrency(in)
		if want == "" && ok || want != "" && got != want {
			t.Errorf("checkCurrency(%q) = %q, %v", in, got, ok)
		}
	}
}

func TestDetect(t *testing.T) {
	tests := []struct {
		kind       Kind
		file       string
		head       string
		want, fail string
	}{
		{Ticket, "t.csv", "TicketNumber,TransDate\n", FormatCSV, ""},
		{Ticket, "t.csv", "\ufeffTicketNumber;TransDate\n", FormatCSV, ""},
		{Ticket, "t.xlsx", "PK\x03\x04rest", FormatXLSX, ""},
		{Bank, "s.xml", `<?xml version="1.0"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.04">`, FormatCamt053, ""},
		{Bank, "s.sta", "{1:F01NDEASESSAXXX}{2:O940}{4:\r\n:20:X", FormatMT940, ""},
		{Bank, "s.sta", "\r\n:20:STMT\r\n:25:X", FormatMT940, ""},
		{Ticket, "s.xml", `<?xml version="1.0"?><Document><BkToCstmrStmt>`, "", "not ticket rows; choose the kind bank"},
		{Transaction, "s.sta", ":20:X\n:25:Y\n", "", "an MT940 statement, which holds bank bookings, not transaction rows"},
		{Bank, "s.xml", `<?xml version="1.0"?><Document><BkToCstmrDbtCdtNtfctn>`, "", "camt.054"},
		{Ticket, "t.xlsx", "TicketNumber,TransDate\n", "", "named .xlsx but is not a workbook"},
		{Ticket, "t.csv", "", "", "the file is empty"},
		{Ticket, "t.csv", "\x1f\x8b\x08", "", "gzip"},
		{"refund", "t.csv", "x", "", `unknown import kind "refund"`},
	}
	for _, tc := range tests {
		got, err := Detect(tc.kind, tc.file, []byte(tc.head))
		if tc.fail != "" {
			checkInvalid(t, err, tc.fail)
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Detect(%s, %q) = %q, %v; want %q", tc.kind, tc.head, got, err, tc.want)
		}
	}
}
