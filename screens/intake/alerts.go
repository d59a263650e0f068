package intake

import (
	"context"
	"fmt"
	"maps"
	"time"

	"github.com/jackc/pgx/v5"

	"ledgerdesk/engine"
	"ledgerdesk/internal/screenids"
)

// Alert kinds (alert.kind) and the screen a user must hold to see them.
const (
	AlertRunFailed    = "runFailed"    // an automatic run failed (screen 13); raised by the database
	AlertIntakeFailed = "intakeFailed" // a file arriving by itself was refused or failed, or a pull failed (screen 2)
	AlertFileMissing  = "fileMissing"  // an expected file had not come by its time (screen 2)
)

// raise records an alert once per key (a second raise of the same key
// changes nothing).
func raise(ctx context.Context, db engine.Execer, key, kind string, screen int, m message) error {
	_, err := db.Exec(ctx, `insert into alert (key, kind, screen, message, message_code, message_params) values ($1, $2, $3, $4, $5, $6)
		on conflict (key) do nothing`, key, kind, screen, m.Text, m.Code, m.Params)
	return err
}

// with is m's parameters and more.
func (m message) with(kv ...any) message {
	p := maps.Clone(m.Params)
	if p == nil {
		p = map[string]any{}
	}
	for i := 0; i+1 < len(kv); i += 2 {
		p[kv[i].(string)] = kv[i+1]
	}
	m.Params = p
	return m
}

// arrivedSQL says whether a file of kind $1 holding $2 ("" any) loaded
// at or after $3.
const arrivedSQL = `exists (select 1 from import_file f where f.kind = $1 and f.status = 'succeeded' and f.finished_on >= $3
	and ($2 = '' or exists (select 1 from unnest(f.holders) h where lower(h) = lower($2))))`

// checkExpected looks, at an expected file's time (due, in loc), whether it
// came that day; if not, it raises a fileMissing alert for the day.
func (s *Service) checkExpected(ctx context.Context, tx pgx.Tx, name string, due time.Time, loc *time.Location) (message, error) {
	e := s.Config.Expect(name)
	if e == nil {
		return message{Text: "No longer declared.", Code: "intake.expectGone"}, nil
	}
	local := due.In(loc)
	day := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, loc)
	var arrived bool
	if err := tx.QueryRow(ctx, `select `+arrivedSQL, e.Kind, e.Holder(), day).Scan(&arrived); err != nil {
		return message{}, err
	}
	params := map[string]any{"name": e.Name, "kind": e.Kind, "holder": e.Holder(), "by": e.By, "day": day.Format(time.DateOnly)}
	if arrived {
		return message{Text: fmt.Sprintf("The %s file of %s came on %s.", e.Kind, day.Format(time.DateOnly), e.Holder()),
			Code: "intake.expectArrived", Params: params}, nil
	}
	m := message{Text: fmt.Sprintf("No %s file for %s had come by %s on %s (expected: %s).", e.Kind, e.Holder(), e.By, day.Format(time.DateOnly), e.Name),
		Code: "alert.fileMissing", Params: params}
	m.Params["since"] = day.Format(time.RFC3339)
	return m, raise(ctx, tx, "missing:"+e.Name+":"+day.Format(time.DateOnly), AlertFileMissing, screenids.DataImport, m)
}

// clearArrived clears the missing-file alerts whose file has come since.
func clearArrived(ctx context.Context, tx pgx.Tx) error {
	_, err := tx.Exec(ctx, `update alert a set cleared_on = now()
		where a.kind = 'fileMissing' and a.cleared_on is null
		and exists (select 1 from import_file f where f.kind = a.message_params ->> 'kind' and f.status = 'succeeded'
			and f.finished_on >= (a.message_params ->> 'since')::timestamptz
			and (a.message_params ->> 'holder' = '' or exists (select 1 from unnest(f.holders) h where lower(h) = lower(a.message_params ->> 'holder'))))`)
	return err
}
