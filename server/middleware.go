package server

import (
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"
	"time"

	"github.com/gofiber/fiber/v3"
	"github.com/gofiber/fiber/v3/middleware/requestid"
)

// accessLog writes one line per request: method, path (never the query or
// the body, which may hold codes or passwords), status, size and duration.
// It settles a handler's error first, so the status logged is the one sent.
func accessLog(log *slog.Logger) fiber.Handler {
	return func(c fiber.Ctx) error {
		start := time.Now()
		c.Locals(failureKey{}, &failure{})
		if err := c.Next(); err != nil {
			if herr := c.App().ErrorHandler(c, err); herr != nil {
				return herr
			}
		}
		status := c.Response().StatusCode()
		level := slog.LevelInfo
		if status >= 500 {
			level = slog.LevelError
		}
		attrs := []slog.Attr{
			slog.String("request_id", requestid.FromContext(c)),
			slog.String("method", c.Method()),
			slog.String("path", c.Path()),
			slog.Int("status", status),
			slog.Int("bytes", len(c.Response().Body())),
			slog.Duration("took", time.Since(start)),
			slog.String("ip", c.IP()),
		}
		if f, _ := c.Locals(failureKey{}).(*failure); f != nil && f.err != nil {
			attrs = append(attrs, slog.Any("err", f.err))
		}
		log.LogAttrs(c.Context(), level, "http", attrs...)
		return nil
	}
}

// failure carries the cause of a failed request from the error handler to
// the access log, so a failed request is one log line with its cause.
type failure struct{ err error }

type failureKey struct{}

// noteFailure hands err to the access log of the request; false when the
// request has none (the caller logs it then).
func noteFailure(c fiber.Ctx, err error) bool {
	f, _ := c.Locals(failureKey{}).(*failure)
	if f == nil {
		return false
	}
	f.err = err
	return true
}

// logPanic records a recovered panic with its stack; the client gets a 500
// envelope from the error handler.
func logPanic(log *slog.Logger) func(fiber.Ctx, any) {
	return func(c fiber.Ctx, r any) {
		log.Error("panic", "request_id", requestid.FromContext(c), "path", c.Path(),
			"panic", fmt.Sprint(r), "stack", string(debug.Stack()))
	}
}

// contentSecurityPolicy allows only the application's own scripts: the token
// lives in local storage (as the spec says), so cross-site scripting is the
// risk to close. Inline styles stay allowed for the component library.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data:; font-src 'self' data:; connect-src 'self'; object-src 'none'; " +
	"base-uri 'self'; form-action 'self'; frame-ancestors 'none'"

func securityHeaders(c fiber.Ctx) error {
	c.Set("Content-Security-Policy", contentSecurityPolicy)
	c.Set("X-Content-Type-Options", "nosniff")
	c.Set("X-Frame-Options", "DENY")
	c.Set("Referrer-Policy", "same-origin")
	c.Set("Cross-Origin-Opener-Policy", "same-origin")
	return c.Next()
}

// noStore keeps every API answer out of browser and proxy caches: answers
// carry tokens (sign-in) and the data of whoever asked.
func noStore(c fiber.Ctx) error {
	if isAPI(c) {
		c.Set(fiber.HeaderCacheControl, "no-store")
	}
	return c.Next()
}

// isAPI tells an API request; routing ignores the path's case, so this does too.
func isAPI(c fiber.Ctx) bool {
	return len(c.Path()) >= 5 && strings.EqualFold(c.Path()[:5], "/api/")
}

// cleanURL refuses an API request whose path or query holds a NUL
// character or text that is not UTF-8, before any handler reads them (the
// body is checked where it is read: requestBody).
func cleanURL(c fiber.Ctx) error {
	if !isAPI(c) {
		return c.Next()
	}
	if err := checkText([]byte(c.Path())); err != nil {
		return err
	}
	var bad error
	c.Request().URI().QueryArgs().All()(func(k, v []byte) bool {
		if err := checkText(k); err != nil {
			bad = err
		} else if err := checkText(v); err != nil {
			bad = err
		}
		return bad == nil
	})
	if bad != nil {
		return bad
	}
	return c.Next()
}
