package imports

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"ledgerdesk/engine"
)

// The fuzz targets share one property: whatever the bytes, Parse returns
// (no panic); a failure is an *engine.Error of code invalid; every emitted
// row has exactly one value per field, each nil or of its field's Go type;
// and the summary's counts agree with what was emitted.

var fuzzLimits = Limits{MaxBytes: 1 << 20, MaxLineBytes: 4096, MaxFields: 64, MaxUnzipBytes: 8 << 20}

func fuzzParse(t *testing.T, d *Descriptor, data []byte) {
	fs := Fields(d.Kind)
	emitted := 0
	sum, err := Parse(context.Background(), d, "fuzz", bytes.NewReader(data), fuzzLimits, func(r Row) error {
		emitted++
		if len(r.Values) != len(fs) {
			t.Fatalf("row at line %d has %d values, want %d", r.Line, len(r.Values), len(fs))
		}
		for i, v := range r.Values {
			if v == nil {
				if fs[i].Required {
					t.Fatalf("line %d: required %s is nil", r.Line, fs[i].Name)
				}
				continue
			}
			switch fs[i].Type {
			case TypeDate:
				if tm, ok := v.(time.Time); !ok || tm.Location() != time.UTC || tm.Hour() != 0 {
					t.Fatalf("line %d: %s = %#v is not a UTC date", r.Line, fs[i].Name, v)
				}
			case TypeDecimal:
				s, ok := v.(string)
				if _, ok2 := parseDecimal(s, '.', ""); !ok || !ok2 {
					t.Fatalf("line %d: %s = %#v is not a normalised decimal", r.Line, fs[i].Name, v)
				}
			case TypeTicket:
				if s, ok := v.(string); !ok || len(s) != 13 {
					t.Fatalf("line %d: %s = %#v is not a ticket number", r.Line, fs[i].Name, v)
				}
			default:
				if _, ok := v.(string); !ok {
					t.Fatalf("line %d: %s = %#v is not a string", r.Line, fs[i].Name, v)
				}
			}
		}
		return nil
	})
	if err != nil {
		var e *engine.Error
		if !errors.As(err, &e) || e.Code != engine.CodeInvalid {
			t.Fatalf("error %v (%T) is not an invalid *engine.Error", err, err)
		}
		return
	}
	if emitted != sum.RowsEmitted || sum.RowsEmitted > sum.RowsRead || len(sum.Errors) > MaxRowErrors || sum.ErrorCount < len(sum.Errors) {
		t.Fatalf("inconsistent summary %+v with %d rows emitted", sum, emitted)
	}
}

// seeds lists the committed fixtures each fuzz target starts from; -update
// writes them to testdata/fuzz/<target>/ as well.
var seeds = map[string][]string{
	"FuzzCSV":     {"ticket.csv", "ticket_bad.csv", "transaction.csv", "settlement.csv", "bank.csv", "nuvei-transactions.csv", "nordic-bank.csv", "header_only.csv"},
	"FuzzXLSX":    {"ticket.xlsx", "amex-settlements.xlsx"},
	"FuzzCamt053": {"camt053.xml", "camt053_v08.xml", "camt053_truncated.xml"},
	"FuzzMT940":   {"mt940.sta", "mt940_plain.sta"},
}

func writeSeeds(t *testing.T) {
	for target, files := range seeds {
		dir := filepath.Join("testdata", "fuzz", target)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, name := range files {
			data := readFixture(t, name)
			body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", data)
			if err := os.WriteFile(filepath.Join(dir, "seed-"+name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func addSeeds(f *testing.F, target string) {
	for _, name := range seeds[target] {
		f.Add(readFixture(f, name))
	}
	// The statement targets start from every real statement of the corpus too.
	if dir := corpusSeeds[target]; dir != "" {
		err := filepath.WalkDir(filepath.Join("testdata", "corpus", dir), func(path string, e os.DirEntry, err error) error {
			if err != nil || e.IsDir() || filepath.Ext(path) == ".yaml" {
				return err
			}
			data, err := os.ReadFile(path)
			f.Add(data)
			return err
		})
		if err != nil {
			f.Fatal(err)
		}
	}
}

// corpusSeeds names the corpus folder a fuzz target starts from.
var corpusSeeds = map[string]string{"FuzzCamt053": "camt053", "FuzzMT940": "mt940"}

func FuzzCSV(f *testing.F) {
	addSeeds(f, "FuzzCSV")
	f.Add([]byte("TicketNumber,TransDate\n\"unterminated,2026-01-01\n"))
	ds := exampleDescriptors(f)
	layouts := []*Descriptor{
		defaultDescriptor(f, Ticket, FormatCSV),
		defaultDescriptor(f, Transaction, FormatCSV),
		defaultDescriptor(f, Bank, FormatCSV),
		ds["nuvei-transactions"],
		ds["nordic-bank-sek"],
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, d := range layouts {
			fuzzParse(t, d, data)
		}
	})
}

func FuzzXLSX(f *testing.F) {
	addSeeds(f, "FuzzXLSX")
	ds := exampleDescriptors(f)
	layouts := []*Descriptor{defaultDescriptor(f, Ticket, FormatXLSX), ds["amex-settlements"]}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, d := range layouts {
			fuzzParse(t, d, data)
		}
	})
}

func FuzzCamt053(f *testing.F) {
	addSeeds(f, "FuzzCamt053")
	d := defaultDescriptor(f, Bank, FormatCamt053)
	f.Fuzz(func(t *testing.T, data []byte) { fuzzParse(t, d, data) })
}

func FuzzMT940(f *testing.F) {
	addSeeds(f, "FuzzMT940")
	d := defaultDescriptor(f, Bank, FormatMT940)
	f.Fuzz(func(t *testing.T, data []byte) { fuzzParse(t, d, data) })
}
