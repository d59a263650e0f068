package imports

import (
	"cmp"
	"encoding/xml"
	"errors"
	"io"
	"strconv"
	"strings"
	"time"
)

// camt.053 (ISO 20022 BkToCstmrStmt) is read with encoding/xml's token
// stream, matching local names only, so every version from .001.02 to
// .001.08 (and the later ones, which keep the same paths) reads the same.
// The document is never held whole: each child of a Stmt (account,
// balances, one Ntry) is collected into a small tree, used and dropped.
//
// Field choices where the standard leaves room:
//   - BankAccount: Stmt/Acct/Id/IBAN, else Stmt/Acct/Id/Othr/Id (read as
//     an MT940 :25: is, so that both name the account alike).
//   - BookedDate: Ntry/BookgDt; InterestDate: ValDt. A Dt is the day as
//     written; a DtTm with a zone (Z, +01:00) is an instant, whose day is
//     taken in the bank account's time zone (Bank Settings; the default is
//     DefaultBankZone), never the server's: a bank in Stockholm writing
//     2014-01-04T23:00:00Z booked on the 5th. A DtTm without a zone is the
//     day as written. An entry without BookgDt is booked on its value date,
//     one without either on its statement's date (the closing balance's,
//     else FrToDt/ToDtTm, else CreDtTm), with a note.
//   - AmountLocal: Ntry/Amt, negative when CdtDbtInd is DBIT. The sign shows
//     the effect on the balance; RvslInd does not flip it again.
//   - Currency: Ntry/Amt/@Ccy.
//   - Text: the distinct non-empty parts of AddtlNtryInf (the bank's booking
//     text, what bank CSV exports show), the counterparty's name (the debtor
//     of a credit, the creditor of a debit) and the remittance information
//     (Ustrd lines, else the structured creditor reference), joined by " / ";
//     AddtlTxInf only when all of those are empty. Reconciliation maps bank
//     text to providers, so the counterparty and the reference matter.
//   - BankArchiveReference: Ntry/AcctSvcrRef, else that of the first TxDtls.
//   - Number: Ntry/NtryRef, else "<Stmt/Id>-<n>" with n the entry's position
//     in its statement.
//   - BookedBalanceLocalCurrency: the running booked balance after the
//     entry: the opening balance (OPBD, else PRCD) plus the entries so far,
//     as a bank's CSV export shows it per row. A statement without an
//     opening balance leaves it empty. When the entries do not add up to the
//     closing balance (CLBD) a row error at the statement says so.
//   - Entries whose status is not BOOK (PDNG, INFO) are skipped, counted
//     in Summary.Skipped and named in its notes: they are not bookings and
//     move no balance.
//   - One booking per entry, also for a batch whose entry carries several
//     TxDtls: the entry is what the bank booked and what moves the
//     balance (and what the bank line a payout is matched against shows);
//     Text is taken from the first TxDtls.
//   - The identity of an entry (what makes the same statement imported
//     again load nothing twice) is its account, its statement (Id,
//     ElctrncSeqNb and the opening balance) and its position in it; NtryRef
//     and AcctSvcrRef are not unique in real statements.
//   - A statement without entries loads nothing and succeeds.

// xnode is one element of a collected subtree.
type xnode struct {
	name  string
	attrs []xml.Attr
	text  string
	kids  []*xnode
	line  int
}

func (n *xnode) child(names ...string) *xnode {
	for _, name := range names {
		if n == nil {
			return nil
		}
		var next *xnode
		for _, k := range n.kids {
			if k.name == name {
				next = k
				break
			}
		}
		n = next
	}
	return n
}

func (n *xnode) textOf(names ...string) string {
	if c := n.child(names...); c != nil {
		return strings.TrimSpace(c.text)
	}
	return ""
}

func (n *xnode) attr(name string) string {
	if n == nil {
		return ""
	}
	for _, a := range n.attrs {
		if a.Name.Local == name {
			return strings.TrimSpace(a.Value)
		}
	}
	return ""
}

func (n *xnode) all(name string) []*xnode {
	if n == nil {
		return nil
	}
	var out []*xnode
	for _, k := range n.kids {
		if k.name == name {
			out = append(out, k)
		}
	}
	return out
}

// maxEntryNodes bounds one collected subtree: a batch-booked entry may
// carry thousands of TxDtls, but not millions.
const maxEntryNodes = 200000

// xmlReader wraps the decoder with the positions messages need.
type xmlReader struct {
	p   *parser
	dec *xml.Decoder
}

func (x *xmlReader) fail(err error) error {
	line, col := x.dec.InputPos()
	var se *xml.SyntaxError
	if errors.As(err, &se) {
		line = se.Line
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || se != nil && strings.Contains(se.Msg, "unexpected EOF") {
		return fileError(x.p.file, line, col, "import.file.xmlTruncated", nil, "the XML ends early: the file is truncated")
	}
	var large *tooLargeError
	if errors.As(err, &large) {
		return err
	}
	if strings.Contains(err.Error(), errCharset.Error()) {
		return fileError(x.p.file, line, col, "import.file.xmlEncoding", nil, "the XML declares an encoding other than UTF-8 or ISO-8859-1; camt.053 files are UTF-8")
	}
	if se != nil {
		return fileError(x.p.file, line, col, "import.file.xmlMalformed", map[string]any{"detail": se.Msg}, "the file is not well-formed XML: %s", se.Msg)
	}
	return fileError(x.p.file, line, col, "import.file.xmlUnreadable", map[string]any{"detail": err.Error()}, "the XML cannot be read: %v", err)
}

// token returns the next token, failing on EOF: callers only ask inside
// an element.
func (x *xmlReader) token() (xml.Token, error) {
	t, err := x.dec.Token()
	if err != nil {
		return nil, x.fail(err)
	}
	return t, nil
}

// subtree collects the element whose start tag was just read.
func (x *xmlReader) subtree(start xml.StartElement, line int) (*xnode, error) {
	root := &xnode{name: start.Name.Local, attrs: start.Attr, line: line}
	stack := []*xnode{root}
	count := 1
	var text strings.Builder
	for {
		t, err := x.token()
		if err != nil {
			return nil, err
		}
		switch t := t.(type) {
		case xml.StartElement:
			count++
			if count > maxEntryNodes {
				l, c := x.dec.InputPos()
				return nil, fileError(x.p.file, l, c, "import.file.xmlTooManyElements", map[string]any{"element": root.name, "max": maxEntryNodes},
					"the element %s has more than %d elements", root.name, maxEntryNodes)
			}
			l, _ := x.dec.InputPos()
			n := &xnode{name: t.Name.Local, attrs: t.Attr, line: l}
			top := stack[len(stack)-1]
			top.kids = append(top.kids, n)
			stack = append(stack, n)
			text.Reset()
		case xml.CharData:
			if len(stack[len(stack)-1].kids) == 0 {
				if text.Len()+len(t) > maxTextBytes*4 {
					l, c := x.dec.InputPos()
					return nil, fileError(x.p.file, l, c, "import.file.xmlTextTooLong", map[string]any{"element": root.name, "max": maxTextBytes * 4},
						"a text in %s is longer than %d bytes", root.name, maxTextBytes*4)
				}
				text.Write(t)
			}
		case xml.EndElement:
			top := stack[len(stack)-1]
			if len(top.kids) == 0 {
				top.text = text.String()
			}
			text.Reset()
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return root, nil
			}
		}
	}
}

// camtStatement is what an entry needs from its statement.
type camtStatement struct {
	id      string
	seq     string // ElctrncSeqNb, else LglSeqNb
	openRaw string // the opening balance's date and amount, part of the identity
	line    int
	account string
	opening string // signed; "" when the statement has none
	closing string
	balance string // running balance; "" when unknown
	openDay *time.Time
	closDay *time.Time
	toDay   *time.Time // FrToDt/ToDtTm, else CreDtTm
	ccy     string
	entries int
	sawNtry bool
}

func (p *parser) camt053(r io.Reader) error {
	dec := xml.NewDecoder(r)
	dec.Strict = true
	dec.CharsetReader = func(label string, input io.Reader) (io.Reader, error) {
		switch strings.ToLower(label) {
		case "utf-8", "utf8", "us-ascii", "ascii":
			return input, nil
		case "iso-8859-1", "latin1", "windows-1252", "cp1252":
			// The standard says UTF-8, but some banks' older exports are Latin-1.
			return &latin1Reader{r: input}, nil
		}
		return nil, errCharset
	}
	x := &xmlReader{p: p, dec: dec}
	depth := 0 // 1: Document, 2: BkToCstmrStmt, 3: Stmt
	end := 0   // depth after the root closes: 1 when the root is BkToCstmrStmt itself
	var st *camtStatement
	for {
		t, err := dec.Token()
		if errors.Is(err, io.EOF) {
			if depth != end {
				return x.fail(io.ErrUnexpectedEOF)
			}
			if p.sum.Statements == 0 {
				return fileError(p.file, 0, 0, "import.file.noCamtStatement", nil, "the file holds no camt.053 statement (Stmt)")
			}
			return nil
		}
		if err != nil {
			return x.fail(err)
		}
		switch t := t.(type) {
		case xml.StartElement:
			line, col := dec.InputPos()
			name := t.Name.Local
			switch depth {
			case 0:
				if name == "BkToCstmrStmt" { // a message without the Document wrapper
					depth, end = 2, 1
					continue
				}
				if name != "Document" {
					return fileError(p.file, line, col, "import.file.camtRoot", map[string]any{"element": name}, "the root element is %s, not the Document of a camt.053 statement", name)
				}
				depth = 1
			case 1:
				if name != "BkToCstmrStmt" {
					return fileError(p.file, line, col, "import.file.camtMessage", map[string]any{"element": name}, "the message is %s, not a camt.053 BkToCstmrStmt statement", name)
				}
				depth = 2
			case 2:
				if name != "Stmt" {
					if err := dec.Skip(); err != nil {
						return x.fail(err)
					}
					continue
				}
				depth = 3
				p.sum.Statements++
				st = &camtStatement{line: line}
			case 3:
				n, err := x.subtree(t, line)
				if err != nil {
					return err
				}
				if err := p.camtStmtChild(st, n); err != nil {
					return err
				}
			}
		case xml.EndElement:
			if depth == 3 {
				p.camtEndStatement(st)
				st = nil
			}
			depth--
		}
	}
}

func (p *parser) camtStmtChild(st *camtStatement, n *xnode) error {
	switch n.name {
	case "Id":
		st.id = strings.TrimSpace(n.text)
	case "FrToDt", "CreDtTm":
		s := n.textOf("ToDtTm")
		if n.name == "CreDtTm" {
			s = strings.TrimSpace(n.text)
		}
		if t, ok := camtDay(s, p.zone(st.account)); ok && (st.toDay == nil || n.name == "FrToDt") {
			st.toDay = &t
		}
	case "ElctrncSeqNb":
		st.seq = strings.TrimSpace(n.text)
	case "LglSeqNb":
		if st.seq == "" {
			st.seq = strings.TrimSpace(n.text)
		}
	case "Acct":
		st.account = n.textOf("Id", "IBAN")
		if st.account == "" {
			st.account = n.textOf("Id", "Othr", "Id")
		}
		st.account = normalizeAccount(st.account)
	case "Bal":
		code := n.textOf("Tp", "CdOrPrtry", "Cd")
		if code == "" {
			code = n.textOf("Tp", "CdOrPrtry", "Prtry")
		}
		amt, ok := parseDecimal(n.textOf("Amt"), '.', "")
		if !ok {
			p.rowError(n.line, 0, "BookedBalanceLocalCurrency", "balance %s: %s is not an amount", code, quote(n.textOf("Amt")))
			return nil
		}
		if n.textOf("CdtDbtInd") == "DBIT" {
			amt = negateDecimal(amt)
		}
		day := n.textOf("Dt", "Dt")
		if day == "" {
			day = n.textOf("Dt", "DtTm")
		}
		var at *time.Time
		if t, ok := camtDay(day, p.zone(st.account)); ok {
			at = &t
		}
		if st.ccy == "" {
			st.ccy = n.child("Amt").attr("Ccy")
		}
		switch code {
		case "OPBD":
			st.opening, st.openRaw, st.openDay = amt, day+" "+amt, at
		case "PRCD":
			if st.opening == "" {
				st.opening, st.openRaw, st.openDay = amt, day+" "+amt, at
			}
		case "CLBD":
			st.closing, st.closDay = amt, at
		}
		if !st.sawNtry {
			st.balance = st.opening
		}
	case "Ntry":
		st.sawNtry = true
		return p.camtEntry(st, n)
	}
	return nil
}

func (p *parser) camtEndStatement(st *camtStatement) {
	if st == nil {
		return
	}
	p.sum.StatementList = append(p.sum.StatementList, Statement{Line: st.line,
		Identity: statementIdentity("camt053", st.account, st.id, st.seq, st.openRaw),
		Account:  st.account, Reference: st.id, Number: st.seq, Sequence: statementSequence(st.seq),
		Currency: st.ccy, OpeningDate: st.openDay, Opening: st.opening, ClosingDate: st.closDay, Closing: st.closing, Entries: st.entries})
	if st.opening == "" || st.closing == "" || st.balance == "" {
		return
	}
	if !decimalZero(addDecimal(st.balance, negateDecimal(st.closing))) {
		p.rowError(st.line, 0, "BookedBalanceLocalCurrency", "statement %s: the opening balance %s plus the booked entries is %s, but the closing balance (CLBD) is %s",
			orUnknown(st.id), st.opening, st.balance, st.closing)
	}
}

func orUnknown(s string) string {
	if s == "" {
		return "(no Id)"
	}
	return s
}

// bank field positions, see Fields(Bank).
const (
	bAccount = iota
	bBooked
	bInterest
	bText
	bAmount
	bCurrency
	bArchive
	bNumber
	bBalance
)

func (p *parser) camtEntry(st *camtStatement, n *xnode) error {
	line := n.line
	status := n.textOf("Sts")
	if c := n.textOf("Sts", "Cd"); c != "" {
		status = c
	}
	if status != "" && status != "BOOK" {
		p.sum.Skipped++
		p.note(line, true, "import.skip.notBooked", map[string]any{"status": status, "amount": n.textOf("Amt")},
			"the entry's status is %s, not booked (BOOK): it is no booking and was not loaded", status)
		return nil
	}
	st.entries++
	values := make([]any, len(fields[Bank]))
	bad := false
	fail := func(field string, at *xnode, format string, args ...any) {
		l := line
		if at != nil {
			l = at.line
		}
		p.rowError(l, 0, field, format, args...)
		if i := fieldIndex(Bank, field); i >= 0 {
			values[i] = failed
		}
		bad = true
	}
	if st.account != "" {
		values[bAccount] = st.account
	}
	zone := p.zone(st.account)
	for _, d := range []struct {
		i    int
		name string
	}{{bBooked, "BookgDt"}, {bInterest, "ValDt"}} {
		el := n.child(d.name)
		if el == nil {
			continue
		}
		s := el.textOf("Dt")
		if s == "" {
			s = el.textOf("DtTm")
		}
		if t, ok := camtDay(s, zone); ok {
			values[d.i] = t
		} else {
			fail(fields[Bank][d.i].Name, el, "%s: %s is not an ISO date", d.name, quote(s))
		}
	}
	if n.child("BookgDt") == nil {
		if v, ok := values[bInterest].(time.Time); ok {
			values[bBooked] = v
			p.note(line, false, "import.note.valueDateAsBooked", map[string]any{"date": v.Format("2006-01-02")},
				"the entry has no booking date (BookgDt); booked on its value date %s", v.Format("2006-01-02"))
		} else if day := cmp.Or(st.closDay, st.toDay); day != nil && n.child("ValDt") == nil {
			values[bBooked] = *day
			p.note(line, false, "import.note.statementDateAsBooked", map[string]any{"date": day.Format("2006-01-02")},
				"the entry has neither a booking nor a value date; booked on its statement's date %s", day.Format("2006-01-02"))
		}
	}
	amtEl := n.child("Amt")
	if amtEl != nil {
		amt, ok := parseDecimal(strings.TrimSpace(amtEl.text), '.', "")
		switch ind := n.textOf("CdtDbtInd"); {
		case !ok:
			fail("AmountLocal", amtEl, "Amt: %s is not an amount", quote(strings.TrimSpace(amtEl.text)))
		case strings.HasPrefix(amt, "-"):
			fail("AmountLocal", amtEl, "Amt: %s is negative; the direction belongs in CdtDbtInd", amt)
		case ind != "CRDT" && ind != "DBIT":
			fail("AmountLocal", n.child("CdtDbtInd"), "CdtDbtInd: %s is neither CRDT nor DBIT", quote(ind))
		default:
			if ind == "DBIT" {
				amt = negateDecimal(amt)
			}
			values[bAmount] = amt
			if st.balance != "" {
				st.balance = addDecimal(st.balance, amt)
				values[bBalance] = st.balance
			}
		}
		if ccy := amtEl.attr("Ccy"); ccy != "" {
			if v, ok := checkCurrency(ccy); ok {
				values[bCurrency] = v
			} else {
				fail("Currency", amtEl, "Amt/@Ccy: %s is not a currency code", quote(ccy))
			}
		}
	}
	if _, ok := values[bAmount].(string); !ok && st.balance != "" {
		st.balance = "" // an unreadable amount makes the running balance unknown
	}
	if text := camtText(n); text != "" {
		values[bText] = text
	}
	ref := n.textOf("AcctSvcrRef")
	if ref == "" {
		ref = n.textOf("NtryDtls", "TxDtls", "Refs", "AcctSvcrRef")
	}
	if ref != "" {
		values[bArchive] = ref
	}
	num := n.textOf("NtryRef")
	if num == "" {
		num = orUnknown(st.id) + "-" + strconv.Itoa(st.entries)
	}
	ident := statementIdentity("camt053", st.account, st.id, st.seq, st.openRaw, st.entries)
	values[bNumber] = num
	if s, ok := values[bText].(string); ok {
		values[bText] = truncate(s, maxTextBytes)
	}
	for i, v := range values {
		if s, ok := v.(string); ok && len(s) > maxTextBytes {
			fail(fields[Bank][i].Name, nil, "%s is longer than %d characters", fields[Bank][i].Name, maxTextBytes)
		}
	}
	return p.finish(line, values, bad, nil, ident)
}

// camtDay reads an ISO date or date-time as the day it is in zone (see
// the top of this file).
func camtDay(s string, zone *time.Location) (time.Time, bool) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return utcDate(t.In(zone)), true
	}
	if t, ok := isoDate.parse(s); ok {
		return t, true
	}
	for _, layout := range []string{"2006-01-02T15:04:05.999999999", "2006-01-02T15:04"} {
		if t, err := time.Parse(layout, s); err == nil {
			return utcDate(t), true // no zone: the day as written
		}
	}
	return time.Time{}, false
}

// camtText builds Text as described at the top of this file.
func camtText(n *xnode) string {
	var parts []string
	add := func(s string) {
		s = strings.Join(strings.Fields(s), " ")
		if s == "" {
			return
		}
		for _, q := range parts {
			if q == s {
				return
			}
		}
		parts = append(parts, s)
	}
	add(n.textOf("AddtlNtryInf"))
	tx := n.child("NtryDtls", "TxDtls")
	if tx != nil {
		party := "Dbtr"
		if n.textOf("CdtDbtInd") == "DBIT" {
			party = "Cdtr"
		}
		name := tx.textOf("RltdPties", party, "Nm") // .02 - .07
		if name == "" {
			name = tx.textOf("RltdPties", party, "Pty", "Nm") // .08
		}
		add(name)
		var ustrd []string
		for _, u := range tx.child("RmtInf").all("Ustrd") {
			ustrd = append(ustrd, strings.TrimSpace(u.text))
		}
		if len(ustrd) > 0 {
			add(strings.Join(ustrd, " "))
		} else {
			add(tx.textOf("RmtInf", "Strd", "CdtrRefInf", "Ref"))
		}
		if len(parts) == 0 {
			add(tx.textOf("AddtlTxInf"))
		}
	}
	return strings.Join(parts, " / ")
}

// truncate cuts s to at most n bytes on a rune boundary: a bank text longer
// than the column is shortened rather than refused.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

var errCharset = errors.New("unsupported XML encoding")

// latin1Reader decodes Windows-1252 (and so ISO-8859-1) bytes into UTF-8 as
// it streams.
type latin1Reader struct {
	r   io.Reader
	buf []byte // decoded bytes not yet returned
	raw [2048]byte
}

func (l *latin1Reader) Read(p []byte) (int, error) {
	if len(l.buf) == 0 {
		n, err := l.r.Read(l.raw[:])
		if n == 0 {
			return 0, err
		}
		l.buf = []byte(decode1252(string(l.raw[:n])))
	}
	n := copy(p, l.buf)
	l.buf = l.buf[n:]
	return n, nil
}
