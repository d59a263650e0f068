// Package decimal is the exact decimal arithmetic and formatting of amounts,
// on their text as PostgreSQL and the API write them: "-12.50", "0.05", "3".
// A decimal is an unscaled integer and a scale (the count of decimals), so
// nothing passes through a binary float. Reading what people type (locale
// separators, accounting negatives) stays with the importers; what they read
// here is the normalised form: an optional '-', digits, an optional '.' and
// digits.
package decimal

import (
	"fmt"
	"math/big"
	"strings"
)

// Parse splits a normalised decimal into its unscaled integer and scale:
// "-12.50" is -1250 and 2. Text that is not a number is zero (with the
// scale its point gives).
func Parse(s string) (*big.Int, int) {
	scale := 0
	if i := strings.IndexByte(s, '.'); i >= 0 {
		scale = len(s) - i - 1
		s = s[:i] + s[i+1:]
	}
	n, ok := new(big.Int).SetString(s, 10)
	if !ok {
		n = new(big.Int)
	}
	return n, scale
}

// Format writes the unscaled integer n with scale decimals: Format(-1205, 2)
// is "-12.05". Zero has no sign.
func Format(n *big.Int, scale int) string {
	s := n.String() // exports format millions of amounts: work on the digits
	if n.Sign() < 0 {
		s = s[1:]
	}
	if scale > 0 {
		if len(s) <= scale {
			s = strings.Repeat("0", scale-len(s)+1) + s
		}
		s = s[:len(s)-scale] + "." + s[len(s)-scale:]
	}
	if n.Sign() < 0 {
		s = "-" + s
	}
	return s
}

// Rescale writes the unscaled integer n of scale from with to decimals,
// padding with zeros or rounding half away from zero: Rescale(12345, 3, 2)
// is "12.35", and -0.001 to two decimals is "0.00".
func Rescale(n *big.Int, from, to int) string {
	switch {
	case to == from:
		return Format(n, to)
	case to > from:
		s := Format(n, from)
		if from == 0 {
			s += "."
		}
		return s + strings.Repeat("0", to-from)
	}
	unit := pow10(from - to)
	q, r := new(big.Int).QuoRem(new(big.Int).Abs(n), unit, new(big.Int))
	if r.Lsh(r, 1).Cmp(unit) >= 0 {
		q.Add(q, big.NewInt(1))
	}
	if n.Sign() < 0 {
		q.Neg(q)
	}
	return Format(q, to)
}

// Add adds two normalised decimals exactly; the sum has the larger of the
// two scales.
func Add(a, b string) string {
	ai, as := Parse(a)
	bi, bs := Parse(b)
	scale := max(as, bs)
	ai.Mul(ai, pow10(scale-as))
	bi.Mul(bi, pow10(scale-bs))
	return Format(ai.Add(ai, bi), scale)
}

// Negate flips the sign of a normalised decimal; zero stays unsigned.
func Negate(s string) string {
	if strings.HasPrefix(s, "-") {
		return s[1:]
	}
	if IsZero(s) {
		return s
	}
	return "-" + s
}

// IsZero reports whether a normalised decimal is zero ("0", "-0.00", "0.0").
func IsZero(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c != '0' && c != '.' && c != '-' {
			return false
		}
	}
	return true
}

// Scale is the count of decimals written after the point: "12.50" has 2.
func Scale(s string) int {
	if _, frac, found := strings.Cut(s, "."); found {
		return len(frac)
	}
	return 0
}

// Cents reads an amount of at most two decimals (a numeric(20, 2) as
// PostgreSQL prints it) as a count of cents: "-12.5" is -1250.
func Cents(amount string) (*big.Int, error) {
	whole, frac, _ := strings.Cut(strings.TrimSpace(amount), ".")
	if len(frac) > 2 {
		return nil, fmt.Errorf("amount %q has more than two decimals", amount)
	}
	c, ok := new(big.Int).SetString(whole+frac+strings.Repeat("0", 2-len(frac)), 10)
	if !ok {
		return nil, fmt.Errorf("amount %q is not a number", amount)
	}
	return c, nil
}

// FormatCents writes a count of cents as an amount with two decimals ("-12.05").
func FormatCents(c *big.Int) string { return Format(c, 2) }

func pow10(n int) *big.Int {
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
}
