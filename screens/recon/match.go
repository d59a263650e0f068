package recon

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"ledgerdesk/engine"
)

// Match is a live or undone match of two records at a level.
type Match struct {
	ID             int64      `json:"id"`
	Level          string     `json:"level"`
	LeftID         int64      `json:"leftId"`
	RightID        int64      `json:"rightId"`
	Status         string     `json:"status"` // matched, partial, investigation
	Rule           string     `json:"rule"`   // exact, date, amount, fx, manual, investigation
	AmountVariance *string    `json:"amountVariance"`
	DateLagDays    *int       `json:"dateLagDays"`
	Reason         *string    `json:"reason"`
	RunID          *int64     `json:"runId"`
	CreatedBy      string     `json:"createdBy"`
	CreatedOn      time.Time  `json:"createdOn"`
	UndoneBy       *string    `json:"undoneBy,omitempty"`
	UndoneOn       *time.Time `json:"undoneOn,omitempty"`
	UndoReason     *string    `json:"undoReason,omitempty"`
}

const matchColumns = `id, level, left_id, right_id, status, rule, amount_variance::text, date_lag_days, reason, run_id,
	created_by, created_on, undone_by, undone_on, undo_reason`

func scanMatch(row pgx.Row) (*Match, error) {
	var m Match
	var level int
	err := row.Scan(&m.ID, &level, &m.LeftID, &m.RightID, &m.Status, &m.Rule, &m.AmountVariance, &m.DateLagDays, &m.Reason,
		&m.RunID, &m.CreatedBy, &m.CreatedOn, &m.UndoneBy, &m.UndoneOn, &m.UndoReason)
	if err != nil {
		return nil, err
	}
	m.Level = Levels[level-1].Slug
	return &m, nil
}

// MatchRequest is a manual match (or investigation) of two records.
type MatchRequest struct {
	LeftID, RightID int64
	// PayoutKey names the payout of a level-3 match by its PayoutID
	// instead of LeftID.
	PayoutKey   string
	Investigate bool
	// Force accepts a pair in different currencies outside the currency
	// tolerance.
	Force  bool
	Reason string
}

// record is one side of a pair as matching compares it.
type record struct {
	amount   string // numeric text
	currency *string
	date     time.Time
	provider string
}

// recordSQL reads one side of a level by id: amount, currency, date, provider.
var recordSQL = map[string]string{
	"ticket": `select sale_amount::text, currency, trans_date, '' from ticket where id = $1`,
	"transaction": `select transaction_amount::text, currency, processing_date, provider_actor from card_transaction
		where id = $1 and not is_manual_adjust`,
	"settlement": `select coalesce(gross_amount, settlement_net + coalesce(fees, 0))::text, settlement_currency, settlement_date, provider_actor
		from settlement where id = $1`,
	"payout": `select total_net::text, currency, latest_date, provider_actor from payout where id = $1`,
	"bank booking": `select (coalesce(reco_amount_in_local_currency, amount_local) + coalesce(bank_charges_in_local, 0))::text, currency, booked_date,
		coalesce(nullif(manual_provider, ''), provider, '') from bank_booking where id = $1 and status = 'Processed'`,
}

func readRecord(ctx context.Context, tx pgx.Tx, kind, field string, id int64) (*record, error) {
	var r record
	err := tx.QueryRow(ctx, recordSQL[kind], id).Scan(&r.amount, &r.currency, &r.date, &r.provider)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, engine.Invalid(field, "There is no %s with id %d.", kind, id).With("recon.unknownRecord", "kind", kind, "id", id, "field", field)
	}
	return &r, err
}

// MatchByHand matches two records of level l (or marks them for
// investigation), after checking both exist, neither has a live match at
// the level, and a pair in two currencies lies inside the currency
// tolerance (or Force is set). Who and when are recorded, and audited.
func (s *Service) MatchByHand(ctx context.Context, l *Level, req MatchRequest) (*Match, error) {
	if len(req.Reason) > 1000 {
		return nil, engine.Invalid("reason", "The reason must be at most 1000 characters.").With("recon.reasonTooLong")
	}
	actor := engine.ActorFrom(ctx).Username
	var out *Match
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if err := lockLevel(ctx, tx, l, 5*time.Second); err != nil {
			return err
		}
		if l.N == 3 {
			if err := refreshPayouts(ctx, tx); err != nil {
				return err
			}
			if req.PayoutKey != "" {
				err := tx.QueryRow(ctx, `select id from payout where payout_key = $1`, req.PayoutKey).Scan(&req.LeftID)
				if errors.Is(err, pgx.ErrNoRows) {
					return engine.Invalid("settlement", "There is no payout %q.", req.PayoutKey).With("recon.unknownPayout", "payoutId", req.PayoutKey)
				}
				if err != nil {
					return err
				}
			}
		}
		if req.LeftID <= 0 {
			return engine.Invalid(l.LeftField, "Choose a %s.", l.Left).With("recon.chooseBoth", "field", l.LeftField)
		}
		if req.RightID <= 0 {
			return engine.Invalid(l.RightField, "Choose a %s.", l.Right).With("recon.chooseBoth", "field", l.RightField)
		}
		left, err := readRecord(ctx, tx, l.Left, l.LeftField, req.LeftID)
		if err != nil {
			return err
		}
		right, err := readRecord(ctx, tx, l.Right, l.RightField, req.RightID)
		if err != nil {
			return err
		}
		if err := checkUnmatched(ctx, tx, l, req.LeftID, req.RightID); err != nil {
			return err
		}
		variance, err := pairVariance(ctx, tx, l, left, right, req.Force)
		if err != nil {
			return err
		}
		status, rule := "matched", "manual"
		if req.Investigate {
			status, rule = "investigation", "investigation"
		}
		lag := int(absDays(right.date.Sub(left.date)))
		var reason *string
		if r := strings.TrimSpace(req.Reason); r != "" {
			reason = &r
		}
		out, err = scanMatch(tx.QueryRow(ctx, `insert into recon_match (level, left_id, right_id, status, rule, amount_variance, date_lag_days, reason, created_by)
			values ($1, $2, $3, $4, $5, $6::numeric, $7, $8, $9) returning `+matchColumns,
			l.N, req.LeftID, req.RightID, status, rule, variance, lag, reason, actor))
		if err != nil {
			return err
		}
		return engine.Audit(ctx, tx, engine.AuditEntry{Action: "recon.match", Entity: "recon_match", EntityID: fmt.Sprint(out.ID), After: out})
	})
	if err != nil {
		return nil, fmt.Errorf("match %s: %w", l.Slug, err)
	}
	return out, nil
}

func absDays(d time.Duration) float64 {
	days := d.Hours() / 24
	if days < 0 {
		return -days
	}
	return days
}

// checkUnmatched refuses a pair when either record has a live match at l.
func checkUnmatched(ctx context.Context, tx pgx.Tx, l *Level, leftID, rightID int64) error {
	for _, side := range []struct {
		column, kind, field string
		id                  int64
	}{{"left_id", l.Left, l.LeftField, leftID}, {"right_id", l.Right, l.RightField, rightID}} {
		m, err := scanMatch(tx.QueryRow(ctx, `select `+matchColumns+` from recon_match
			where level = $1 and `+side.column+` = $2 and undone_on is null`, l.N, side.id))
		if errors.Is(err, pgx.ErrNoRows) {
			continue
		}
		if err != nil {
			return err
		}
		return engine.Conflict("The %s %d is already matched (match %d, %s by %s on %s); undo that match first.",
			side.kind, side.id, m.ID, m.Status, m.CreatedBy, m.CreatedOn.UTC().Format("2006-01-02 15:04 UTC")).
			With("recon.alreadyMatched", "kind", side.kind, "id", side.id, "matchId", m.ID, "by", m.CreatedBy, "at", m.CreatedOn)
	}
	return nil
}

// pairVariance is the pair's amount difference (left minus right, in the
// left record's currency) as numeric text. Across currencies it goes
// through the USD rates of each record's date, and a difference beyond the
// provider's currency tolerance (or a provider with none) is refused unless
// force is set.
func pairVariance(ctx context.Context, tx pgx.Tx, l *Level, left, right *record, force bool) (*string, error) {
	if left.currency == nil || right.currency == nil {
		if !force {
			return nil, engine.Invalid("force", "The payout's settlements are in several currencies; send force to match it anyway.").
				With("recon.mixedCurrencies")
		}
		return nil, nil
	}
	var variance string
	if *left.currency == *right.currency {
		err := tx.QueryRow(ctx, `select ($1::numeric - $2::numeric)::text`, left.amount, right.amount).Scan(&variance)
		return &variance, err
	}
	var pct, threshold, lRate, rRate, fxVariance *string
	err := tx.QueryRow(ctx, `
		select usd_rate($3, $4)::text, usd_rate($5, $6)::text,
		       round(abs($1::numeric * usd_rate($3, $4) - $2::numeric * usd_rate($5, $6)) * 100 / nullif(abs($1::numeric * usd_rate($3, $4)), 0), 2)::text,
		       (select currency_threshold::text from recon_tolerance where level = $7 and provider_key = lower($8)),
		       round($1::numeric - $2::numeric * usd_rate($5, $6) / usd_rate($3, $4), 2)::text`,
		left.amount, right.amount, *left.currency, left.date, *right.currency, right.date, l.N, right.provider).
		Scan(&lRate, &rRate, &pct, &threshold, &fxVariance)
	if err != nil {
		return nil, err
	}
	if force {
		return fxVariance, nil
	}
	switch {
	case lRate == nil || rRate == nil:
		return nil, engine.Invalid("force", "There is no USD exchange rate for %s or %s on these dates, so the amounts cannot be compared; send force to match anyway.",
			*left.currency, *right.currency).With("recon.noRate", "left", *left.currency, "right", *right.currency)
	case threshold == nil:
		return nil, engine.Invalid("force", "The records are in %s and %s, and %s has no currency tolerance for %s, so different currencies do not match; send force to match anyway.",
			*left.currency, *right.currency, providerName(right.provider), l.Name).
			With("recon.noCurrencyTolerance", "left", *left.currency, "right", *right.currency, "provider", right.provider)
	case pct == nil || !numLE(ctx, tx, *pct, *threshold):
		shown := "an undefined share"
		if pct != nil {
			shown = *pct + "%"
		}
		return nil, engine.Invalid("force", "The amounts differ by %s in USD, beyond the currency tolerance of %s%% of %s; send force to match anyway.",
			shown, *threshold, providerName(right.provider)).
			With("recon.outsideCurrencyTolerance", "difference", pct, "tolerance", *threshold, "provider", right.provider)
	}
	return fxVariance, nil
}

func providerName(p string) string {
	if p == "" {
		return "the provider"
	}
	return p
}

// numLE compares two numeric texts exactly.
func numLE(ctx context.Context, tx pgx.Tx, a, b string) bool {
	var le bool
	if err := tx.QueryRow(ctx, `select $1::numeric <= $2::numeric`, a, b).Scan(&le); err != nil {
		return false
	}
	return le
}

// Undo ends a live match of level l with a reason; the row stays, with who,
// when and why, and the audit log has it.
func (s *Service) Undo(ctx context.Context, l *Level, id int64, reason string) (*Match, error) {
	reason = strings.TrimSpace(reason)
	if reason == "" {
		return nil, engine.Invalid("reason", "Say why the match is undone.").With("recon.undoReasonRequired")
	}
	if len(reason) > 1000 {
		return nil, engine.Invalid("reason", "The reason must be at most 1000 characters.").With("recon.reasonTooLong")
	}
	var out *Match
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		before, err := scanMatch(tx.QueryRow(ctx, `select `+matchColumns+` from recon_match where id = $1 and level = $2 for update`, id, l.N))
		if errors.Is(err, pgx.ErrNoRows) {
			return engine.NotFound("There is no match %d of %s.", id, l.Name).With("recon.matchNotFound", "matchId", id, "level", l.Slug)
		}
		if err != nil {
			return err
		}
		if before.UndoneOn != nil {
			return engine.Conflict("Match %d was already undone by %s.", id, *before.UndoneBy).
				With("recon.alreadyUndone", "matchId", id, "by", *before.UndoneBy)
		}
		out, err = scanMatch(tx.QueryRow(ctx, `update recon_match set undone_by = $2, undone_on = now(), undo_reason = $3 where id = $1
			returning `+matchColumns, id, engine.ActorFrom(ctx).Username, reason))
		if err != nil {
			return err
		}
		return engine.Audit(ctx, tx, engine.AuditEntry{Action: "recon.undo", Entity: "recon_match", EntityID: fmt.Sprint(id), Before: before, After: out})
	})
	if err != nil {
		return nil, fmt.Errorf("undo match %d: %w", id, err)
	}
	return out, nil
}
