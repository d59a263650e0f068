package imports

import (
	"bytes"
	"context"
	"errors"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"ledgerdesk/engine"
)

// The corpus (testdata/corpus) holds real statements from the public test
// suites of other statement parsers, with their origin and licence in
// SOURCES-*.md, and what each holds in expected.yaml, written by reading
// the file, not by running this importer.

type corpusBooking struct {
	Booked string `yaml:"booked"`
	Value  string `yaml:"value"`
	Amount string `yaml:"amount"`
}

type corpusEntry struct {
	File       string         `yaml:"file"`
	Bank       string         `yaml:"bank"`
	Outcome    string         `yaml:"outcome"`
	Refused    string         `yaml:"refused"`
	Statements *int           `yaml:"statements"`
	Bookings   *int           `yaml:"bookings"`
	Skipped    int            `yaml:"skipped"`
	Credits    string         `yaml:"credits"`
	Debits     string         `yaml:"debits"`
	Accounts   []string       `yaml:"accounts"`
	First      *corpusBooking `yaml:"first"`
	Last       *corpusBooking `yaml:"last"`
}

func readCorpus(t testing.TB) []corpusEntry {
	t.Helper()
	var all []corpusEntry
	for _, f := range []string{"mt940", "camt053"} {
		raw, err := os.ReadFile(filepath.Join("testdata", "corpus", f, "expected.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		var list []corpusEntry
		if err := yaml.Unmarshal(raw, &list); err != nil {
			t.Fatalf("%s/expected.yaml: %v", f, err)
		}
		all = append(all, list...)
	}
	return all
}

func corpusFormat(file string) string {
	if strings.HasPrefix(file, "camt053/") {
		return FormatCamt053
	}
	return FormatMT940
}

// refusalKeys are the message codes of the refusals the corpus names.
var refusalKeys = map[string]string{
	"mt942":    "import.file.mt942",
	"fragment": "import.file.mt940Fragment",
	"camt052":  "import.file.camt052",
	"camt054":  "import.file.camt054",
}

func TestRealStatementCorpus(t *testing.T) {
	entries := readCorpus(t)
	banks := map[string]bool{}
	for _, e := range entries {
		banks[e.Bank] = true
	}
	if len(entries) < 60 || len(banks) < 10 {
		t.Fatalf("the corpus holds %d files of %d banks; it needs at least 60 of 10", len(entries), len(banks))
	}
	for _, e := range entries {
		t.Run(e.File, func(t *testing.T) {
			content, err := os.ReadFile(filepath.Join("testdata", "corpus", e.File))
			if err != nil {
				t.Fatal(err)
			}
			var rows []Row
			sum, err := Parse(context.Background(), defaultDescriptor(t, Bank, corpusFormat(e.File)), filepath.Base(e.File), bytes.NewReader(content), Limits{},
				func(r Row) error { rows = append(rows, r); return nil })
			if key := refusalKeys[e.Refused]; key != "" {
				var fe *engine.Error
				if !errors.As(err, &fe) || fe.Key != key {
					t.Fatalf("want the refusal %s, got %v", key, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			switch {
			case e.Outcome == "loads" && sum.ErrorCount > 0:
				t.Errorf("the file should load, but has %d row errors, the first: %v", sum.ErrorCount, sum.Errors[0])
			case e.Refused == "balance":
				if sum.ErrorCount == 0 {
					t.Error("the balances do not add up, but no error says so")
				}
				for _, re := range sum.Errors {
					if !strings.Contains(re.Message, "closing balance") {
						t.Errorf("an error other than the balance's: %v", re)
					}
				}
			case e.Outcome != "loads":
				t.Fatalf("unknown outcome %q/%q", e.Outcome, e.Refused)
			}
			checkCorpusRows(t, e, sum, rows)
		})
	}
}

func checkCorpusRows(t *testing.T, e corpusEntry, sum Summary, rows []Row) {
	t.Helper()
	if e.Statements != nil && sum.Statements != *e.Statements {
		t.Errorf("statements %d, want %d", sum.Statements, *e.Statements)
	}
	if e.Bookings != nil && len(rows) != *e.Bookings {
		t.Errorf("bookings %d, want %d", len(rows), *e.Bookings)
	}
	if sum.Skipped != e.Skipped {
		t.Errorf("skipped %d, want %d", sum.Skipped, e.Skipped)
	}
	credits, debits := new(big.Rat), new(big.Rat)
	var accounts []string
	for _, st := range sum.StatementList {
		if st.Account != "" && !slices.Contains(accounts, st.Account) { // a lone :20: at a file's end has none
			accounts = append(accounts, st.Account)
		}
	}
	idents := map[string]int{}
	for _, r := range rows {
		amount, ok := new(big.Rat).SetString(r.Values[bAmount].(string))
		if !ok {
			t.Fatalf("line %d: amount %v", r.Line, r.Values[bAmount])
		}
		if amount.Sign() >= 0 {
			credits.Add(credits, amount)
		} else {
			debits.Sub(debits, amount)
		}
		if r.Identity == "" {
			t.Errorf("line %d has no identity", r.Line)
		}
		if prev, ok := idents[r.Identity]; ok {
			t.Errorf("lines %d and %d have the same identity %q", prev, r.Line, r.Identity)
		}
		idents[r.Identity] = r.Line
	}
	for _, c := range []struct {
		name string
		got  *big.Rat
		want string
	}{{"credits", credits, e.Credits}, {"debits", debits, e.Debits}} {
		if c.want == "" {
			continue
		}
		want, ok := new(big.Rat).SetString(c.want)
		if !ok || want.Cmp(c.got) != 0 {
			t.Errorf("%s %s, want %s", c.name, c.got.FloatString(2), c.want)
		}
	}
	if e.Accounts != nil && !slices.Equal(accounts, e.Accounts) {
		t.Errorf("accounts %q, want %q", accounts, e.Accounts)
	}
	if len(rows) == 0 {
		return
	}
	for _, b := range []struct {
		name string
		row  Row
		want *corpusBooking
	}{{"first", rows[0], e.First}, {"last", rows[len(rows)-1], e.Last}} {
		if b.want == nil {
			continue
		}
		got := corpusBooking{Booked: dayOf(b.row.Values[bBooked]), Value: dayOf(b.row.Values[bInterest]), Amount: b.row.Values[bAmount].(string)}
		want := *b.want
		if want.Value == "" {
			got.Value = ""
		}
		if want.Booked == "" {
			got.Booked = ""
		}
		if wa, ok := new(big.Rat).SetString(want.Amount); ok {
			if ga, ok := new(big.Rat).SetString(got.Amount); ok && wa.Cmp(ga) == 0 {
				got.Amount = want.Amount
			}
		}
		if got != want {
			t.Errorf("%s booking (line %d) %+v, want %+v", b.name, b.row.Line, got, want)
		}
	}
}

func dayOf(v any) string {
	if d, ok := v.(time.Time); ok {
		return d.Format("2006-01-02")
	}
	return ""
}
