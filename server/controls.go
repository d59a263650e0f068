package server

import (
	"github.com/gofiber/fiber/v3"

	"ledgerdesk/internal/screenids"
	"ledgerdesk/screens/controls"
)

// controlHandlers serve four-eyes approvals and closed periods:
//
//	GET  /api/approvals                     -> {waiting, mine}
//	POST /api/approvals/{id}/approve {reason?} -> {request, result} (screen 17; not one's own)
//	POST /api/approvals/{id}/reject  {reason}  -> request (screen 17; not one's own)
//	GET  /api/periods                       -> [period] (screens 13, 15 or 17)
//	POST /api/periods/{yyyy-mm}/close  {level?}          -> period (screen 17)
//	POST /api/periods/{yyyy-mm}/reopen {level?, reason}  -> period (screen 17)
type controlHandlers struct {
	controls *controls.Service
}

func (h *controlHandlers) mount(r fiber.Router, auth fiber.Handler) {
	screen(screenids.Audit) // the audit view's screen, checked against web_screen at start
	r.Get("/approvals", auth, h.approvals)
	r.Post("/approvals/:id/approve", auth, screen(screenids.Approvals), h.approve)
	r.Post("/approvals/:id/reject", auth, screen(screenids.Approvals), h.reject)
	r.Get("/periods", auth, screen(screenids.Reconcile, screenids.Reports, screenids.Approvals), h.periods)
	r.Post("/periods/:month/close", auth, screen(screenids.Approvals), h.close)
	r.Post("/periods/:month/reopen", auth, screen(screenids.Approvals), h.reopen)
}

type decisionBody struct {
	Reason string `json:"reason"`
	Level  string `json:"level"`
}

// body reads an optional JSON body.
func (b *decisionBody) read(c fiber.Ctx) error {
	if len(c.Body()) == 0 {
		return nil
	}
	return decode(c, b)
}

func (h *controlHandlers) approvals(c fiber.Ctx) error {
	out, err := h.controls.List(c.Context())
	if err != nil {
		return err
	}
	return ok(c, out)
}

func (h *controlHandlers) approve(c fiber.Ctx) error {
	id, err := idParam(c, "id")
	if err != nil {
		return err
	}
	var b decisionBody
	if err := b.read(c); err != nil {
		return err
	}
	r, result, err := h.controls.Approve(c.Context(), id, b.Reason)
	if err != nil {
		return err
	}
	return ok(c, fiber.Map{"request": r, "result": result})
}

func (h *controlHandlers) reject(c fiber.Ctx) error {
	id, err := idParam(c, "id")
	if err != nil {
		return err
	}
	var b decisionBody
	if err := b.read(c); err != nil {
		return err
	}
	r, err := h.controls.Reject(c.Context(), id, b.Reason)
	if err != nil {
		return err
	}
	return ok(c, r)
}

func (h *controlHandlers) periods(c fiber.Ctx) error {
	out, err := h.controls.Periods(c.Context())
	if err != nil {
		return err
	}
	return ok(c, out)
}

func (h *controlHandlers) close(c fiber.Ctx) error {
	var b decisionBody
	if err := b.read(c); err != nil {
		return err
	}
	p, err := h.controls.Close(c.Context(), c.Params("month"), b.Level)
	if err != nil {
		return err
	}
	return ok(c, p)
}

func (h *controlHandlers) reopen(c fiber.Ctx) error {
	var b decisionBody
	if err := b.read(c); err != nil {
		return err
	}
	p, err := h.controls.Reopen(c.Context(), c.Params("month"), b.Level, b.Reason)
	if err != nil {
		return err
	}
	return ok(c, p)
}
