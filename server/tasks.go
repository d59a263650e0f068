package server

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"time"

	"github.com/gofiber/fiber/v3"

	"ledgerdesk/engine"
	"ledgerdesk/internal/screenids"
	"ledgerdesk/screens/prefs"
	"ledgerdesk/screens/tasks"
)

// taskHandlers serve the TaskTT API of spec 03 section 7.2 (screen 14) and
// the per-user screen preferences.
type taskHandlers struct {
	tasks      *tasks.Service
	prefs      *prefs.Store
	log        *slog.Logger
	dateFormat func(c fiber.Ctx) string
}

func (h *taskHandlers) mount(r fiber.Router, auth fiber.Handler) {
	t := r.Group("/TaskTT", auth, screen(screenids.Tasks))
	// Fixed paths before /:id: routes are matched in order.
	t.Get("/paged", h.paged)
	t.Get("/export", h.export)
	t.Get("/candidates", screen(screenids.Reconcile), h.candidates) // documents of any ticket number: reconciliation data
	t.Post("/with-items", h.create)
	t.Post("", h.create)
	t.Get("", h.list)
	t.Get("/:id", h.get)
	t.Put("/:id", h.update)
	t.Patch("/:id/field", h.patch)
	t.Get("/:id/relations", h.relations)
	t.Get("/:id/history", h.history)
	t.Post("/:id/manual-adjust", h.addAdjustment)
	t.Delete("/:id/manual-adjust/:transactionId", h.deleteAdjustment)

	r.Get("/preferences/:key", auth, h.getPrefs)
	r.Put("/preferences/:key", auth, h.putPrefs)
}

func (h *taskHandlers) list(c fiber.Ctx) error {
	list, err := h.tasks.List(c.Context())
	if err != nil {
		return err
	}
	return ok(c, list)
}

func (h *taskHandlers) get(c fiber.Ctx) error {
	id, err := idParam(c, "id")
	if err != nil {
		return err
	}
	t, err := h.tasks.Get(c.Context(), id)
	if err != nil {
		return err
	}
	return ok(c, t)
}

func (h *taskHandlers) create(c fiber.Ctx) error {
	var in tasks.Input
	if err := decode(c, &in); err != nil {
		return err
	}
	t, err := h.tasks.Create(c.Context(), in)
	if err != nil {
		return err
	}
	return created(c, t)
}

func (h *taskHandlers) update(c fiber.Ctx) error {
	id, err := idParam(c, "id")
	if err != nil {
		return err
	}
	var in tasks.Input
	if err := decode(c, &in); err != nil {
		return err
	}
	t, err := h.tasks.Update(c.Context(), id, in)
	if err != nil {
		return err
	}
	return ok(c, t)
}

// patch sets one field; the body is the new value: a JSON string or null,
// {"value": ...}, or plain text. An optional version query parameter (the
// updatedOn read) makes a stale change a conflict.
func (h *taskHandlers) patch(c fiber.Ctx) error {
	id, err := idParam(c, "id")
	if err != nil {
		return err
	}
	body, err := requestBody(c)
	if err != nil {
		return err
	}
	value, err := patchValue(body)
	if err != nil {
		return err
	}
	var version time.Time
	if v := strings.TrimSpace(c.Query("version")); v != "" {
		if version, err = time.Parse(time.RFC3339Nano, v); err != nil {
			return engine.Invalid("version", "version must be the task's updatedOn as read (RFC 3339).").With("tasks.badVersion")
		}
	}
	t, err := h.tasks.Patch(c.Context(), id, c.Query("field"), value, version)
	if err != nil {
		return err
	}
	return ok(c, t)
}

func patchValue(body []byte) (*string, error) {
	b := bytes.TrimSpace(body)
	switch {
	case len(b) == 0 || string(b) == "null":
		return nil, nil
	case b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return nil, engine.Invalid("value", "The body must be the new value: a JSON string.").With("tasks.badValue")
		}
		return &s, nil
	case b[0] == '{':
		var in struct {
			Value *string `json:"value"`
		}
		if err := json.Unmarshal(b, &in); err != nil {
			return nil, engine.Invalid("value", "The body must be the new value: a JSON string.").With("tasks.badValue")
		}
		return in.Value, nil
	}
	s := string(b)
	return &s, nil
}

func (h *taskHandlers) relations(c fiber.Ctx) error {
	id, err := idParam(c, "id")
	if err != nil {
		return err
	}
	r, err := h.tasks.Relations(c.Context(), id)
	if err != nil {
		return err
	}
	return ok(c, r)
}

func (h *taskHandlers) candidates(c fiber.Ctx) error {
	r, err := h.tasks.Candidates(c.Context(), c.Query("ticketNumber"))
	if err != nil {
		return err
	}
	return ok(c, r)
}

func (h *taskHandlers) history(c fiber.Ctx) error {
	id, err := idParam(c, "id")
	if err != nil {
		return err
	}
	list, err := h.tasks.History(c.Context(), id)
	if err != nil {
		return err
	}
	return ok(c, list)
}

func (h *taskHandlers) addAdjustment(c fiber.Ctx) error {
	id, err := idParam(c, "id")
	if err != nil {
		return err
	}
	var in tasks.Adjustment
	if err := decode(c, &in); err != nil {
		return err
	}
	t, err := h.tasks.AddAdjustment(c.Context(), id, in)
	if err != nil {
		return err
	}
	return created(c, t)
}

func (h *taskHandlers) deleteAdjustment(c fiber.Ctx) error {
	id, err := idParam(c, "id")
	if err != nil {
		return err
	}
	txID, err := idParam(c, "transactionId")
	if err != nil {
		return err
	}
	if err := h.tasks.DeleteAdjustment(c.Context(), id, txID); err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
}

func listQuery(c fiber.Ctx) tasks.Query {
	return tasks.Query{Page: c.Query("page"), PageSize: c.Query("pageSize"), Sort: c.Query("sort"),
		Filters: c.Query("filters"), GroupBy: c.Query("groupBy"), Columns: c.Query("columns"), TimeZone: c.Query("timeZone")}
}

func (h *taskHandlers) paged(c fiber.Ctx) error {
	p, err := h.tasks.Paged(c.Context(), listQuery(c))
	if err != nil {
		return err
	}
	return ok(c, p)
}

// export streams the tasks as CSV or Excel with the list's sort and filters.
func (h *taskHandlers) export(c fiber.Ctx) error {
	x, err := h.tasks.PrepareExport(c.Context(), listQuery(c), c.Query("format"), h.dateFormat(c))
	if err != nil {
		return err
	}
	return sendFile(c, h.log, x.FileName, x.ContentType, x.WriteTo)
}

func (h *taskHandlers) getPrefs(c fiber.Ctx) error {
	v, err := h.prefs.Get(c.Context(), c.Params("key"))
	if err != nil {
		return err
	}
	return ok(c, v)
}

func (h *taskHandlers) putPrefs(c fiber.Ctx) error {
	body, err := requestBody(c)
	if err != nil {
		return err
	}
	if err := h.prefs.Put(c.Context(), c.Params("key"), body); err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
}
