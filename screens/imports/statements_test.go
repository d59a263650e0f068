package imports

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"golang.org/x/text/encoding/charmap"
)

// One test per class of what real banks write (issue: real bank statements),
// each on a small statement written for the class; the corpus test runs the
// real files.

func mt940Rows(t *testing.T, text string) ([]Row, Summary) {
	t.Helper()
	rows, sum, err := parseBytes(t, defaultDescriptor(t, Bank, FormatMT940), "s.sta", []byte(text), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.ErrorCount > 0 {
		t.Fatalf("row errors: %v", sum.Errors)
	}
	return rows, sum
}

func textOf(r Row) string { s, _ := r.Values[bText].(string); return s }

func TestMT940AroundTheMessage(t *testing.T) {
	// SOH/ETX around SWIFT blocks, a bank's header before each message, a
	// transmission preamble, a SUB byte before :20:, a trailer line.
	msg := func(ref string) string {
		return "ABNANL2A\r\n940\r\nABNANL2A\r\n\x1a:20:" + ref + "\r\n:25:NL69INGB0123456789EUR\r\n:28C:1/1\r\n:60F:C261101EUR10,00\r\n" +
			":61:2611011101C5,00NTRFNONREF\r\n:86:A\r\n:62F:C261101EUR15,00\r\n-\r\n"
	}
	text := "0000 01INGBNL2AXXXX00001\r\n\x01{1:F01INGBNL2AXXXX0000000000}{2:O9401200261101INGBNL2AXXXX00000000002611011200N}{3:{108:X}}{4:\r\n" +
		msg("ONE") + "-}{5:{CHK:1}}\x03\r\n" + msg("TWO") + "-XXX\r\n"
	format, err := Detect(Bank, "s.sta", []byte(text))
	if err != nil || format != FormatMT940 {
		t.Fatalf("detected %q, %v", format, err)
	}
	rows, sum := mt940Rows(t, text)
	if len(rows) != 2 || sum.Statements != 2 || rows[0].Values[bAccount] != "NL69INGB0123456789" {
		t.Fatalf("rows %d statements %d account %v", len(rows), sum.Statements, rows[0].Values[bAccount])
	}
}

func TestMT940Text(t *testing.T) {
	head := ":20:T\n:25:X\n:60F:C261101EUR0,00\n"
	full := strings.Repeat("a", 61) // the first line of :86: holds 61 characters after the tag
	rows, _ := mt940Rows(t, head+
		":61:2611011101C1,00NTRFNONREF\n:86:"+full+"\nrest\n:86:second field\n"+ // wrapped mid-word; :86: repeated
		":61:2611011101C1,00NTRFNONREF\n:86:first\n-\nafter the dash\n"+ // a "-" line inside :86:
		":61:2611011101C1,00NTRFNONREF\n:86:\n"+ // an empty :86:
		":61:2611011101C1,00NTRFNONREF\n"+ // no :86: at all
		":62F:C261101EUR4,00\n-\n")
	want := []string{full + "rest second field", "first - after the dash", "", ""}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(rows), len(want))
	}
	for i, w := range want {
		if textOf(rows[i]) != w {
			t.Errorf("line %d text %q, want %q", i+1, textOf(rows[i]), w)
		}
	}
}

func TestMT940Values(t *testing.T) {
	rows, sum := mt940Rows(t, ":20:T\n:25:DE89370400440532013000\n:60F:C270101EUR100.00\n"+
		":61:2702300228C10.50NTRFNONREF\n:86:thirtieth of February, decimal point\n"+ // value 30 Feb, entry 28 Feb
		":61:2612311231D0,50//BANKREF\n:86:no transaction type\n"+
		":61:2701020102D10NMSCNONREF\n:86:no decimal comma, a type follows\n"+
		":62F:C270102EUR100,00\n")
	if len(rows) != 3 {
		t.Fatalf("%d rows", len(rows))
	}
	if got := rows[0].Values[bInterest].(time.Time); !got.Equal(date("2027-02-28")) {
		t.Errorf("30 February read as %v", got)
	}
	if rows[0].Values[bAmount] != "10.50" || rows[1].Values[bAmount] != "-0.50" || rows[2].Values[bAmount] != "-10" {
		t.Errorf("amounts %v %v %v", rows[0].Values[bAmount], rows[1].Values[bAmount], rows[2].Values[bAmount])
	}
	if rows[1].Values[bArchive] != "BANKREF" {
		t.Errorf("bank reference %v", rows[1].Values[bArchive])
	}
	if got := rows[1].Values[bBooked].(time.Time); !got.Equal(date("2026-12-31")) {
		t.Errorf("entry date across the year end: %v", got)
	}
	if len(sum.Notes) != 1 || sum.Notes[0].Code != "import.note.lastDayOfMonth" || sum.Notes[0].Line != 4 {
		t.Errorf("notes %+v, want one lastDayOfMonth on line 4", sum.Notes)
	}
}

func TestMT940Encodings(t *testing.T) {
	text := ":20:T\n:25:PL61109010140000071219812874\n:60F:C261101PLN0,00\n:61:2611011101C1,00NTRFNONREF\n:86:%s\n:62F:C261101PLN1,00\n"
	for _, c := range []struct {
		name string
		cm   *charmap.Charmap
		text string
	}{
		{"code page 852", charmap.CodePage852, "Urząd Skarbowy, wpłata podatku, żółć"},
		{"code page 850", charmap.CodePage850, "Überweisung Müller, Gebühr für März"},
		{"windows-1252", charmap.Windows1252, "Société Générale, café crème"},
	} {
		t.Run(c.name, func(t *testing.T) {
			encoded, err := c.cm.NewEncoder().String(c.text)
			if err != nil {
				t.Fatal(err)
			}
			rows, _ := mt940Rows(t, strings.Replace(text, "%s", encoded, 1))
			if textOf(rows[0]) != c.text {
				t.Errorf("read %q, want %q", textOf(rows[0]), c.text)
			}
		})
	}
	// A layout that names the encoding is followed.
	d := defaultDescriptor(t, Bank, FormatMT940)
	d.Encoding = "cp852"
	encoded, _ := charmap.CodePage852.NewEncoder().String("Łódź")
	rows, _, err := parseBytes(t, d, "s.sta", []byte(strings.Replace(text, "%s", encoded, 1)), Limits{})
	if err != nil || len(rows) != 1 || textOf(rows[0]) != "Łódź" {
		t.Errorf("named cp852: %v %v", err, rows)
	}
}

func camtDoc(entries string, balances string) string {
	return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><GrpHdr><MsgId>M</MsgId><CreDtTm>2014-01-05T08:00:00</CreDtTm></GrpHdr>
<Stmt><Id>S1</Id><ElctrncSeqNb>7</ElctrncSeqNb><Acct><Id><IBAN>SE4550000000058398257466</IBAN></Id></Acct>` + balances + entries + `</Stmt></BkToCstmrStmt></Document>`
}

func camtEntry(amount, indicator, status, dates string) string {
	return `<Ntry><Amt Ccy="SEK">` + amount + `</Amt><CdtDbtInd>` + indicator + `</CdtDbtInd><Sts>` + status + `</Sts>` + dates + `</Ntry>`
}

func TestCamtDates(t *testing.T) {
	doc := camtDoc(
		camtEntry("1.00", "CRDT", "BOOK", `<BookgDt><DtTm>2014-01-04T23:00:00Z</DtTm></BookgDt><ValDt><Dt>2014-01-05</Dt></ValDt>`)+
			camtEntry("2.00", "CRDT", "BOOK", `<ValDt><Dt>2014-01-06</Dt></ValDt>`)+
			camtEntry("3.00", "CRDT", "PDNG", `<BookgDt><Dt>2014-01-06</Dt></BookgDt>`)+
			camtEntry("4.00", "CRDT", "BOOK", `<BookgDt><DtTm>2014-01-04T23:30:00</DtTm></BookgDt>`), "")
	d := defaultDescriptor(t, Bank, FormatCamt053)
	parse := func(zones func(string) *time.Location) ([]Row, Summary) {
		var rows []Row
		sum, err := ParseIn(context.Background(), d, "c.xml", strings.NewReader(doc), Limits{}, zones, func(r Row) error { rows = append(rows, r); return nil })
		if err != nil || sum.ErrorCount > 0 {
			t.Fatalf("%v %v", err, sum.Errors)
		}
		return rows, sum
	}
	rows, sum := parse(nil)
	want := []string{"2014-01-05", "2014-01-06", "2014-01-04"} // the Stockholm day; the value date; a date-time without zone as written
	if len(rows) != 3 || sum.Skipped != 1 {
		t.Fatalf("%d rows, %d skipped", len(rows), sum.Skipped)
	}
	for i, w := range want {
		if got := dayOf(rows[i].Values[bBooked]); got != w {
			t.Errorf("entry %d booked %s, want %s", i+1, got, w)
		}
	}
	codes := []string{}
	for _, n := range sum.Notes {
		codes = append(codes, n.Code)
	}
	if strings.Join(codes, " ") != "import.note.valueDateAsBooked import.skip.notBooked" || !sum.Notes[1].Skipped {
		t.Errorf("notes %+v", sum.Notes)
	}
	// An account in New York: 23:00 UTC is still the 4th there.
	ny, _ := time.LoadLocation("America/New_York")
	rows, _ = parse(func(account string) *time.Location {
		if account == "SE4550000000058398257466" {
			return ny
		}
		return nil
	})
	if got := dayOf(rows[0].Values[bBooked]); got != "2014-01-04" {
		t.Errorf("in New York booked %s, want 2014-01-04", got)
	}
}

func TestStatementWithoutEntriesLoads(t *testing.T) {
	l := newLoader(t)
	doc := camtDoc("", `<Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="SEK">10.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2014-01-05</Dt></Dt></Bal>`+
		`<Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="SEK">10.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2014-01-05</Dt></Dt></Bal>`)
	f := l.load(t, Bank, "quiet-day.xml", []byte(doc), "")
	if f.Status != "succeeded" || f.RowsLoaded != 0 {
		t.Fatalf("%s, loaded %d (%v)", f.Status, f.RowsLoaded, deref(f.Error))
	}
}

func TestStatementsChainAcrossFiles(t *testing.T) {
	l := newLoader(t)
	stmt := func(number, open, close string) string {
		return ":20:STARTUMS\n:25:DE89370400440532013000\n:28C:" + number + "\n:60F:" + open + "\n:61:2611011101C1,00NTRFNONREF\n:86:x\n:62F:" + close + "\n-\n"
	}
	for _, c := range []struct {
		file, text, status, code string
	}{
		{"1.sta", stmt("00001/1", "C261101EUR10,00", "C261101EUR11,00"), "Success", ""},
		{"2.sta", stmt("00002/1", "C261102EUR11,00", "C261102EUR12,00"), "Success", ""},
		{"4.sta", stmt("00004/1", "C261104EUR12,00", "C261104EUR13,00"), "Warning", "import.note.statementGap"},
		{"5.sta", stmt("00005/1", "C261105EUR20,00", "C261105EUR21,00"), "Warning", "import.note.openingDiffers"},
	} {
		f := l.load(t, Bank, c.file, []byte(c.text), "")
		if f.Status != "succeeded" || f.RowsLoaded != 1 {
			t.Fatalf("%s: %s loaded %d (%v)", c.file, f.Status, f.RowsLoaded, deref(f.Error))
		}
		var status, code string
		if err := l.pool.QueryRow(context.Background(), `select status, coalesce(error_code, '') from extraction_log where id = $1`, *f.ExtractionLogID).Scan(&status, &code); err != nil {
			t.Fatal(err)
		}
		if status != c.status || code != c.code {
			t.Errorf("%s: log %s %q, want %s %q", c.file, status, code, c.status, c.code)
		}
		warned := l.count(t, `select count(*) from bank_booking where file_name = $1 and statement_warning is not null`, c.file)
		if (c.code != "") != (warned == 1) {
			t.Errorf("%s: %d bookings carry the warning", c.file, warned)
		}
		if c.code != "" && (f.NoteCount != 1 || f.RowNotes[0].Code != c.code) {
			t.Errorf("%s: notes %+v", c.file, f.RowNotes)
		}
	}
}

func zipOf(t *testing.T, files ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for i := 0; i+1 < len(files); i += 2 {
		f, err := w.Create(files[i])
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte(files[i+1]))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestZipOfStatements(t *testing.T) {
	l := newLoader(t)
	day := func(n string) string {
		return ":20:D" + n + "\n:25:DE89370400440532013000\n:28C:" + n + "\n:60F:C26110" + n + "EUR0,00\n:61:26110" + n + "C1,00NTRFNONREF\n:86:day " + n + "\n:62F:C26110" + n + "EUR1,00\n-\n"
	}
	content := zipOf(t, "__MACOSX/._x", "junk", "statements/", "", "statements/2.sta", day("2"), "statements/1.sta", day("1"))
	f := l.load(t, Bank, "november.zip", content, "")
	if f.Status != "succeeded" || f.RowsLoaded != 2 || f.Format != FormatMT940 {
		t.Fatalf("%s %s: loaded %d (%v)", f.Status, f.Format, f.RowsLoaded, deref(f.Error))
	}
	// Statements with another format inside, or no statements at all, are refused by name.
	if _, err := Detect(Bank, "mixed.zip", zipOf(t, "a.sta", day("3"), "b.xml", camtDoc("", ""))); err != nil {
		t.Fatalf("detect: %v", err) // the first entry decides the format ...
	}
	_, _, err := parseBytes(t, defaultDescriptor(t, Bank, FormatMT940), "mixed.zip", zipOf(t, "a.sta", day("3"), "b.xml", camtDoc("", "")), Limits{})
	checkInvalid(t, err, "mixed.zip/b.xml: the file is a camt.053 statement, but the zip's first statement") // ... and every other must have it
	_, err = Detect(Bank, "tickets.zip", zipOf(t, "tickets.csv", "TicketNumber,TransDate\n"))
	checkInvalid(t, err, "tickets.zip: the file is a zip archive holding tickets.csv, neither an XLSX workbook nor bank statements")
}

// Every camt.053 version in use reads alike: the reader matches local
// names, so the same statement under each version's namespace gives the
// same bookings (the corpus holds real files of .02, .04, .08 and .10).
func TestCamtEveryVersion(t *testing.T) {
	doc := string(readFixture(t, "camt053.xml"))
	ns := "urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"
	if !strings.Contains(doc, ns) {
		t.Fatal("the fixture is no longer camt.053.001.02")
	}
	d := defaultDescriptor(t, Bank, FormatCamt053)
	want, _, err := parseBytes(t, d, "v02.xml", []byte(doc), Limits{})
	if err != nil || len(want) == 0 {
		t.Fatalf("%v, %d rows", err, len(want))
	}
	for v := 3; v <= 13; v++ {
		version := fmt.Sprintf("camt.053.001.%02d", v)
		rows, sum, err := parseBytes(t, d, version+".xml", []byte(strings.ReplaceAll(doc, ns, "urn:iso:std:iso:20022:tech:xsd:"+version)), Limits{})
		if err != nil || sum.ErrorCount > 0 || len(rows) != len(want) {
			t.Fatalf("%s: %v, %d errors, %d rows of %d", version, err, sum.ErrorCount, len(rows), len(want))
		}
		for i := range rows {
			if showRow(rows[i].Values) != showRow(want[i].Values) || rows[i].Identity != want[i].Identity {
				t.Errorf("%s row %d: %s, want %s", version, i+1, showRow(rows[i].Values), showRow(want[i].Values))
			}
		}
	}
}

// TestImportDateWindow (security round 3, hole 2): a date far outside today's
// window (IMPORT_YEARS_BACK, IMPORT_YEARS_AHEAD) is a row error, so one
// typo cannot stretch every report over centuries.
func TestImportDateWindow(t *testing.T) {
	l := newLoader(t)
	l.s.SetDateWindow(20, 1)
	csv := "BankAccount,BookedDate,InterestDate,Text,AmountLocal,Currency,BankArchiveReference,Number,BookedBalanceLocalCurrency\n" +
		"SE4550000000058398257466,1900-01-01,,Typo,1.00,SEK,,,\n" +
		"SE4550000000058398257466," + time.Now().Format("2006-01-02") + ",2999-12-31,Typo,1.00,SEK,,,\n"
	f := l.load(t, Bank, "typos.csv", []byte(csv), "")
	if f.Status != "failed" || len(f.RowErrors) != 2 {
		t.Fatalf("%s: %v", f.Status, f.RowErrors)
	}
	for i, field := range []string{"BookedDate", "InterestDate"} {
		if e := f.RowErrors[i]; e.Code != "import.row.dateWindow" || e.Field != field || e.Line != i+2 {
			t.Errorf("row error %d: %+v", i, e)
		}
	}
}
