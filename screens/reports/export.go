package reports

import (
	"context"
	"io"
	"strconv"
	"strings"

	"github.com/xuri/excelize/v2"

	"ledgerdesk/engine"
)

// ExportFileName is the bank overview's Excel file.
const ExportFileName = "Bank_Overview.xlsx"

// maxLabel bounds a header label the client sends.
const maxLabel = 100

// ExportRequest asks for the bank overview as the screen shows it: the
// parameters, the periods shown in their order (after the screen's text
// filter and sort; RowTotal where it stands) and the screen's header
// labels in the reader's language. The amounts are computed again here, so
// the file holds the database's figures, never the client's.
type ExportRequest struct {
	Params
	Periods []string `json:"periods"`
	// Labels translate the keys Period, Total, (none) and RowTotal; others are ignored.
	Labels map[string]string `json:"labels"`
	// PeriodLabels are the periods as the screen shows them, by period (a
	// day in the reader's date format: 14-03-2026); a period without one
	// is written as its key (2026-03-14).
	PeriodLabels map[string]string `json:"periodLabels"`
}

// BankOverviewXLSX checks the request and computes the overview, then
// returns what writes the requested rows as a workbook: text cells stay
// text (never formulas), amounts are numbers with two decimals and
// thousands separators. Each period is asked for once, so the file has at
// most the overview's rows (itself bounded: PIVOT_MAX_PERIODS); the sheet is
// streamed through a temporary file, never held whole in memory.
func (s *Service) BankOverviewXLSX(ctx context.Context, r ExportRequest) (func(context.Context, io.Writer) error, error) {
	if len(r.Periods) == 0 {
		return nil, engine.Invalid("periods", "periods must list the rows to export.").With("reports.noRows")
	}
	seen := make(map[string]bool, len(r.Periods))
	for _, p := range r.Periods {
		if seen[p] {
			return nil, engine.Invalid("periods", "%q is listed twice; list each row once.", p).With("reports.repeatedPeriod", "period", p)
		}
		seen[p] = true
	}
	o, err := s.BankOverview(ctx, r.Params)
	if err != nil {
		return nil, err
	}
	byPeriod := make(map[string]map[string]any, len(o.Data))
	for _, row := range o.Data {
		byPeriod[row[KeyPeriod].(string)] = row
	}
	rows := make([]map[string]any, 0, len(r.Periods))
	for _, p := range r.Periods {
		row, ok := byPeriod[p]
		if !ok {
			return nil, engine.Invalid("periods", "%q is not a period of this overview.", p).With("reports.unknownPeriod", "period", p)
		}
		rows = append(rows, row)
	}
	label := func(key string) string {
		if l := strings.TrimSpace(r.Labels[key]); l != "" && len(l) <= maxLabel {
			return l
		}
		return key
	}
	period := func(p string) string {
		if p == RowTotal {
			return label(RowTotal)
		}
		if l := strings.TrimSpace(r.PeriodLabels[p]); l != "" && len(l) <= maxLabel {
			return l
		}
		return p
	}
	return func(_ context.Context, w io.Writer) error { return writeOverview(w, o, rows, label, period) }, nil
}

func writeOverview(w io.Writer, o *Overview, rows []map[string]any, label, period func(string) string) error {
	f := excelize.NewFile()
	defer f.Close()
	const sheet = "Sheet1"
	sw, err := f.NewStreamWriter(sheet)
	if err != nil {
		return err
	}
	bold, _ := f.NewStyle(&excelize.Style{Font: &excelize.Font{Bold: true}})
	amountFmt := "#,##0.00"
	amount, _ := f.NewStyle(&excelize.Style{CustomNumFmt: &amountFmt})
	if err := sw.SetColWidth(1, 1, 14); err != nil {
		return err
	}
	if len(o.Columns) > 1 {
		if err := sw.SetColWidth(2, len(o.Columns), 16); err != nil {
			return err
		}
	}
	header := make([]any, len(o.Columns))
	for i, c := range o.Columns {
		name := c.Key
		if c.Kind != "actor" || c.Actor == nil {
			name = label(c.Key)
		} else {
			name = *c.Actor
		}
		header[i] = excelize.Cell{Value: name, StyleID: bold}
	}
	if err := sw.SetRow("A1", header); err != nil {
		return err
	}
	for i, row := range rows {
		cells := make([]any, len(o.Columns))
		for j, c := range o.Columns {
			if j == 0 {
				cells[j] = excelize.Cell{Value: period(row[KeyPeriod].(string))} // a string cell: never a formula
				continue
			}
			v, ok := row[c.Key].(string)
			if !ok {
				cells[j] = nil
				continue
			}
			n, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return err
			}
			cells[j] = excelize.Cell{Value: n, StyleID: amount}
		}
		cell, _ := excelize.CoordinatesToCellName(1, i+2)
		if err := sw.SetRow(cell, cells); err != nil {
			return err
		}
	}
	if err := sw.Flush(); err != nil {
		return err
	}
	return f.Write(w)
}
