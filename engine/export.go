package engine

import (
	"bufio"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"strings"
	"time"
	_ "time/tzdata" // user time zones for exports, also where the system has none

	"github.com/doug-martin/goqu/v9"
	"github.com/jackc/pgx/v5"
	"github.com/xuri/excelize/v2"
)

// ExportTimeout bounds an export: exports run longer than a page.
const ExportTimeout = 5 * time.Minute

// MaxXLSXRows is the most rows an XLSX file holds (a sheet holds 1,048,576);
// a larger export is cut there and says so (Export.CutAt, and a last line in
// the sheet). A CSV file holds every row. A variable so tests can lower it.
var MaxXLSXRows = 1_000_000

// maxSafeDigits is how many significant digits a spreadsheet number keeps
// (IEEE double): a decimal with more is written as its exact text instead.
const maxSafeDigits = 15

// ExportRequest is a grid request plus the file format and, optionally, the
// columns to write with their (translated) headers, in order.
type ExportRequest struct {
	GridRequest
	Format  string         `json:"Format"` // xlsx (default) or csv
	Columns []ExportColumn `json:"Columns"`
	// TimeZone is the user's IANA zone (e.g. Europe/Stockholm): datetimes are
	// written in it, as the grid shows them, and their headers name it. Empty: UTC.
	TimeZone string `json:"TimeZone"`
}

// ExportColumn is one column of the file.
type ExportColumn struct {
	Field  string `json:"field"`
	Header string `json:"header"`
}

// Export is a validated export, ready to stream.
type Export struct {
	FileName    string
	ContentType string
	e           *Engine
	q           *query
	cols        []*Column
	headers     []string
	format      string
	dateFormat  string // the user's format, e.g. DD-MM-YYYY HH:mm:ss
	dateLayout  string // dateFormat as Go layouts, computed once
	timeLayout  string
	msgLayout   string // a message's dates: minutes, no seconds
	zone        *time.Location
	sql         string
	args        []any
	// msgs and msgCols: the message columns (by index in cols) written in
	// the caller's language, with the indexes of their code and params
	// columns in each row (selected after cols).
	msgs    *messageTexts
	msgCols map[int][2]int
	// labels: the enum and badge columns' values as the grid shows them, in
	// the caller's language (valuelabels.go).
	labels *columnLabels
	// CutAt is set when the file holds only the first CutAt rows of more
	// (XLSX past MaxXLSXRows); the handler tells the client before streaming.
	CutAt int
}

// PrepareExport checks an export request (view, permission, filter, sort,
// columns, format) so that every mistake is answered before streaming starts.
func (e *Engine) PrepareExport(ctx context.Context, r ExportRequest, dateFormat string) (*Export, error) {
	q, err := e.resolve(ctx, &r.GridRequest)
	if err != nil {
		return nil, err
	}
	if q.view.Export == "" {
		return nil, Invalid("ViewName", "%s has no export.", q.view.Name).With("export.none")
	}
	x := &Export{e: e, q: q, format: strings.ToLower(r.Format), dateFormat: dateFormat,
		dateLayout: goDateLayout(dateFormat, false), timeLayout: goDateLayout(dateFormat, true),
		msgLayout: goDateLayout(strings.TrimSuffix(dateFormat, ":ss"), true), zone: time.UTC}
	if tz := strings.TrimSpace(r.TimeZone); tz != "" {
		if x.zone, err = time.LoadLocation(tz); err != nil || tz == "Local" {
			return nil, Invalid("TimeZone", "TimeZone %q is not a known time zone (for example Europe/Stockholm).", r.TimeZone).With("export.badTimeZone", "zone", r.TimeZone)
		}
	}
	switch x.format {
	case "", "xlsx", "excel":
		x.format, x.FileName, x.ContentType = "xlsx", q.view.Export+".xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
	case "csv":
		x.FileName, x.ContentType = q.view.Export+".csv", "text/csv; charset=utf-8"
	default:
		return nil, Invalid("Format", "Format must be xlsx or csv, got %q.", r.Format).With("export.format", "format", r.Format)
	}
	if len(r.Columns) == 0 {
		for _, c := range q.view.Columns {
			if !c.Hidden {
				r.Columns = append(r.Columns, ExportColumn{Field: c.Field})
			}
		}
	}
	for _, ec := range r.Columns {
		c := q.view.column(ec.Field)
		if c == nil {
			return nil, Invalid("Columns", "Export column %q is not a column of %s.", ec.Field, q.view.Name).With("export.column", "field", ec.Field)
		}
		h := strings.TrimSpace(ec.Header)
		if h == "" {
			h = c.Field
		}
		if c.typ().Instant { // written in the user's zone, which the header names
			h += " (" + x.zone.String() + ")"
		}
		x.cols = append(x.cols, c)
		x.headers = append(x.headers, h)
	}
	// Select only the exported columns, in the file's order, then the codes
	// and parameters of the message columns among them.
	view := *q.view
	view.Columns = x.cols[:len(x.cols):len(x.cols)]
	if x.msgs = e.messageTexts(ctx); x.msgs != nil {
		for i, c := range x.cols {
			if code, params := q.view.messageParts(c); code != nil {
				if x.msgCols == nil {
					x.msgCols = map[int][2]int{}
				}
				x.msgCols[i] = [2]int{len(view.Columns), len(view.Columns) + 1}
				view.Columns = append(view.Columns, code, params)
			}
		}
	}
	x.labels = e.exportLabels(q.view, x.cols, ActorFrom(ctx).Language)
	sub := &query{view: &view, from: q.from, where: q.where, order: q.order}
	ds := sub.dataset()
	if x.format == "xlsx" {
		// One row past the limit tells whether the file is cut.
		ds = ds.Limit(uint(MaxXLSXRows) + 1)
		countSQL, countArgs, err := dialect.From(ds.As("x")).Prepared(true).Select(goqu.COUNT(goqu.Star())).ToSQL()
		if err != nil {
			return nil, Internal(err)
		}
		var n int
		if err := e.reader(ctx).QueryRow(ctx, countSQL, countArgs...).Scan(&n); err != nil {
			return nil, TranslatePG(err)
		}
		if n > MaxXLSXRows {
			x.CutAt = MaxXLSXRows
			ds = ds.Limit(uint(MaxXLSXRows))
		}
	}
	if x.sql, x.args, err = ds.ToSQL(); err != nil {
		return nil, Internal(err)
	}
	return x, nil
}

// WriteTo streams the file to w: rows go from the database cursor to the
// writer without holding the result in memory.
func (x *Export) WriteTo(ctx context.Context, w io.Writer) error {
	ctx, cancel := context.WithTimeout(ctx, ExportTimeout)
	defer cancel()
	return pgx.BeginTxFunc(ctx, x.e.reader(ctx), pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, fmt.Sprintf("set local statement_timeout = %d", ExportTimeout.Milliseconds())); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, x.sql, x.args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		if x.format == "csv" {
			return x.writeCSV(rows, w)
		}
		return x.writeXLSX(rows, w)
	})
}

func (x *Export) writeCSV(rows pgx.Rows, w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteString("\uFEFF") // so spreadsheet programs read UTF-8
	cw := csv.NewWriter(bw)
	if err := cw.Write(neutraliseAll(x.headers)); err != nil {
		return err
	}
	rec := make([]string, len(x.cols))
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return err
		}
		for i, c := range x.cols {
			rec[i] = x.text(c, x.value(i, vals))
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	return bw.Flush()
}

// value is the value of column i in a row as the grid shows it: a message
// column's text and an enum's or badge's label in the caller's language.
func (x *Export) value(i int, vals []any) any {
	m, ok := x.msgCols[i]
	if !ok {
		return x.labels.label(i, x.cols[i], vals[i])
	}
	str := func(v any) string { s, _ := v.(string); return s }
	text := x.msgs.render(str(vals[m[0]]), str(vals[m[1]]), str(vals[i]), x.msgLayout, x.zone)
	if text == "" && vals[i] == nil {
		return nil
	}
	return text
}

// text is a value as a CSV cell, as its type writes it (numbers with the
// column's decimals, dates in the user's format, text neutralised against
// formula injection), else its JSON value as neutralised text.
func (x *Export) text(c *Column, v any) string {
	if v == nil {
		return ""
	}
	if t := c.typ(); t.csv != nil {
		if s, ok := t.csv(x, c, v); ok {
			return s
		}
	}
	return neutralise(fmt.Sprint(c.jsonValue(v)))
}

// neutralise defuses a text cell that a spreadsheet would run as a formula
// (DESIGN.md section 8): a leading quote makes it plain text.
func neutralise(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r\x00", rune(s[0])) {
		return "'" + s
	}
	return s
}

func neutraliseAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = neutralise(s)
	}
	return out
}

func (x *Export) writeXLSX(rows pgx.Rows, w io.Writer) error {
	f := excelize.NewFile()
	defer f.Close()
	sw, err := f.NewStreamWriter("Sheet1")
	if err != nil {
		return err
	}
	header, _ := f.NewStyle(&excelize.Style{Font: &excelize.Font{Bold: true}})
	styles := make([]int, len(x.cols))
	for i, c := range x.cols {
		var fmtCode string
		if t := c.typ(); t.xlsxFormat != nil {
			fmtCode = t.xlsxFormat(x, c)
		}
		if fmtCode != "" {
			if styles[i], err = f.NewStyle(&excelize.Style{CustomNumFmt: &fmtCode}); err != nil {
				return err
			}
		}
		width := float64(max(12, min(50, len(x.headers[i])+4)))
		if err := sw.SetColWidth(i+1, i+1, width); err != nil {
			return err
		}
	}
	cells := make([]any, len(x.cols))
	for i, h := range x.headers {
		cells[i] = excelize.Cell{StyleID: header, Value: h}
	}
	if err := sw.SetRow("A1", cells, excelize.RowOpts{Height: 18}); err != nil {
		return err
	}
	row := 2
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return err
		}
		cells = make([]any, len(x.cols))
		for i, c := range x.cols {
			cells[i] = excelize.Cell{StyleID: styles[i], Value: x.xlsxValue(c, x.value(i, vals))}
		}
		cell, _ := excelize.CoordinatesToCellName(1, row)
		if err := sw.SetRow(cell, cells); err != nil {
			return err
		}
		row++
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if x.CutAt > 0 {
		cell, _ := excelize.CoordinatesToCellName(1, row)
		note := fmt.Sprintf("Cut at %d rows: the view holds more. Narrow the filters or export CSV for every row.", x.CutAt)
		if err := sw.SetRow(cell, []any{excelize.Cell{StyleID: header, Value: note}}); err != nil {
			return err
		}
	}
	if err := sw.Flush(); err != nil {
		return err
	}
	return f.Write(w)
}

// xlsxValue is a typed cell value: numbers as numbers, dates as dates, text
// as inline strings (never formulas). A decimal is first rounded exactly to
// the column's scale (as the grid and the CSV show it); a number cell then
// holds that decimal exactly whenever a spreadsheet number can (15
// significant digits), else the cell holds its exact text: a figure is never
// silently changed. Datetimes are the wall-clock time in the user's zone.
func (x *Export) xlsxValue(c *Column, v any) any {
	if v == nil {
		return nil
	}
	if t := c.typ(); t.xlsx != nil {
		if cell, ok := t.xlsx(x, c, v); ok {
			return cell
		}
	}
	return fmt.Sprint(c.jsonValue(v))
}

// significantDigits counts the digits of a decimal string from its first
// non-zero digit ("-0.0012" has 2, "1200.50" has 6).
func significantDigits(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		// (a loop: a strings.Replacer built per cell was a sixth of an export's time)
		switch c := s[i]; {
		case c == '-' || c == '.':
		case c == '0' && n == 0:
		default:
			n++
		}
	}
	return n
}

// goDateLayout turns a user date format (DD-MM-YYYY HH:mm:ss, ...) into a
// Go layout; withTime keeps the time part.
func goDateLayout(format string, withTime bool) string {
	if format == "" {
		format = "DD-MM-YYYY HH:mm:ss"
	}
	date, timePart, _ := strings.Cut(format, " ")
	layout := strings.NewReplacer("YYYY", "2006", "MM", "01", "DD", "02").Replace(date)
	if withTime {
		if timePart == "" {
			timePart = "HH:mm:ss"
		}
		layout += " " + strings.NewReplacer("HH", "15", "mm", "04", "ss", "05").Replace(timePart)
	}
	return layout
}

// excelDateFormat turns a user date format into a spreadsheet number format.
func excelDateFormat(format string, withTime bool) string {
	if format == "" {
		format = "DD-MM-YYYY HH:mm:ss"
	}
	date, timePart, _ := strings.Cut(format, " ")
	out := strings.NewReplacer("YYYY", "yyyy", "MM", "mm", "DD", "dd").Replace(date)
	if withTime {
		if timePart == "" {
			timePart = "HH:mm:ss"
		}
		out += " " + strings.NewReplacer("HH", "hh", "mm", "mm", "ss", "ss").Replace(timePart)
	}
	return out
}
