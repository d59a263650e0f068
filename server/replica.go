package server

import (
	"context"
	"log/slog"

	"github.com/gofiber/fiber/v3"

	"ledgerdesk/engine"
)

// wroteCookie carries the primary's WAL position after the caller's last
// write, so that the caller's next reads see it when they go to the read
// replica (engine.WithWritten). A cookie, not node memory: the next
// request may reach another node. It holds no secret; a forged one only
// sends its holder's reads to the primary.
const wroteCookie = "ld_wrote"

// wroteFor is how long a write is looked for: a replica that lags its
// primary by more than this serves stale pages anyway.
const wroteFor = 300 // seconds

// readRoutes answer a POST without writing (their bodies are queries):
// they set no mark. Every other POST, PUT, PATCH and DELETE that succeeds
// does.
var readRoutes = map[string]bool{
	"/api/grid":                                    true,
	"/api/grid/export":                             true,
	"/api/:resource/grid":                          true,
	"/api/recon/ticket-transaction/tickets":        true,
	"/api/recon/ticket-transaction/tickets/export": true,
	"/api/recon/:level/report":                     true,
	"/api/recon/:level/report/export":              true,
	"/api/recon/:level/evaluate":                   true,
	"/api/recon/:level/candidates":                 true,
	"/api/recon/:level/details":                    true,
	"/api/reports/bank-overview":                   true,
	"/api/reports/bank-overview/export":            true,
}

// readYourWrites gives each request the caller's last write position and,
// after a request that wrote, sets it anew. Without a read replica it does
// nothing.
func readYourWrites(e *engine.Engine, log *slog.Logger) fiber.Handler {
	return func(c fiber.Ctx) error {
		if e == nil || !e.HasReplica() {
			return c.Next()
		}
		if lsn, ok := engine.ParseLSN(c.Cookies(wroteCookie)); ok {
			c.SetContext(engine.WithWritten(c.Context(), lsn))
		}
		ctx := context.WithoutCancel(c.Context()) // (a handler may end the request's own)
		err := c.Next()
		switch c.Method() {
		case fiber.MethodGet, fiber.MethodHead, fiber.MethodOptions:
			return err
		}
		if err != nil || c.Response().StatusCode() >= 400 || readRoutes[c.FullPath()] {
			return err
		}
		lsn, lerr := e.PrimaryLSN(ctx)
		if lerr != nil {
			log.Warn("read your writes: the primary's WAL position", "err", lerr)
			return nil
		}
		c.Cookie(&fiber.Cookie{Name: wroteCookie, Value: lsn.String(), Path: "/api", MaxAge: wroteFor,
			HTTPOnly: true, SameSite: fiber.CookieSameSiteStrictMode, Secure: c.Protocol() == "https"})
		return nil
	}
}
