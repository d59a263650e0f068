package server

import (
	"github.com/gofiber/fiber/v3"

	"ledgerdesk/engine"
	"ledgerdesk/internal/screenids"
	"ledgerdesk/screens/recon"
	"ledgerdesk/screens/tasks"
)

// queueHandlers serve the bulk actions of the exception queue (the
// open-items screen, VW_ReconOpenItems), with the Reconcile screen's
// permission. Each takes the chosen rows as {items: [{Level, Side,
// RecordId}], ...} and acts on all of them in one transaction:
//
//	POST /api/recon/open-items/assign      {items, assignedToId, taskName} -> {created, updated}
//	POST /api/recon/open-items/investigate {items, reason}                 -> {marked, skipped}
//	POST /api/recon/open-items/uninvestigate {items}                       -> {marked, skipped}
//	POST /api/recon/open-items/writeoff    {items, reason}                 -> [match, ...]
type queueHandlers struct {
	recon *recon.Service
	tasks *tasks.Service
}

func (h *queueHandlers) mount(r fiber.Router, auth fiber.Handler) {
	g := r.Group("/recon/open-items", auth, screen(screenids.Reconcile))
	g.Post("/assign", h.assign)
	g.Post("/investigate", h.investigate)
	g.Post("/uninvestigate", h.uninvestigate)
	g.Post("/writeoff", h.writeoff)
}

type queueBody struct {
	Items        []recon.QueueItem `json:"items"`
	Reason       string            `json:"reason"`
	AssignedToID *int64            `json:"assignedToId"`
	TaskName     string            `json:"taskName"`
}

func (h *queueHandlers) assign(c fiber.Ctx) error {
	var b queueBody
	if err := decode(c, &b); err != nil {
		return err
	}
	if len(b.Items) == 0 {
		return engine.Invalid("items", "Choose at least one item of the queue.").With("recon.queueEmpty")
	}
	if len(b.Items) > recon.MaxQueueItems {
		return engine.Invalid("items", "Choose at most %d items at a time.", recon.MaxQueueItems).With("recon.queueTooMany", "max", recon.MaxQueueItems)
	}
	if b.AssignedToID == nil || *b.AssignedToID <= 0 {
		return engine.Invalid("assignedToId", "Choose the user the records go to.").With("tasks.assigneeRequired")
	}
	items := make([]tasks.Item, 0, len(b.Items))
	for _, q := range b.Items {
		kind := h.recon.Kind(q)
		if kind == "" {
			return engine.Invalid("items", "There is no record %d on side %q of level %d.", q.RecordID, q.Side, q.Level).
				With("recon.queueNoRecord", "id", q.RecordID, "side", q.Side, "level", q.Level)
		}
		items = append(items, tasks.Item{Kind: kind, ID: q.RecordID})
	}
	out, err := h.tasks.AssignRecords(c.Context(), items, *b.AssignedToID, b.TaskName)
	if err != nil {
		return err
	}
	return ok(c, out)
}

func (h *queueHandlers) investigate(c fiber.Ctx) error {
	var b queueBody
	if err := decode(c, &b); err != nil {
		return err
	}
	out, err := h.recon.Investigate(c.Context(), b.Items, b.Reason)
	if err != nil {
		return err
	}
	return ok(c, out)
}

func (h *queueHandlers) uninvestigate(c fiber.Ctx) error {
	var b queueBody
	if err := decode(c, &b); err != nil {
		return err
	}
	out, err := h.recon.ClearInvestigation(c.Context(), b.Items)
	if err != nil {
		return err
	}
	return ok(c, out)
}

func (h *queueHandlers) writeoff(c fiber.Ctx) error {
	var b queueBody
	if err := decode(c, &b); err != nil {
		return err
	}
	out, err := h.recon.WriteOffQueued(c.Context(), b.Items, b.Reason)
	if err != nil {
		return err
	}
	return created(c, out)
}
