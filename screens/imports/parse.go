package imports

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // bank account zones also where the system has none

	"ledgerdesk/engine"
)

// Limits bound what one upload may cost. Zero fields take the defaults of
// DefaultLimits.
type Limits struct {
	// MaxBytes is the largest file accepted, as uploaded.
	MaxBytes int64
	// MaxLineBytes is the longest physical line of a CSV or MT940 file.
	MaxLineBytes int
	// MaxFields is the most fields (columns) one CSV record or sheet row may have.
	MaxFields int
	// MaxRecordBytes is the longest CSV record, quoted line breaks and all.
	MaxRecordBytes int
	// MaxUnzipBytes is the most an XLSX workbook may unpack to, all parts
	// together; above it the file is treated as a zip bomb.
	MaxUnzipBytes int64
	// Earliest and Latest bound the dates a row may carry (zero: no bound):
	// a date of 1900 or 2999 is a typo, and would stretch every report
	// spanning the data's dates.
	Earliest, Latest time.Time
}

// DefaultLimits are sized for the largest legitimate files: a million-row
// transaction CSV is about 100 MB, a full worksheet unpacks to a few hundred
// MB, and no real record is wider than 64 KB or 500 columns.
var DefaultLimits = Limits{
	MaxBytes:       256 << 20,
	MaxLineBytes:   64 << 10,
	MaxFields:      512,
	MaxRecordBytes: 1 << 20,
	MaxUnzipBytes:  512 << 20,
}

// inWindow tells whether day lies within Earliest and Latest.
func (l Limits) inWindow(day time.Time) bool {
	return (l.Earliest.IsZero() || !day.Before(l.Earliest)) && (l.Latest.IsZero() || !day.After(l.Latest))
}

func (l Limits) withDefaults() Limits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultLimits.MaxBytes
	}
	if l.MaxLineBytes <= 0 {
		l.MaxLineBytes = DefaultLimits.MaxLineBytes
	}
	if l.MaxFields <= 0 {
		l.MaxFields = DefaultLimits.MaxFields
	}
	if l.MaxRecordBytes <= 0 {
		l.MaxRecordBytes = DefaultLimits.MaxRecordBytes
	}
	if l.MaxUnzipBytes <= 0 {
		l.MaxUnzipBytes = DefaultLimits.MaxUnzipBytes
	}
	return l
}

// Row is one parsed record. Values is aligned with Fields(kind): string for
// text, currency and ticket fields, time.Time (UTC midnight) for dates, a
// normalised decimal string for decimals, nil for an empty optional field.
// Line is where the record starts in the file (the sheet row for XLSX, the
// line of the Ntry element for camt.053, of the :61: field for MT940).
//
// Identity, when set, is the record's identity as its source guarantees it:
// a statement format's entry is its account, its statement and its position
// in that statement (see statementIdentity). Empty for CSV and XLSX rows,
// whose identity the loader derives from the values.
type Row struct {
	Line     int
	Values   []any
	Identity string
}

// RowNote tells of a row the import did not store (Skipped), or stored other
// than as written (a day that does not exist read as the month's last day),
// or of a statement that does not follow on from the account's previous one.
// Code and Params give the message in the reader's language, as for RowError.
type RowNote struct {
	Line    int            `json:"line"`
	Skipped bool           `json:"skipped,omitempty"`
	Message string         `json:"message"`
	Code    string         `json:"code"`
	Params  map[string]any `json:"params,omitempty"`
}

// MaxRowNotes is how many notes a Summary keeps; NoteCount counts all.
const MaxRowNotes = 1000

// RowError is one bad value or record. Column is 1-based: the field's
// position for CSV and XLSX, the character position on the line for camt.053
// and MT940; 0 when the problem is the record as a whole.
type RowError struct {
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
	// Code and Params: the message code of Message and its parameters, for
	// the UI to show it in the reader's language (empty: Message only).
	Code   string         `json:"code,omitempty"`
	Params map[string]any `json:"params,omitempty"`
}

// String formats the error for a log or a plain-text report.
func (e RowError) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "line %d", e.Line)
	if e.Column > 0 {
		fmt.Fprintf(&b, ", column %d", e.Column)
	}
	b.WriteString(": ")
	b.WriteString(e.Message)
	return b.String()
}

// MaxRowErrors is how many row errors a Summary keeps; ErrorCount counts all.
const MaxRowErrors = 100

// Summary says what a parse saw.
type Summary struct {
	// Format is the format that was parsed (the descriptor's, confirmed by sniffing).
	Format string `json:"format"`
	// Statements counts camt.053 and MT940 statements.
	Statements int `json:"statements,omitempty"`
	// RowsRead counts data rows: records, sheet rows, entries, statement
	// lines, good or bad (blank rows and skipped preamble/footer rows excluded).
	RowsRead int `json:"rowsRead"`
	// RowsEmitted counts rows handed to emit: those without errors.
	RowsEmitted int `json:"rowsEmitted"`
	// Skipped counts entries deliberately left out (camt.053 entries whose
	// status is not booked).
	Skipped int `json:"skipped,omitempty"`
	// ErrorCount counts every row error; Errors keeps the first MaxRowErrors.
	ErrorCount int        `json:"errorCount"`
	Errors     []RowError `json:"errors,omitempty"`
	// BadRows counts the rows (lines) with at least one error.
	BadRows int `json:"badRows"`
	// Repeated counts rows whose natural key an earlier row of the same
	// file had (set by the loader, not the parser).
	Repeated int `json:"repeated,omitempty"`
	// Notes names the rows not stored and the values read other than
	// written, each with its reason; NoteCount counts all, Notes keeps the
	// first MaxRowNotes.
	NoteCount int       `json:"noteCount,omitempty"`
	Notes     []RowNote `json:"notes,omitempty"`
	// StatementList holds each statement of a camt.053 or MT940 file.
	StatementList []Statement `json:"-"`
}

// Statement is one statement of a camt.053 or MT940 file: what chains an
// account's statements from one file to the next.
type Statement struct {
	Line int
	// Identity is the statement part of its entries' Row.Identity.
	Identity    string
	Account     string
	Reference   string
	Number      string
	Sequence    *int64 // the statement number, when it is one
	Currency    string
	OpeningDate *time.Time
	Opening     string // "" when the statement has no opening balance
	ClosingDate *time.Time
	Closing     string
	Entries     int
}

// statementSequence reads a statement number: MT940 :28C: "00301/1" is 301,
// a camt.053 ElctrncSeqNb is itself; nil when it is not a number.
func statementSequence(s string) *int64 {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "/")
	if !isDigits(s) || len(s) > 15 {
		return nil
	}
	n, _ := strconv.ParseInt(s, 10, 64)
	return &n
}

// AddNote records n in the summary.
func (s *Summary) AddNote(n RowNote) {
	s.NoteCount++
	if len(s.Notes) < MaxRowNotes {
		s.Notes = append(s.Notes, n)
	}
}

// SniffBytes is how much of a file Detect needs to see.
const SniffBytes = 4096

// Parse reads one uploaded file with descriptor d and calls emit for each
// good row, in file order. Row problems are collected in the Summary;
// file problems stop the parse with an *engine.Error (invalid) naming
// fileName and, where known, line and column. An error returned by emit
// stops the parse and is returned wrapped with the line; a cancelled ctx
// stops it with ctx.Err(). After any error the rows emitted so far must be
// discarded.
func Parse(ctx context.Context, d *Descriptor, fileName string, r io.Reader, lim Limits, emit func(Row) error) (Summary, error) {
	return ParseIn(ctx, d, fileName, r, lim, nil, emit)
}

// DefaultBankZone is the time zone of a bank account whose Bank Settings
// name none: the day of a camt.053 date-time is taken in it.
const DefaultBankZone = "Europe/Stockholm"

var defaultZone = func() *time.Location {
	z, err := time.LoadLocation(DefaultBankZone)
	if err != nil {
		panic(err) // time/tzdata is linked in (engine/export.go)
	}
	return z
}()

// ParseIn is Parse with the bank accounts' time zones: zones returns the
// zone of an account, nil for DefaultBankZone; zones itself may be nil.
func ParseIn(ctx context.Context, d *Descriptor, fileName string, r io.Reader, lim Limits, zones func(account string) *time.Location, emit func(Row) error) (Summary, error) {
	var sum Summary
	if d == nil {
		return sum, engine.Invalid("descriptor", "%s: no import layout given", fileName)
	}
	c, problems := d.compile()
	if len(problems) > 0 {
		return sum, engine.Invalid("descriptor", "%s: import layout %q is invalid: %s", fileName, d.Name, strings.Join(problems, "; "))
	}
	lim = lim.withDefaults()
	sum.Format = d.Format
	br := bufio.NewReaderSize(&sizeLimiter{r: r, limit: lim.MaxBytes}, 64<<10)
	head, err := br.Peek(SniffBytes)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return sum, classify(fileName, err)
	}
	if len(head) == 0 {
		return sum, fileError(fileName, 0, 0, "import.file.empty", nil, "the file is empty")
	}
	format, err := Detect(d.Kind, fileName, head)
	if err != nil {
		return sum, err
	}
	if format != d.Format {
		return sum, fileError(fileName, 0, 0, "import.file.layoutFormat",
			map[string]any{"format": formatName(format), "layout": d.Name, "layoutFormat": formatName(d.Format)},
			"the file is %s, but the import layout %q reads %s", formatName(format), d.Name, formatName(d.Format))
	}
	p := &parser{ctx: ctx, c: c, file: fileName, lim: lim, sum: &sum, emit: emit, zones: zones}
	switch {
	case bytes.HasPrefix(head, []byte("PK\x03\x04")) && (d.Format == FormatCamt053 || d.Format == FormatMT940):
		err = p.zipped(br)
	case d.Format == FormatCSV:
		err = p.csv(br)
	case d.Format == FormatXLSX:
		err = p.xlsx(br)
	case d.Format == FormatCamt053:
		err = p.camt053(br)
	case d.Format == FormatMT940:
		err = p.mt940(br)
	}
	if err != nil {
		return sum, classify(fileName, err)
	}
	if sum.RowsRead == 0 && sum.Statements == 0 {
		return sum, fileError(fileName, 0, 0, "import.file.noRows", nil, "the file has no data rows")
	}
	return sum, nil
}

// parser carries the state every format shares.
type parser struct {
	ctx  context.Context
	c    *compiled
	file string
	lim  Limits
	sum  *Summary
	emit func(Row) error
	// lastBadLine is the line of the latest row error (rows come in order).
	lastBadLine int
	zones       func(account string) *time.Location
}

// zone is the time zone of a bank account.
func (p *parser) zone(account string) *time.Location {
	if p.zones != nil {
		if z := p.zones(account); z != nil {
			return z
		}
	}
	return defaultZone
}

// emitError marks an error of the caller's emit so that classify passes it
// through untouched.
type emitError struct {
	line int
	err  error
}

func (e *emitError) Error() string { return fmt.Sprintf("line %d: %v", e.line, e.err) }
func (e *emitError) Unwrap() error { return e.err }

// tooLargeError is returned by sizeLimiter when the upload passes MaxBytes.
type tooLargeError struct{ limit int64 }

func (e *tooLargeError) Error() string { return fmt.Sprintf("larger than %d bytes", e.limit) }

// lineTooLongError is returned by the line-bounded readers.
type lineTooLongError struct {
	line  int
	limit int
}

func (e *lineTooLongError) Error() string {
	return fmt.Sprintf("line %d is longer than %d bytes", e.line, e.limit)
}

// recordTooLongError is returned when one CSV record (a quoted field's line
// breaks included) passes MaxRecordBytes.
type recordTooLongError struct {
	line  int // where the record starts
	limit int
}

func (e *recordTooLongError) Error() string {
	return fmt.Sprintf("the record from line %d is longer than %d bytes", e.line, e.limit)
}

// classify turns whatever stopped a parse into what Parse returns: typed
// errors and the caller's own errors as they are, limit breaches and any
// other reading failure as an invalid-file error naming the file.
func classify(file string, err error) error {
	var typed *engine.Error
	var emitted *emitError
	var large *tooLargeError
	var long *lineTooLongError
	var record *recordTooLongError
	switch {
	case errors.As(err, &emitted):
		return err
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		return err
	case errors.As(err, &typed):
		return typed
	case errors.As(err, &large):
		return &engine.Error{Code: engine.CodeInvalid, Field: "file", Err: err,
			Message: fmt.Sprintf("%s: the file is larger than the upload limit of %s", file, byteSize(large.limit)),
			Key:     "import.file.tooLarge", Params: map[string]any{"file": file, "limit": byteSize(large.limit)}}
	case errors.As(err, &long):
		e := fileError(file, long.line, 0, "import.file.lineTooLong", map[string]any{"limit": byteSize(int64(long.limit))},
			"the line is longer than the limit of %s", byteSize(int64(long.limit)))
		e.Err = err
		return e
	case errors.As(err, &record):
		e := fileError(file, record.line, 0, "import.file.recordTooLong", map[string]any{"limit": byteSize(int64(record.limit))},
			"a record (starting at or before this line) is longer than the limit of %s; is a quote left open?", byteSize(int64(record.limit)))
		e.Err = err
		return e
	}
	e := fileError(file, 0, 0, "import.file.unreadable", map[string]any{"detail": err.Error()}, "the file could not be read: %v", err)
	e.Err = err
	return e
}

// fileError is the invalid-input error of a file-level problem; Field is
// "file" so that the UI shows it against the upload. code and params are
// the message code of the text (import.file.*) and its own parameters;
// the file, line and column (where known, > 0) are added to params, as the
// translations name them too ("{{file}}: line {{line}}, column {{column}}: ...").
func fileError(file string, line, col int, code string, params map[string]any, format string, args ...any) *engine.Error {
	where := file
	all := make(map[string]any, len(params)+3)
	for k, v := range params {
		all[k] = v
	}
	all["file"] = file
	if line > 0 {
		where += fmt.Sprintf(": line %d", line)
		all["line"] = line
		if col > 0 {
			where += fmt.Sprintf(", column %d", col)
			all["column"] = col
		}
	}
	return &engine.Error{Code: engine.CodeInvalid, Field: "file", Message: where + ": " + fmt.Sprintf(format, args...), Key: code, Params: all}
}

func byteSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// rowError records a problem with one row and keeps parsing.
func (p *parser) rowError(line, col int, field, format string, args ...any) {
	p.addRowError(RowError{Line: line, Column: col, Field: field, Message: fmt.Sprintf(format, args...)})
}

// codedRowError is rowError with the message code and parameters of its text.
func (p *parser) codedRowError(line, col int, field, code string, params map[string]any, format string, args ...any) {
	p.addRowError(RowError{Line: line, Column: col, Field: field, Message: fmt.Sprintf(format, args...), Code: code, Params: params})
}

func (p *parser) addRowError(e RowError) {
	line := e.Line
	p.sum.ErrorCount++
	if line != p.lastBadLine || p.sum.BadRows == 0 {
		p.sum.BadRows++
		p.lastBadLine = line
	}
	if len(p.sum.Errors) < MaxRowErrors {
		p.sum.Errors = append(p.sum.Errors, e)
	}
}

// note records a RowNote: code and params for the reader's language, the
// English text from format.
func (p *parser) note(line int, skipped bool, code string, params map[string]any, format string, args ...any) {
	p.sum.AddNote(RowNote{Line: line, Skipped: skipped, Code: code, Params: params, Message: fmt.Sprintf(format, args...)})
}

// failed marks a value that was reported bad, so that finish does not
// report it once more as missing.
type failedValue struct{}

var failed any = failedValue{}

// finish completes a row whose values are set: defaults fill empty fields,
// required fields are checked, and a row without errors is emitted. bad
// says whether errors were already recorded for the row; cols gives the
// column to report a missing value at (nil: 0); identity is Row.Identity.
func (p *parser) finish(line int, values []any, bad bool, cols []int, identity string) error {
	for i, f := range p.c.fields {
		if values[i] == failed {
			values[i] = nil
			continue
		}
		if values[i] != nil {
			if d, ok := values[i].(time.Time); ok && !p.lim.inWindow(d) {
				col := 0
				if cols != nil {
					col = cols[i]
				}
				from, to := p.lim.Earliest.Format("2006-01-02"), p.lim.Latest.Format("2006-01-02")
				p.codedRowError(line, col, f.Name, "import.row.dateWindow", map[string]any{"field": f.Name, "value": d.Format("2006-01-02"), "from": from, "to": to},
					"%s: %s lies outside the dates an import accepts (%s to %s)", f.Name, d.Format("2006-01-02"), from, to)
				values[i], bad = nil, true
				continue
			}
			if f.Type == TypeDecimal {
				v, code, msg := money(values[i].(string))
				if msg != "" {
					col := 0
					if cols != nil {
						col = cols[i]
					}
					p.codedRowError(line, col, f.Name, code, map[string]any{"field": f.Name, "value": quote(values[i].(string))},
						"%s: %s %s", f.Name, quote(values[i].(string)), msg)
					values[i], bad = nil, true
					continue
				}
				values[i] = v
			}
			continue
		}
		if p.c.defaults[i] != nil {
			values[i] = p.c.defaults[i]
			continue
		}
		if f.Required {
			col := 0
			if cols != nil {
				col = cols[i]
			}
			p.codedRowError(line, col, f.Name, "import.row.required", map[string]any{"field": f.Name}, "%s is required but empty", f.Name)
			bad = true
		}
	}
	p.sum.RowsRead++
	if p.sum.RowsRead%4096 == 0 {
		if err := p.ctx.Err(); err != nil {
			return err
		}
	}
	if bad {
		return nil
	}
	p.sum.RowsEmitted++
	if err := p.emit(Row{Line: line, Values: values, Identity: identity}); err != nil {
		return &emitError{line: line, err: err}
	}
	return nil
}

// problem is what is wrong with one value: the English message and its
// message code with parameters (RowError.Code, .Params).
type problem struct {
	Msg    string
	Code   string
	Params map[string]any
}

func valueProblem(code string, params map[string]any, format string, args ...any) *problem {
	return &problem{Msg: fmt.Sprintf(format, args...), Code: code, Params: params}
}

// rowProblem records p as a row error of field at line and col.
func (p *parser) rowProblem(line, col int, field string, pr *problem) {
	p.codedRowError(line, col, field, pr.Code, pr.Params, "%s", pr.Msg)
}

// convert turns one source value into the typed value of field i, per the
// descriptor's formats. An empty value is nil. The second result says what
// is wrong for the user, nil when the value is good.
func (c *compiled) convert(i int, s string) (any, *problem) {
	if c.trim {
		s = trimSpace(s)
	}
	if s == "" {
		return nil, nil
	}
	f := c.fields[i]
	// what a problem names: built only for a bad value (8 million good
	// values of a million-row file would each build and quote them)
	params := func(more ...any) map[string]any {
		p := map[string]any{"field": f.Name, "value": quote(s)}
		for k := 0; k+1 < len(more); k += 2 {
			p[more[k].(string)] = more[k+1]
		}
		return p
	}
	switch f.Type {
	case TypeText:
		if len(s) > maxTextBytes {
			return nil, valueProblem("import.row.tooLong", params("max", maxTextBytes), "%s is longer than %d characters", f.Name, maxTextBytes)
		}
		return s, nil
	case TypeDate:
		if t, ok := c.date.parse(s); ok {
			return t, nil
		}
		return nil, valueProblem("import.row.date", params("format", c.date.src), "%s: %s is not a date in the format %s", f.Name, quote(s), c.date.src)
	case TypeDecimal:
		if v, ok := parseDecimal(s, c.dec, c.th); ok {
			return v, nil
		}
		return nil, valueProblem("import.row.amount", params("separator", string(c.dec)), "%s: %s is not an amount with decimal separator %q%s",
			f.Name, quote(s), c.dec, thousandsNote(c.th))
	case TypeCurrency:
		if v, ok := checkCurrency(s); ok {
			return v, nil
		}
		return nil, valueProblem("import.row.currency", params(), "%s: %s is not a three-letter currency code", f.Name, quote(s))
	case TypeTicket:
		if v, ok := checkTicket(s); ok {
			return v, nil
		}
		return nil, valueProblem("import.row.ticket", params(), "%s: %s is not a ticket number of exactly 13 digits", f.Name, quote(s))
	}
	return s, nil
}

// Amounts are stored as numeric(20, 2): to the cent, 18 digits before the point.
const (
	moneyIntDigits  = 18
	moneyFracDigits = 2
)

// money checks a normalised decimal (parseDecimal's form) against the amount
// columns: more decimals than cents are refused rather than rounded away,
// unless they are zeros ("12.3400" is 12.34); a number too large for the
// column is refused here, with its line and column, not by the database.
func money(v string) (value, code, msg string) {
	digits := strings.TrimPrefix(v, "-")
	intPart, frac, _ := strings.Cut(digits, ".")
	if len(intPart) > moneyIntDigits {
		return "", "import.row.tooLarge", fmt.Sprintf("is too large (more than %d digits before the decimal point)", moneyIntDigits)
	}
	if len(frac) > moneyFracDigits {
		if strings.Trim(frac[moneyFracDigits:], "0") != "" {
			return "", "import.row.decimals", fmt.Sprintf("has more than %d decimals; amounts are kept to the cent and never rounded on import", moneyFracDigits)
		}
		v = strings.TrimSuffix(v[:len(v)-(len(frac)-moneyFracDigits)], ".")
	}
	return v, "", ""
}

// maxTextBytes bounds one text value; bank texts are a few hundred bytes.
const maxTextBytes = 4000

func thousandsNote(th string) string {
	if th == "" {
		return " and no thousands separator"
	}
	return fmt.Sprintf(" and thousands separator %q", th)
}

// quote shows a user's value in a message, shortened so that a hostile
// value cannot flood the error list.
func quote(s string) string {
	const max = 40
	if len(s) > max {
		cut := max
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		s = s[:cut] + "..."
	}
	return fmt.Sprintf("%q", s)
}

// trimSpace is strings.TrimSpace plus the no-break spaces spreadsheets
// leave around numbers, with a fast exit for the common untrimmed case.
func trimSpace(s string) string {
	if s == "" || s[0] > ' ' && s[0] < 0x80 && s[len(s)-1] > ' ' && s[len(s)-1] < 0x80 {
		return s
	}
	return strings.TrimFunc(s, func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\r' || r == '\n' || r == '\u00a0' || r == '\u202f' || r == '\ufeff'
	})
}

// sizeLimiter fails the read that passes limit bytes.
type sizeLimiter struct {
	r     io.Reader
	n     int64
	limit int64
}

func (s *sizeLimiter) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	s.n += int64(n)
	if s.n > s.limit {
		return 0, &tooLargeError{limit: s.limit}
	}
	return n, err
}

// utcDate is the date part of t as a UTC midnight.
func utcDate(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}
