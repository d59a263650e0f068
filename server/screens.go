package server

import (
	"errors"

	"github.com/gofiber/fiber/v3"

	"ledgerdesk/internal/screenids"
	"ledgerdesk/screens/rates"
)

// screenHandlers are the hand-written calls of metadata screens (their
// action buttons): exchange-rate sync.
type screenHandlers struct {
	rates *rates.Runner
}

func (h *screenHandlers) mount(r fiber.Router, auth fiber.Handler) {
	r.Post("/CurrencyExchangeRate/sync", auth, screen(screenids.ExchangeRates), h.syncRates)
	// The same sync under the account metadata route, as spec 02 lists it.
	r.Post("/MetaDataBankAccCurrency/sync-exchange-rates", auth, screen(screenids.BankSettings), h.syncRates)
}

// syncRates runs a sync job and answers its outcome; a sync that outlasts
// the wait answers 202 with the job id and goes on in the background.
func (h *screenHandlers) syncRates(c fiber.Ctx) error {
	res, job, err := h.rates.SyncAndWait(c.Context())
	if errors.Is(err, rates.ErrStillRunning) {
		return c.Status(fiber.StatusAccepted).JSON(envelope{Succeeded: true,
			Data: fiber.Map{"jobId": job, "running": true, "message": "The exchange-rate sync is still running; the rates appear when it finishes."}})
	}
	if err != nil {
		return err
	}
	return ok(c, res)
}
