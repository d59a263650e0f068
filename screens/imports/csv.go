package imports

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"strconv"
	"unicode/utf8"
)

// csv reads a delimited text file. A UTF-8 byte-order mark is dropped;
// encoding follows the descriptor (auto: UTF-8 until a field proves
// otherwise, then Windows-1252, the encoding Excel on Western Windows saves
// "CSV" in - see csvRecords.decode). Physical lines are bounded by
// MaxLineBytes and records by MaxFields, so a file without line breaks or
// with a million delimiters fails early instead of filling memory.
func (p *parser) csv(br *bufio.Reader) error {
	if head, _ := br.Peek(3); bytes.Equal(head, utf8BOM) {
		br.Discard(3)
	}
	lines := &lineLimiter{r: br, max: p.lim.MaxLineBytes, line: 1, maxRecord: p.lim.MaxRecordBytes, recordLine: 1}
	r := csv.NewReader(lines)
	r.Comma = p.c.comma
	r.FieldsPerRecord = -1
	r.ReuseRecord = true
	src := &csvRecords{p: p, r: r, enc: p.c.encoding, lines: lines}
	return p.table(src, p.c.convert)
}

// csvFileError is the file error of a CSV syntax error in the first record.
func csvFileError(file string, pe *csv.ParseError) error {
	code, params := "import.file.csvSyntax", map[string]any{"detail": pe.Err.Error()}
	switch {
	case errors.Is(pe.Err, csv.ErrBareQuote):
		code, params = "import.file.csvBareQuote", nil
	case errors.Is(pe.Err, csv.ErrQuote):
		code, params = "import.file.csvQuote", nil
	}
	return fileError(file, pe.Line, pe.Column, code, params, "%v", pe.Err)
}

type csvRecords struct {
	p           *parser
	r           *csv.Reader
	lines       *lineLimiter
	enc         string // utf-8, windows-1252 or auto
	sawUTF8     bool   // auto: a non-ASCII UTF-8 field was seen, so the file is UTF-8
	decodedLine int
}

func (s *csvRecords) next() (int, []string, error) {
	for {
		rec, err := s.r.Read()
		s.lines.recordEnds(s.r.InputOffset())
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			if s.p.sum.RowsRead == 0 && s.p.sum.ErrorCount == 0 && pe.StartLine <= 1 {
				return 0, nil, csvFileError(s.p.file, pe)
			}
			// A broken record (a stray quote) is one bad row: report it
			// and read on, as for a bad value.
			s.p.rowError(pe.StartLine, 0, "", "the record cannot be read: %v (at line %d, column %d)", pe.Err, pe.Line, pe.Column)
			s.p.sum.RowsRead++
			continue
		}
		if err != nil {
			return 0, nil, err
		}
		line, _ := s.r.FieldPos(0)
		if len(rec) > s.p.lim.MaxFields {
			return 0, nil, fileError(s.p.file, line, 0, "import.file.tooManyFields",
				map[string]any{"count": len(rec), "max": s.p.lim.MaxFields, "delimiter": strconv.QuoteRune(s.p.c.comma)},
				"the record has %d fields, more than the limit of %d; is the delimiter %q right?", len(rec), s.p.lim.MaxFields, s.p.c.comma)
		}
		if !s.decode(line, rec) {
			s.p.sum.RowsRead++
			continue
		}
		return line, rec, nil
	}
}

// decode makes every field UTF-8. In auto mode the first invalid field
// switches the file to Windows-1252 when nothing before it was non-ASCII
// UTF-8 (so nothing read so far is reinterpreted); a file that mixes both
// gets a row error for the field, as does invalid UTF-8 in utf-8 mode.
func (s *csvRecords) decode(line int, rec []string) bool {
	for i, f := range rec {
		ascii := true
		for j := 0; j < len(f); j++ {
			if f[j] >= 0x80 {
				ascii = false
				break
			}
		}
		if ascii {
			continue
		}
		if s.enc == "windows-1252" {
			rec[i] = decode1252(f)
			continue
		}
		if utf8.ValidString(f) {
			s.sawUTF8 = true
			continue
		}
		if s.enc == "auto" && !s.sawUTF8 {
			s.enc = "windows-1252"
			rec[i] = decode1252(f)
			continue
		}
		s.p.rowError(line, i+1, "", "the value is not valid UTF-8 text; save the file as UTF-8")
		return false
	}
	return true
}

// win1252 maps the bytes 0x80-0x9F of Windows-1252; the undefined ones keep
// their Latin-1 (C1 control) meaning, as WHATWG decoders do.
var win1252 = [32]rune{
	0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8D, 0x017D, 0x8F,
	0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x9D, 0x017E, 0x0178,
}

func decode1252(s string) string {
	b := make([]byte, 0, len(s)+len(s)/2)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c < 0x80:
			b = append(b, c)
		case c < 0xA0:
			b = utf8.AppendRune(b, win1252[c-0x80])
		default:
			b = utf8.AppendRune(b, rune(c))
		}
	}
	return string(b)
}

// lineLimiter fails a read once a physical line grows past max bytes, or
// the record being read (told by recordEnds) past maxRecord bytes: a quoted
// field may hold line breaks, so short lines alone do not bound a record.
type lineLimiter struct {
	r    io.Reader
	max  int
	cur  int // bytes of the current line so far
	line int // current line number, 1-based

	maxRecord   int
	read        int64 // bytes read so far
	recordStart int64 // offset where the current record starts
	recordLine  int   // line where the current record starts
}

// readAhead is how far the CSV reader's buffer may run ahead of the record
// it is on.
const readAhead = 64 << 10

// recordEnds marks the end of a record (the reader's input offset).
func (l *lineLimiter) recordEnds(offset int64) {
	l.recordStart = offset
	l.recordLine = l.line
}

func (l *lineLimiter) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	l.read += int64(n)
	if l.maxRecord > 0 && l.read-l.recordStart > int64(l.maxRecord)+readAhead {
		return 0, &recordTooLongError{line: l.recordLine, limit: l.maxRecord}
	}
	b := p[:n]
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			l.cur += len(b)
			break
		}
		if l.cur+i > l.max {
			return 0, &lineTooLongError{line: l.line, limit: l.max}
		}
		l.cur = 0
		l.line++
		b = b[i+1:]
	}
	if l.cur > l.max {
		return 0, &lineTooLongError{line: l.line, limit: l.max}
	}
	return n, err
}
