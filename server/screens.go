package server

import (
	"github.com/gofiber/fiber/v3"

	"ledgerdesk/engine"
	"ledgerdesk/screens/rates"
)

// Screen ids of the reference-data screens with hand-written calls.
const (
	screenProcessedBank = 7
	screenExchangeRates = 9
)

// screenHandlers are the hand-written calls of metadata screens (their
// action buttons): exchange-rate sync and bank reprocessing.
type screenHandlers struct {
	rates *rates.Syncer
}

func (h *screenHandlers) mount(r fiber.Router, auth fiber.Handler) {
	r.Post("/CurrencyExchangeRate/sync", auth, screen(screenExchangeRates), h.syncRates)
	r.Post("/bank/reprocess", auth, screen(screenProcessedBank), h.reprocess)
}

func (h *screenHandlers) syncRates(c fiber.Ctx) error {
	res, err := h.rates.Sync(c.Context())
	if err != nil {
		return err
	}
	return ok(c, res)
}

// reprocess answers honestly until bank-file import and processing exist.
func (h *screenHandlers) reprocess(c fiber.Ctx) error {
	return &engine.Error{Code: engine.CodeUnavailable,
		Message: "Reprocessing is not available yet: bank files cannot be imported in this version."}
}
