package imports

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"ledgerdesk/internal/decimal"
)

// dateLayout is a compiled user-style date format such as dd.MM.yyyy. It is
// parsed by hand rather than through time.Parse: the user tokens do not map
// one to one on Go layouts (M vs 1, yyyyMMdd without separators), and a
// hand-written scanner is several times faster on the million-row imports.
type dateLayout struct {
	src  string
	toks []dateTok
	time bool // the layout has time tokens; otherwise a trailing time is tolerated
}

type dateTok struct {
	kind byte // 'y' year4, 'Y' year2, 'M' month2, 'm' month1-2, 'N' month name, 'd' day2, 'D' day1-2, 'H' hour2, 'h' hour1-2, 'i' minute2, 's' second2, 'l' literal
	lit  string
}

// compileDate turns a format of yyyy, yy, MMM, MM, M, dd, d, HH, H, mm, ss
// and literal characters (letters only inside single quotes) into a layout.
func compileDate(format string) (*dateLayout, error) {
	if format == "" {
		return nil, fmt.Errorf("empty date format")
	}
	l := &dateLayout{src: format}
	var haveY, haveM, haveD bool
	for i := 0; i < len(format); {
		c := format[i]
		run := 1
		for i+run < len(format) && format[i+run] == c {
			run++
		}
		tok := format[i : i+run]
		switch {
		case c == 'y' && run == 4:
			l.toks, haveY = append(l.toks, dateTok{kind: 'y'}), true
		case c == 'y' && run == 2:
			l.toks, haveY = append(l.toks, dateTok{kind: 'Y'}), true
		case c == 'M' && run == 3:
			l.toks, haveM = append(l.toks, dateTok{kind: 'N'}), true
		case c == 'M' && run == 2:
			l.toks, haveM = append(l.toks, dateTok{kind: 'M'}), true
		case c == 'M' && run == 1:
			l.toks, haveM = append(l.toks, dateTok{kind: 'm'}), true
		case c == 'd' && run == 2:
			l.toks, haveD = append(l.toks, dateTok{kind: 'd'}), true
		case c == 'd' && run == 1:
			l.toks, haveD = append(l.toks, dateTok{kind: 'D'}), true
		case c == 'H' && run == 2:
			l.toks, l.time = append(l.toks, dateTok{kind: 'H'}), true
		case c == 'H' && run == 1:
			l.toks, l.time = append(l.toks, dateTok{kind: 'h'}), true
		case c == 'm' && run == 2:
			l.toks, l.time = append(l.toks, dateTok{kind: 'i'}), true
		case c == 's' && run == 2:
			l.toks, l.time = append(l.toks, dateTok{kind: 's'}), true
		case c == '\'':
			end := strings.IndexByte(format[i+1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("date format %q: unterminated quote", format)
			}
			l.toks = append(l.toks, dateTok{kind: 'l', lit: format[i+1 : i+1+end]})
			i += end + 2
			continue
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			return nil, fmt.Errorf("date format %q: unknown token %q (use yyyy, yy, MMM, MM, M, dd, d, HH, mm, ss)", format, tok)
		default:
			l.toks = append(l.toks, dateTok{kind: 'l', lit: tok})
		}
		i += run
	}
	if !haveY || !haveM || !haveD {
		return nil, fmt.Errorf("date format %q needs a year, a month and a day", format)
	}
	return l, nil
}

var monthNames = [12]string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}

// parse reads s in the layout and returns the date at UTC midnight. The time
// of day, when the layout has one, is checked and dropped: every import field
// is a calendar date. Without time tokens a trailing time (" 13:45",
// "T13:45:00Z", "T00:00:00+02:00") is tolerated, because systems that export
// ISO dates often append one.
func (l *dateLayout) parse(s string) (time.Time, bool) {
	y, m, d := -1, -1, -1
	pos := 0
	num := func(min, max int) (int, bool) {
		n, i := 0, pos
		for i < len(s) && i-pos < max && s[i] >= '0' && s[i] <= '9' {
			n = n*10 + int(s[i]-'0')
			i++
		}
		if i-pos < min {
			return 0, false
		}
		pos = i
		return n, true
	}
	for _, t := range l.toks {
		var ok bool
		var v int
		switch t.kind {
		case 'y':
			y, ok = num(4, 4)
		case 'Y':
			v, ok = num(2, 2)
			y = 2000 + v
		case 'M':
			m, ok = num(2, 2)
		case 'm':
			m, ok = num(1, 2)
		case 'N':
			if pos+3 <= len(s) {
				name := strings.ToLower(s[pos : pos+3])
				for i, mn := range monthNames {
					if name == mn {
						m, ok = i+1, true
						pos += 3
						break
					}
				}
			}
		case 'd':
			d, ok = num(2, 2)
		case 'D':
			d, ok = num(1, 2)
		case 'H':
			v, ok = num(2, 2)
			ok = ok && v < 24
		case 'h':
			v, ok = num(1, 2)
			ok = ok && v < 24
		case 'i', 's':
			v, ok = num(2, 2)
			ok = ok && v < 60
		case 'l':
			ok = strings.HasPrefix(s[pos:], t.lit)
			pos += len(t.lit)
		}
		if !ok {
			return time.Time{}, false
		}
	}
	if pos != len(s) && (l.time || !trailingTime(s[pos:])) {
		return time.Time{}, false
	}
	return makeDate(y, m, d)
}

// makeDate checks the calendar (month 1-12, day within the month, year
// 1900-2999 to catch two-digit-year and serial-number mix-ups) and builds the
// UTC date.
func makeDate(y, m, d int) (time.Time, bool) {
	if y < 1900 || y > 2999 || m < 1 || m > 12 || d < 1 || d > daysIn(y, m) {
		return time.Time{}, false
	}
	return time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC), true
}

func daysIn(y, m int) int {
	return time.Date(y, time.Month(m)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// trailingTime matches [ T]H[H]:MM[:SS[.fff]][ ][Z|±HH[:]MM].
func trailingTime(s string) bool {
	if len(s) < 5 || (s[0] != ' ' && s[0] != 'T') {
		return false
	}
	s = s[1:]
	digits := func(n int) bool {
		if len(s) < n {
			return false
		}
		for i := 0; i < n; i++ {
			if s[i] < '0' || s[i] > '9' {
				return false
			}
		}
		s = s[n:]
		return true
	}
	if !digits(2) && !digits(1) {
		return false
	}
	if len(s) == 0 || s[0] != ':' {
		return false
	}
	s = s[1:]
	if !digits(2) {
		return false
	}
	if len(s) > 0 && s[0] == ':' {
		s = s[1:]
		if !digits(2) {
			return false
		}
		if len(s) > 0 && s[0] == '.' {
			s = s[1:]
			n := 0
			for n < len(s) && s[n] >= '0' && s[n] <= '9' {
				n++
			}
			if n == 0 {
				return false
			}
			s = s[n:]
		}
	}
	s = strings.TrimPrefix(s, " ")
	switch {
	case s == "" || s == "Z":
		return true
	case s[0] == '+' || s[0] == '-':
		s = s[1:]
		if !digits(2) {
			return false
		}
		s = strings.TrimPrefix(s, ":")
		return digits(2) && s == ""
	}
	return false
}

// isoDate is the layout of every date inside the bank standards and of
// descriptor defaults.
var isoDate, _ = compileDate("yyyy-MM-dd")

// maxIntDigits bounds a decimal's integer part: numeric(28, x) is far beyond
// any amount, and the bound keeps a hostile file from handing the loader
// thousand-digit numbers.
const (
	maxIntDigits  = 22
	maxFracDigits = 12
)

// parseDecimal reads an amount written with decimal separator dec ('.' or
// ',') and optional thousands separator th (checked: groups of three), and
// returns it normalised: '-' when negative, no leading zeros, '.' before the
// fraction, the fraction's digits as written (scale is kept, never rounded:
// "12,50" is "12.50"). Negatives may be written -1.00, 1.00- (trailing sign,
// as SAP exports do) or (1.00) (accounting style); a leading '+' is allowed.
func parseDecimal(s string, dec byte, th string) (string, bool) {
	if s == "" {
		return "", false
	}
	neg := false
	switch {
	case s[0] == '-' || s[0] == '+':
		neg = s[0] == '-'
		s = s[1:]
	case s[len(s)-1] == '-':
		neg = true
		s = s[:len(s)-1]
	case len(s) > 2 && s[0] == '(' && s[len(s)-1] == ')':
		neg = true
		s = s[1 : len(s)-1]
	}
	if s == "" {
		return "", false
	}
	// Fast path: plain digits with at most one separator, the shape of
	// nearly every amount.
	intStart, intEnd, frac := 0, len(s), ""
	groups := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
		case c == dec:
			intEnd = i
			frac = s[i+1:]
			for j := 0; j < len(frac); j++ {
				if frac[j] < '0' || frac[j] > '9' {
					return "", false
				}
			}
			i = len(s)
		case th != "" && strings.HasPrefix(s[i:], th):
			groups = true
			i += len(th) - 1
		default:
			return "", false
		}
	}
	ip := s[intStart:intEnd]
	if groups {
		parts := strings.Split(ip, th)
		if len(parts[0]) < 1 || len(parts[0]) > 3 {
			return "", false
		}
		for _, p := range parts[1:] {
			if len(p) != 3 {
				return "", false
			}
		}
		ip = strings.Join(parts, "")
	}
	if ip == "" && frac == "" {
		return "", false
	}
	for len(ip) > 1 && ip[0] == '0' {
		ip = ip[1:]
	}
	if ip == "" {
		ip = "0"
	}
	if len(ip) > maxIntDigits || len(frac) > maxFracDigits {
		return "", false
	}
	if neg && !allZero(ip) || neg && !allZero(frac) {
		ip = "-" + ip
	}
	if frac == "" {
		return ip, true
	}
	return ip + "." + frac, true
}

func allZero(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != '0' {
			return false
		}
	}
	return true
}

// parseMachineNumber reads a number as a spreadsheet stores it (point
// decimal, maybe an exponent, maybe a binary-float artefact such as
// 12.300000000000001) and returns the decimal a user sees in Excel: the value
// rounded to 15 significant digits, Excel's own display precision.
func parseMachineNumber(s string) (string, bool) {
	if s == "" || strings.ContainsAny(s, ",_ ") {
		return "", false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != f || f > 1e21 || f < -1e21 {
		return "", false
	}
	r := strconv.FormatFloat(f, 'g', 15, 64)
	f, _ = strconv.ParseFloat(r, 64)
	out := strconv.FormatFloat(f, 'f', -1, 64)
	return parseDecimal(out, '.', "")
}

// needsFloatRounding reports whether a spreadsheet's raw number carries an
// exponent or more digits than Excel keeps (15 significant), the marks of a
// binary double rather than a typed-in amount.
func needsFloatRounding(s string) bool {
	if strings.ContainsAny(s, "eE") {
		return true
	}
	sig := 0
	started := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= '1' && c <= '9' || c == '0' && started {
			started = true
			sig++
		}
	}
	return sig > 15
}

// checkCurrency accepts three ASCII letters, upper-casing them.
func checkCurrency(s string) (string, bool) {
	if len(s) != 3 {
		return "", false
	}
	var b [3]byte
	for i := 0; i < 3; i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		if c < 'A' || c > 'Z' {
			return "", false
		}
		b[i] = c
	}
	if s == string(b[:]) {
		return s, true
	}
	return string(b[:]), true
}

// checkTicket accepts exactly 13 digits. Spaces and hyphens are dropped
// first, because tickets are often written with the airline prefix apart
// (125-1234567890); anything else is refused.
func checkTicket(s string) (string, bool) {
	if strings.ContainsAny(s, " -") {
		s = strings.NewReplacer(" ", "", "-", "").Replace(s)
	}
	if len(s) != 13 {
		return "", false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return "", false
		}
	}
	return s, true
}

// addDecimal and negateDecimal are the exact arithmetic of normalised
// decimals (running balances of bank statements use them).
func addDecimal(a, b string) string { return decimal.Add(a, b) }

func negateDecimal(s string) string { return decimal.Negate(s) }

func decimalZero(s string) bool { return decimal.IsZero(s) }
