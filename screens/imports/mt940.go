package imports

import (
	"bufio"
	"errors"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// MT940 (SWIFT customer statement) is read line by line; no maintained Go
// library exists, and the format is small enough to own. A file may hold
// several statements (each from :20: to :62F:), with or without the SWIFT
// envelope {1:...}{2:...}{4: ... -}. Fields:
//
//	:20: reference          starts a statement
//	:25: account            BankAccount, as written (IBAN or bank/account)
//	:28C: number/sequence
//	:60F: / :60M:           opening balance: C|D, YYMMDD, currency, amount
//	:61: statement line     one Row each (see mtLine)
//	:86: information        Text of the :61: before it; may span lines
//	:62F: / :62M:           closing balance, checked against the running one
//
// Field choices where the format leaves room:
//   - BookedDate is the entry date (MMDD, the year taken from the value
//     date, crossing a year end either way) or, without one, the value
//     date; InterestDate is the value date. Years are 20YY.
//   - AmountLocal is negative for D and RC (a reversed credit takes money
//     out), positive for C and RD; the decimal comma becomes a point.
//   - Currency is that of the opening balance.
//   - Text is the :86: field. Its lines are joined with a space, except
//     after a full 65-character line, which banks wrap mid-word; German
//     ?-structured information (GVC ?00 text, ?20-?29/?60-?63 remittance,
//     ?32-?33 name) is decoded into "booking text / name / remittance" like
//     camt.053. Without :86: the :61: supplementary details are used.
//   - Number is the :61: customer reference unless it is NONREF, else
//     "<:28C: or :20:>-<n>" with n the line's position in its statement;
//     BankArchiveReference is the bank reference after //.
//   - BookedBalanceLocalCurrency is the running balance after the line,
//     from the opening balance, as for camt.053.
//   - Text that is not valid UTF-8 is read as Windows-1252 (banks write
//     umlauts in :86: in Latin-1 despite SWIFT's character set).

type mtStatement struct {
	line     int
	ref      string
	number   string
	account  string
	currency string
	opening  string
	balance  string
	closing  string
	lines    int
}

type mtLine struct {
	line   int
	values []any
	bad    bool
	supp   []string
	info   []string
	hasTxt bool
}

type mtField struct {
	tag   string
	line  int
	col   int // column of the content
	lines []string
}

func (p *parser) mt940(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, min(4096, p.lim.MaxLineBytes+2)), p.lim.MaxLineBytes+2)
	var (
		st      *mtStatement
		pending *mtLine
		field   *mtField
		lineNo  int
		inBody  bool // inside {4: or a file without envelope once a field was seen
	)
	emitPending := func() error {
		if pending == nil {
			return nil
		}
		l := pending
		pending = nil
		text := mtText(l.info)
		if text == "" {
			text = joinWrapped(l.supp, 34)
		}
		if text != "" {
			l.values[bText] = truncate(text, maxTextBytes)
		}
		return p.finish(l.line, l.values, l.bad, nil)
	}
	endStatement := func() error {
		if err := emitPending(); err != nil {
			return err
		}
		if st != nil && st.opening != "" && st.closing != "" && st.balance != "" {
			if !decimalZero(addDecimal(st.balance, negateDecimal(st.closing))) {
				p.rowError(st.line, 0, "BookedBalanceLocalCurrency", "statement %s: the opening balance %s plus the statement lines is %s, but the closing balance (:62F:) is %s",
					orUnknown(st.ref), st.opening, st.balance, st.closing)
			}
		}
		st = nil
		return nil
	}
	complete := func(f *mtField) error {
		content := f.lines[0]
		switch f.tag {
		case "20":
			if err := endStatement(); err != nil {
				return err
			}
			st = &mtStatement{line: f.line, ref: strings.TrimSpace(content)}
			p.sum.Statements++
			return nil
		}
		if st == nil { // a statement without :20: - read it all the same
			st = &mtStatement{line: f.line}
			p.sum.Statements++
		}
		switch f.tag {
		case "25":
			st.account = strings.TrimSpace(content)
		case "28C", "28":
			st.number = strings.TrimSpace(content)
		case "60F", "60M":
			amt, ccy, ok := p.mtBalance(f)
			if ok {
				st.currency, st.opening, st.balance = ccy, amt, amt
			}
		case "62F", "62M":
			if err := emitPending(); err != nil {
				return err
			}
			if amt, _, ok := p.mtBalance(f); ok {
				st.closing = amt
			}
		case "61":
			if err := emitPending(); err != nil {
				return err
			}
			st.lines++
			pending = p.mtStatementLine(st, f)
		case "86":
			if pending != nil && !pending.hasTxt {
				pending.info, pending.hasTxt = f.lines, true
			}
		}
		return nil
	}
	flush := func() error {
		if field == nil {
			return nil
		}
		f := field
		field = nil
		return complete(f)
	}
	for sc.Scan() {
		lineNo++
		line := strings.TrimRight(sc.Text(), "\r")
		if !utf8.ValidString(line) {
			line = decode1252(line)
		}
		for {
			// Envelope: drop {1:..}{2:..}{3:..} and enter the text block at {4:.
			if strings.HasPrefix(line, "{") && !strings.HasPrefix(line, "{4:") {
				end := blockEnd(line)
				if end < 0 {
					return fileError(p.file, lineNo, 1, "import.file.swiftHeader", nil, "the SWIFT block header is not closed on its line")
				}
				if strings.HasPrefix(line, "{5:") {
					line = line[end:]
					continue
				}
				line = line[end:]
				continue
			}
			if strings.HasPrefix(line, "{4:") {
				inBody = true
				line = line[3:]
				continue
			}
			break
		}
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "":
			continue
		case strings.HasPrefix(trimmed, "-}") || trimmed == "-":
			if err := flush(); err != nil {
				return err
			}
			if err := endStatement(); err != nil {
				return err
			}
			inBody = false
			continue
		case trimmed == ":940:" || strings.HasPrefix(trimmed, "$"):
			continue
		}
		if tag, rest, ok := mtTag(line); ok {
			if err := flush(); err != nil {
				return err
			}
			inBody = true
			field = &mtField{tag: tag, line: lineNo, col: len(tag) + 3, lines: []string{rest}}
			continue
		}
		if field == nil {
			if !inBody || p.sum.Statements == 0 {
				return fileError(p.file, lineNo, 1, "import.file.notMt940Field", nil, "the line is not an MT940 field (a field starts like :20:)")
			}
			continue
		}
		if len(field.lines) < 100 {
			field.lines = append(field.lines, line)
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return &lineTooLongError{line: lineNo + 1, limit: p.lim.MaxLineBytes}
		}
		return err
	}
	if err := flush(); err != nil {
		return err
	}
	if err := endStatement(); err != nil {
		return err
	}
	if p.sum.Statements == 0 {
		return fileError(p.file, 0, 0, "import.file.noMt940Statement", nil, "the file holds no MT940 statement (:20:)")
	}
	return nil
}

// blockEnd returns the index after the SWIFT block starting at s[0] ('{'),
// nested blocks included, or -1.
func blockEnd(s string) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return -1
}

// mtTag splits ":61:rest" into tag and content.
func mtTag(line string) (string, string, bool) {
	if len(line) < 4 || line[0] != ':' || line[1] < '0' || line[1] > '9' || line[2] < '0' || line[2] > '9' {
		return "", "", false
	}
	if line[3] == ':' {
		return line[1:3], line[4:], true
	}
	if len(line) >= 5 && line[3] >= 'A' && line[3] <= 'Z' && line[4] == ':' {
		return line[1:4], line[5:], true
	}
	return "", "", false
}

// mtBalance reads a balance field: C|D YYMMDD CCY amount.
func (p *parser) mtBalance(f *mtField) (amount, currency string, ok bool) {
	s := strings.TrimSpace(f.lines[0])
	if len(s) < 11 || s[0] != 'C' && s[0] != 'D' {
		p.rowError(f.line, f.col, "BookedBalanceLocalCurrency", ":%s: %s is not a balance like C240131EUR1234,56", f.tag, quote(s))
		return "", "", false
	}
	if _, ok := yymmdd(s[1:7]); !ok {
		p.rowError(f.line, f.col+1, "BookedBalanceLocalCurrency", ":%s: %s is not a date YYMMDD", f.tag, quote(s[1:7]))
		return "", "", false
	}
	ccy, ok := checkCurrency(s[7:10])
	if !ok {
		p.rowError(f.line, f.col+7, "Currency", ":%s: %s is not a currency code", f.tag, quote(s[7:10]))
		return "", "", false
	}
	amt, ok := parseDecimal(s[10:], ',', "")
	if !ok || strings.HasPrefix(amt, "-") {
		p.rowError(f.line, f.col+10, "BookedBalanceLocalCurrency", ":%s: %s is not an amount like 1234,56", f.tag, quote(s[10:]))
		return "", "", false
	}
	if s[0] == 'D' {
		amt = negateDecimal(amt)
	}
	return amt, ccy, true
}

func yymmdd(s string) (time.Time, bool) {
	if len(s) != 6 {
		return time.Time{}, false
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || s[0] == '+' || s[0] == '-' {
		return time.Time{}, false
	}
	return makeDate(2000+n/10000, n/100%100, n%100)
}

// mtStatementLine parses :61: 6!n[4!n]2a[1!a]15d1!a3!c16x[//16x] with its
// supplementary details on the next line.
func (p *parser) mtStatementLine(st *mtStatement, f *mtField) *mtLine {
	l := &mtLine{line: f.line, values: make([]any, len(fields[Bank])), supp: f.lines[1:]}
	s := f.lines[0]
	col := f.col
	fail := func(at int, field, format string, args ...any) *mtLine {
		p.rowError(f.line, col+at, field, format, args...)
		for i, v := range l.values {
			if v == nil {
				l.values[i] = failed // one error per broken line, not one per field
			}
		}
		l.bad = true
		st.balance = "" // the running balance is unknown from here on
		return l
	}
	if st.account != "" {
		l.values[bAccount] = st.account
	}
	if st.currency != "" {
		l.values[bCurrency] = st.currency
	}
	if len(s) < 6 {
		return fail(0, "InterestDate", ":61: %s is too short for a statement line", quote(s))
	}
	value, ok := yymmdd(s[:6])
	if !ok {
		return fail(0, "InterestDate", ":61: value date %s is not a date YYMMDD", quote(s[:6]))
	}
	l.values[bInterest], l.values[bBooked] = value, value
	pos := 6
	if len(s) >= 10 && isDigits(s[6:10]) {
		entry, ok := entryDate(value, s[6:10])
		if !ok {
			return fail(6, "BookedDate", ":61: entry date %s is not a date MMDD", quote(s[6:10]))
		}
		l.values[bBooked] = entry
		pos = 10
	}
	sign := ""
	switch {
	case strings.HasPrefix(s[pos:], "RC"):
		sign, pos = "-", pos+2
	case strings.HasPrefix(s[pos:], "RD"):
		pos += 2
	case strings.HasPrefix(s[pos:], "C"):
		pos++
	case strings.HasPrefix(s[pos:], "D"):
		sign, pos = "-", pos+1
	default:
		return fail(pos, "AmountLocal", ":61: %s is not a debit/credit mark (C, D, RC or RD)", quote(s[pos:min(len(s), pos+2)]))
	}
	if pos < len(s) && s[pos] >= 'A' && s[pos] <= 'Z' {
		pos++ // funds code: the third letter of the currency code
	}
	start := pos
	for pos < len(s) && pos-start < 15 && (s[pos] >= '0' && s[pos] <= '9' || s[pos] == ',') {
		pos++
	}
	amt, ok := parseDecimal(s[start:pos], ',', "")
	if !ok || pos >= len(s) || !strings.ContainsRune("NFS", rune(s[pos])) {
		return fail(start, "AmountLocal", ":61: %s is not an amount like 1234,56", quote(s[start:min(len(s), start+15)]))
	}
	if sign == "-" {
		amt = negateDecimal(amt)
	}
	l.values[bAmount] = amt
	if st.balance != "" {
		st.balance = addDecimal(st.balance, amt)
		l.values[bBalance] = st.balance
	}
	if len(s) < pos+4 || !strings.ContainsRune("NFS", rune(s[pos])) {
		return fail(pos, "", ":61: %s is not a transaction type like NTRF", quote(s[pos:min(len(s), pos+4)]))
	}
	pos += 4
	rest := s[pos:]
	ref, bankRef, _ := strings.Cut(rest, "//")
	ref, bankRef = strings.TrimSpace(ref), strings.TrimSpace(bankRef)
	if bankRef != "" {
		l.values[bArchive] = truncate(bankRef, maxTextBytes)
	}
	if ref != "" && !strings.EqualFold(ref, "NONREF") {
		l.values[bNumber] = truncate(ref, maxTextBytes)
	} else {
		id := st.number
		if id == "" {
			id = orUnknown(st.ref)
		}
		l.values[bNumber] = id + "-" + strconv.Itoa(st.lines)
	}
	return l
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// entryDate puts MMDD in the year (of value's year and its neighbours) that
// brings it closest to the value date: a line valued 31 December and booked
// 2 January is booked in the next year, and the other way round.
func entryDate(value time.Time, mmdd string) (time.Time, bool) {
	m, _ := strconv.Atoi(mmdd[:2])
	d, _ := strconv.Atoi(mmdd[2:])
	var best time.Time
	found := false
	for _, y := range []int{value.Year() - 1, value.Year(), value.Year() + 1} {
		t, ok := makeDate(y, m, d)
		if !ok {
			continue
		}
		if !found || absDur(t.Sub(value)) < absDur(best.Sub(value)) {
			best, found = t, true
		}
	}
	return best, found
}

func absDur(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

// joinWrapped joins continuation lines: directly after a line of full width
// (wrapped mid-word), with a space otherwise.
func joinWrapped(lines []string, width int) string {
	var b strings.Builder
	for i, l := range lines {
		if i > 0 && len(lines[i-1]) < width {
			b.WriteByte(' ')
		}
		b.WriteString(l)
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// mtText turns the lines of :86: into Text (see the top of this file).
func mtText(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	whole := strings.Join(lines, "")
	if len(whole) > 4 && isDigits(whole[:3]) && whole[3] == '?' {
		return germanText(whole[3:])
	}
	return joinWrapped(lines, 65)
}

// germanText decodes ?NN subfields of the German (DFÜ-Abkommen) :86:.
func germanText(s string) string {
	var booking, name, remit []string
	for _, part := range strings.Split(s, "?")[1:] {
		if len(part) < 2 || !isDigits(part[:2]) {
			continue
		}
		code, _ := strconv.Atoi(part[:2])
		v := part[2:]
		switch {
		case code == 0:
			booking = append(booking, v)
		case code >= 20 && code <= 29 || code >= 60 && code <= 63:
			remit = append(remit, v)
		case code == 32 || code == 33:
			name = append(name, v)
		}
	}
	var parts []string
	for _, x := range []string{joinWrapped(booking, 27), joinWrapped(name, 27), joinWrapped(remit, 27)} {
		if x != "" {
			parts = append(parts, x)
		}
	}
	return strings.Join(parts, " / ")
}
