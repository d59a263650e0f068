package decimal

import (
	"math/big"
	"testing"
)

func TestParseAndFormat(t *testing.T) {
	tests := []struct {
		in    string
		n     int64
		scale int
		out   string
	}{
		{"0", 0, 0, "0"},
		{"12.50", 1250, 2, "12.50"},
		{"-12.05", -1205, 2, "-12.05"},
		{"0.05", 5, 2, "0.05"},
		{"-0.00", 0, 2, "0.00"},
		{"7", 7, 0, "7"},
		{".5", 5, 1, "0.5"},
		{"x.12", 0, 2, "0.00"},
	}
	for _, tt := range tests {
		n, scale := Parse(tt.in)
		if n.Int64() != tt.n || scale != tt.scale {
			t.Errorf("Parse(%q) = %v, %d; want %d, %d", tt.in, n, scale, tt.n, tt.scale)
		}
		if got := Format(n, scale); got != tt.out {
			t.Errorf("Format(Parse(%q)) = %q, want %q", tt.in, got, tt.out)
		}
	}
}

func TestRescale(t *testing.T) {
	tests := []struct {
		n        int64
		from, to int
		want     string
	}{
		{12345, 3, 2, "12.35"},
		{12344, 3, 2, "12.34"},
		{-12345, 3, 2, "-12.35"},
		{-1, 3, 2, "0.00"},
		{-5, 3, 2, "-0.01"},
		{999, 2, 1, "10.0"},
		{12, 1, 3, "1.200"},
		{12, 0, 0, "12"},
		{15, 1, 0, "2"},
	}
	for _, tt := range tests {
		if got := Rescale(big.NewInt(tt.n), tt.from, tt.to); got != tt.want {
			t.Errorf("Rescale(%d, %d, %d) = %q, want %q", tt.n, tt.from, tt.to, got, tt.want)
		}
	}
}

func TestAddNegateIsZero(t *testing.T) {
	for _, tc := range [][3]string{
		{"0", "12.50", "12.50"},
		{"12.5", "-0.25", "12.25"},
		{"-1", "1.00", "0.00"},
		{"99999999999999999999.99", "0.01", "100000000000000000000.00"},
	} {
		if got := Add(tc[0], tc[1]); got != tc[2] {
			t.Errorf("Add(%s, %s) = %s, want %s", tc[0], tc[1], got, tc[2])
		}
	}
	for _, tc := range [][2]string{{"12.50", "-12.50"}, {"-3", "3"}, {"0.00", "0.00"}, {"0", "0"}} {
		if got := Negate(tc[0]); got != tc[1] {
			t.Errorf("Negate(%s) = %s, want %s", tc[0], got, tc[1])
		}
	}
	for s, want := range map[string]bool{"0": true, "-0.00": true, "0.0": true, "0.01": false, "-1": false, "10": false} {
		if IsZero(s) != want {
			t.Errorf("IsZero(%s) = %v", s, !want)
		}
	}
	for s, want := range map[string]int{"12": 0, "12.": 0, "12.5": 1, "-0.125": 3} {
		if Scale(s) != want {
			t.Errorf("Scale(%s) = %d, want %d", s, Scale(s), want)
		}
	}
}

func TestCents(t *testing.T) {
	tests := []struct {
		in   string
		want string
		err  bool
	}{
		{"12.5", "12.50", false},
		{" -0.05 ", "-0.05", false},
		{"3", "3.00", false},
		{"-0.00", "0.00", false},
		{"1.005", "", true},
		{"abc", "", true},
		{"123456789012345678.99", "123456789012345678.99", false},
		{"-120.30", "-120.30", false},
	}
	for _, tt := range tests {
		c, err := Cents(tt.in)
		if (err != nil) != tt.err {
			t.Errorf("Cents(%q) error %v", tt.in, err)
			continue
		}
		if err == nil && FormatCents(c) != tt.want {
			t.Errorf("Cents(%q) = %s, want %s", tt.in, FormatCents(c), tt.want)
		}
	}
}

func TestCentsDifference(t *testing.T) {
	a, _ := Cents("100.00")
	b, _ := Cents("130.10")
	if got := FormatCents(new(big.Int).Sub(a, b)); got != "-30.10" {
		t.Errorf("difference: %s", got)
	}
}
