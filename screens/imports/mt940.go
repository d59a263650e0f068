package imports

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// MT940 (SWIFT customer statement) is read line by line; no maintained Go
// library exists, and the format is small enough to own. A file may hold
// several statements (each from :20: to :62F:) of several accounts, with or
// without the SWIFT envelope {1:...}{2:...}{4: ... -}{5:...}. Fields:
//
//	:20: reference          starts a statement
//	:25: account            BankAccount (see normalizeAccount)
//	:28C: number/sequence
//	:60F: / :60M:           opening balance: C|D, YYMMDD, currency, amount
//	:61: statement line     one Row each (see mtStatementLine)
//	:86: information        Text of the :61: before it; may span lines and repeat
//	:62F: / :62M:           closing balance, checked against the running one
//
// What real banks write around and inside that, and how it is read:
//   - Anything that is not a field outside a field: SWIFT blocks, a bank's
//     header ("ABNANL2A / 940 / ABNANL2A") before each message, transmission
//     preambles and trailers, ":940:" and "$" separators. Control bytes (SOH,
//     ETX) are dropped everywhere.
//   - A line holding only "-" ends a message when the next field starts a
//     statement (:20:), a SWIFT block follows or the file ends; inside :86:
//     text followed by more of the same statement, it is text.
//   - A message that does not start with :20: is a fragment, refused; the
//     fields of an MT942 interim report (:34F:, :13D:, :90D:, :90C:) refuse
//     the file as one.
//
// Field choices where the format leaves room:
//   - BookedDate is the entry date (MMDD, the year taken from the value
//     date, crossing a year end either way) or, without one, the value
//     date; InterestDate is the value date. Years are 20YY. A day that does
//     not exist (some German banks value closing entries on 30 February) is
//     read as the month's last day, with a note.
//   - AmountLocal is negative for D and RC (a reversed credit takes money
//     out), positive for C and RD; the decimal comma (or point) becomes a
//     point. The transaction type (NTRF) may be missing.
//   - Currency is that of the opening balance.
//   - Text is the :86: fields of the line, in order, joined with a space.
//     A field's lines are joined with a space, except after a full line
//     (65 characters, the tag counted on the first), which banks wrap
//     mid-word; German ?-structured information (GVC ?00 text, ?20-?29/
//     ?60-?63 remittance, ?32-?33 name) is decoded into "booking text / name
//     / remittance" like camt.053. Without :86: the :61: supplementary
//     details are used; without either the text is empty.
//   - Number is the :61: customer reference unless it is NONREF, else
//     "<:28C: or :20:>-<n>" with n the line's position in its statement;
//     BankArchiveReference is the bank reference after //.
//   - BookedBalanceLocalCurrency is the running balance after the line,
//     from the opening balance, as for camt.053.
//   - The identity of a line (what makes the same statement imported again
//     load nothing twice) is its account, its statement (:20:, :28C: and
//     the opening balance) and its position in it, never its reference:
//     banks repeat references (NONREF on every line, one reference for
//     several debits).
//   - Text that is not UTF-8 is read in the layout's encoding or the
//     single-byte code page that reads it most plausibly (charset.go).

type mtStatement struct {
	line     int
	ref      string
	number   string
	account  string
	currency string
	openRaw  string // the :60F: as written, part of the statement's identity
	opening  string
	balance  string
	closing  string
	openDate *time.Time
	closDate *time.Time
	lines    int
}

type mtLine struct {
	line   int
	values []any
	bad    bool
	supp   []string
	info   [][]string // the lines of each :86: field
	ident  string
}

type mtField struct {
	tag   string
	line  int
	col   int // column of the content
	lines []string
}

// mtMultiLine are the fields whose content continues on the next lines;
// a non-field line after any other field is a bank's header or trailer.
var mtMultiLine = map[string]bool{"61": true, "86": true}

// mt942Tags are the fields of an MT942 interim report that MT940 lacks.
var mt942Tags = map[string]bool{"13D": true, "13": true, "34F": true, "90D": true, "90C": true}

func (p *parser) mt940(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, min(4096, p.lim.MaxLineBytes+2)), p.lim.MaxLineBytes+2)
	dec := newLineDecoder(p.c.encoding)
	var (
		st      *mtStatement
		pending *mtLine
		field   *mtField
		lineNo  int
		held    []string // lines after a lone "-" inside :86:, until it is clear what the "-" was
	)
	emitPending := func() error {
		if pending == nil {
			return nil
		}
		l := pending
		pending = nil
		var parts []string
		for _, info := range l.info {
			if t := mtText(info); t != "" {
				parts = append(parts, t)
			}
		}
		text := strings.Join(parts, " ")
		if text == "" {
			text = joinWrapped(l.supp, 34, 34)
		}
		l.values[bText] = truncate(text, maxTextBytes)
		return p.finish(l.line, l.values, l.bad, nil, l.ident)
	}
	endStatement := func() error {
		if err := emitPending(); err != nil {
			return err
		}
		if st != nil {
			p.sum.StatementList = append(p.sum.StatementList, Statement{Line: st.line,
				Identity: statementIdentity("mt940", st.account, st.ref, st.number, st.openRaw),
				Account:  st.account, Reference: st.ref, Number: st.number, Sequence: statementSequence(st.number),
				Currency: st.currency, OpeningDate: st.openDate, Opening: st.opening, ClosingDate: st.closDate, Closing: st.closing, Entries: st.lines})
		}
		if st != nil && st.opening != "" && st.closing != "" && st.balance != "" {
			if !decimalZero(addDecimal(st.balance, negateDecimal(st.closing))) {
				p.rowError(st.line, 0, "BookedBalanceLocalCurrency", "statement %s: the opening balance %s plus the statement lines is %s, but the closing balance (:62F:) is %s",
					orUnknown(mtStatementName(st)), st.opening, st.balance, st.closing)
			}
		}
		st = nil
		return nil
	}
	complete := func(f *mtField) error {
		content := f.lines[0]
		if mt942Tags[f.tag] {
			return fileError(p.file, f.line, 1, "import.file.mt942", map[string]any{"tag": f.tag},
				"the field :%s: belongs to an MT942 interim transaction report, not an MT940 statement; import the end-of-day MT940 statement instead", f.tag)
		}
		if f.tag == "20" {
			if err := endStatement(); err != nil {
				return err
			}
			st = &mtStatement{line: f.line, ref: strings.TrimSpace(content)}
			p.sum.Statements++
			return nil
		}
		if st == nil {
			return fileError(p.file, f.line, 1, "import.file.mt940Fragment", map[string]any{"tag": f.tag},
				"the field :%s: comes before the :20: that starts every MT940 statement: the file is a fragment, not a whole statement", f.tag)
		}
		switch f.tag {
		case "25":
			st.account = normalizeAccount(content)
		case "28C", "28":
			st.number = strings.TrimSpace(content)
		case "60F", "60M":
			st.openRaw = strings.TrimSpace(content)
			amt, ccy, day, ok := p.mtBalance(f)
			if ok {
				st.currency, st.opening, st.balance, st.openDate = ccy, amt, amt, &day
			}
		case "62F", "62M":
			if err := emitPending(); err != nil {
				return err
			}
			if amt, _, day, ok := p.mtBalance(f); ok {
				st.closing, st.closDate = amt, &day
			}
		case "61":
			if err := emitPending(); err != nil {
				return err
			}
			st.lines++
			pending = p.mtStatementLine(st, f)
		case "86":
			if pending != nil {
				pending.info = append(pending.info, f.lines)
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
	endMessage := func() error {
		held = nil
		if err := flush(); err != nil {
			return err
		}
		return endStatement()
	}
	for sc.Scan() {
		lineNo++
		line := stripControls(dec.decode(strings.TrimRight(sc.Text(), "\r")))
		if held != nil {
			tag, _, isField := mtTag(line)
			switch {
			case isField && tag == "20" || strings.HasPrefix(strings.TrimSpace(line), "{"):
				if err := endMessage(); err != nil {
					return err
				}
			case isField:
				field.lines = append(field.lines, held...) // the "-" was text
				held = nil
			default:
				if len(held) < 100 {
					held = append(held, line)
				}
				continue
			}
		}
		// Envelope: drop {1:..}{2:..}{3:..}{5:..} and enter the text block at {4:.
		for strings.HasPrefix(line, "{") {
			if strings.HasPrefix(line, "{4:") {
				line = line[3:]
				continue
			}
			if strings.HasPrefix(line, "{2:I942") || strings.HasPrefix(line, "{2:O942") {
				return fileError(p.file, lineNo, 1, "import.file.mt942Header", nil,
					"the SWIFT header says MT942, an interim transaction report, not an MT940 statement; import the end-of-day MT940 statement instead")
			}
			end := blockEnd(line)
			if end < 0 {
				line = "" // a block that does not close on its line: a header, dropped
				break
			}
			line = line[end:]
		}
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "":
			continue
		case strings.HasPrefix(trimmed, "-}"):
			if err := endMessage(); err != nil {
				return err
			}
			continue
		case trimmed == "-":
			if field != nil && field.tag == "86" {
				held = []string{line}
				continue
			}
			if err := endMessage(); err != nil {
				return err
			}
			continue
		}
		if tag, rest, ok := mtTag(line); ok {
			if err := flush(); err != nil {
				return err
			}
			field = &mtField{tag: tag, line: lineNo, col: len(tag) + 3, lines: []string{rest}}
			continue
		}
		if field != nil && mtMultiLine[field.tag] && len(field.lines) < 100 {
			field.lines = append(field.lines, line)
		}
		// Any other line is a bank's header, preamble or trailer.
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return &lineTooLongError{line: lineNo + 1, limit: p.lim.MaxLineBytes}
		}
		return err
	}
	if err := endMessage(); err != nil {
		return err
	}
	if p.sum.Statements == 0 {
		return fileError(p.file, 0, 0, "import.file.noMt940Statement", nil, "the file holds no MT940 statement (:20:)")
	}
	return nil
}

// mtStatementName names a statement in a message: its :20: and :28C:.
func mtStatementName(st *mtStatement) string {
	if st.number == "" {
		return st.ref
	}
	return st.ref + " " + st.number
}

// normalizeAccount reads an MT940 :25: (or a camt account) so that the same
// account is one account in both: an IBAN without its spaces and without
// the currency code some banks append (NL69INGB0123456789EUR); other forms
// (bank code/account, plain numbers) as written.
func normalizeAccount(s string) string {
	s = strings.TrimSpace(s)
	compact := strings.ReplaceAll(s, " ", "")
	n := len(compact)
	if n < 4 {
		return s
	}
	if want := ibanLength[compact[:2]]; want > 0 {
		switch {
		case n == want && isIBAN(compact):
			return compact
		case n == want+3 && isIBAN(compact[:want]) && isUpperLetters(compact[want:]):
			return compact[:want]
		}
		return s
	}
	if n > 3 && isIBAN(compact[:n-3]) && isUpperLetters(compact[n-3:]) {
		return compact[:n-3]
	}
	if isIBAN(compact) {
		return compact
	}
	return s
}

// ibanLength is the IBAN length of the countries whose banks write
// statements most often here (ISO 13616 registry).
var ibanLength = map[string]int{
	"AT": 20, "BE": 16, "CH": 21, "CZ": 24, "DE": 22, "DK": 18, "EE": 20, "ES": 24, "FI": 18, "FR": 27, "GB": 22,
	"HU": 28, "IE": 22, "IT": 27, "LT": 20, "LU": 20, "LV": 21, "MK": 19, "NL": 18, "NO": 15, "PL": 28, "PT": 25,
	"SE": 24, "SK": 24,
}

func isUpperLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return s != ""
}

// isIBAN checks the shape of an IBAN: country, check digits, 11 to 30
// letters and digits. The check digits are not verified: banks' test
// statements carry made-up IBANs, and the shape is what tells an IBAN from
// "1017.490.554EUR".
func isIBAN(s string) bool {
	if len(s) < 15 || len(s) > 34 || !isUpperLetters(s[:2]) || !isDigits(s[2:4]) {
		return false
	}
	for i := 4; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'A' || c > 'Z') {
			return false
		}
	}
	return true
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
func (p *parser) mtBalance(f *mtField) (amount, currency string, day time.Time, ok bool) {
	s := strings.TrimSpace(f.lines[0])
	if len(s) < 11 || s[0] != 'C' && s[0] != 'D' {
		p.rowError(f.line, f.col, "BookedBalanceLocalCurrency", ":%s: %s is not a balance like C240131EUR1234,56", f.tag, quote(s))
		return "", "", day, false
	}
	day, _, ok = yymmdd(s[1:7])
	if !ok {
		p.rowError(f.line, f.col+1, "BookedBalanceLocalCurrency", ":%s: %s is not a date YYMMDD", f.tag, quote(s[1:7]))
		return "", "", day, false
	}
	ccy, ok := checkCurrency(s[7:10])
	if !ok {
		p.rowError(f.line, f.col+7, "Currency", ":%s: %s is not a currency code", f.tag, quote(s[7:10]))
		return "", "", day, false
	}
	amt, ok := mtAmount(s[10:])
	if !ok || strings.HasPrefix(amt, "-") {
		p.rowError(f.line, f.col+10, "BookedBalanceLocalCurrency", ":%s: %s is not an amount like 1234,56", f.tag, quote(s[10:]))
		return "", "", day, false
	}
	if s[0] == 'D' {
		amt = negateDecimal(amt)
	}
	return amt, ccy, day, true
}

// mtAmount reads an amount with the SWIFT decimal comma, or the point some
// banks write instead.
func mtAmount(s string) (string, bool) {
	if strings.IndexByte(s, ',') < 0 && strings.IndexByte(s, '.') >= 0 {
		return parseDecimal(s, '.', "")
	}
	return parseDecimal(s, ',', "")
}

// yymmdd reads a SWIFT date (20YY). A day past the month's end (30
// February) is the month's last day; clamped says so.
func yymmdd(s string) (t time.Time, clamped, ok bool) {
	if len(s) != 6 || !isDigits(s) {
		return time.Time{}, false, false
	}
	n, _ := strconv.Atoi(s)
	return lenientDate(2000+n/10000, n/100%100, n%100)
}

// lenientDate is makeDate that reads days 29 to 31 past the month's end
// as its last day.
func lenientDate(y, m, d int) (t time.Time, clamped, ok bool) {
	if t, ok := makeDate(y, m, d); ok {
		return t, false, true
	}
	if m >= 1 && m <= 12 && d > 28 && d <= 31 {
		t, ok := makeDate(y, m, daysIn(y, m))
		return t, ok, ok
	}
	return time.Time{}, false, false
}

// mtStatementLine parses :61: 6!n[4!n]2a[1!a]15d[1!a3!c]16x[//16x] with its
// supplementary details on the next line.
func (p *parser) mtStatementLine(st *mtStatement, f *mtField) *mtLine {
	l := &mtLine{line: f.line, values: make([]any, len(fields[Bank])), supp: f.lines[1:]}
	l.ident = statementIdentity("mt940", st.account, st.ref, st.number, st.openRaw, st.lines)
	s := strings.TrimSpace(f.lines[0])
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
	clampNote := func(what, written string, t time.Time) {
		p.note(f.line, false, "import.note.lastDayOfMonth", map[string]any{"value": written, "date": t.Format("2006-01-02")},
			":61: %s %s is not a day of its month; read as the month's last day, %s", what, written, t.Format("2006-01-02"))
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
	value, clamped, ok := yymmdd(s[:6])
	if !ok {
		return fail(0, "InterestDate", ":61: value date %s is not a date YYMMDD", quote(s[:6]))
	}
	if clamped {
		clampNote("value date", s[:6], value)
	}
	l.values[bInterest], l.values[bBooked] = value, value
	pos := 6
	if len(s) >= 10 && isDigits(s[6:10]) {
		entry, clamped, ok := entryDate(value, s[6:10])
		if !ok {
			return fail(6, "BookedDate", ":61: entry date %s is not a date MMDD", quote(s[6:10]))
		}
		if clamped {
			clampNote("entry date", s[6:10], entry)
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
	for pos < len(s) && pos-start < 15 && (s[pos] >= '0' && s[pos] <= '9' || s[pos] == ',' || s[pos] == '.') {
		pos++
	}
	// SWIFT amounts carry the decimal comma ("3400," is 3400.00); a run of
	// digits without one is an amount only when a transaction type follows
	// (one bank writes "C500NTRF"), else the line is broken.
	amt, ok := mtAmount(s[start:pos])
	if ok && !strings.ContainsAny(s[start:pos], ",.") {
		ok = pos+4 <= len(s) && strings.ContainsRune("NFS", rune(s[pos]))
	}
	if !ok {
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
	// The transaction type (NTRF, FCHG, S103): some banks leave it out.
	if pos+4 <= len(s) && strings.ContainsRune("NFS", rune(s[pos])) && !strings.HasPrefix(s[pos:], "NONREF") {
		pos += 4
	}
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

// statementIdentity is Row.Identity of a statement format's entry: the
// format, the account, what names the statement, and the entry's position
// in it.
func statementIdentity(format, account string, statement ...any) string {
	var b strings.Builder
	b.WriteString(format)
	b.WriteByte('|')
	b.WriteString(account)
	for _, s := range statement {
		b.WriteByte('|')
		fmt.Fprint(&b, s)
	}
	return b.String()
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
func entryDate(value time.Time, mmdd string) (t time.Time, clamped, ok bool) {
	m, _ := strconv.Atoi(mmdd[:2])
	d, _ := strconv.Atoi(mmdd[2:])
	for _, y := range []int{value.Year() - 1, value.Year(), value.Year() + 1} {
		c, cl, good := lenientDate(y, m, d)
		if !good {
			continue
		}
		if !ok || absDur(c.Sub(value)) < absDur(t.Sub(value)) {
			t, clamped, ok = c, cl, true
		}
	}
	return t, clamped, ok
}

func absDur(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

// joinWrapped joins continuation lines: directly after a line of full width
// (first for the first line, whose tag takes room; width for the others),
// which banks wrap mid-word, with a space otherwise.
func joinWrapped(lines []string, first, width int) string {
	var b strings.Builder
	for i, l := range lines {
		full := width
		if i == 1 {
			full = first
		}
		if i > 0 && utf8.RuneCountInString(lines[i-1]) < full {
			b.WriteByte(' ')
		}
		b.WriteString(l)
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// mtText turns the lines of one :86: into text (see the top of this file).
func mtText(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	whole := strings.Join(lines, "")
	if len(whole) > 4 && isDigits(whole[:3]) && whole[3] == '?' {
		return germanText(whole[3:])
	}
	return joinWrapped(lines, 65-len(":86:"), 65)
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
	for _, x := range []string{joinWrapped(booking, 27, 27), joinWrapped(name, 27, 27), joinWrapped(remit, 27, 27)} {
		if x != "" {
			parts = append(parts, x)
		}
	}
	return strings.Join(parts, " / ")
}
