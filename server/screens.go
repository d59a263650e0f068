package server

import (
	"github.com/gofiber/fiber/v3"

	"ledgerdesk/screens/rates"
)

// Screen ids of the reference-data screens with hand-written calls.
const (
	screenProcessedBank = 7
	screenExchangeRates = 9
)

// screenHandlers are the hand-written calls of metadata screens (their
// action buttons): exchange-rate sync.
type screenHandlers struct {
	rates *rates.Syncer
}

func (h *screenHandlers) mount(r fiber.Router, auth fiber.Handler) {
	r.Post("/CurrencyExchangeRate/sync", auth, screen(screenExchangeRates), h.syncRates)
}

func (h *screenHandlers) syncRates(c fiber.Ctx) error {
	res, err := h.rates.Sync(c.Context())
	if err != nil {
		return err
	}
	return ok(c, res)
}
