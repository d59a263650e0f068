package recon

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"ledgerdesk/engine"
	"ledgerdesk/internal/decimal"
)

// WriteOff accepts records of one side of level l without a counter-record
// (POST /api/recon/{level}/writeoff): every record exists and has no live
// match at the level, they share one currency, and their sum in USD (the
// rate of their latest date, else the latest earlier one) is within the
// writer's limit, the largest of their roles' write-off limits (none: they
// may not write off). The write-off is a match group of that side alone:
// rule writeoff, status matched, its variance what was written off (left
// minus right), the reason kept; audited. Undo takes it back.
func (s *Service) WriteOff(ctx context.Context, l *Level, side string, ids []int64, reason string) (*Match, error) {
	if side != "left" && side != "right" {
		return nil, engine.Invalid("side", "side is left or right, not %q.", side).With("recon.side", "side", side)
	}
	if err := checkIDs(ids, "ids"); err != nil {
		return nil, err
	}
	reason = strings.TrimSpace(reason)
	if reason == "" {
		return nil, engine.Invalid("reason", "Say why these records are written off.").With("recon.writeoffReasonRequired")
	}
	if len(reason) > 1000 {
		return nil, engine.Invalid("reason", "The reason must be at most 1000 characters.").With("recon.reasonTooLong")
	}
	var out *Match
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if err := lockLevel(ctx, tx, l, 5*time.Second); err != nil {
			return err
		}
		var err error
		out, err = s.writeOff(ctx, tx, l, side, ids, reason,
			map[string]any{"op": "recon.writeoff", "level": l.Slug, "side": side, "ids": ids, "reason": reason})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("write off at %s: %w", l.Slug, s.nameBusyRun(ctx, l, err))
	}
	return out, nil
}

// writeOff writes records of one side of a level off in tx, which holds
// the level's lock: the checks of WriteOff past its arguments' form.
// replay is what carries the whole request out again once approved.
func (s *Service) writeOff(ctx context.Context, tx pgx.Tx, l *Level, side string, ids []int64, reason string, replay map[string]any) (*Match, error) {
	actor := engine.ActorFrom(ctx)
	var out *Match
	err := func() error {
		src := l.side(side)
		if err := checkExist(ctx, tx, src, ids, "ids"); err != nil {
			return err
		}
		left, right := ids, []int64(nil)
		if side == "right" {
			left, right = nil, ids
		}
		if err := s.checkUnmatched(ctx, tx, l, left, right); err != nil {
			return err
		}
		var sum, currency string
		var currencies int
		var usd, limit *string
		var allowed bool
		err := tx.QueryRow(ctx, fmt.Sprintf(`
			with r as (select sum(s.amount) as total, min(s.currency) as cur, max(s.date) as day,
			                  -- (a record of no single currency, like a payout in several, counts as another)
			                  case when count(s.currency) = count(*) then count(distinct s.currency) else 0 end as n
			           from %s s where s.id = any ($1))
			select r.total::text, coalesce(r.cur, ''), r.n, round(abs(r.total) * usd_rate(r.cur, r.day), 2)::text,
			       l.lim::text, l.lim is not null
			from r cross join (select max(ro.writeoff_limit) as lim from user_role ur join role ro on ro.id = ur.role_id
			                   where ur.user_id = $2) l`, src.Source), ids, actor.UserID).
			Scan(&sum, &currency, &currencies, &usd, &limit, &allowed)
		if err != nil {
			return err
		}
		switch {
		case !allowed:
			return engine.Forbidden("Your roles may not write off: an administrator sets a write-off limit on a role.").With("recon.writeoffNotAllowed")
		case currencies != 1:
			return engine.Invalid("ids", "The records are in several currencies; write off each currency apart.").With("recon.writeoffMixedCurrencies")
		case usd == nil:
			return engine.Invalid("ids", "There is no USD exchange rate for %s on these dates, so the amount cannot be held against your write-off limit.", currency).
				With("recon.writeoffNoRate", "currency", currency)
		case exceeds(*usd, *limit):
			return engine.Forbidden("Writing off %s %s (%s USD) is above your limit of %s USD.", sum, currency, *usd, *limit).
				With("recon.writeoffOverLimit", "amount", *usd, "limit", *limit, "sum", sum, "currency", currency)
		}
		if err := s.gate(ctx, tx, gateRequest{action: engine.ApprovalWriteOff, level: l, left: left, right: right,
			amount: &sum, reason: reason, replay: replay}); err != nil {
			return err
		}
		var first [2]*int64
		if side == "left" {
			first[0] = &ids[0]
		} else {
			first[1] = &ids[0]
		}
		out, err = s.scanMatch(tx.QueryRow(ctx, `insert into recon_match (level, left_id, right_id, status, rule, amount_variance, date_lag_days, reason, created_by)
			values ($1, $2, $3, 'matched', 'writeoff', case when $6 = 'left' then $7::numeric else -$7::numeric end, 0, $4, $5)
			returning `+matchColumns,
			l.N, first[0], first[1], reason, actor.Username, side, sum))
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `insert into recon_match_member (match_id, level, side, record_id) select $1, $2, $3, unnest($4::bigint[])`,
			out.ID, l.N, side, ids[1:]); err != nil {
			return err
		}
		if side == "left" {
			out.LeftIDs = slices.Clone(ids)
		} else {
			out.RightIDs = slices.Clone(ids)
		}
		return engine.Audit(ctx, tx, engine.AuditEntry{Action: "recon.writeoff", Entity: "recon_match", EntityID: fmt.Sprint(out.ID), After: out})
	}()
	return out, err
}

// exceeds tells whether the amount is above the limit (both numeric text
// of at most two decimals, not negative).
func exceeds(amount, limit string) bool {
	a, errA := decimal.Cents(amount)
	b, errB := decimal.Cents(limit)
	return errA != nil || errB != nil || a.Cmp(b) > 0
}
