package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gofiber/fiber/v3"
	"github.com/gofiber/fiber/v3/middleware/requestid"

	"ledgerdesk/engine"
)

// requestBody is the request's body, trimmed, and the one place every
// client string passes: a body that is not UTF-8, or that holds a NUL
// character (raw, or as the JSON escape \u0000, which PostgreSQL cannot
// store in text), is refused here, so no handler can forget to check.
func requestBody(c fiber.Ctx) ([]byte, error) {
	body := bytes.TrimSpace(c.Body())
	if err := checkText(body); err != nil {
		return nil, err
	}
	return body, nil
}

// checkText refuses text that is not UTF-8 or holds a NUL character.
func checkText(b []byte) error {
	if !utf8.Valid(b) {
		return engine.Invalid("", "The request is not UTF-8 text.").With("request.encoding")
	}
	if bytes.IndexByte(b, 0) >= 0 || hasEscapedNUL(b) {
		return engine.Invalid("", "The request holds a NUL character (\\u0000), which no field may hold.").With("request.nul")
	}
	return nil
}

// hasEscapedNUL finds the JSON escape \u0000 (an escaped backslash followed
// by "u0000" is text, not the escape).
func hasEscapedNUL(b []byte) bool {
	for i := bytes.Index(b, []byte(`u0000`)); i >= 0; {
		slashes := 0
		for j := i - 1; j >= 0 && b[j] == '\\'; j-- {
			slashes++
		}
		if slashes%2 == 1 {
			return true
		}
		next := bytes.Index(b[i+1:], []byte(`u0000`))
		if next < 0 {
			return false
		}
		i += next + 1
	}
	return false
}

// decode reads a JSON object body into v. Fields v does not declare are
// ignored: handlers decode into input types that list exactly what a form
// may write, so nothing else can be assigned.
func decode(c fiber.Ctx, v any) error {
	body, err := requestBody(c)
	if err != nil {
		return err
	}
	if len(body) == 0 {
		return engine.Invalid("", "The request body is empty; send a JSON object.").With("request.empty")
	}
	if body[0] != '{' {
		return engine.Invalid("", "The request body must be a JSON object.").With("request.notObject")
	}
	if err := json.Unmarshal(body, v); err != nil {
		var te *json.UnmarshalTypeError
		var se *json.SyntaxError
		var ee *engine.Error
		switch {
		case errors.As(err, &ee): // a type's own check (UnmarshalJSON) names its field
			return ee
		case errors.As(err, &te):
			return engine.Invalid(te.Field, "%s has the wrong type (expected %s).", te.Field, te.Type.String()).With("request.type", "field", te.Field, "type", te.Type.String())
		case errors.As(err, &se):
			return engine.Invalid("", "The request body is not valid JSON (near byte %d).", se.Offset).With("request.json")
		default:
			return engine.Invalid("", "The request body could not be read as JSON.").With("request.json")
		}
	}
	return nil
}

// idParam reads a positive whole-number route parameter.
func idParam(c fiber.Ctx, name string) (int64, error) {
	id, err := strconv.ParseInt(c.Params(name), 10, 64)
	if err != nil || id <= 0 {
		return 0, engine.Invalid(name, "%s must be a positive whole number.", name).With("request.positiveId", "field", name)
	}
	return id, nil
}

// authenticate turns the bearer token into the request's actor, or answers 401.
func (s *apiHandlers) authenticate(c fiber.Ctx) error {
	h := c.Get(fiber.HeaderAuthorization)
	token, found := strings.CutPrefix(h, "Bearer ")
	if !found || strings.TrimSpace(token) == "" {
		return engine.Unauthorized("Sign in to continue.").With("auth.signIn")
	}
	a, err := s.identity.Authenticate(c.Context(), strings.TrimSpace(token))
	if err != nil {
		return err
	}
	a.IP, a.RequestID = c.IP(), requestid.FromContext(c)
	c.SetContext(engine.WithActor(c.Context(), a))
	return c.Next()
}

// screen lets the call through when the caller's roles grant any of ids:
// the same screen ids the UI's route guard checks.
func screen(ids ...int) fiber.Handler {
	for _, id := range ids {
		routeScreens.Store(id, true) // checked against web_screen at start (CheckRouteScreens)
	}
	return func(c fiber.Ctx) error {
		if !engine.ActorFrom(c.Context()).Can(ids...) {
			return engine.Forbidden("You do not have permission for this screen. Contact your administrator.").With("screen.forbidden")
		}
		return c.Next()
	}
}

// created answers 201 with the envelope.
func created(c fiber.Ctx, data any) error {
	return c.Status(fiber.StatusCreated).JSON(envelope{Succeeded: true, Data: data})
}

// anonymousActor carries the caller's address and request id into public
// calls (sign-in, reset), for throttling and the audit log.
func anonymousActor(c fiber.Ctx) {
	c.SetContext(engine.WithActor(c.Context(), &engine.Actor{Username: "anonymous", IP: c.IP(), RequestID: requestid.FromContext(c)}))
}
