package server

import (
	"context"

	"github.com/gofiber/fiber/v3"

	"ledgerdesk/engine"
	"ledgerdesk/internal/screenids"
	"ledgerdesk/screens/home"
	"ledgerdesk/screens/recon"
)

// homeHandlers serve the home screen's figures.
type homeHandlers struct {
	home *home.Service
}

func newHomeHandlers(d Deps) *homeHandlers {
	var recent func(ctx context.Context, n int) (any, error)
	if d.Imports != nil {
		recent = func(ctx context.Context, n int) (any, error) {
			list, err := d.Imports.Recent(ctx, n)
			return list, err
		}
	}
	var levels []*recon.Level
	if d.Recon != nil {
		levels = d.Recon.Levels()
	}
	h := &homeHandlers{home: home.New(d.Pool, levels, recent)}
	h.home.Now = d.Now
	if d.Recon != nil {
		h.home.AgeBuckets = d.Recon.Definition().Ageing.Buckets
	}
	return h
}

func (h *homeHandlers) mount(r fiber.Router, auth fiber.Handler) {
	r.Get("/home", auth, screen(screenids.Home), h.figures)
}

// figures answers GET /api/home?month=YYYY-MM (default: this month).
func (h *homeHandlers) figures(c fiber.Ctx) error {
	month, err := home.ParseMonth(c.Query("month"), h.home.Now())
	if err != nil {
		return err
	}
	f, err := h.home.Home(c.Context(), engine.ActorFrom(c.Context()), month)
	if err != nil {
		return err
	}
	return ok(c, f)
}
