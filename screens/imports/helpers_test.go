package imports

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"ledgerdesk/engine"
)

var update = flag.Bool("update", false, "rewrite the generated XLSX fixtures and the fuzz seed corpora")

// date is a UTC-midnight date for expected values.
func date(s string) time.Time {
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		panic(err)
	}
	return t
}

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "files", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func defaultDescriptor(t testing.TB, kind Kind, format string) *Descriptor {
	t.Helper()
	d, err := DefaultDescriptor(kind, format)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// exampleDescriptors are the committed example layouts.
func exampleDescriptors(t testing.TB) map[string]*Descriptor {
	t.Helper()
	ds, err := LoadDescriptors(os.DirFS("../..")) // the layouts the product ships in imports/
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// parseBytes runs Parse over data and collects the rows.
func parseBytes(t testing.TB, d *Descriptor, name string, data []byte, lim Limits) ([]Row, Summary, error) {
	t.Helper()
	var rows []Row
	sum, err := Parse(context.Background(), d, name, bytes.NewReader(data), lim, func(r Row) error {
		rows = append(rows, r)
		return nil
	})
	return rows, sum, err
}

// values renders rows compactly for comparison and failure output.
func show(v any) string {
	switch v := v.(type) {
	case nil:
		return "<nil>"
	case time.Time:
		return v.Format("2006-01-02")
	case string:
		return strconv.Quote(v)
	}
	return fmt.Sprintf("%T(%v)", v, v)
}

func checkRows(t *testing.T, got []Row, want [][]any, lines []int) {
	t.Helper()
	if len(got) != len(want) {
		for _, r := range got {
			t.Logf("got line %d: %s", r.Line, showRow(r.Values))
		}
		t.Fatalf("got %d rows, want %d", len(got), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(got[i].Values, want[i]) {
			t.Errorf("row %d:\n got %s\nwant %s", i+1, showRow(got[i].Values), showRow(want[i]))
		}
		if lines != nil && got[i].Line != lines[i] {
			t.Errorf("row %d: line %d, want %d", i+1, got[i].Line, lines[i])
		}
	}
}

func showRow(v []any) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = show(x)
	}
	return "[" + strings.Join(s, " ") + "]"
}

// checkInvalid asserts err is an *engine.Error of code invalid whose
// message holds every part of want.
func checkInvalid(t *testing.T, err error, want ...string) {
	t.Helper()
	var e *engine.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *engine.Error", err, err)
	}
	if e.Code != engine.CodeInvalid {
		t.Errorf("code %s, want invalid (%s)", e.Code, e.Message)
	}
	if e.Field == "file" && (!strings.HasPrefix(e.Key, "import.file.") || e.Params["file"] == nil) {
		t.Errorf("%q has the message code %q with %v, want import.file.* with the file", e.Message, e.Key, e.Params)
	}
	for _, w := range want {
		if !strings.Contains(e.Message, w) {
			t.Errorf("message %q does not contain %q", e.Message, w)
		}
	}
}
