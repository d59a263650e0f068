package imports

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// records is a source of table rows: CSV records or worksheet rows. next
// returns io.EOF at the end; the record may be reused by the next call.
type records interface {
	next() (line int, rec []string, err error)
}

// cellFunc converts the raw value of field i; CSV uses compiled.convert, XLSX
// adds its spreadsheet fallbacks.
type cellFunc func(i int, raw string) (any, *problem)

// table reads a header (unless the layout has none), maps it onto the
// kind's fields and converts every data row.
func (p *parser) table(src records, cell cellFunc) error {
	c := p.c
	cols := make([]int, len(c.fields)) // 0-based source column per field, -1: none
	width := 0                         // the header's fields; 0: no header
	for i := range cols {
		cols[i] = -1
	}
	dcCols := [2]int{-1, -1} // debit and credit columns of a debitCredit amount
	if c.header == 0 {
		for i, s := range c.source {
			if s != "" {
				n, _ := strconv.Atoi(s[1:])
				cols[i] = n - 1
			}
		}
		if c.dc != nil {
			for k, s := range c.dc.source {
				n, _ := strconv.Atoi(s[1:])
				dcCols[k] = n - 1
			}
		}
	} else {
		var header []string
		line := 0
		for n := 0; n < c.header; n++ {
			l, rec, err := src.next()
			if errors.Is(err, io.EOF) {
				if n == 0 {
					return fileError(p.file, 0, 0, "import.file.noHeader", nil, "the file has no rows")
				}
				return fileError(p.file, 0, 0, "import.file.headerRowMissing", map[string]any{"row": c.header}, "the file ends before header row %d", c.header)
			}
			if err != nil {
				return err
			}
			line, header = l, rec
		}
		if err := p.mapHeader(header, line, cols, &dcCols); err != nil {
			return err
		}
		for i, h := range header {
			if strings.TrimSpace(h) != "" {
				width = i + 1
			}
		}
	}
	for n := 0; n < c.d.SkipRows; n++ {
		if _, _, err := src.next(); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}

	errCols := make([]int, len(cols))
	for i, ci := range cols {
		errCols[i] = ci + 1
	}
	if c.dc != nil {
		errCols[c.dc.field] = dcCols[0] + 1
	}
	type held struct {
		line int
		rec  []string
	}
	var footer []held // the last FooterRows rows, held back until a later row proves they are not the footer
	process := func(line int, rec []string) error {
		values := make([]any, len(c.fields))
		bad := false
		if n := fieldCount(rec, width, c.d.Format == FormatXLSX); n != width && width > 0 {
			// An unquoted "12,50" in a comma-separated file splits one value
			// in two and shifts every later one: never read such a row.
			p.codedRowError(line, 0, "", "import.row.fieldCount", map[string]any{"count": n, "header": width},
				"the row has %d fields, but the header has %d; is a value holding the delimiter (12,50) not quoted?", n, width)
			p.sum.RowsRead++
			return nil
		}
		for i, ci := range cols {
			if ci < 0 || ci >= len(rec) {
				continue
			}
			v, pr := cell(i, rec[ci])
			if pr != nil {
				p.rowProblem(line, ci+1, c.fields[i].Name, pr)
				values[i], bad = failed, true
				continue
			}
			values[i] = v
		}
		if c.dc != nil {
			v, col, pr := c.dc.amount(rec, dcCols, cell)
			if pr != nil {
				p.rowProblem(line, col, c.fields[c.dc.field].Name, pr)
				v, bad = failed, true
			}
			values[c.dc.field] = v
		}
		return p.finish(line, values, bad, errCols, "")
	}
	for {
		line, rec, err := src.next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if blank(rec) {
			continue
		}
		if c.d.FooterRows == 0 {
			if err := process(line, rec); err != nil {
				return err
			}
			continue
		}
		footer = append(footer, held{line, slices.Clone(rec)})
		if len(footer) > c.d.FooterRows {
			h := footer[0]
			footer = footer[1:]
			if err := process(h.line, h.rec); err != nil {
				return err
			}
		}
	}
}

// amount reads the signed amount of a row from its debit and credit
// columns: a debit is negative, a credit positive; an empty or zero column
// is the other one's turn; both holding an amount is an error (reported at
// the returned column), as is a malformed number.
func (dc *debitCredit) amount(rec []string, at [2]int, cell cellFunc) (any, int, *problem) {
	var amounts [2]string
	zero := false
	for k, ci := range at {
		if ci < 0 || ci >= len(rec) {
			continue
		}
		v, pr := cell(dc.field, rec[ci])
		if pr != nil {
			return nil, ci + 1, pr
		}
		if v == nil {
			continue
		}
		n := strings.TrimPrefix(v.(string), "-")
		if strings.Trim(n, "0.") == "" {
			zero = true
			continue
		}
		amounts[k] = n
	}
	switch {
	case amounts[0] != "" && amounts[1] != "":
		return nil, at[1] + 1, valueProblem("import.row.debitCredit", map[string]any{"debit": quote(dc.source[0]), "credit": quote(dc.source[1])},
			"both the debit column %s and the credit column %s hold an amount; one of them must be empty or zero",
			quote(dc.source[0]), quote(dc.source[1]))
	case amounts[0] != "":
		return "-" + amounts[0], 0, nil
	case amounts[1] != "":
		return amounts[1], 0, nil
	case zero:
		return "0", 0, nil
	}
	return nil, 0, nil
}

func blank(rec []string) bool {
	for _, s := range rec {
		if trimSpace(s) != "" {
			return false
		}
	}
	return true
}

// normHeader is how headers are compared: case-insensitive, surrounding and
// repeated white space ignored.
func normHeader(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(strings.TrimPrefix(s, "\ufeff")), " "))
}

// mapHeader finds the source column of every mapped field in header and
// refuses, in one message, missing columns, duplicated ones and (when the
// layout is strict) unknown ones - the checks that catch a file of another
// kind or layout before any of its rows is read.
func (p *parser) mapHeader(header []string, line int, cols []int, dcCols *[2]int) error {
	c := p.c
	if len(header) > p.lim.MaxFields {
		return fileError(p.file, line, 0, "import.file.headerTooWide", map[string]any{"count": len(header), "max": p.lim.MaxFields},
			"the header has %d columns, more than the limit of %d", len(header), p.lim.MaxFields)
	}
	at := map[string]int{}
	dup := map[string][]int{}
	for i, h := range header {
		n := normHeader(h)
		if n == "" {
			continue
		}
		if j, ok := at[n]; ok {
			if dup[n] == nil {
				dup[n] = []int{j + 1}
			}
			dup[n] = append(dup[n], i+1)
			continue
		}
		at[n] = i
	}
	used := make([]bool, len(header))
	var missing, problems []string
	for i, src := range c.source {
		if src == "" {
			continue
		}
		if strings.HasPrefix(src, "#") {
			n, _ := strconv.Atoi(src[1:])
			if n > len(header) {
				problems = append(problems, fmt.Sprintf("%s is mapped to column %s but the header has %d columns", c.fields[i].Name, src, len(header)))
				continue
			}
			cols[i], used[n-1] = n-1, true
			continue
		}
		n := normHeader(src)
		j, ok := at[n]
		if !ok {
			if c.fields[i].Required && c.defaults[i] == nil || c.strict {
				missing = append(missing, src)
			}
			continue
		}
		if d := dup[n]; d != nil {
			problems = append(problems, fmt.Sprintf("column %q appears more than once (columns %s)", src, joinInts(d)))
			continue
		}
		cols[i], used[j] = j, true
	}
	if c.dc != nil {
		for k, src := range c.dc.source {
			if strings.HasPrefix(src, "#") {
				n, _ := strconv.Atoi(src[1:])
				if n > len(header) {
					problems = append(problems, fmt.Sprintf("%s is mapped to column %s but the header has %d columns", c.fields[c.dc.field].Name, src, len(header)))
					continue
				}
				dcCols[k], used[n-1] = n-1, true
				continue
			}
			n := normHeader(src)
			j, ok := at[n]
			switch {
			case !ok:
				missing = append(missing, src)
			case dup[n] != nil:
				problems = append(problems, fmt.Sprintf("column %q appears more than once (columns %s)", src, joinInts(dup[n])))
			default:
				dcCols[k], used[j] = j, true
			}
		}
	}
	var unknown []string
	if c.strict {
		for j, h := range header {
			n := normHeader(h)
			if !used[j] && n != "" && !c.ignore[n] && dup[n] == nil {
				unknown = append(unknown, fmt.Sprintf("%s (column %d)", strconv.Quote(trimSpace(h)), j+1))
			}
		}
	}
	if len(missing) > 0 {
		problems = append(problems, "missing columns "+strings.Join(missing, ", "))
	}
	if len(unknown) > 0 {
		problems = append(problems, "unknown columns "+strings.Join(unknown, ", "))
	}
	if len(problems) == 0 {
		return nil
	}
	if k := guessKind(at); k != "" && k != c.d.Kind && len(missing) > 0 {
		return fileError(p.file, line, 0, "import.file.wrongKind",
			map[string]any{"guessed": string(k), "kind": string(c.d.Kind), "missing": strings.Join(missing, ", ")},
			"the columns are those of a %s file, not a %s file: choose the kind %s (missing columns %s)",
			k, c.d.Kind, k, strings.Join(missing, ", "))
	}
	msg := strings.Join(problems, "; ")
	if len(missing) > 0 {
		msg += fmt.Sprintf(" (the layout %q expects %s)", c.d.Name, strings.Join(expected(c), ", "))
	}
	// The usual cases, missing and unknown columns, have their own codes;
	// any other mix is told in English within the translated frame.
	code, params := "import.file.header", map[string]any{"layout": c.d.Name, "detail": msg}
	named := map[string]any{"layout": c.d.Name, "missing": strings.Join(missing, ", "), "expected": strings.Join(expected(c), ", ")}
	switch {
	case len(problems) == 1 && len(missing) > 0:
		code, params = "import.file.headerMissing", named
	case len(problems) == 1 && len(unknown) > 0:
		code, params = "import.file.headerUnknown", map[string]any{"unknown": strings.Join(unknown, ", ")}
	case len(problems) == 2 && len(missing) > 0 && len(unknown) > 0:
		code, params = "import.file.headerMismatch", named
		named["unknown"] = strings.Join(unknown, ", ")
	}
	return fileError(p.file, line, 0, code, params, "%s", msg)
}

// guessKind names the kind whose default layout the header holds (all its
// required columns), to turn "missing columns" into the likelier diagnosis
// of a file uploaded under the wrong kind.
func guessKind(at map[string]int) Kind {
	for _, k := range Kinds {
		hits, all := 0, true
		for _, f := range fields[k] {
			if _, ok := at[strings.ToLower(f.Name)]; ok {
				hits++
			} else if f.Required {
				all = false
			}
		}
		if all && hits > 0 {
			return k
		}
	}
	return ""
}

func expected(c *compiled) []string {
	var out []string
	for _, s := range c.source {
		if s != "" {
			out = append(out, s)
		}
	}
	if c.dc != nil {
		out = append(out, c.dc.source[:]...)
	}
	return out
}

func joinInts(n []int) string {
	s := make([]string, len(n))
	for i, v := range n {
		s[i] = strconv.Itoa(v)
	}
	return strings.Join(s, ", ")
}

// fieldCount is how many fields a row has for comparison with the header's
// width: trailing empty fields past the header do not count (a trailing
// delimiter, a sheet's formatted empty cells), and a worksheet row may end
// early (a sheet stores no empty cells), so for one only fields past the
// header count.
func fieldCount(rec []string, width int, sheet bool) int {
	n := len(rec)
	for n > width && strings.TrimSpace(rec[n-1]) == "" {
		n--
	}
	if sheet && n < width {
		return width
	}
	return n
}
