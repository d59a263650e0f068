// Package engine is the metadata-driven grid engine of Ledgerdesk: it loads the
// view and form descriptors (views.yaml, forms/*.yaml), validates them, and
// serves grid pages, inline edits, CRUD and exports from them. It knows nothing
// about HTTP or reconciliation; callers get typed errors (see Error) that the
// server maps to status codes in one place.
package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// Code classifies an error for the caller. The server maps each code to one
// HTTP status; nothing else decides statuses.
type Code string

const (
	CodeInvalid      Code = "invalid"      // bad input: 400
	CodeUnauthorized Code = "unauthorized" // no or bad credentials: 401
	CodeForbidden    Code = "forbidden"    // authenticated but not allowed: 403
	CodeNotFound     Code = "not_found"    // 404
	CodeConflict     Code = "conflict"     // stale edit, duplicate, reference in use: 409
	CodeTooLarge     Code = "too_large"    // 413
	CodeRateLimited  Code = "rate_limited" // 429
	CodeUnavailable  Code = "unavailable"  // a dependency is down or a query timed out: 503
	CodeInternal     Code = "internal"     // a bug or an unexpected failure: 500
)

// Error is the one error type that crosses package boundaries towards the
// server. Message is safe to show to the user; Field names the offending input
// field when there is one. Err keeps the cause for logs and is never shown.
type Error struct {
	Code    Code
	Message string
	Field   string
	Err     error
	// Key is the stable message code (e.g. recon.alreadyMatched) the UI
	// translates, with Params filling its placeholders; Message is the
	// English text of the same message, for logs and as the fallback.
	Key    string
	Params map[string]any
	// RetryAfter tells a refused client (429, 503) when to try again; the
	// server sends it as the Retry-After header.
	RetryAfter time.Duration
}

// With gives the error a stable message code and its parameters, as
// name/value pairs: Conflict("...").With("recon.runActive", "runId", 7).
// The UI shows the translation of key (with the parameters) in the reader's
// language, and Message where it has none.
func (e *Error) With(key string, nameValues ...any) *Error {
	e.Key = key
	if len(nameValues) > 0 && e.Params == nil {
		e.Params = make(map[string]any, len(nameValues)/2)
	}
	for i := 0; i+1 < len(nameValues); i += 2 {
		e.Params[fmt.Sprint(nameValues[i])] = nameValues[i+1]
	}
	return e
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

func (e *Error) Unwrap() error { return e.Err }

// Invalid reports bad input in field (may be empty) with a message for the user.
func Invalid(field, format string, args ...any) *Error {
	return &Error{Code: CodeInvalid, Field: field, Message: fmt.Sprintf(format, args...)}
}

// NotFound reports a missing record or resource.
func NotFound(format string, args ...any) *Error {
	return &Error{Code: CodeNotFound, Message: fmt.Sprintf(format, args...)}
}

// Conflict reports a stale edit, a duplicate or a reference still in use.
func Conflict(format string, args ...any) *Error {
	return &Error{Code: CodeConflict, Message: fmt.Sprintf(format, args...)}
}

// MessageOf is what a person reading a log or a job outcome should see of
// err: a typed error's message (PostgreSQL errors translated first), else
// the error text.
func MessageOf(err error) string {
	var e *Error
	if errors.As(TranslatePG(err), &e) {
		return e.Message
	}
	return err.Error()
}

// Unavailable reports work that could not be done now (a dependency down).
func Unavailable(format string, args ...any) *Error {
	return &Error{Code: CodeUnavailable, Message: fmt.Sprintf(format, args...)}
}

// Forbidden reports a caller without the permission the call needs.
func Forbidden(format string, args ...any) *Error {
	return &Error{Code: CodeForbidden, Message: fmt.Sprintf(format, args...)}
}

// Unauthorized reports missing or invalid credentials.
func Unauthorized(format string, args ...any) *Error {
	return &Error{Code: CodeUnauthorized, Message: fmt.Sprintf(format, args...)}
}

// Internal wraps an unexpected failure; the user sees only a generic message.
func Internal(err error) *Error {
	return &Error{Code: CodeInternal, Message: "an internal error occurred", Err: err}
}

// ErrorCode returns the code of err, CodeInternal for anything that is not an
// *Error (after translating PostgreSQL errors).
func ErrorCode(err error) Code {
	var e *Error
	if errors.As(TranslatePG(err), &e) {
		return e.Code
	}
	return CodeInternal
}

// TranslatePG turns the PostgreSQL errors that callers can act on into typed
// errors, in this one place: unique and foreign-key violations become conflicts,
// check and not-null violations and bad values become invalid input, a statement
// timeout becomes unavailable. The SQL text never reaches the message.
func TranslatePG(err error) error {
	if err == nil {
		return nil
	}
	var typed *Error
	if errors.As(err, &typed) {
		return err
	}
	if connectionLost(err) {
		return &Error{Code: CodeUnavailable, Message: "The database cannot be reached just now. Try again in a few seconds.", Err: err,
			RetryAfter: 5 * time.Second, Key: "error.databaseDown"}
	}
	var pg *pgconn.PgError
	if !errors.As(err, &pg) {
		return err
	}
	switch pg.Code {
	case "23505":
		return &Error{Code: CodeConflict, Message: "a record with the same values already exists", Key: "db.duplicate", Field: columnField(pg), Err: err}
	case "23503":
		return &Error{Code: CodeConflict, Message: "the record is referenced by other records or refers to a missing one", Key: "db.reference", Err: err}
	case "23502":
		return &Error{Code: CodeInvalid, Message: "a required value is missing", Key: "db.required", Field: pg.ColumnName, Err: err}
	case "23514":
		return &Error{Code: CodeInvalid, Message: "a value is outside the allowed range", Key: "db.range", Field: pg.ColumnName, Err: err}
	case "22001":
		return &Error{Code: CodeInvalid, Message: "a value is too long", Key: "db.tooLong", Err: err}
	case "22P02", "22007", "22008", "22003":
		return &Error{Code: CodeInvalid, Message: "a value has the wrong format", Key: "db.format", Err: err}
	case "57014":
		return &Error{Code: CodeUnavailable, Message: "the query took too long and was stopped; narrow the filter and try again", Key: "db.timeout", Err: err}
	case "LDP01":
		return periodClosed(pg)
	}
	return err
}

// periodClosed is the refusal of a write dated in a closed month (raised by
// migration 00036's guards, the period in the detail as JSON).
func periodClosed(pg *pgconn.PgError) *Error {
	var p struct {
		Month    string    `json:"month"`
		Level    *int      `json:"level"`
		ClosedBy string    `json:"closedBy"`
		ClosedOn time.Time `json:"closedOn"`
	}
	_ = json.Unmarshal([]byte(pg.Detail), &p)
	on := p.ClosedOn.UTC().Format("2006-01-02")
	if p.Level == nil {
		return (&Error{Code: CodeConflict, Err: pg, Message: fmt.Sprintf("The period %s is closed (by %s on %s): nothing dated in it can be written.", p.Month, p.ClosedBy, on)}).
			With("periods.closed", "month", p.Month, "closedBy", p.ClosedBy, "closedOn", on)
	}
	return (&Error{Code: CodeConflict, Err: pg, Message: fmt.Sprintf("The period %s is closed for level %d (by %s on %s): nothing of that level dated in it can be written.", p.Month, *p.Level, p.ClosedBy, on)}).
		With("periods.closedLevel", "month", p.Month, "level", *p.Level, "closedBy", p.ClosedBy, "closedOn", on)
}

// connectionLost reports an error of the way to the database rather than of
// the statement: no connection could be made, the connection dropped (the
// server restarted, a network cut, an administrator ended it), or the
// server refuses connections for now.
func connectionLost(err error) bool {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return strings.HasPrefix(pg.Code, "08") || pg.Code == "57P01" || pg.Code == "57P02" || pg.Code == "57P03" || pg.Code == "53300"
	}
	var connect *pgconn.ConnectError
	var netErr net.Error
	return errors.As(err, &connect) || errors.As(err, &netErr) || errors.Is(err, io.ErrUnexpectedEOF) || pgconn.SafeToRetry(err)
}

func columnField(pg *pgconn.PgError) string {
	if pg.ColumnName != "" {
		return pg.ColumnName
	}
	return pg.ConstraintName
}
