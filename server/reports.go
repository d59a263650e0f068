package server

import (
	"github.com/gofiber/fiber/v3"
	"log/slog"

	"ledgerdesk/internal/screenids"
	"ledgerdesk/screens/reports"
)

// reportHandlers serve the reports screen: the bank overview pivot and its
// Excel export.
type reportHandlers struct {
	reports *reports.Service
	log     *slog.Logger
}

func (h *reportHandlers) mount(r fiber.Router, auth fiber.Handler) {
	r.Post("/reports/bank-overview", auth, screen(screenids.Reports), h.bankOverview)
	r.Post("/reports/bank-overview/export", auth, screen(screenids.Reports), h.bankOverviewExport)
}

func (h *reportHandlers) bankOverview(c fiber.Ctx) error {
	var p reports.Params
	if err := decode(c, &p); err != nil {
		return err
	}
	o, err := h.reports.BankOverview(c.Context(), p)
	if err != nil {
		return err
	}
	return ok(c, o)
}

func (h *reportHandlers) bankOverviewExport(c fiber.Ctx) error {
	var r reports.ExportRequest
	if err := decode(c, &r); err != nil {
		return err
	}
	write, err := h.reports.BankOverviewXLSX(c.Context(), r)
	if err != nil {
		return err
	}
	return sendFile(c, h.log, reports.ExportFileName, "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", write)
}
