// Package controls is what lets a controller sign a month off (issue:
// controls): closed periods (this file) and four-eyes approvals
// (approvals.go). The audit trail's chain is the engine's (auditchain.go)
// and the database's (migration 00035).
package controls

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"ledgerdesk/engine"
	"ledgerdesk/screens/recon"
)

// Service is closed periods and approvals over one database.
type Service struct {
	pool      *pgxpool.Pool
	recon     *recon.Service
	now       func() time.Time
	mu        sync.RWMutex
	executors map[string]Executor // by replay op
}

// New returns the controls of pool, whose levels are those of rs.
func New(pool *pgxpool.Pool, rs *recon.Service) *Service {
	return &Service{pool: pool, recon: rs, now: time.Now, executors: map[string]Executor{}}
}

// Period is a closing of a month, for one level or all (Level empty), live
// or reopened.
type Period struct {
	ID           int64                `json:"id"`
	Month        string               `json:"month"` // yyyy-mm
	Level        string               `json:"level"` // slug; empty: every level
	ClosedBy     string               `json:"closedBy"`
	ClosedOn     time.Time            `json:"closedOn"`
	Summary      []recon.PeriodFigure `json:"summary"`
	ReopenedBy   *string              `json:"reopenedBy"`
	ReopenedOn   *time.Time           `json:"reopenedOn"`
	ReopenReason *string              `json:"reopenReason"`
}

// periodLock is the lock a closing holds to the end of its transaction;
// the guards of migration 00036 take it shared, so a write that started
// before the closing ends before the closing counts.
const periodLock = `select pg_advisory_xact_lock(hashtext('closed_period'))`

// ParseMonth reads a period as yyyy-mm.
func ParseMonth(s string) (time.Time, error) {
	m, err := time.Parse("2006-01", strings.TrimSpace(s))
	if err != nil {
		return time.Time{}, engine.Invalid("month", "Give the month as yyyy-mm (for example 2026-03), not %q.", s).With("periods.badMonth", "value", s)
	}
	return m, nil
}

// level returns the level of slug, nil for "" or "all" (every level: the
// Closed periods grid's Level of such a closing).
func (s *Service) level(slug string) (*recon.Level, error) {
	if slug == "" || slug == "all" {
		return nil, nil
	}
	return s.recon.Level(slug)
}

func levelNumber(l *recon.Level) *int {
	if l == nil {
		return nil
	}
	return &l.N
}

const periodColumns = `id, to_char(month, 'YYYY-MM'), coalesce(level, 0), closed_by, closed_on, summary, reopened_by, reopened_on, reopen_reason`

func (s *Service) scanPeriod(row pgx.Row) (*Period, error) {
	var p Period
	var level int
	var summary []byte
	if err := row.Scan(&p.ID, &p.Month, &level, &p.ClosedBy, &p.ClosedOn, &summary, &p.ReopenedBy, &p.ReopenedOn, &p.ReopenReason); err != nil {
		return nil, err
	}
	for _, l := range s.recon.Levels() {
		if l.N == level {
			p.Level = l.Slug
		}
	}
	if err := json.Unmarshal(summary, &p.Summary); err != nil {
		return nil, fmt.Errorf("closed period %d: summary: %w", p.ID, err)
	}
	return &p, nil
}

// Periods lists every closing, newest month first, reopened ones with who
// reopened them and why.
func (s *Service) Periods(ctx context.Context) ([]*Period, error) {
	rows, err := s.pool.Query(ctx, `select `+periodColumns+` from closed_period order by month desc, id desc limit 1000`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*Period{}
	for rows.Next() {
		p, err := s.scanPeriod(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// Close closes the month for level slug (every level when empty): refused
// while it is closed already (for the level or for all) or while approvals
// that touch it wait. Its summary is kept as it is now.
func (s *Service) Close(ctx context.Context, month, slug string) (*Period, error) {
	m, err := ParseMonth(month)
	if err != nil {
		return nil, err
	}
	l, err := s.level(slug)
	if err != nil {
		return nil, err
	}
	actor := engine.ActorFrom(ctx).Username
	var out *Period
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, periodLock); err != nil {
			return err
		}
		var closedBy string
		var closedAll bool
		err := tx.QueryRow(ctx, `select closed_by, level is null from closed_period where reopened_on is null and month = $1
			and (level is null or $2::smallint is null or level = $2) order by level nulls first limit 1`, m, levelNumber(l)).Scan(&closedBy, &closedAll)
		switch {
		case err == nil && closedAll:
			return engine.Conflict("%s is closed already for every level (by %s).", m.Format("2006-01"), closedBy).
				With("periods.alreadyClosed", "month", m.Format("2006-01"), "closedBy", closedBy)
		case err == nil && l != nil:
			return engine.Conflict("%s is closed already for this level (by %s).", m.Format("2006-01"), closedBy).
				With("periods.alreadyClosedLevel", "month", m.Format("2006-01"), "closedBy", closedBy)
		case err == nil:
			return engine.Conflict("%s is closed for some levels already: reopen them first, then close every level at once.", m.Format("2006-01")).
				With("periods.partlyClosed", "month", m.Format("2006-01"))
		case !errors.Is(err, pgx.ErrNoRows):
			return err
		}
		var pending int
		if err := tx.QueryRow(ctx, `select count(*) from approval where status = 'pending' and $1::date = any (months)
			and ($2::smallint is null or level is null or level = $2)`, m, levelNumber(l)).Scan(&pending); err != nil {
			return err
		}
		if pending > 0 {
			return engine.Conflict("%d approvals that touch %s wait for a decision: decide them before closing the period.", pending, m.Format("2006-01")).
				With("periods.pendingApprovals", "month", m.Format("2006-01"), "count", pending)
		}
		summary, err := s.recon.PeriodSummary(ctx, tx, m, l)
		if err != nil {
			return err
		}
		b, err := json.Marshal(summary)
		if err != nil {
			return err
		}
		out, err = s.scanPeriod(tx.QueryRow(ctx, `insert into closed_period (month, level, closed_by, closed_on, summary)
			values ($1, $2, $3, $4, $5) returning `+periodColumns, m, levelNumber(l), actor, s.now(), b))
		if err != nil {
			return err
		}
		return engine.Audit(ctx, tx, engine.AuditEntry{Action: "period.close", Entity: "closed_period", EntityID: fmt.Sprint(out.ID), After: out})
	})
	if err != nil {
		return nil, fmt.Errorf("close %s: %w", month, err)
	}
	return out, nil
}

// Reopen reopens the month's closing for level slug (every level when
// empty), with a reason; the closing stays on record with who reopened it,
// when and why.
func (s *Service) Reopen(ctx context.Context, month, slug, reason string) (*Period, error) {
	m, err := ParseMonth(month)
	if err != nil {
		return nil, err
	}
	l, err := s.level(slug)
	if err != nil {
		return nil, err
	}
	reason = strings.TrimSpace(reason)
	if reason == "" {
		return nil, engine.Invalid("reason", "Say why the period is reopened.").With("periods.reasonRequired")
	}
	if len(reason) > 1000 {
		return nil, engine.Invalid("reason", "The reason must be at most 1000 characters.").With("recon.reasonTooLong")
	}
	actor := engine.ActorFrom(ctx).Username
	var out *Period
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		before, err := s.scanPeriod(tx.QueryRow(ctx, `select `+periodColumns+` from closed_period
			where reopened_on is null and month = $1 and coalesce(level, 0) = coalesce($2::smallint, 0) for update`, m, levelNumber(l)))
		if errors.Is(err, pgx.ErrNoRows) {
			return engine.NotFound("%s is not closed for this level.", m.Format("2006-01")).With("periods.notClosed", "month", m.Format("2006-01"))
		}
		if err != nil {
			return err
		}
		out, err = s.scanPeriod(tx.QueryRow(ctx, `update closed_period set reopened_by = $2, reopened_on = $3, reopen_reason = $4
			where id = $1 returning `+periodColumns, before.ID, actor, s.now(), reason))
		if err != nil {
			return err
		}
		return engine.Audit(ctx, tx, engine.AuditEntry{Action: "period.reopen", Entity: "closed_period", EntityID: fmt.Sprint(out.ID),
			Before: before, After: out})
	})
	if err != nil {
		return nil, fmt.Errorf("reopen %s: %w", month, err)
	}
	return out, nil
}
