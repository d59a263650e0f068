package imports

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	"ledgerdesk/engine"
)

const (
	seAcct = "SE4550000000058398257466"
	euAcct = "5000-123456"
	ukAcct = "GB29NWBK60161331926819"
)

// TestParseFixtures parses every good fixture and checks each typed value.
func TestParseFixtures(t *testing.T) {
	ex := exampleDescriptors(t)
	d := date
	tests := []struct {
		name   string
		file   string
		desc   *Descriptor
		want   [][]any
		lines  []int
		read   int // RowsRead, when it differs from len(want)
		errors int
		stmts  int
		skip   int
	}{
		{name: "ticket csv", file: "ticket.csv", desc: defaultDescriptor(t, Ticket, FormatCSV),
			want: [][]any{
				{"1251234567890", d("2026-11-02"), "CC", "SE", "SEK", "TKTT", "1450.00"},
				{"1251234567891", d("2026-11-02"), "CC", "NO", "NOK", "TKTT", "2199.5"},
				{"0571234567892", d("2026-11-03"), "CA", "DK", "DKK", "RFND", "-350.00"},
				{"1251234567893", d("2026-11-03"), nil, nil, "EUR", nil, "89.90"},
			}, lines: []int{2, 3, 4, 5}},
		{name: "ticket xlsx", file: "ticket.xlsx", desc: defaultDescriptor(t, Ticket, FormatXLSX),
			want: [][]any{
				{"1251234567890", d("2026-11-02"), "CC", "SE", "SEK", "TKTT", "1450"},
				{"1251234567891", d("2026-11-02"), "CC", "NO", "NOK", "TKTT", "2199.5"},
				{"0571234567892", d("2026-11-03"), "CA", "DK", "DKK", "RFND", "-350"},
				{"1251234567893", d("2026-11-03"), nil, nil, "EUR", nil, "89.90"},
			}, lines: []int{2, 3, 4, 5}},
		{name: "transaction csv", file: "transaction.csv", desc: defaultDescriptor(t, Transaction, FormatCSV),
			want: [][]any{
				{"1251234567890", d("2026-11-02"), "Nuvei", "Nuvei Acquiring", "Visa", "SEK", "1450.00", "Sale"},
				{"1251234567891", d("2026-11-02"), "Nuvei", "Nuvei Acquiring", "Mastercard", "NOK", "2199.50", "Sale"},
				{"0571234567892", d("2026-11-03"), "Amex", "American Express", "Amex", "DKK", "-350.00", "Refund"},
				{"AX-2026-11-03-0007", d("2026-11-03"), "Amex", nil, "Amex", "EUR", "89.90", nil},
			}, lines: []int{2, 3, 4, 5}},
		{name: "transaction xlsx", file: "transaction.xlsx", desc: defaultDescriptor(t, Transaction, FormatXLSX),
			want: [][]any{
				{"1251234567890", d("2026-11-02"), "Nuvei", "Nuvei Acquiring", "Visa", "SEK", "1450", "Sale"},
				{"1251234567891", d("2026-11-02"), "Nuvei", "Nuvei Acquiring", "Mastercard", "NOK", "0.3", "Sale"},
				{"0571234567892", d("2026-11-03"), "Amex", "American Express", "Amex", "DKK", "-350.25", "Refund"},
				{"AX-2026-11-03-0007", d("2026-11-03"), "Amex", nil, "Amex", "EUR", "89.9", nil},
			}, lines: []int{2, 3, 4, 6}},
		{name: "settlement csv", file: "settlement.csv", desc: defaultDescriptor(t, Settlement, FormatCSV),
			want: [][]any{
				{"PO-778899", "1251234567890", d("2026-11-05"), "Nuvei", "Nuvei Acquiring", "SEK", "1450.00", "-21.75", "1428.25"},
				{"PO-778899", "1251234567891", d("2026-11-05"), "Nuvei", "Nuvei Acquiring", "SEK", "1980.30", "-29.70", "1950.60"},
				{"AMX-0042", nil, d("2026-11-06"), "Amex", "American Express", "EUR", nil, nil, "1185.00"},
			}, lines: []int{2, 3, 4}},
		{name: "settlement xlsx", file: "settlement.xlsx", desc: defaultDescriptor(t, Settlement, FormatXLSX),
			want: [][]any{
				{"PO-778899", "1251234567890", d("2026-11-05"), "Nuvei", "Nuvei Acquiring", "SEK", "1450", "-21.75", "1428.25"},
				{"PO-778899", "1251234567891", d("2026-11-05"), "Nuvei", "Nuvei Acquiring", "SEK", "1980.30", "-29.70", "1950.60"},
				{"AMX-0042", nil, d("2026-11-06"), "Amex", "American Express", "EUR", nil, nil, "1185"},
			}},
		{name: "bank csv", file: "bank.csv", desc: defaultDescriptor(t, Bank, FormatCSV),
			want: [][]any{
				{seAcct, d("2026-11-02"), d("2026-11-02"), "NUVEI LIMITED PAYOUT 778899", "25000.00", "SEK", "ARCH-0001", "1", "125000.00"},
				{seAcct, d("2026-11-02"), d("2026-11-02"), "Avgift kortinlösen", "-125.50", "SEK", "ARCH-0002", "2", "124874.50"},
				{seAcct, d("2026-11-03"), nil, "Stockholm Catering AB, faktura 4411", "-3400", "SEK", nil, "3", nil},
			}},
		{name: "bank xlsx", file: "bank.xlsx", desc: defaultDescriptor(t, Bank, FormatXLSX),
			want: [][]any{
				{seAcct, d("2026-11-02"), d("2026-11-02"), "NUVEI LIMITED PAYOUT 778899", "25000", "SEK", "ARCH-0001", "1", "125000"},
				{seAcct, d("2026-11-02"), d("2026-11-02"), "Avgift kortinlösen", "-125.5", "SEK", "ARCH-0002", "2", "124874.5"},
			}},
		{name: "nuvei csv layout", file: "nuvei-transactions.csv", desc: ex["nuvei-transactions"],
			want: [][]any{
				{"1251234567890", d("2026-11-02"), "Nuvei", "Nuvei Acquiring", "Visa", "SEK", "1450.00", "Sale"},
				{"1251234567891", d("2026-11-02"), "Nuvei", "Nuvei Acquiring", "Mastercard", "NOK", "2199.50", "Sale"},
				{"1251234567890", d("2026-11-04"), "Nuvei", "Nuvei Acquiring", "Visa", "SEK", "-1450.00", "Refund"},
			}, lines: []int{2, 3, 4}, read: 4, errors: 1},
		{name: "amex xlsx layout", file: "amex-settlements.xlsx", desc: ex["amex-settlements"],
			want: [][]any{
				{"AMX-0042", nil, d("2026-11-06"), "Amex", "American Express", "EUR", "1215.3", "-30.3", "1185"},
				{"AMX-0043", nil, d("2026-11-07"), "Amex", "American Express", "USD", "1200", "-29.9", "1170.1"},
			}, lines: []int{4, 5}},
		{name: "nordic bank csv layout, Windows-1252", file: "nordic-bank.csv", desc: ex["nordic-bank-sek"],
			want: [][]any{
				{seAcct, d("2026-11-02"), d("2026-11-02"), "NUVEI LIMITED", "25000.00", "SEK", nil, "5484381424", "125000.00"},
				{seAcct, d("2026-11-02"), d("2026-11-02"), "Avgift kortinlösen", "-125.50", "SEK", nil, "5484381425", "124874.50"},
				{seAcct, d("2026-11-03"), d("2026-11-04"), "Stockholm Catering AB", "-3400.00", "SEK", nil, "5484381426", "121474.50"},
			}, lines: []int{3, 4, 5}},
		{name: "UK bank csv layout, debit and credit columns", file: "uk-bank.csv", desc: ex["uk-bank-gbp"],
			want: [][]any{
				{ukAcct, d("2026-11-02"), nil, "NUVEI LIMITED PAYOUT 778901", "15000.00", "GBP", nil, nil, "65000.00"},
				{ukAcct, d("2026-11-02"), nil, "CARD PROCESSING FEES", "-84.20", "GBP", nil, nil, "64915.80"},
				{ukAcct, d("2026-11-03"), nil, "Heathrow Catering Ltd", "-1250.00", "GBP", nil, nil, "63665.80"},
				{ukAcct, d("2026-11-04"), nil, "ACCOUNT FEE", "0", "GBP", nil, nil, "63665.80"},
			}, lines: []int{2, 3, 4, 5}},
		{name: "camt.053.001.02, two statements", file: "camt053.xml", desc: defaultDescriptor(t, Bank, FormatCamt053),
			want: [][]any{
				{seAcct, d("2026-11-02"), d("2026-11-02"), "Bankgiro insättning / NUVEI LIMITED / PAYOUT 778899 SETTLEMENT 2026-10-31", "25000.00", "SEK", "ARCH-0001", "E1", "125000.00"},
				{seAcct, d("2026-11-02"), d("2026-11-02"), "Avgift kortinlösen", "-125.50", "SEK", "ARCH-0002", "STMT-20261102-001-2", "124874.50"},
				{seAcct, d("2026-11-03"), d("2026-11-03"), "Stockholm Catering AB / RF18539007547034", "-3400.00", "SEK", "ARCH-0003", "E3", "121474.50"},
				{euAcct, d("2026-11-03"), d("2026-11-04"), "AMERICAN EXPRESS PAYMENTS EUROPE / SETTLEMENT AMX-0042", "1200.00", "EUR", "ARCH-0101", "AMX-0042", "6200.00"},
				{euAcct, d("2026-11-04"), d("2026-11-04"), "Bank charges", "-15.00", "EUR", nil, "STMT-20261103-002-2", "6185.00"},
			}, lines: []int{28, 46, 56, 98, 113}, stmts: 2, skip: 1},
		{name: "camt.053.001.08", file: "camt053_v08.xml", desc: defaultDescriptor(t, Bank, FormatCamt053),
			want: [][]any{
				{"DE89370400440532013000", d("2026-12-31"), d("2026-12-31"), "NUVEI LIMITED / Nuvei payout Dec", "500.00", "EUR", "V8-ARCH-1", "V8-E1", "300.00"},
			}, lines: []int{20}, stmts: 1},
		{name: "MT940 with envelope, two statements", file: "mt940.sta", desc: defaultDescriptor(t, Bank, FormatMT940),
			want: [][]any{
				{seAcct, d("2026-11-02"), d("2026-11-02"), "NUVEI LTD PAYOUT 778899 SETTLEMENT FOR CARD TRANSACTIONS 2026-10-31 BATCH 4411", "25000.00", "SEK", "ARCH-0001", "PAYOUT778899", "125000.00"},
				{seAcct, d("2026-11-02"), d("2026-11-02"), "Avgift kortinlösen", "-125.50", "SEK", "ARCH-0002", "00301/1-2", "124874.50"},
				{seAcct, d("2026-11-03"), d("2026-11-03"), "Stockholm Catering AB RF18539007547034", "-3400", "SEK", "ARCH-0003", "RF18539007547034", "121474.50"},
				{"NDEASESS/5000123456", d("2026-11-04"), d("2026-11-04"), "Bank charges", "-15.00", "EUR", nil, "00302/1-1", "4985.00"},
				{"NDEASESS/5000123456", d("2026-11-03"), d("2026-11-04"), "AMERICAN EXPRESS PAYMENTS EUROPE", "1200.00", "EUR", "ARCH-0101", "AMEX-SETT-0042", "6185.00"},
			}, lines: []int{6, 10, 12, 22, 24}, stmts: 2},
		{name: "MT940 plain, year end, reversal, structured :86:", file: "mt940_plain.sta", desc: defaultDescriptor(t, Bank, FormatMT940),
			want: [][]any{
				{"DE89370400440532013000", d("2026-12-31"), d("2026-12-31"), "SEPA-GUTSCHRIFT / NUVEI LIMITED / EREF+INV-2026-1231 SVWZ+Nuvei payout Dec", "500.00", "EUR", "BREF1", "12/1-1", "300.00"},
				{"DE89370400440532013000", d("2027-01-02"), d("2026-12-31"), "ENTGELT / Kontofuehrung", "-40.00", "EUR", nil, "12/1-2", "260.00"},
				{"DE89370400440532013000", d("2026-12-31"), d("2026-12-31"), "Storno", "-10.00", "EUR", "BREF3", "REV1", "250.00"},
			}, lines: []int{5, 8, 10}, stmts: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rows, sum, err := parseBytes(t, tc.desc, tc.file, readFixture(t, tc.file), Limits{})
			if err != nil {
				t.Fatal(err)
			}
			checkRows(t, rows, tc.want, tc.lines)
			read := tc.read
			if read == 0 {
				read = len(tc.want)
			}
			if sum.RowsRead != read || sum.RowsEmitted != len(tc.want) || sum.ErrorCount != tc.errors || sum.Statements != tc.stmts || sum.Skipped != tc.skip {
				t.Errorf("summary %+v; want read %d, emitted %d, errors %d, statements %d, skipped %d", sum, read, len(tc.want), tc.errors, tc.stmts, tc.skip)
			}
			if sum.Format != tc.desc.Format {
				t.Errorf("format %q, want %q", sum.Format, tc.desc.Format)
			}
		})
	}
}

// A debit-and-credit layout refuses rows with an amount in both columns
// or a malformed one, naming the column, and loads nothing of them.
func TestParseDebitCredit(t *testing.T) {
	d := exampleDescriptors(t)["uk-bank-gbp"]
	file := "Transaction Date,Transaction Type,Sort Code,Account Number,Transaction Description,Debit Amount,Credit Amount,Balance\n" +
		"02/11/2026,BGC,60-16-13,31926819,BOTH,10.00,20.00,1\n" +
		"02/11/2026,BGC,60-16-13,31926819,BAD,ten,,1\n" +
		"02/11/2026,BGC,60-16-13,31926819,NEITHER,,,1\n" +
		"02/11/2026,BGC,60-16-13,31926819,NEGATIVE DEBIT,-5.50,,1\n"
	rows, sum, err := parseBytes(t, d, "uk.csv", []byte(file), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`line 2, column 7: both the debit column "Debit Amount" and the credit column "Credit Amount" hold an amount; one of them must be empty or zero`,
		`line 3, column 6: AmountLocal: "ten" is not an amount with decimal separator '.' and no thousands separator`,
		`line 4, column 6: AmountLocal is required but empty`,
	}
	if sum.ErrorCount != len(want) {
		t.Fatalf("errors %v", sum.Errors)
	}
	for i, w := range want {
		if got := sum.Errors[i].String(); got != w {
			t.Errorf("error %d:\n got %s\nwant %s", i, got, w)
		}
	}
	if len(rows) != 1 || rows[0].Values[4] != "-5.50" {
		t.Errorf("rows %v: a debit written negative is still money out", rows)
	}

	// Without one of its columns the file is refused at the header.
	_, _, err = parseBytes(t, d, "uk.csv", []byte("Transaction Date,Transaction Description,Debit Amount,Balance\n02/11/2026,X,1.00,1\n"), Limits{})
	if err == nil || !strings.Contains(err.Error(), "missing columns Credit Amount") {
		t.Errorf("missing credit column: %v", err)
	}
}

// Amounts are kept to the cent: more decimals are refused (unless zeros),
// never rounded, and too many digits are a row error, not a failed load.
func TestMoneyAmounts(t *testing.T) {
	for in, want := range map[string]string{"12.34": "12.34", "12.3400": "12.34", "-0.10": "-0.10", "7": "7", "5.000": "5.00",
		"999999999999999999.99": "999999999999999999.99"} {
		if got, _, msg := money(in); got != want || msg != "" {
			t.Errorf("money(%q) = %q %q, want %q", in, got, msg, want)
		}
	}
	for _, in := range []string{"12.345", "0.001", "-1.005", "1234567890123456789"} {
		if _, code, msg := money(in); msg == "" {
			t.Errorf("money(%q) accepted", in)
		} else if code == "" {
			t.Errorf("money(%q) refused without a message code", in)
		}
	}
	d := defaultDescriptor(t, Transaction, FormatCSV)
	file := "ClientUniqueID,ProcessingDate,ProviderActor,AcquiringBank,PaymentMethod,Currency,TransactionAmount,TransactionType\n" +
		"1251234567890,2026-11-02,Nuvei,,Visa,SEK,12.345,Sale\n" +
		"1251234567891,2026-11-02,Nuvei,,Visa,SEK,12345678901234567890,Sale\n" +
		"1251234567892,2026-11-02,Nuvei,,Visa,SEK,12.5000,Sale\n" +
		"1251234567893,2026-02-30,Nuvei,,Visa,SEK,1.001,Sale\n" // two errors, one row
	rows, sum, err := parseBytes(t, d, "t.csv", []byte(file), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.ErrorCount != 4 || sum.BadRows != 3 {
		t.Errorf("errors %d in %d rows, want 4 in 3", sum.ErrorCount, sum.BadRows)
	}
	sum.ErrorCount, sum.Errors = 2, sum.Errors[:2]
	want := []string{
		`line 2, column 7: TransactionAmount: "12.345" has more than 2 decimals; amounts are kept to the cent and never rounded on import`,
		`line 3, column 7: TransactionAmount: "12345678901234567890" is too large (more than 18 digits before the decimal point)`,
	}
	if sum.ErrorCount != 2 || len(rows) != 1 || rows[0].Values[6] != "12.50" {
		t.Fatalf("errors %v rows %v", sum.Errors, rows)
	}
	for i, w := range want {
		if got := sum.Errors[i].String(); got != w {
			t.Errorf("error %d:\n got %s\nwant %s", i, got, w)
		}
	}
}

// Row errors carry a message code and parameters beside the English text,
// so the UI shows them in the reader's language.
func TestRowErrorsHaveCodes(t *testing.T) {
	d := defaultDescriptor(t, Transaction, FormatCSV)
	file := "ClientUniqueID,ProcessingDate,ProviderActor,AcquiringBank,PaymentMethod,Currency,TransactionAmount,TransactionType\n" +
		"1251234567890,02/11/2026,Nuvei,,Visa,SEK,12.00,Sale\n" +
		"1251234567891,2026-11-02,Nuvei,,Visa,SEKK,12.345,Sale\n" +
		"1251234567892,2026-11-02,,,Visa,SEK,x,Sale\n"
	_, sum, err := parseBytes(t, d, "t.csv", []byte(file), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range sum.Errors {
		got = append(got, fmt.Sprintf("%d %s %v %v", e.Line, e.Code, e.Params["field"], e.Params["value"]))
	}
	want := []string{
		`2 import.row.date ProcessingDate "02/11/2026"`,
		`3 import.row.currency Currency "SEKK"`,
		`3 import.row.decimals TransactionAmount "12.345"`,
		`4 import.row.amount TransactionAmount "x"`,
		`4 import.row.required ProviderActor <nil>`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("row errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestFileErrorsHaveCodes: a file-level refusal carries its message code
// with the file, the line and column where known, and its own parameters,
// so the UI can say it all in the reader's language.
func TestFileErrorsHaveCodes(t *testing.T) {
	camt := readFixture(t, "camt053.xml")
	mt := string(readFixture(t, "mt940_plain.sta"))
	tests := []struct {
		name string
		desc *Descriptor
		file string
		data []byte
		lim  Limits
		want string // code and params, sorted by name
	}{
		{"csv without a required column", defaultDescriptor(t, Ticket, FormatCSV), "t.csv",
			[]byte("TicketNumber,TransDate,PaymentType,CountryCode,Currency,TransactionCode\n1251234567890,2026-11-02,CC,SE,SEK,TKTT\n"), Limits{},
			"import.file.headerMissing expected=TicketNumber, TransDate, PaymentType, CountryCode, Currency, TransactionCode, SaleAmount file=t.csv layout=ticket-csv line=1 missing=SaleAmount"},
		{"csv wider than the limit", defaultDescriptor(t, Ticket, FormatCSV), "wide.csv", []byte("a,b,c,d\n1,2,3,4\n"), Limits{MaxFields: 3},
			`import.file.tooManyFields count=4 delimiter=',' file=wide.csv line=1 max=3`},
		{"a PDF", defaultDescriptor(t, Bank, FormatCSV), "s.pdf", []byte("%PDF-1.7\n"), Limits{},
			"import.file.pdf file=s.pdf"},
		{"camt.053 cut short", defaultDescriptor(t, Bank, FormatCamt053), "c.xml", camt[:len(camt)/2], Limits{},
			"import.file.xmlTruncated column=12 file=c.xml line=58"},
		{"MT940 fragment", defaultDescriptor(t, Bank, FormatMT940), "s.sta",
			[]byte(":940:\nhello\n:25:X\n" + mt), Limits{},
			"import.file.mt940Fragment column=1 file=s.sta line=3 tag=25"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := parseBytes(t, tt.desc, tt.file, tt.data, tt.lim)
			checkInvalid(t, err)
			var e *engine.Error
			errors.As(err, &e)
			names := make([]string, 0, len(e.Params))
			for k := range e.Params {
				names = append(names, k)
			}
			sort.Strings(names)
			got := e.Key
			for _, k := range names {
				got += fmt.Sprintf(" %s=%v", k, e.Params[k])
			}
			if got != tt.want {
				t.Errorf("got  %s\nwant %s\n(%s)", got, tt.want, e.Message)
			}
		})
	}
}
