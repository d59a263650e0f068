package server

import (
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v3"

	"ledgerdesk/engine"
	"ledgerdesk/internal/screenids"
	"ledgerdesk/screens/recon"
)

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
	// the levels' names also serve the reports and the approvals screen (a
	// period closes for one level); registered ahead of the group's guard
	r.Get("/recon/levels", auth, screen(screenids.Reconcile, screenids.Reports, screenids.Approvals), h.levels)
	g := r.Group("/recon", auth, screen(screenids.Reconcile))
	g.Get("/providers", h.providers)
	g.Get("/currencies", h.currencies)
	g.Get("/runs", h.runs)
	g.Get("/runs/:id", h.run)
	g.Get("/chain/:kind/:id", h.chain)
	g.Get("/chain/:kind", h.chainByRef)
	// The report pages are grid reads: stopped when their client goes.
	g.Post("/ticket-transaction/tickets", stopWhenClientGoes, h.ticketLookup)
	g.Post("/ticket-transaction/tickets/export", h.ticketLookupExport)
	g.Post("/:level/report", stopWhenClientGoes, h.report)
	g.Post("/:level/report/export", h.reportExport)
	g.Post("/:level/auto", h.auto)
	g.Post("/:level/match", h.match)
	g.Post("/:level/evaluate", h.evaluate)
	g.Post("/:level/writeoff", h.writeoff)
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

func (h *reconHandlers) level(c fiber.Ctx) (*recon.Level, error) {
	return h.recon.Level(c.Params("level"))
}

// levels answers the declared levels in tab order (recon.yaml), for the
// dashboard's tabs, legends and dialogs.
func (h *reconHandlers) levels(c fiber.Ctx) error { return ok(c, recon.Describe(h.recon.Levels())) }

// reportRequest is the dashboard's filters with the grid's paging, sorting
// and column filters.
type reportRequest struct {
	recon.Filters
	engine.GridRequest
	Format  string                `json:"Format"`  // export: xlsx or csv
	Columns []engine.ExportColumn `json:"Columns"` // export: the columns shown, with their headers
	// TimeZone is the user's zone for datetimes in an export.
	TimeZone string `json:"TimeZone"`
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
	var l *recon.Level
	if lookup {
		for _, candidate := range h.recon.Levels() {
			if candidate.Report.Lookup != "" {
				l = candidate
				break
			}
		}
		if l == nil {
			return nil, engine.GridRequest{}, engine.NotFound("No level has a ticket lookup.").With("recon.noLookup")
		}
	} else {
		var err error
		if l, err = h.level(c); err != nil {
			return nil, engine.GridRequest{}, err
		}
	}
	view := l.Report.View
	if lookup {
		view = l.Report.Lookup
	}
	g, err := req.gridRequest(view, slices.Contains(l.Filters, "ticket"))
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
	x, err := h.engine.PrepareExport(c.Context(), engine.ExportRequest{GridRequest: g, Format: req.Format, Columns: req.Columns, TimeZone: req.TimeZone},
		h.dateFormat(c))
	if err != nil {
		return err
	}
	return sendExport(c, h.grids.log, x)
}

// auto starts an automatic reconcile of the level and waits for it: the
// run's counts when it finished, 202 with the run when it goes on, 409
// naming the run already going.
func (h *reconHandlers) auto(c fiber.Ctx) error {
	l, err := h.level(c)
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
		// the run's own message code, in the reader's language
		e := engine.Unavailable("Auto Reconcile failed: %s", run.Error).With("recon.autoFailed", "runId", run.ID, "error", run.Error)
		if run.ErrorCode != "" {
			e.Key, e.Params = run.ErrorCode, run.ErrorParams
		}
		return e
	}
	return c.Status(fiber.StatusAccepted).JSON(envelope{Succeeded: true, Data: run})
}

func (h *reconHandlers) runs(c fiber.Ctx) error {
	var l *recon.Level
	if slug := c.Query("level"); slug != "" {
		var err error
		if l, err = h.recon.Level(slug); err != nil {
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
// 4: the level's own id fields ({ticketId, transactionId}, {transactionId,
// settlementId}, {payoutId, bankId}: recon.yaml's left and right fields),
// {settlement, bank} (the chosen rows of the settlements-vs-bank dialog)
// and {leftId, rightId, investigate, force, reason}.
type matchBody map[string]json.RawMessage

// request maps the body onto the level's sides, refusing an id field of
// another level's shape.
func (b matchBody) request(levels []*recon.Level, l *recon.Level) (recon.MatchRequest, error) {
	var req recon.MatchRequest
	fields := map[string]bool{}
	for _, o := range levels {
		fields[o.Left.Field], fields[o.Right.Field] = true, true
	}
	mine := map[string]bool{l.Left.Field: true, l.Right.Field: true, "leftId": true, "rightId": true, "leftIds": true, "rightIds": true,
		"investigate": true, "force": true, "reason": true, "settlement": true, "bank": true}
	names := make([]string, 0, len(b))
	for name := range b {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if fields[name] && !mine[name] {
			return req, engine.Invalid(name, "%s does not belong to a match of %s.", name, l.Slug).With("recon.otherLevel", "field", name, "level", l.Slug)
		}
	}
	id := func(names ...string) (int64, error) {
		for _, name := range names {
			raw, ok := b[name]
			if !ok || string(raw) == "null" {
				continue
			}
			var n int64
			if err := json.Unmarshal(raw, &n); err != nil {
				return 0, engine.Invalid(name, "%s must be a whole number.", name).With("recon.idNumber", "field", name)
			}
			return n, nil
		}
		return 0, nil
	}
	var err error
	if req.LeftID, err = id("leftId", l.Left.Field); err != nil {
		return req, err
	}
	if req.RightID, err = id("rightId", l.Right.Field); err != nil {
		return req, err
	}
	for name, dst := range map[string]*[]int64{"leftIds": &req.LeftIDs, "rightIds": &req.RightIDs} {
		if *dst, err = idList(b, name); err != nil {
			return req, err
		}
	}
	for name, dst := range map[string]any{"investigate": &req.Investigate, "force": &req.Force, "reason": &req.Reason} {
		if raw, ok := b[name]; ok && string(raw) != "null" {
			if err := json.Unmarshal(raw, dst); err != nil {
				return req, engine.Invalid(name, "%s has the wrong type.", name).With("recon.fieldType", "field", name)
			}
		}
	}
	// The spec's settlements-vs-bank body: the chosen rows.
	if raw, ok := b["settlement"]; ok && string(raw) != "null" {
		var row map[string]any
		_ = json.Unmarshal(raw, &row)
		key, ok := row["PayoutID"].(string)
		if !ok || strings.TrimSpace(key) == "" {
			return req, engine.Invalid("settlement", "The settlement must carry its PayoutID.").With("recon.payoutIdMissing")
		}
		req.LeftRef = key
	}
	if raw, ok := b["bank"]; ok && string(raw) != "null" {
		var row map[string]any
		_ = json.Unmarshal(raw, &row)
		n, err := rowID(row)
		if err != nil {
			return req, err
		}
		req.RightID = n
	}
	return req, nil
}

// idList reads a list of record ids (a group's records of a side).
func idList(b map[string]json.RawMessage, name string) ([]int64, error) {
	raw, ok := b[name]
	if !ok || string(raw) == "null" {
		return nil, nil
	}
	var ids []int64
	if err := json.Unmarshal(raw, &ids); err != nil {
		return nil, engine.Invalid(name, "%s must be a list of record ids.", name).With("recon.idList", "field", name)
	}
	return ids, nil
}

// writeoff writes off records of one side ({side, ids, reason}): the match
// group that closes them.
func (h *reconHandlers) writeoff(c fiber.Ctx) error {
	l, err := h.level(c)
	if err != nil {
		return err
	}
	var b map[string]json.RawMessage
	if err := decode(c, &b); err != nil {
		return err
	}
	var side, reason string
	for name, v := range map[string]*string{"side": &side, "reason": &reason} {
		if raw, ok := b[name]; ok && string(raw) != "null" {
			if err := json.Unmarshal(raw, v); err != nil {
				return engine.Invalid(name, "%s must be text.", name).With("recon.text", "field", name)
			}
		}
	}
	ids, err := idList(b, "ids")
	if err != nil {
		return err
	}
	m, err := h.recon.WriteOff(c.Context(), l, side, ids, reason)
	if err != nil {
		return err
	}
	return created(c, m)
}

// evaluate tells what a manual match of the body's records would be
// ({leftIds, rightIds}): their sums, the difference, the tolerances and
// why it would be refused without force.
func (h *reconHandlers) evaluate(c fiber.Ctx) error {
	l, err := h.level(c)
	if err != nil {
		return err
	}
	var b map[string]json.RawMessage
	if err := decode(c, &b); err != nil {
		return err
	}
	left, err := idList(b, "leftIds")
	if err != nil {
		return err
	}
	right, err := idList(b, "rightIds")
	if err != nil {
		return err
	}
	e, err := h.recon.Evaluate(c.Context(), l, left, right)
	if err != nil {
		return err
	}
	return ok(c, e)
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
	l, err := h.level(c)
	if err != nil {
		return err
	}
	var b matchBody
	if err := decode(c, &b); err != nil {
		return err
	}
	req, err := b.request(h.recon.Levels(), l)
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
	l, err := h.level(c)
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
	l, err := h.level(c)
	if err != nil {
		return err
	}
	var req recon.CandidatesRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	cands, err := h.recon.Candidates(c.Context(), l, req)
	if err != nil {
		return err
	}
	return okRaw(c, cands.AppendJSON(nil))
}

func (h *reconHandlers) details(c fiber.Ctx) error {
	l, err := h.level(c)
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

// chainByRef is the chain of a record named by its reference (?ref=, a
// payout's PayoutID).
func (h *reconHandlers) chainByRef(c fiber.Ctx) error {
	ch, err := h.recon.ChainOfRef(c.Context(), c.Params("kind"), c.Query("ref"))
	if err != nil {
		return err
	}
	return ok(c, ch)
}

func (h *reconHandlers) why(c fiber.Ctx) error {
	l, err := h.level(c)
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
