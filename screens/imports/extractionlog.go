package imports

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/jackc/pgx/v5"

	"ledgerdesk/engine"
)

// logText is a stored message: its English text and the code and parameters
// the UI shows it from in the reader's language (serverMessages.<code>).
type logText struct {
	Text   string
	Code   string
	Params map[string]any
}

// errorText is the stored form of an error: a typed error's message with
// its code, anything else as plain text.
func errorText(err error) *logText {
	if err == nil {
		return nil
	}
	var e *engine.Error
	if errors.As(err, &e) {
		return &logText{Text: e.Message, Code: e.Key, Params: e.Params}
	}
	return &logText{Text: err.Error()}
}

// parts are the columns of a stored text: text, code, params (nil when unset).
func (t *logText) parts() (text, code, params any) {
	if t == nil {
		return nil, nil, nil
	}
	text = t.Text
	if t.Code != "" {
		code = t.Code
	}
	if len(t.Params) > 0 {
		b, _ := json.Marshal(t.Params)
		params = string(b)
	}
	return text, code, params
}

// insertLog writes one extraction-log row with its texts' codes.
func insertLog(ctx context.Context, db interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, module, status string, desc logText, failure *logText, actor string) (int64, error) {
	_, dCode, dParams := desc.parts()
	eText, eCode, eParams := failure.parts()
	var id int64
	err := db.QueryRow(ctx, `insert into extraction_log (module, description, description_code, description_params, status,
		error_description, error_code, error_params, created_by) values ($1, $2, $3, $4, $5, $6, $7, $8, $9) returning id`,
		module, desc.Text, dCode, dParams, status, eText, eCode, eParams, actor).Scan(&id)
	return id, err
}
