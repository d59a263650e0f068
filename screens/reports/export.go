package reports

import (
	"bytes"
	"context"
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
}

// BankOverviewXLSX writes the requested rows of the overview as a
// workbook: text cells stay text (never formulas), amounts are numbers with
// two decimals and thousands separators.
func (s *Service) BankOverviewXLSX(ctx context.Context, r ExportRequest) ([]byte, error) {
	if len(r.Periods) == 0 {
		return nil, engine.Invalid("periods", "periods must list the rows to export.").With("reports.noRows")
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

	f := excelize.NewFile()
	defer f.Close()
	const sheet = "Sheet1"
	bold, _ := f.NewStyle(&excelize.Style{Font: &excelize.Font{Bold: true}})
	amountFmt := "#,##0.00"
	amount, _ := f.NewStyle(&excelize.Style{CustomNumFmt: &amountFmt})
	for i, c := range o.Columns {
		name := c.Key
		if c.Kind != "actor" || c.Actor == nil {
			name = label(c.Key)
		} else {
			name = *c.Actor
		}
		cell, _ := excelize.CoordinatesToCellName(i+1, 1)
		if err := f.SetCellStr(sheet, cell, name); err != nil {
			return nil, engine.Internal(err)
		}
	}
	last, _ := excelize.CoordinatesToCellName(len(o.Columns), 1)
	f.SetCellStyle(sheet, "A1", last, bold)
	f.SetColWidth(sheet, "A", "A", 14)
	if len(o.Columns) > 1 {
		second, _ := excelize.ColumnNumberToName(2)
		end, _ := excelize.ColumnNumberToName(len(o.Columns))
		f.SetColWidth(sheet, second, end, 16)
	}
	for i, row := range rows {
		for j, c := range o.Columns {
			cell, _ := excelize.CoordinatesToCellName(j+1, i+2)
			if j == 0 {
				period := row[KeyPeriod].(string)
				if period == RowTotal {
					period = label(RowTotal)
				}
				f.SetCellStr(sheet, cell, period)
				continue
			}
			v, ok := row[c.Key].(string)
			if !ok {
				continue
			}
			n, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return nil, engine.Internal(err)
			}
			f.SetCellFloat(sheet, cell, n, 2, 64)
			f.SetCellStyle(sheet, cell, cell, amount)
		}
	}
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		return nil, engine.Internal(err)
	}
	return buf.Bytes(), nil
}
