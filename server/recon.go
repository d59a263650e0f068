package server

import (
	"bufio"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v3"

	"ledgerdesk/engine"
	"ledgerdesk/screens/recon"
)

// reportViews are the engine views behind each level's report.
var reportViews = map[string]string{
	"ticket-transaction":     "VW_ReconTicketTransaction",
	"transaction-settlement": "VW_ReconTransactionSettlement",
	"settlement-bank":        "VW_ReconSettlementBank",
}

// ticketLookupView is the ticket-only lookup of level 1.
const ticketLookupView = "VW_ReconTicketLookup"

// reconHandlers serve reconciliation (DESIGN.md section 4): filter lists,
// reports (engine views with params), auto runs, manual matches and undo,
// candidates, details, the chain and why a record did not match.
type reconHandlers struct {
	recon      *recon.Service
	engine     *engine.Engine
	grids      *gridHandlers
	dateFormat func(c fiber.Ctx) string
}

func (h *reconHandlers) mount(r fiber.Router, auth fiber.Handler) {
	g := r.Group("/recon", auth, screen(screenReconcile))
	g.Get("/providers", h.providers)
	g.Get("/currencies", h.currencies)
	g.Get("/runs", h.runs)
	g.Get("/runs/:id", h.run)
	g.Get("/chain/:kind/:id", h.chain)
	g.Post("/ticket-transaction/tickets", h.ticketLookup)
	g.Post("/ticket-transaction/tickets/export", h.ticketLookupExport)
	g.Post("/:level/report", h.report)
	g.Post("/:level/report/export", h.reportExport)
	g.Post("/:level/auto", h.auto)
	g.Post("/:level/match", h.match)
	g.Post("/:level/investigate", h.investigate)
	g.Delete("/:level/match/:id", h.undo)
	g.Post("/:level/candidates", h.candidates)
	g.Post("/:level/details", h.details)
	g.Get("/:level/why/:side/:id", h.why)
}

func (h *reconHandlers) providers(c fiber.Ctx) error {
	list, err := h.recon.Providers(c.Context())
	if err != nil {
		return err
	}
	return ok(c, list)
}

func (h *reconHandlers) currencies(c fiber.Ctx) error {
	list, err := h.recon.Currencies(c.Context())
	if err != nil {
		return err
	}
	return ok(c, list)
}

func level(c fiber.Ctx) (*recon.Level, error) { return recon.LevelBySlug(c.Params("level")) }

// reportRequest is the dashboard's filters with the grid's paging, sorting
// and column filters.
type reportRequest struct {
	recon.Filters
	engine.GridRequest
	Format  string                `json:"Format"`  // export: xlsx or csv
	Columns []engine.ExportColumn `json:"Columns"` // export: the columns shown, with their headers
}

// gridRequest checks the filters and turns the request into a grid request
// of view, with the filters bound to its params.
func (r *reportRequest) gridRequest(view string, withTicket bool) (engine.GridRequest, error) {
	if err := r.Filters.Check(); err != nil {
		return engine.GridRequest{}, err
	}
	g := r.GridRequest
	g.ViewName, g.Params = view, r.Filters.Params(withTicket)
	return g, nil
}

func (h *reconHandlers) reportGrid(c fiber.Ctx, lookup bool) (*reportRequest, engine.GridRequest, error) {
	var req reportRequest
	if err := decodeStrictNumbers(c, &req); err != nil {
		// The body is one flat object: name the field, not the Go struct it sits in.
		var e *engine.Error
		if errors.As(err, &e) {
			e.Field = strings.TrimPrefix(strings.TrimPrefix(e.Field, "Filters."), "GridRequest.")
			e.Message = strings.TrimPrefix(strings.TrimPrefix(e.Message, "Filters."), "GridRequest.")
		}
		return nil, engine.GridRequest{}, err
	}
	view := ticketLookupView
	if !lookup {
		l, err := level(c)
		if err != nil {
			return nil, engine.GridRequest{}, err
		}
		view = reportViews[l.Slug]
	}
	g, err := req.gridRequest(view, view != "VW_ReconSettlementBank")
	return &req, g, err
}

func (h *reconHandlers) report(c fiber.Ctx) error { return h.page(c, false) }

func (h *reconHandlers) ticketLookup(c fiber.Ctx) error { return h.page(c, true) }

func (h *reconHandlers) page(c fiber.Ctx, lookup bool) error {
	_, g, err := h.reportGrid(c, lookup)
	if err != nil {
		return err
	}
	p, err := h.engine.Page(c.Context(), g)
	if err != nil {
		return err
	}
	return okPage(c, p)
}

func (h *reconHandlers) reportExport(c fiber.Ctx) error { return h.export(c, false) }

func (h *reconHandlers) ticketLookupExport(c fiber.Ctx) error { return h.export(c, true) }

// export streams a report as XLSX or CSV through the engine's export, with
// the current filters, sort and column filters.
func (h *reconHandlers) export(c fiber.Ctx, lookup bool) error {
	req, g, err := h.reportGrid(c, lookup)
	if err != nil {
		return err
	}
	x, err := h.engine.PrepareExport(c.Context(), engine.ExportRequest{GridRequest: g, Format: req.Format, Columns: req.Columns}, h.dateFormat(c))
	if err != nil {
		return err
	}
	ctx := c.Context()
	c.Set(fiber.HeaderContentType, x.ContentType)
	c.Set(fiber.HeaderContentDisposition, fmt.Sprintf(`attachment; filename="%s"`, x.FileName))
	c.Set(fiber.HeaderCacheControl, "no-store")
	return c.SendStreamWriter(func(w *bufio.Writer) {
		if err := x.WriteTo(ctx, w); err != nil {
			h.grids.log.Error("report export failed while streaming", "file", x.FileName, "err", err)
		}
		w.Flush()
	})
}

// auto starts an automatic reconcile of the level and waits for it: the
// run's counts when it finished, 202 with the run when it goes on, 409
// naming the run already going.
func (h *reconHandlers) auto(c fiber.Ctx) error {
	l, err := level(c)
	if err != nil {
		return err
	}
	run, err := h.recon.Auto(c.Context(), l)
	if err != nil {
		return err
	}
	switch run.Status {
	case "succeeded":
		return ok(c, run)
	case "failed":
		return engine.Unavailable("Auto Reconcile failed: %s", run.Error).With("recon.autoFailed", "runId", run.ID, "error", run.Error)
	}
	return c.Status(fiber.StatusAccepted).JSON(envelope{Succeeded: true, Data: run})
}

func (h *reconHandlers) runs(c fiber.Ctx) error {
	var l *recon.Level
	if slug := c.Query("level"); slug != "" {
		var err error
		if l, err = recon.LevelBySlug(slug); err != nil {
			return err
		}
	}
	limit := 20
	if s := c.Query("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 200 {
			return engine.Invalid("limit", "limit must be a whole number from 1 to 200.").With("recon.limit")
		}
		limit = n
	}
	list, err := h.recon.Runs(c.Context(), l, limit)
	if err != nil {
		return err
	}
	return ok(c, list)
}

func (h *reconHandlers) run(c fiber.Ctx) error {
	id, err := idParam(c, "id")
	if err != nil {
		return err
	}
	r, err := h.recon.GetRun(c.Context(), id)
	if err != nil {
		return err
	}
	return ok(c, r)
}

// matchBody takes every shape of spec 03 section 7.1 and DESIGN.md section
// 4: {ticketId, transactionId}, {transactionId, settlementId}, {settlement,
// bank} (the chosen rows) and {leftId, rightId, investigate, force}.
type matchBody struct {
	LeftID        *int64         `json:"leftId"`
	RightID       *int64         `json:"rightId"`
	TicketID      *int64         `json:"ticketId"`
	TransactionID *int64         `json:"transactionId"`
	SettlementID  *int64         `json:"settlementId"`
	Settlement    map[string]any `json:"settlement"`
	Bank          map[string]any `json:"bank"`
	Investigate   bool           `json:"investigate"`
	Force         bool           `json:"force"`
	Reason        string         `json:"reason"`
}

// request maps the body onto the level's sides, refusing a body of
// another level's shape.
func (b *matchBody) request(l *recon.Level) (recon.MatchRequest, error) {
	req := recon.MatchRequest{Investigate: b.Investigate, Force: b.Force, Reason: b.Reason}
	pick := func(ids ...*int64) int64 {
		for _, id := range ids {
			if id != nil {
				return *id
			}
		}
		return 0
	}
	foreign := func(field string) error {
		return engine.Invalid(field, "%s does not belong to a match of %s.", field, l.Name).With("recon.otherLevel", "field", field, "level", l.Slug)
	}
	switch l.N {
	case 1:
		if b.SettlementID != nil || b.Settlement != nil || b.Bank != nil {
			return req, foreign(firstSet(b, "settlementId", "settlement", "bank"))
		}
		req.LeftID, req.RightID = pick(b.LeftID, b.TicketID), pick(b.RightID, b.TransactionID)
	case 2:
		if b.TicketID != nil || b.Settlement != nil || b.Bank != nil {
			return req, foreign(firstSet(b, "ticketId", "settlement", "bank"))
		}
		req.LeftID, req.RightID = pick(b.LeftID, b.TransactionID), pick(b.RightID, b.SettlementID)
	case 3:
		if b.TicketID != nil || b.TransactionID != nil || b.SettlementID != nil {
			return req, foreign(firstSet(b, "ticketId", "transactionId", "settlementId"))
		}
		req.LeftID, req.RightID = pick(b.LeftID), pick(b.RightID)
		if b.Settlement != nil {
			key, ok := b.Settlement["PayoutID"].(string)
			if !ok || strings.TrimSpace(key) == "" {
				return req, engine.Invalid("settlement", "The settlement must carry its PayoutID.").With("recon.payoutIdMissing")
			}
			req.PayoutKey = key
		}
		if b.Bank != nil {
			id, err := rowID(b.Bank)
			if err != nil {
				return req, err
			}
			req.RightID = id
		}
	}
	return req, nil
}

func firstSet(b *matchBody, names ...string) string {
	set := map[string]bool{"settlementId": b.SettlementID != nil, "settlement": b.Settlement != nil, "bank": b.Bank != nil,
		"ticketId": b.TicketID != nil, "transactionId": b.TransactionID != nil}
	for _, n := range names {
		if set[n] {
			return n
		}
	}
	return names[0]
}

// rowID reads the id of a chosen bank row ({id} or {Id}).
func rowID(row map[string]any) (int64, error) {
	for _, k := range []string{"id", "Id", "ID"} {
		switch v := row[k].(type) {
		case float64:
			if v > 0 && v == float64(int64(v)) {
				return int64(v), nil
			}
		case string:
			if n, err := strconv.ParseInt(v, 10, 64); err == nil && n > 0 {
				return n, nil
			}
		}
	}
	return 0, engine.Invalid("bank", "The bank row must carry its id.").With("recon.bankIdMissing")
}

func (h *reconHandlers) match(c fiber.Ctx) error { return h.matchAs(c, false) }

func (h *reconHandlers) investigate(c fiber.Ctx) error { return h.matchAs(c, true) }

func (h *reconHandlers) matchAs(c fiber.Ctx, investigate bool) error {
	l, err := level(c)
	if err != nil {
		return err
	}
	var b matchBody
	if err := decode(c, &b); err != nil {
		return err
	}
	req, err := b.request(l)
	if err != nil {
		return err
	}
	req.Investigate = req.Investigate || investigate
	m, err := h.recon.MatchByHand(c.Context(), l, req)
	if err != nil {
		return err
	}
	return created(c, m)
}

// undo ends a match; the reason comes in the body ({reason}) or the query.
func (h *reconHandlers) undo(c fiber.Ctx) error {
	l, err := level(c)
	if err != nil {
		return err
	}
	id, err := idParam(c, "id")
	if err != nil {
		return err
	}
	reason := c.Query("reason")
	if len(c.Body()) > 0 {
		var b struct {
			Reason string `json:"reason"`
		}
		if err := decode(c, &b); err != nil {
			return err
		}
		if b.Reason != "" {
			reason = b.Reason
		}
	}
	m, err := h.recon.Undo(c.Context(), l, id, reason)
	if err != nil {
		return err
	}
	return ok(c, m)
}

func (h *reconHandlers) candidates(c fiber.Ctx) error {
	l, err := level(c)
	if err != nil {
		return err
	}
	var f recon.Filters
	if err := decode(c, &f); err != nil {
		return err
	}
	cands, err := h.recon.Candidates(c.Context(), l, f)
	if err != nil {
		return err
	}
	return ok(c, cands)
}

func (h *reconHandlers) details(c fiber.Ctx) error {
	l, err := level(c)
	if err != nil {
		return err
	}
	var r recon.DetailRequest
	if err := decode(c, &r); err != nil {
		return err
	}
	d, err := h.recon.Details(c.Context(), l, r)
	if err != nil {
		return err
	}
	return ok(c, d)
}

func (h *reconHandlers) chain(c fiber.Ctx) error {
	id, err := idParam(c, "id")
	if err != nil {
		return err
	}
	ch, err := h.recon.ChainOf(c.Context(), c.Params("kind"), id)
	if err != nil {
		return err
	}
	return ok(c, ch)
}

func (h *reconHandlers) why(c fiber.Ctx) error {
	l, err := level(c)
	if err != nil {
		return err
	}
	id, err := idParam(c, "id")
	if err != nil {
		return err
	}
	w, err := h.recon.WhyNot(c.Context(), l, c.Params("side"), id)
	if err != nil {
		return err
	}
	return ok(c, w)
}
