package server

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strconv"

	"github.com/gofiber/fiber/v3"
	"github.com/gofiber/fiber/v3/middleware/requestid"

	"ledgerdesk/engine"
)

// envelope is the shape of every API answer.
type envelope struct {
	Succeeded bool   `json:"succeeded"`
	Data      any    `json:"data"`
	Error     string `json:"error,omitempty"`
	Field     string `json:"field,omitempty"`
	// Code is the stable message code of the error (DESIGN.md section 4)
	// and Params its parameters, so the UI can show it in the reader's
	// language; Error is the English text.
	Code      string         `json:"code,omitempty"`
	Params    map[string]any `json:"params,omitempty"`
	RequestID string         `json:"requestId,omitempty"`
}

func ok(c fiber.Ctx, data any) error {
	return c.JSON(envelope{Succeeded: true, Data: data})
}

// okRaw is ok for data that is JSON already (written by the database): put
// in the envelope as it is. encoding/json would check and copy it again, a
// megabyte of the manual dialog's candidates in 12 to 16 ms.
func okRaw(c fiber.Ctx, data []byte) error {
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSONCharsetUTF8)
	body := make([]byte, 0, len(data)+len(`{"succeeded":true,"data":}`))
	body = append(body, `{"succeeded":true,"data":`...)
	body = append(body, data...)
	return c.Send(append(body, '}'))
}

// statusOf is the one table from error codes to HTTP statuses.
var statusOf = map[engine.Code]int{
	engine.CodeInvalid:      fiber.StatusBadRequest,
	engine.CodeUnauthorized: fiber.StatusUnauthorized,
	engine.CodeForbidden:    fiber.StatusForbidden,
	engine.CodeNotFound:     fiber.StatusNotFound,
	engine.CodeConflict:     fiber.StatusConflict,
	engine.CodeTooLarge:     fiber.StatusRequestEntityTooLarge,
	engine.CodeRateLimited:  fiber.StatusTooManyRequests,
	engine.CodeUnavailable:  fiber.StatusServiceUnavailable,
	engine.CodeInternal:     fiber.StatusInternalServerError,
	// An action kept for a second user's approval: accepted, not carried
	// out; the envelope says so (succeeded false, code approvals.pending).
	engine.CodePending: fiber.StatusAccepted,
}

// codeOfStatus is the error code of a status (Fiber's own errors carry only
// a status): the inverse of statusOf, internal for anything else.
func codeOfStatus(status int) engine.Code {
	for code, st := range statusOf {
		if st == status {
			return code
		}
	}
	switch status {
	case fiber.StatusMethodNotAllowed:
		return engine.CodeNotFound
	case fiber.StatusRequestHeaderFieldsTooLarge, fiber.StatusRequestURITooLong:
		return engine.CodeTooLarge
	}
	return engine.CodeInternal
}

// errorHandler turns any error a handler returns into the envelope with the
// right status. Typed errors carry a message meant for the user; Fiber's own
// errors (unknown route, body too large, bad method) keep theirs; anything
// else is a 500 whose cause goes to the log only, with the request id so a
// user's report can be found.
func errorHandler(log *slog.Logger, uploadMax, bodyMax int64) fiber.ErrorHandler {
	return func(c fiber.Ctx, err error) error {
		rid := requestid.FromContext(c)
		env := envelope{Succeeded: false, RequestID: rid}
		// An error may come before the middleware ran (headers too large):
		// it is never cached either.
		c.Set(fiber.HeaderCacheControl, "no-store")
		status := fiber.StatusInternalServerError

		var typed *engine.Error
		var fe *fiber.Error
		switch {
		case errors.As(engine.TranslatePG(err), &typed):
			status = statusOf[typed.Code]
			env.Error, env.Field, env.Code, env.Params = typed.Message, typed.Field, typed.Key, typed.Params
			if env.Code == "" {
				env.Code = "error." + string(typed.Code)
			}
		case errors.As(err, &fe):
			status = fe.Code
			env.Error = fe.Message
			if fe.Code == fiber.StatusRequestEntityTooLarge {
				env.Error = fmt.Sprintf("the request body is too large: files of up to %s can be imported (UPLOAD_MAX_BYTES), other requests up to %s",
					sizeText(uploadMax), sizeText(bodyMax))
				if c.Path() == "/api/imports" {
					env.Error, env.Field = fmt.Sprintf("the file is too large: files of up to %s can be imported (UPLOAD_MAX_BYTES)", sizeText(uploadMax)), "file"
				}
			}
		}
		if status == 0 {
			status = fiber.StatusInternalServerError
		}
		if status == fiber.StatusTooManyRequests || status == fiber.StatusServiceUnavailable {
			c.Set(fiber.HeaderRetryAfter, retryAfter(typed, status))
		}
		if env.Code == "" { // every refusal carries a code the UI can translate
			env.Code = "error." + string(codeOfStatus(status))
		}
		if status >= 500 {
			if env.Error == "" || typed != nil && typed.Code == engine.CodeInternal {
				env.Error = "an internal error occurred; quote request id " + rid + " when reporting it"
			}
			if !noteFailure(c, err) {
				log.Error("request failed", "request_id", rid, "method", c.Method(), "path", c.Path(), "status", status, "err", err)
			}
		}
		return c.Status(status).JSON(env)
	}
}

// retryAfter is the Retry-After of a refusal in whole seconds: the error's
// own when it has one, else 60 s for a rate limit and 5 s for an outage.
func retryAfter(typed *engine.Error, status int) string {
	if typed != nil && typed.RetryAfter > 0 {
		return strconv.Itoa(int(math.Ceil(typed.RetryAfter.Seconds())))
	}
	if status == fiber.StatusTooManyRequests {
		return "60"
	}
	return "5"
}

// sizeText is a byte count for people: 100 MB, 64 KB, 900 bytes.
func sizeText(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
