package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgtype"
)

func TestParseFilterText(t *testing.T) {
	tests := []struct {
		in   string
		want string // fmt of the Where, or "error: <part>"
	}{
		{"", "[]"},
		{"Currency = 'USD'", "[[Currency equals USD]]"},
		{"Currency = 'USD' AND Text LIKE '%fee%'", "[[Currency equals USD Text contains fee]]"},
		{"a = '1' OR b = '2' AND c = '3'", "[[a equals 1] [b equals 2 c equals 3]]"},
		{"Name LIKE 'Nu%'", "[[Name startsWith Nu]]"},
		{"Name LIKE '%ei'", "[[Name endsWith ei]]"},
		{"Name LIKE 'exact'", "[[Name equals exact]]"},
		{"Name = 'O''Brien'", "[[Name equals O'Brien]]"},
		{"Amount >= '10' and Amount < '20'", "[[Amount gte 10 Amount lt 20]]"},
		{"Amount <> '1'", "[[Amount notEquals 1]]"},
		{"Amount != '1'", "[[Amount notEquals 1]]"},
		{"Comments IS NULL", "[[Comments isEmpty <nil>]]"},
		{"Comments is not null", "[[Comments isNotEmpty <nil>]]"},
		{"Name = USD", "error: single quotes"},
		{"Name = 'open", "error: not closed"},
		{"Name LIKE 'a%b'", "error: only have %"},
		{"Name NOT LIKE 'x'", "error: NOT LIKE"},
		{"(Name = 'x')", "error: unexpected character"},
		{"Name = 'x';", "error: unexpected character"},
		{"Name = 'x' AND", "error: expected a field"},
		{"Name == 'x'", "error: unknown operator"},
		{"Name 'x'", "error: expected an operator"},
		{"Name = 'x' Other = 'y'", "error: expected AND or OR"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			w, err := ParseFilterText(tt.in)
			got := fmt.Sprint(w)
			if w == nil {
				got = "[]"
			}
			if err != nil {
				got = "error: " + err.Error()
			}
			if strings.HasPrefix(tt.want, "error: ") {
				if err == nil || !strings.Contains(err.Error(), strings.TrimPrefix(tt.want, "error: ")) || ErrorCode(err) != CodeInvalid {
					t.Fatalf("got %s, want %s", got, tt.want)
				}
				return
			}
			if got != tt.want {
				t.Fatalf("got %s, want %s", got, tt.want)
			}
		})
	}
}

// FuzzParseFilterText: whatever the text, the parser answers a Where or an
// Invalid error, never panics, and everything it accepts names only plain
// fields and known operators.
func FuzzParseFilterText(f *testing.F) {
	for _, seed := range []string{"Currency = 'USD' AND Text LIKE '%fee%'", "a = '1' OR b IS NOT NULL", "x LIKE '%''%'", "'", "a = 'b' OR"} {
		f.Add(seed)
	}
	ops := map[string]bool{}
	for _, t := range Types {
		for _, op := range t.Ops {
			ops[op] = true
		}
	}
	f.Fuzz(func(t *testing.T, s string) {
		w, err := ParseFilterText(s)
		if err != nil {
			if ErrorCode(err) != CodeInvalid {
				t.Fatalf("%q: error of code %s: %v", s, ErrorCode(err), err)
			}
			return
		}
		for _, group := range w {
			for _, c := range group {
				if !ops[c.Op] {
					t.Fatalf("%q: unknown op %q", s, c.Op)
				}
				for _, r := range c.Field {
					if !(r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 127) {
						t.Fatalf("%q: field %q is not plain", s, c.Field)
					}
				}
			}
		}
	})
}

func TestNumericString(t *testing.T) {
	tests := []struct {
		in    string
		scale int
		want  string
	}{
		{"1200.5", 2, "1200.50"},
		{"-75.25", 2, "-75.25"},
		{"0.05", 2, "0.05"},
		{"-0.05", 2, "-0.05"},
		{"0", 2, "0.00"},
		{"12", 0, "12"},
		{"1.23456789", 6, "1.234568"},
		{"-1.2345", 2, "-1.23"},
		{"2.345", 2, "2.35"},
		{"1000", 0, "1000"},
		{"123.400", 3, "123.400"},
		{"123.400", 0, "123"},
		{"0.50", 0, "1"}, // why a threshold's scale must be the column's two
	}
	for _, tt := range tests {
		var n pgtype.Numeric
		if err := n.Scan(tt.in); err != nil {
			t.Fatal(err)
		}
		if got := numericString(n, tt.scale); got != tt.want {
			t.Errorf("numericString(%s, %d) = %v, want %s", tt.in, tt.scale, got, tt.want)
		}
	}
}
