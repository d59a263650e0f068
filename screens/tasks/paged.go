package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"

	"ledgerdesk/engine"
)

// View is the engine view behind the paged list and the export.
const View = "VW_Tasks"

// Paging limits of the tasks screen (spec 03 section 9: 10, 20 or 50 a page).
const (
	DefaultPageSize = 20
	MaxPageSize     = 200
)

// Query is the paged list's query string (GET /TaskTT/paged and /export):
// page from 1, pageSize, sort as "Field asc|desc", filters as
// "field:value;field:value" (text contains, case-insensitive; numbers and
// dates equal; a date against a time means that day), groupBy a field whose
// rows come together (it sorts first). Columns (export only) are the fields
// to write, in order.
type Query struct {
	Page     string
	PageSize string
	Sort     string
	Filters  string
	GroupBy  string
	Columns  string
	// TimeZone is the reader's IANA zone: an export's times are written in
	// it, as the screen shows them (empty: UTC, and the header says so).
	TimeZone string
}

// Page is the answer of the paged list: {data, total}.
type Page struct {
	Data  json.RawMessage `json:"data"`
	Total int64           `json:"total"`
}

// request turns the query into the engine's grid request.
func (q Query) request(paged bool) (engine.GridRequest, error) {
	r := engine.GridRequest{ViewName: View, ExactCount: true}
	page, size := 1, DefaultPageSize
	var err error
	if paged {
		if strings.TrimSpace(q.Page) != "" {
			if page, err = strconv.Atoi(strings.TrimSpace(q.Page)); err != nil || page < 1 {
				return r, engine.Invalid("page", "page must be a whole number from 1.").With("tasks.badPage")
			}
		}
		if strings.TrimSpace(q.PageSize) != "" {
			if size, err = strconv.Atoi(strings.TrimSpace(q.PageSize)); err != nil || size < 1 || size > MaxPageSize {
				return r, engine.Invalid("pageSize", "pageSize must be from 1 to %d.", MaxPageSize).With("tasks.badPageSize", "max", MaxPageSize)
			}
		}
		r.PageSize, r.PageNumber = size, (page-1)*size
	}
	if s := strings.TrimSpace(q.Sort); s != "" {
		field, order, _ := strings.Cut(s, " ")
		r.SortField, r.SortOrder = field, strings.TrimSpace(order)
		if r.SortOrder == "" {
			r.SortOrder = "asc"
		}
	}
	if g := strings.TrimSpace(q.GroupBy); g != "" {
		if r.SortField != "" && !strings.EqualFold(r.SortField, g) {
			// The engine sorts by one field: the group's, then the key.
			r.SortOrder = "asc"
		}
		r.SortField = g
	}
	for _, pair := range strings.Split(q.Filters, ";") {
		if strings.TrimSpace(pair) == "" {
			continue
		}
		field, value, found := strings.Cut(pair, ":")
		field, value = strings.TrimSpace(field), strings.TrimSpace(value)
		if !found || field == "" {
			return r, engine.Invalid("filters", "filters must be field:value pairs joined by ';', got %q.", pair).With("tasks.badFilters", "value", pair)
		}
		if value == "" {
			continue
		}
		r.Filters = append(r.Filters, engine.Cond{Field: field, Value: value})
	}
	return r, nil
}

// rename gives the engine's request errors the names of this API's
// parameters (SortField is sort here, Filters is filters).
func rename(err error, groupBy string) error {
	var e *engine.Error
	if !errors.As(err, &e) || e.Code != engine.CodeInvalid {
		return err
	}
	out := *e
	switch e.Field {
	case "SortField", "SortOrder":
		out.Field = "sort"
		if groupBy != "" {
			out.Field = "groupBy"
		}
		out.Key, out.Params = "tasks.badSort", nil
	case "Filters":
		out.Field = "filters"
		out.Key, out.Params = "tasks.badFilters", map[string]any{"value": e.Message}
	}
	return &out
}

// Paged returns one page of tasks and the total (GET /TaskTT/paged).
func (s *Service) Paged(ctx context.Context, q Query) (*Page, error) {
	r, err := q.request(true)
	if err != nil {
		return nil, err
	}
	p, err := s.engine.Page(ctx, r)
	if err != nil {
		return nil, rename(err, q.GroupBy)
	}
	raw, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	var grid struct {
		DataList   json.RawMessage `json:"dataList"`
		TotalCount int64           `json:"totalCount"`
	}
	if err := json.Unmarshal(raw, &grid); err != nil {
		return nil, err
	}
	return &Page{Data: grid.DataList, Total: grid.TotalCount}, nil
}

// headers are the export's column headings.
var headers = map[string]string{
	"id": "Id", "taskName": "Task Name", "assignedToName": "Assigned To", "statusLabel": "Status", "remarks": "Remarks",
	"priority": "Priority", "ticketCount": "Tickets", "transactionCount": "Transactions", "totalAmount": "Total Amount",
	"balance": "Balance", "createdBy": "Created By", "createdOn": "Created On", "updatedOn": "Updated On",
	"assignedToId": "Assigned To Id", "isStatus": "Status Number",
}

// Export is a prepared export of the tasks with the list's sort and filters.
type Export struct {
	FileName, ContentType string
	x                     *engine.Export
}

// WriteTo streams the file.
func (e *Export) WriteTo(ctx context.Context, w io.Writer) error { return e.x.WriteTo(ctx, w) }

// PrepareExport checks an export (GET /TaskTT/export): format csv or xlsx
// (excel), the list's sort and filters, optional columns; dateFormat is the
// caller's.
func (s *Service) PrepareExport(ctx context.Context, q Query, format, dateFormat string) (*Export, error) {
	r, err := q.request(false)
	if err != nil {
		return nil, err
	}
	switch strings.ToLower(strings.TrimSpace(format)) {
	case "csv":
		format = "csv"
	case "", "xlsx", "excel":
		format = "xlsx"
	default:
		return nil, engine.Invalid("format", "format must be csv or excel, got %q.", format).With("tasks.badFormat", "value", format)
	}
	req := engine.ExportRequest{GridRequest: r, Format: format, TimeZone: q.TimeZone}
	for _, f := range strings.Split(q.Columns, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		h, ok := headers[f]
		if !ok {
			return nil, engine.Invalid("columns", "%q is not a column of the tasks list.", f).With("tasks.badColumn", "value", f)
		}
		req.Columns = append(req.Columns, engine.ExportColumn{Field: f, Header: h})
	}
	if len(req.Columns) == 0 {
		for _, f := range []string{"id", "taskName", "assignedToName", "statusLabel", "remarks", "totalAmount", "balance", "createdOn", "updatedOn"} {
			req.Columns = append(req.Columns, engine.ExportColumn{Field: f, Header: headers[f]})
		}
	}
	x, err := s.engine.PrepareExport(ctx, req, dateFormat)
	if err != nil {
		return nil, rename(err, q.GroupBy)
	}
	return &Export{FileName: x.FileName, ContentType: x.ContentType, x: x}, nil
}
