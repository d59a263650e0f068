package imports

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// TestRowErrors: bad values are reported per row, with line and column,
// while the good rows are still emitted.
func TestRowErrors(t *testing.T) {
	mt := string(readFixture(t, "mt940_plain.sta"))
	camt := string(readFixture(t, "camt053.xml"))
	tests := []struct {
		name    string
		desc    *Descriptor
		file    string
		data    string
		emitted int
		want    []RowError
	}{
		{name: "ticket csv: 12-digit ticket, bad date, bad amounts, missing currency", desc: defaultDescriptor(t, Ticket, FormatCSV),
			file: "ticket_bad.csv", data: string(readFixture(t, "ticket_bad.csv")), emitted: 2,
			want: []RowError{
				{Line: 3, Column: 1, Field: "TicketNumber", Message: `TicketNumber: "125123456789" is not a ticket number of exactly 13 digits`},
				{Line: 4, Column: 2, Field: "TransDate", Message: `TransDate: "2026-13-01" is not a date in the format yyyy-MM-dd`},
				{Line: 5, Column: 7, Field: "SaleAmount", Message: `SaleAmount: "12O.00" is not an amount with decimal separator '.' and no thousands separator`},
				{Line: 6, Column: 5, Field: "Currency", Message: `Currency is required but empty`},
				{Line: 7, Column: 7, Field: "SaleAmount", Message: `SaleAmount: "1,5" is not an amount with decimal separator '.' and no thousands separator`},
			}},
		{name: "csv: an unquoted 12,50 and a short row are refused, a trailing delimiter is not", desc: defaultDescriptor(t, Ticket, FormatCSV), file: "t.csv", emitted: 1,
			data: "TicketNumber,TransDate,PaymentType,CountryCode,Currency,TransactionCode,SaleAmount\n" +
				"1251234567890,2026-11-02,CC,SE,SEK,TKTT,12,50\n1251234567891,2026-11-02,CC,SE,SEK\n1251234567892,2026-11-02,CC,SE,SEK,TKTT,2.00,\n",
			want: []RowError{
				{Line: 2, Message: "the row has 8 fields, but the header has 7; is a value holding the delimiter (12,50) not quoted?"},
				{Line: 3, Message: "the row has 5 fields, but the header has 7; is a value holding the delimiter (12,50) not quoted?"},
			}},
		{name: "csv stray quote is one bad row", desc: defaultDescriptor(t, Ticket, FormatCSV), file: "t.csv", emitted: 1,
			data: "TicketNumber,TransDate,PaymentType,CountryCode,Currency,TransactionCode,SaleAmount\n1251234567890,2026-11-02,C\"C,SE,SEK,TKTT,1.00\n1251234567891,2026-11-02,CC,SE,SEK,TKTT,2.00\n",
			want: []RowError{{Line: 2, Message: `the record cannot be read: bare " in non-quoted-field (at line 2, column 27)`}}},
		{name: "csv invalid UTF-8 in utf-8 layout", desc: &Descriptor{Name: "u", Kind: Ticket, Format: FormatCSV, Encoding: "utf-8"}, file: "t.csv", emitted: 0,
			data: "TicketNumber,TransDate,PaymentType,CountryCode,Currency,TransactionCode,SaleAmount\n1251234567890,2026-11-02,\xe9,SE,SEK,TKTT,1.00\n",
			want: []RowError{{Line: 2, Column: 3, Message: "the value is not valid UTF-8 text; save the file as UTF-8"}}},
		{name: "MT940 bad amount and bad date", desc: defaultDescriptor(t, Bank, FormatMT940), file: "s.sta", emitted: 1,
			data: strings.Replace(strings.Replace(mt, "D40,00NMSC", "D4O,00NMSC", 1), ":61:2612311231RC", ":61:2613311231RC", 1),
			want: []RowError{
				{Line: 8, Column: 16, Field: "AmountLocal", Message: `:61: "4O,00NMSCNONREF" is not an amount like 1234,56`},
				{Line: 10, Column: 5, Field: "InterestDate", Message: `:61: value date "261331" is not a date YYMMDD`},
			}},
		{name: "MT940 closing balance does not match", desc: defaultDescriptor(t, Bank, FormatMT940), file: "s.sta", emitted: 3,
			data: strings.Replace(mt, ":62F:C270102EUR250,00", ":62F:C270102EUR260,00", 1),
			want: []RowError{{Line: 1, Field: "BookedBalanceLocalCurrency", Message: "statement DE-STMT-1 12/1: the opening balance -200.00 plus the statement lines is 250.00, but the closing balance (:62F:) is 260.00"}}},
		{name: "camt bad amount, bad date, bad indicator", desc: defaultDescriptor(t, Bank, FormatCamt053), file: "c.xml", emitted: 2,
			data: strings.NewReplacer(
				`<Amt Ccy="SEK">125.50</Amt>`, `<Amt Ccy="SEK">125,50</Amt>`,
				`<BookgDt><Dt>2026-11-03</Dt></BookgDt>`, `<BookgDt><Dt>2026-11-31</Dt></BookgDt>`,
				"<CdtDbtInd>DBIT</CdtDbtInd>\n        <Sts>BOOK</Sts>\n        <BookgDt><Dt>2026-11-04</Dt>", "<CdtDbtInd>DBT</CdtDbtInd>\n        <Sts>BOOK</Sts>\n        <BookgDt><Dt>2026-11-04</Dt>",
			).Replace(camt),
			want: []RowError{
				{Line: 47, Field: "AmountLocal", Message: `Amt: "125,50" is not an amount`},
				{Line: 61, Field: "BookedDate", Message: `BookgDt: "2026-11-31" is not an ISO date`},
				{Line: 115, Field: "AmountLocal", Message: `CdtDbtInd: "DBT" is neither CRDT nor DBIT`},
			}},
		{name: "camt closing balance does not match", desc: defaultDescriptor(t, Bank, FormatCamt053), file: "c.xml", emitted: 5,
			data: strings.Replace(camt, `<Amt Ccy="EUR">6185.00</Amt>`, `<Amt Ccy="EUR">6186.00</Amt>`, 1),
			want: []RowError{{Line: 80, Field: "BookedBalanceLocalCurrency", Message: "statement STMT-20261103-002: the opening balance 5000.00 plus the booked entries is 6185.00, but the closing balance (CLBD) is 6186.00"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rows, sum, err := parseBytes(t, tc.desc, tc.file, []byte(tc.data), Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != tc.emitted || sum.RowsEmitted != tc.emitted {
				t.Errorf("emitted %d rows (summary %d), want %d", len(rows), sum.RowsEmitted, tc.emitted)
			}
			if sum.ErrorCount != len(tc.want) || len(sum.Errors) != len(tc.want) {
				t.Fatalf("errors %d: %v, want %d", sum.ErrorCount, sum.Errors, len(tc.want))
			}
			for i, w := range tc.want {
				got := sum.Errors[i] // the codes have their own test
				if got.Line != w.Line || got.Column != w.Column || got.Field != w.Field || got.Message != w.Message {
					t.Errorf("error %d:\n got %#v\nwant %#v", i, sum.Errors[i], w)
				}
			}
		})
	}
}

// TestRowErrorsCapped: every bad row is counted, the first MaxRowErrors kept.
func TestRowErrorsCapped(t *testing.T) {
	var b strings.Builder
	b.WriteString("TicketNumber,TransDate,PaymentType,CountryCode,Currency,TransactionCode,SaleAmount\n")
	for i := 0; i < 250; i++ {
		b.WriteString("123,2026-11-02,CC,SE,SEK,TKTT,1.00\n")
	}
	_, sum, err := parseBytes(t, defaultDescriptor(t, Ticket, FormatCSV), "t.csv", []byte(b.String()), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.ErrorCount != 250 || len(sum.Errors) != MaxRowErrors || sum.RowsRead != 250 || sum.RowsEmitted != 0 {
		t.Fatalf("summary: count %d, kept %d, read %d, emitted %d", sum.ErrorCount, len(sum.Errors), sum.RowsRead, sum.RowsEmitted)
	}
}

// zipBytes builds a zip archive of the given parts.
func zipBytes(t *testing.T, parts map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, data := range parts {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// bomb is a zip whose one part inflates from a few KB to size bytes of zeros.
func bomb(t *testing.T, size int) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) { return flate.NewWriter(w, flate.BestSpeed) })
	w, err := zw.Create("xl/worksheets/sheet1.xml")
	if err != nil {
		t.Fatal(err)
	}
	zero := make([]byte, 1<<20)
	for n := 0; n < size; n += len(zero) {
		w.Write(zero)
	}
	w, _ = zw.Create("xl/workbook.xml")
	io.WriteString(w, `<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheets><sheet name="S" sheetId="1"/></sheets></workbook>`)
	zw.Close()
	return buf.Bytes()
}

// lyingBomb declares a tiny part whose data inflates far beyond it, to
// check that the declared sizes excelize limits on are enforced on read.
func lyingBomb(t *testing.T) []byte {
	t.Helper()
	var deflated bytes.Buffer
	var tmp bytes.Buffer
	zw := zip.NewWriter(&tmp)
	w, _ := zw.CreateHeader(&zip.FileHeader{Name: "x", Method: zip.Deflate})
	w.Write(make([]byte, 16<<20))
	zw.Close()
	zr, _ := zip.NewReader(bytes.NewReader(tmp.Bytes()), int64(tmp.Len()))
	raw, _ := zr.File[0].OpenRaw()
	io.Copy(&deflated, raw)
	var out bytes.Buffer
	zw = zip.NewWriter(&out)
	rw, err := zw.CreateRaw(&zip.FileHeader{Name: "xl/worksheets/sheet1.xml", Method: zip.Deflate,
		CRC32: zr.File[0].CRC32, CompressedSize64: uint64(deflated.Len()), UncompressedSize64: 100})
	if err != nil {
		t.Fatal(err)
	}
	rw.Write(deflated.Bytes())
	w, _ = zw.Create("xl/workbook.xml")
	io.WriteString(w, `<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheets><sheet name="S" sheetId="1"/></sheets></workbook>`)
	zw.Close()
	return out.Bytes()
}

// TestFileErrors: problems with the file as a whole stop the parse with an
// invalid *engine.Error naming the file, and the line where known.
func TestFileErrors(t *testing.T) {
	ex := exampleDescriptors(t)
	ticketCSV := defaultDescriptor(t, Ticket, FormatCSV)
	long := "TicketNumber,TransDate,PaymentType,CountryCode,Currency,TransactionCode,SaleAmount\n1251234567890,2026-11-02," + strings.Repeat("x", 300) + ",SE,SEK,TKTT,1.00\n"
	tests := []struct {
		name string
		desc *Descriptor
		file string
		data []byte
		lim  Limits
		want []string
	}{
		{"empty file", ticketCSV, "empty.csv", readFixture(t, "empty.csv"), Limits{}, []string{"empty.csv: the file is empty"}},
		{"white space only", ticketCSV, "blank.csv", []byte("\r\n \n"), Limits{}, []string{"blank.csv: the file holds only white space"}},
		{"header only", ticketCSV, "header_only.csv", readFixture(t, "header_only.csv"), Limits{}, []string{"header_only.csv: the file has no data rows"}},
		{"transaction csv uploaded as tickets", ticketCSV, "transaction.csv", readFixture(t, "transaction.csv"), Limits{},
			[]string{"transaction.csv: line 1: the columns are those of a transaction file, not a ticket file: choose the kind transaction (missing columns TicketNumber, TransDate"}},
		{"ticket xlsx uploaded as transactions", defaultDescriptor(t, Transaction, FormatXLSX), "ticket.xlsx", readFixture(t, "ticket.xlsx"), Limits{},
			[]string{"ticket.xlsx: line 1: the columns are those of a ticket file, not a transaction file: choose the kind ticket (missing columns ClientUniqueID"}},
		{"unknown column", ticketCSV, "ticket_unknown_column.csv", readFixture(t, "ticket_unknown_column.csv"), Limits{},
			[]string{`ticket_unknown_column.csv: line 1: unknown columns "Agent" (column 8)`}},
		{"duplicate column", ticketCSV, "dup.csv", []byte("TicketNumber,TransDate,PaymentType,CountryCode,Currency,TransactionCode,SaleAmount,saleamount\n1251234567890,2026-11-02,CC,SE,SEK,TKTT,1.00,2\n"), Limits{},
			[]string{`dup.csv: line 1: column "SaleAmount" appears more than once (columns 7, 8)`}},
		{"nuvei layout, default file", ex["nuvei-transactions"], "transaction.csv", readFixture(t, "transaction.csv"), Limits{},
			[]string{`transaction.csv: line 1: missing columns Client Unique ID, Date`, `(the layout "nuvei-transactions" expects`}},
		{"camt.053 uploaded as tickets", ticketCSV, "camt053.xml", readFixture(t, "camt053.xml"), Limits{},
			[]string{"camt053.xml: the file is a camt.053 statement, which holds bank bookings, not ticket rows"}},
		{"MT940 uploaded as settlements", defaultDescriptor(t, Settlement, FormatCSV), "mt940.sta", readFixture(t, "mt940.sta"), Limits{},
			[]string{"mt940.sta: the file is an MT940 statement, which holds bank bookings, not settlement rows"}},
		{"CSV given to the camt.053 layout", defaultDescriptor(t, Bank, FormatCamt053), "bank.csv", readFixture(t, "bank.csv"), Limits{},
			[]string{`bank.csv: the file is CSV, but the import layout "bank-camt053" reads a camt.053 statement`}},
		{"truncated XML", defaultDescriptor(t, Bank, FormatCamt053), "camt053_truncated.xml", readFixture(t, "camt053_truncated.xml"), Limits{},
			[]string{"camt053_truncated.xml: line 99", "the XML ends early: the file is truncated"}},
		{"malformed XML", defaultDescriptor(t, Bank, FormatCamt053), "bad.xml", []byte("<?xml version=\"1.0\"?>\n<Document><BkToCstmrStmt><Stmt></Ntry></Stmt></BkToCstmrStmt></Document>"), Limits{},
			[]string{"bad.xml: line 2", "not well-formed XML"}},
		{"camt.052 report", defaultDescriptor(t, Bank, FormatCamt053), "r.xml", []byte(`<?xml version="1.0"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.052.001.02"><BkToCstmrAcctRpt/></Document>`), Limits{},
			[]string{"r.xml: the file is a camt.052 account report"}},
		{"other XML", defaultDescriptor(t, Bank, FormatCamt053), "x.xml", []byte(`<?xml version="1.0"?><feed/>`), Limits{},
			[]string{"x.xml: the file is XML but not an ISO 20022 camt.053 bank statement"}},
		{"camt.053 without statements", defaultDescriptor(t, Bank, FormatCamt053), "n.xml", []byte(`<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><GrpHdr/></BkToCstmrStmt></Document>`), Limits{},
			[]string{"n.xml: the file holds no camt.053 statement"}},
		{"MT940 fragment", defaultDescriptor(t, Bank, FormatMT940), "g.sta", []byte(":20:X\n:25:A\n:60F:C261101SEK1,00\n:62F:C261101SEK1,00\n-\nhello world\n:25:B\n:61:261101C1,00NTRFNONREF\n"), Limits{},
			[]string{"g.sta: line 7, column 1: the field :25: comes before the :20: that starts every MT940 statement: the file is a fragment"}},
		{"MT942 interim report", defaultDescriptor(t, Bank, FormatMT940), "i.sta", []byte(":20:X\n:25:A\n:28C:1\n:34F:EURD0,\n:13D:2611011200+0100\n:61:261101C1,00NTRFNONREF\n"), Limits{},
			[]string{"i.sta: line 4, column 1: the field :34F: belongs to an MT942 interim transaction report, not an MT940 statement"}},
		{"too large", ticketCSV, "big.csv", bytes.Repeat([]byte("TicketNumber,TransDate\n"), 100), Limits{MaxBytes: 1000},
			[]string{"big.csv: the file is larger than the upload limit of 1000 bytes"}},
		{"line too long", ticketCSV, "long.csv", []byte(long), Limits{MaxLineBytes: 200},
			[]string{"long.csv: line 2: the line is longer than the limit of 200 bytes"}},
		{"quote left open: one endless record of short lines", ticketCSV, "open.csv",
			[]byte("TicketNumber,TransDate,PaymentType,CountryCode,Currency,TransactionCode,SaleAmount\n1251234567890,2026-11-02,\"CC\n" + strings.Repeat("more text\n", 30000)),
			Limits{MaxRecordBytes: 100 << 10},
			[]string{"open.csv: line ", "a record (starting at or before this line) is longer than the limit of 100 KB; is a quote left open?"}},
		{"MT940 line too long", defaultDescriptor(t, Bank, FormatMT940), "long.sta", []byte(":20:X\n:86:" + strings.Repeat("x", 300) + "\n"), Limits{MaxLineBytes: 200},
			[]string{"long.sta: line 2: the line is longer than the limit of 200 bytes"}},
		{"too many fields", ticketCSV, "wide.csv", []byte("TicketNumber,TransDate,PaymentType,CountryCode,Currency,TransactionCode,SaleAmount\n1251234567890,2026-11-02,CC,SE,SEK,TKTT,1.00" + strings.Repeat(",", 20) + "\n"), Limits{MaxFields: 10},
			[]string{"wide.csv: line 2: the record has 27 fields, more than the limit of 10"}},
		{"zip bomb", defaultDescriptor(t, Ticket, FormatXLSX), "bomb.xlsx", bomb(t, 4<<20), Limits{MaxUnzipBytes: 1 << 20},
			[]string{"bomb.xlsx: the workbook unpacks to more than 1 MB; it is refused as a possible zip bomb"}},
		{"zip bomb lying about its size", defaultDescriptor(t, Ticket, FormatXLSX), "liar.xlsx", lyingBomb(t), Limits{},
			[]string{"liar.xlsx: the workbook is damaged"}},
		{"not a workbook", defaultDescriptor(t, Ticket, FormatXLSX), "t.xlsx", zipBytes(t, map[string][]byte{"hello.txt": []byte("hi")}), Limits{},
			[]string{"t.xlsx: the file is a zip archive but not an XLSX workbook (it has no xl/workbook.xml)"}},
		{"truncated workbook", defaultDescriptor(t, Ticket, FormatXLSX), "t.xlsx", readFixture(t, "ticket.xlsx")[:3000], Limits{},
			[]string{"t.xlsx: the workbook is damaged: its zip directory cannot be found"}},
		{"missing sheet", &Descriptor{Name: "s", Kind: Ticket, Format: FormatXLSX, Sheet: "Sales"}, "ticket.xlsx", readFixture(t, "ticket.xlsx"), Limits{},
			[]string{`ticket.xlsx: the workbook has no sheet "Sales" (it has "Tickets")`}},
		{"legacy xls", ticketCSV, "t.xls", append([]byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}, make([]byte, 100)...), Limits{},
			[]string{"t.xls: the file is a legacy Excel .xls workbook"}},
		{"UTF-16 text", ticketCSV, "t.csv", []byte{0xFF, 0xFE, 'T', 0}, Limits{}, []string{"t.csv: the file is UTF-16 text; save it as UTF-8"}},
		{"PDF", ticketCSV, "t.pdf", []byte("%PDF-1.7\n"), Limits{}, []string{"t.pdf: the file is a PDF document"}},
		{"binary", ticketCSV, "t.csv", []byte("abc\x00\x01\x02"), Limits{}, []string{"t.csv: the file is binary"}},
		{"invalid descriptor", &Descriptor{Name: "x", Kind: Ticket, Format: FormatCSV, DateFormat: "yyyy-QQ-dd"}, "t.csv", readFixture(t, "ticket.csv"), Limits{},
			[]string{`t.csv: import layout "x" is invalid: dateFormat: date format "yyyy-QQ-dd": unknown token "QQ"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := parseBytes(t, tc.desc, tc.file, tc.data, tc.lim)
			if err == nil {
				t.Fatal("no error")
			}
			checkInvalid(t, err, tc.want...)
		})
	}
}

// TestZipBombDefaultLimits checks that the default limits alone refuse a
// workbook that would unpack to 600 MB.
func TestZipBombDefaultLimits(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 600 MB zip bomb")
	}
	data := bomb(t, 600<<20)
	if len(data) > 2<<20 {
		t.Fatalf("bomb is %d bytes", len(data))
	}
	_, _, err := parseBytes(t, defaultDescriptor(t, Ticket, FormatXLSX), "bomb.xlsx", data, Limits{})
	checkInvalid(t, err, "bomb.xlsx: the workbook unpacks to more than 512 MB")
}

// TestZipManyParts: a zip directory declaring a huge number of parts is
// refused before it is read into memory.
func TestZipManyParts(t *testing.T) {
	parts := map[string][]byte{}
	for i := 0; i < maxZipParts+1; i++ {
		parts[fmt.Sprintf("p/%d", i)] = nil
	}
	_, _, err := parseBytes(t, defaultDescriptor(t, Ticket, FormatXLSX), "many.xlsx", zipBytes(t, parts), Limits{})
	checkInvalid(t, err, "many.xlsx: the workbook has 10001 parts")
}

// TestEmitErrorAndCancel: the caller's error and a cancelled context stop
// the parse and come back as they are, not as invalid input.
func TestEmitErrorAndCancel(t *testing.T) {
	stop := errors.New("database down")
	_, err := Parse(context.Background(), defaultDescriptor(t, Ticket, FormatCSV), "ticket.csv", bytes.NewReader(readFixture(t, "ticket.csv")), Limits{},
		func(Row) error { return stop })
	if !errors.Is(err, stop) || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("emit error: got %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var b strings.Builder
	b.WriteString("TicketNumber,TransDate,PaymentType,CountryCode,Currency,TransactionCode,SaleAmount\n")
	for i := 0; i < 10000; i++ {
		b.WriteString("1251234567890,2026-11-02,CC,SE,SEK,TKTT,1.00\n")
	}
	_, err = Parse(ctx, defaultDescriptor(t, Ticket, FormatCSV), "t.csv", strings.NewReader(b.String()), Limits{}, func(Row) error { return nil })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: got %v", err)
	}
}

// TestCamtEncodings: a BOM and a Latin-1 declaration are read; other
// encodings are refused with a message.
func TestCamtEncodings(t *testing.T) {
	d := defaultDescriptor(t, Bank, FormatCamt053)
	camt := readFixture(t, "camt053.xml")
	rows, _, err := parseBytes(t, d, "bom.xml", append([]byte("\xef\xbb\xbf"), camt...), Limits{})
	if err != nil || len(rows) != 5 {
		t.Fatalf("BOM: %d rows, %v", len(rows), err)
	}
	latin := bytes.Replace(bytes.Replace(camt, []byte(`encoding="UTF-8"`), []byte(`encoding="ISO-8859-1"`), 1), []byte("insättning"), []byte("ins\xe4ttning"), 1)
	rows, _, err = parseBytes(t, d, "latin.xml", latin, Limits{})
	if err != nil || len(rows) != 5 || !strings.HasPrefix(rows[0].Values[bText].(string), "Bankgiro insättning") {
		t.Fatalf("Latin-1: %d rows, %v", len(rows), err)
	}
	_, _, err = parseBytes(t, d, "ebcdic.xml", bytes.Replace(camt, []byte(`encoding="UTF-8"`), []byte(`encoding="EBCDIC"`), 1), Limits{})
	checkInvalid(t, err, "ebcdic.xml: line 1", "declares an encoding other than UTF-8")
}
