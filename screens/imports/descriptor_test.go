package imports

import (
	"strings"
	"testing"
	"testing/fstest"
)

func TestLoadDescriptorsExamples(t *testing.T) {
	ds := exampleDescriptors(t)
	for name, kind := range map[string]Kind{"nuvei-transactions": Transaction, "amex-settlements": Settlement, "nordic-bank-sek": Bank, "mt940-nordea": Bank, "uk-bank-gbp": Bank} {
		d := ds[name]
		if d == nil || d.Kind != kind {
			t.Errorf("%s: got %+v", name, d)
		}
	}
	if len(ds) != 5 {
		t.Errorf("loaded %d descriptors, want 5", len(ds))
	}
}

func TestLoadDescriptorsNoFolder(t *testing.T) {
	ds, err := LoadDescriptors(fstest.MapFS{})
	if err != nil || len(ds) != 0 {
		t.Fatalf("got %v, %v", ds, err)
	}
}

// TestLoadDescriptorsProblems: every problem is one line naming the file.
func TestLoadDescriptorsProblems(t *testing.T) {
	tests := []struct {
		name, yaml string
		want       []string
	}{
		{"unknown key", "kind: ticket\nformat: csv\ndelimeter: \";\"\n", []string{`imports/f.yaml: line 3: unknown key "delimeter"`}},
		{"bad kind", "kind: tickets\nformat: csv\n", []string{`imports/f.yaml: kind: "tickets" is not one of bank, transaction, settlement, ticket`}},
		{"format of another kind", "kind: ticket\nformat: camt053\n", []string{`imports/f.yaml: format: "camt053" is not one of csv, xlsx for kind ticket`}},
		{"bad date format", "kind: ticket\nformat: csv\ndateFormat: dd/mm/yyyy\n", []string{`imports/f.yaml: dateFormat: date format "dd/mm/yyyy" needs a year, a month and a day`}},
		{"unknown field", "kind: ticket\nformat: csv\ncolumns:\n  TicketNo: Ticket\n  TicketNumber: Ticket\n  TransDate: Date\n  Currency: Cur\n  SaleAmount: Amount\n", []string{`imports/f.yaml: columns: "TicketNo" is not a field of kind ticket`}},
		{"required field unmapped", "kind: ticket\nformat: csv\ncolumns:\n  TicketNumber: Ticket\n", []string{
			"imports/f.yaml: required field TransDate has neither a column nor a default",
			"imports/f.yaml: required field SaleAmount has neither a column nor a default"}},
		{"bad default", "kind: bank\nformat: mt940\ndefaults:\n  Currency: kronor\n", []string{`imports/f.yaml: defaults: Currency: "kronor" is not a three-letter currency code`}},
		{"table options on mt940", "kind: bank\nformat: mt940\ndelimiter: \";\"\ncolumns:\n  Text: x\n", []string{"imports/f.yaml: delimiter, columns: not an option of format mt940"}},
		{"separators clash", "kind: ticket\nformat: csv\ndecimalSeparator: \",\"\nthousandsSeparator: \",\"\n", []string{`thousandsSeparator: "," is also the decimal separator`}},
		{"bad delimiter", "kind: ticket\nformat: csv\ndelimiter: ';;'\n", []string{`delimiter: ";;" must be a single character`}},
		{"positions need no header", "kind: ticket\nformat: csv\nheaderRow: 0\ncolumns:\n  TicketNumber: Ticket\n  TransDate: '#2'\n  Currency: '#3'\n  SaleAmount: '#4'\n", []string{"columns: TicketNumber: with headerRow 0 the file has no headers"}},
		{"empty file", "", []string{"imports/f.yaml: empty file"}},
		{"debitCredit on a text field", "kind: bank\nformat: csv\ndebitCredit: {field: Text, debit: D, credit: C}\n", []string{"debitCredit: field Text is not an amount"}},
		{"debitCredit without credit", "kind: bank\nformat: csv\ndebitCredit: {field: AmountLocal, debit: D}\n", []string{"debitCredit: both debit and credit need a source column"}},
		{"debitCredit and columns", "kind: bank\nformat: csv\ncolumns: {BankAccount: A, BookedDate: B, AmountLocal: X, Currency: C}\ndebitCredit: {field: AmountLocal, debit: D, credit: C}\n",
			[]string{"debitCredit: field AmountLocal is also mapped in columns; map it in one place"}},
		{"debitCredit on mt940", "kind: bank\nformat: mt940\ndebitCredit: {field: AmountLocal, debit: D, credit: C}\n", []string{"debitCredit: not an option of format mt940"}},
		{"debitCredit one column", "kind: bank\nformat: csv\ndebitCredit: {field: AmountLocal, debit: Amount, credit: ' amount'}\n", []string{`debitCredit: debit and credit are the same column "Amount"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadDescriptors(fstest.MapFS{"imports/f.yaml": {Data: []byte(tc.yaml)}})
			checkInvalid(t, err, tc.want...)
		})
	}
	t.Run("duplicate names", func(t *testing.T) {
		_, err := LoadDescriptors(fstest.MapFS{
			"imports/a.yaml": {Data: []byte("name: x\nkind: ticket\nformat: csv\n")},
			"imports/b.yaml": {Data: []byte("name: x\nkind: ticket\nformat: xlsx\n")},
		})
		checkInvalid(t, err, `imports/b.yaml: name "x" is also used by imports/a.yaml`)
	})
}

func TestDefaultDescriptor(t *testing.T) {
	for _, k := range Kinds {
		for _, f := range []string{FormatCSV, FormatXLSX, FormatCamt053, FormatMT940} {
			d, err := DefaultDescriptor(k, f)
			bankOnly := f == FormatCamt053 || f == FormatMT940
			if bankOnly && k != Bank {
				checkInvalid(t, err, "a "+string(k)+" file cannot be")
				continue
			}
			if err != nil {
				t.Fatalf("%s %s: %v", k, f, err)
			}
			if err := d.Check(); err != nil {
				t.Errorf("%s %s: %v", k, f, err)
			}
		}
	}
	_, err := DefaultDescriptor("refund", FormatCSV)
	checkInvalid(t, err, `unknown import kind "refund"`)
}

// TestHeaderless: a layout without a header refers to columns by position.
func TestHeaderless(t *testing.T) {
	zero := 0
	d := &Descriptor{Name: "pos", Kind: Ticket, Format: FormatCSV, HeaderRow: &zero, DateFormat: "yyyyMMdd",
		Columns: map[string]string{"TicketNumber": "#1", "TransDate": "#2", "Currency": "#4", "SaleAmount": "#3"}}
	rows, _, err := parseBytes(t, d, "p.csv", []byte("1251234567890,20261102,12.50,sek\n"), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	checkRows(t, rows, [][]any{{"1251234567890", date("2026-11-02"), nil, nil, "SEK", nil, "12.50"}}, []int{1})
}

func TestFieldsOrder(t *testing.T) {
	want := map[Kind]string{
		Ticket:      "TicketNumber, TransDate, PaymentType, CountryCode, Currency, TransactionCode, SaleAmount",
		Transaction: "ClientUniqueID, ProcessingDate, ProviderActor, AcquiringBank, PaymentMethod, Currency, TransactionAmount, TransactionType",
		Settlement:  "PayoutID, ClientUniqueID, SettlementDate, ProviderActor, AcquirerBank, SettlementCurrency, GrossAmount, Fees, SettlementNet",
		Bank:        "BankAccount, BookedDate, InterestDate, Text, AmountLocal, Currency, BankArchiveReference, Number, BookedBalanceLocalCurrency",
	}
	for k, w := range want {
		var names []string
		for _, f := range Fields(k) {
			names = append(names, f.Name)
		}
		if got := strings.Join(names, ", "); got != w {
			t.Errorf("%s: %s", k, got)
		}
	}
}
