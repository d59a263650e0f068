package imports

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/xuri/excelize/v2"
)

// maxZipParts bounds the number of parts of a workbook before excelize sees
// it: the zip directory is read into memory whole, and a real workbook has a
// few dozen parts, not the millions a hostile file can declare.
const maxZipParts = 10000

// xlsx reads one worksheet of a workbook. The zip container needs random
// access, so the upload (bounded by MaxBytes) is spooled to a temporary
// file, removed afterwards, and the workbook opened from there; the sheet
// itself is streamed row by row through excelize's Rows, with the unpacked
// size of all parts bounded by MaxUnzipBytes (a zip bomb fails before it is
// inflated) and large sheets spilled to a temporary file rather than memory.
// Cells are read raw, so a date cell arrives as its serial number and an
// amount as the stored number, whatever the display format; see xlsxCell.
func (p *parser) xlsx(r io.Reader) (err error) {
	book, size, err := spool(r)
	if err != nil {
		return err
	}
	defer removeSpool(book)
	if n, ok := zipParts(book, size); !ok {
		return fileError(p.file, 0, 0, "import.file.zipDirectory", nil, "the workbook is damaged: its zip directory cannot be found (a truncated upload?)")
	} else if n > maxZipParts {
		return fileError(p.file, 0, 0, "import.file.zipParts", map[string]any{"count": n, "max": maxZipParts},
			"the workbook has %d parts, more than the %d an import file may have", n, maxZipParts)
	}
	zr, err := zip.NewReader(book, size)
	if err != nil {
		return fileError(p.file, 0, 0, "import.file.workbookDamagedDetail", map[string]any{"detail": err.Error()}, "the workbook is damaged and cannot be read (%v)", err)
	}
	// The declared sizes are what excelize limits on too; archive/zip
	// refuses to inflate a part past its declared size, so a part that lies
	// about it fails on read instead of filling memory.
	hasWorkbook, unzipped := false, uint64(0)
	for _, f := range zr.File {
		hasWorkbook = hasWorkbook || strings.EqualFold(f.Name, "xl/workbook.xml")
		unzipped += f.UncompressedSize64
		if unzipped > uint64(p.lim.MaxUnzipBytes) {
			return p.zipBomb()
		}
	}
	if !hasWorkbook {
		return fileError(p.file, 0, 0, "import.file.notXlsx", nil, "the file is a zip archive but not an XLSX workbook (it has no xl/workbook.xml)")
	}
	defer func() {
		// excelize is third-party code fed hostile bytes; whatever it does
		// wrong, the user gets a message and the server keeps running.
		if v := recover(); v != nil {
			err = fileError(p.file, 0, 0, "import.file.workbookDamaged", nil, "the workbook is damaged and cannot be read")
		}
	}()
	xmlLimit := min(p.lim.MaxUnzipBytes, 16<<20)
	f, err := excelize.OpenFile(book.Name(), excelize.Options{
		UnzipSizeLimit:    p.lim.MaxUnzipBytes,
		UnzipXMLSizeLimit: xmlLimit,
		RawCellValue:      true,
	})
	if err != nil {
		return p.workbookError(err)
	}
	defer f.Close()
	sheets := f.GetSheetList()
	if len(sheets) == 0 {
		return fileError(p.file, 0, 0, "import.file.noSheets", nil, "the workbook has no worksheets")
	}
	sheet := sheets[0]
	if want := p.c.d.Sheet; want != "" {
		sheet = ""
		for _, s := range sheets {
			if strings.EqualFold(strings.TrimSpace(s), strings.TrimSpace(want)) {
				sheet = s
			}
		}
		if sheet == "" {
			return fileError(p.file, 0, 0, "import.file.noSheet", map[string]any{"sheet": strconv.Quote(want), "sheets": strings.Join(quoteAll(sheets), ", ")},
				"the workbook has no sheet %q (it has %s)", want, strings.Join(quoteAll(sheets), ", "))
		}
	}
	date1904 := false
	if props, err := f.GetWorkbookProps(); err == nil && props.Date1904 != nil {
		date1904 = *props.Date1904
	}
	rows, err := f.Rows(sheet)
	if err != nil {
		return p.workbookError(err)
	}
	defer rows.Close()
	src := &sheetRows{p: p, rows: rows, sheet: sheet}
	return p.table(src, p.xlsxCell(date1904))
}

func (p *parser) workbookError(err error) error {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "unzip size exceeds"):
		return p.zipBomb()
	case errors.Is(err, zip.ErrFormat), errors.Is(err, zip.ErrAlgorithm), errors.Is(err, zip.ErrChecksum), errors.Is(err, excelize.ErrWorkbookFileFormat):
		return fileError(p.file, 0, 0, "import.file.workbookDamagedDetail", map[string]any{"detail": err.Error()}, "the workbook is damaged and cannot be read (%v)", err)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fileError(p.file, 0, 0, "import.file.workbookTruncated", nil, "the workbook is damaged: a part of it ends early")
	}
	e := fileError(p.file, 0, 0, "import.file.workbookUnreadable", map[string]any{"detail": err.Error()}, "the workbook cannot be read: %v", err)
	e.Err = err
	return e
}

func (p *parser) zipBomb() error {
	limit := byteSize(p.lim.MaxUnzipBytes)
	return fileError(p.file, 0, 0, "import.file.zipBomb", map[string]any{"limit": limit},
		"the workbook unpacks to more than %s; it is refused as a possible zip bomb", limit)
}

func quoteAll(s []string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[i] = strconv.Quote(v)
	}
	return out
}

// zipParts reads the entry count from the zip's end-of-central-directory
// record (or its zip64 form) at the end of the size bytes of r.
func zipParts(r io.ReaderAt, size int64) (uint64, bool) {
	const eocdLen, locatorLen, zip64Len = 22, 20, 56
	if size < eocdLen {
		return 0, false
	}
	start := max(0, size-eocdLen-65535-locatorLen) // the end record, its comment and the zip64 locator
	b := make([]byte, size-start)
	if _, err := r.ReadAt(b, start); err != nil {
		return 0, false
	}
	i := bytes.LastIndex(b, []byte("PK\x05\x06"))
	if i < 0 || i+eocdLen > len(b) {
		return 0, false
	}
	n := uint64(binary.LittleEndian.Uint16(b[i+10:]))
	if n != 0xFFFF {
		return n, true
	}
	// zip64: the locator sits right before the end record and points at
	// the zip64 end record, which holds the real count.
	if i < locatorLen || string(b[i-locatorLen:i-16]) != "PK\x06\x07" {
		return 0, false
	}
	off := binary.LittleEndian.Uint64(b[i-12:])
	end := make([]byte, zip64Len)
	if size < zip64Len || off > uint64(size-zip64Len) {
		return 0, false
	}
	if _, err := r.ReadAt(end, int64(off)); err != nil || string(end[:4]) != "PK\x06\x06" {
		return 0, false
	}
	return binary.LittleEndian.Uint64(end[32:]), true
}

// sheetRows yields worksheet rows; excelize's Rows yields the gaps between
// stored rows as empty rows, so the count of Next calls is the row number.
type sheetRows struct {
	p     *parser
	rows  *excelize.Rows
	sheet string
	n     int
}

func (s *sheetRows) next() (int, []string, error) {
	if !s.rows.Next() {
		if err := s.rows.Error(); err != nil {
			return 0, nil, fileError(s.p.file, s.n+1, 0, "import.file.sheetUnreadable", map[string]any{"sheet": strconv.Quote(s.sheet), "detail": err.Error()},
				"sheet %q: %v", s.sheet, err)
		}
		return 0, nil, io.EOF
	}
	s.n++
	cols, err := s.rows.Columns()
	if err != nil {
		return 0, nil, fileError(s.p.file, s.n, 0, "import.file.sheetRowUnreadable", map[string]any{"sheet": strconv.Quote(s.sheet), "detail": err.Error()},
			"sheet %q: row %d cannot be read: %v", s.sheet, s.n, err)
	}
	for len(cols) > 0 && cols[len(cols)-1] == "" {
		cols = cols[:len(cols)-1]
	}
	if len(cols) > s.p.lim.MaxFields {
		return 0, nil, fileError(s.p.file, s.n, 0, "import.file.sheetRowTooWide", map[string]any{"sheet": strconv.Quote(s.sheet), "count": len(cols), "max": s.p.lim.MaxFields},
			"sheet %q: row %d has %d columns, more than the limit of %d", s.sheet, s.n, len(cols), s.p.lim.MaxFields)
	}
	return s.n, cols, nil
}

// xlsxCell converts a raw cell. A date field accepts the descriptor's text
// format first and then a date serial (a real date cell); a decimal field
// takes a stored number as Excel shows it (15 significant digits, so a
// binary artefact like 12.300000000000001 becomes 12.3) and text in the
// descriptor's format; a ticket number stored as a number in exponent form
// is written out in full. Because raw cells carry no type here, a numeric
// cell whose digits also read as grouped text ("1.234" under a decimal-comma
// layout) is read the layout's way - layouts with a decimal comma should be
// for sheets that store amounts as text.
func (p *parser) xlsxCell(date1904 bool) cellFunc {
	c := p.c
	return func(i int, raw string) (any, *problem) {
		s := trimSpace(raw)
		switch c.fields[i].Type {
		case TypeDate:
			v, pr := c.convert(i, s)
			if pr == nil {
				return v, nil
			}
			if serial, err := strconv.ParseFloat(s, 64); err == nil && serial >= 1 && serial < 2958466 && !strings.ContainsAny(s, "eE") {
				if t, err := excelize.ExcelDateToTime(serial, date1904); err == nil {
					if d, ok := makeDate(t.Year(), int(t.Month()), t.Day()); ok {
						return d, nil
					}
				}
			}
			pr.Msg += " or a spreadsheet date"
			return nil, pr
		case TypeDecimal:
			if s != "" && needsFloatRounding(s) {
				if v, ok := parseMachineNumber(s); ok {
					return v, nil
				}
			}
			v, pr := c.convert(i, s)
			if pr != nil {
				if v, ok := parseMachineNumber(s); ok && c.dec == ',' {
					return v, nil
				}
			}
			return v, pr
		case TypeTicket:
			if strings.ContainsAny(s, "eE") {
				if f, err := strconv.ParseFloat(s, 64); err == nil && f >= 1e12 && f < 1e13 {
					s = fmt.Sprintf("%.0f", f)
				}
			}
		}
		return c.convert(i, s)
	}
}
