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

// Match is a live or undone match group at a level: one or more records
// of its left side with one or more of its right side. LeftID and RightID
// are each side's first record; LeftIDs and RightIDs all of them, first
// first.
type Match struct {
	ID             int64      `json:"id"`
	Level          string     `json:"level"`
	LeftID         int64      `json:"leftId"`
	RightID        int64      `json:"rightId"`
	LeftIDs        []int64    `json:"leftIds"`
	RightIDs       []int64    `json:"rightIds"`
	Status         string     `json:"status"` // matched, partial, investigation
	Rule           string     `json:"rule"`   // exact, date, amount, fx, manual, investigation, forced, adjustment, writeoff
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

// (a write-off's other side has no first record: id 0, no ids)
const matchColumns = `id, level, coalesce(left_id, 0), coalesce(right_id, 0), status, rule, amount_variance::text, date_lag_days, reason, run_id,
	created_by, created_on, undone_by, undone_on, undo_reason`

func (s *Service) scanMatch(row pgx.Row) (*Match, error) {
	var m Match
	var level int
	err := row.Scan(&m.ID, &level, &m.LeftID, &m.RightID, &m.Status, &m.Rule, &m.AmountVariance, &m.DateLagDays, &m.Reason,
		&m.RunID, &m.CreatedBy, &m.CreatedOn, &m.UndoneBy, &m.UndoneOn, &m.UndoReason)
	if err != nil {
		return nil, err
	}
	m.Level = s.def.slugOf(level)
	m.LeftIDs, m.RightIDs = []int64{}, []int64{}
	if m.LeftID != 0 {
		m.LeftIDs = append(m.LeftIDs, m.LeftID)
	}
	if m.RightID != 0 {
		m.RightIDs = append(m.RightIDs, m.RightID)
	}
	return &m, nil
}

// withMembers adds the further records of m's group to its id lists.
func withMembers(ctx context.Context, q pgx.Tx, m *Match) (*Match, error) {
	rows, err := q.Query(ctx, `select side, record_id from recon_match_member where match_id = $1 order by side, record_id`, m.ID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var side string
		var id int64
		if err := rows.Scan(&side, &id); err != nil {
			return nil, err
		}
		if side == "left" {
			m.LeftIDs = append(m.LeftIDs, id)
		} else {
			m.RightIDs = append(m.RightIDs, id)
		}
	}
	return m, rows.Err()
}

// liveMatchOf is the live match group holding record id of side which at
// level l, or nil.
func (s *Service) liveMatchOf(ctx context.Context, tx pgx.Tx, l *Level, which string, id int64) (*Match, error) {
	m, err := s.scanMatch(tx.QueryRow(ctx, `select `+matchColumns+` from recon_match
		where id = (select v.id from recon_match_live v where v.level = $1 and v.side = $2 and v.record_id = $3)`, l.N, which, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return withMembers(ctx, tx, m)
}

// MatchRequest is a manual match (or investigation) of two records, or of
// a group: LeftIDs and RightIDs, when given, are all its records of each
// side (LeftID and RightID then unused).
type MatchRequest struct {
	LeftID, RightID   int64
	LeftIDs, RightIDs []int64
	// LeftRef names the left record by its reference (a payout by its
	// PayoutID) instead of LeftID.
	LeftRef     string
	Investigate bool
	// Force accepts a pair the tolerances refuse outright (two currencies
	// outside the currency tolerance, no rate, a payout in several
	// currencies); it needs a Reason, stored on the match (rule forced).
	Force  bool
	Reason string
}

// record is one side of a pair as matching compares it.
type record struct {
	amount   string // numeric text
	currency *string
	date     time.Time
	provider string
	ref      string
	manual   bool // made by hand: its date is not compared
}

func readRecord(ctx context.Context, tx pgx.Tx, l *Level, which string, id int64) (*record, error) {
	var r record
	s := l.side(which)
	err := tx.QueryRow(ctx, recordOfSQL(l, which), id).Scan(&r.amount, &r.currency, &r.date, &r.provider, &r.ref, &r.manual)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, engine.Invalid(s.Field, "There is no %s with id %d.", s.Name, id).With("recon.unknownRecord", "kind", s.Name, "id", id, "field", s.Field)
	}
	return &r, err
}

// MatchByHand matches two records of level l (or marks them for
// investigation), after checking both exist, neither has a live match at
// the level, and the pair is one the tolerances can compare (else Force
// with a reason). Who, when and a forced match's reason are recorded, and
// audited.
func (s *Service) MatchByHand(ctx context.Context, l *Level, req MatchRequest) (*Match, error) {
	req.Reason = strings.TrimSpace(req.Reason)
	if len(req.Reason) > 1000 {
		return nil, engine.Invalid("reason", "The reason must be at most 1000 characters.").With("recon.reasonTooLong")
	}
	if req.Force && req.Reason == "" {
		return nil, engine.Invalid("reason", "Say why this pair is matched despite the difference.").With("recon.forceReasonRequired")
	}
	group, err := req.group(l)
	if err != nil {
		return nil, err
	}
	actor := engine.ActorFrom(ctx).Username
	var out *Match
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if err := lockLevel(ctx, tx, l, 5*time.Second); err != nil {
			return err
		}
		if group {
			out, err = s.matchGroup(ctx, tx, l, req, actor)
			return err
		}
		if req.LeftRef != "" {
			err := tx.QueryRow(ctx, fmt.Sprintf(`select id from %s where ref = $1 order by id limit 1`, l.Left.Source), req.LeftRef).Scan(&req.LeftID)
			if errors.Is(err, pgx.ErrNoRows) {
				return engine.Invalid(l.Left.Field, "There is no %s %q.", l.Left.Name, req.LeftRef).
					With("recon.unknownRef", "kind", l.Left.Name, "ref", req.LeftRef, "field", l.Left.Field)
			}
			if err != nil {
				return err
			}
		}
		if req.LeftID <= 0 {
			return engine.Invalid(l.Left.Field, "Choose a %s.", l.Left.Name).With("recon.chooseBoth", "field", l.Left.Field)
		}
		if req.RightID <= 0 {
			return engine.Invalid(l.Right.Field, "Choose a %s.", l.Right.Name).With("recon.chooseBoth", "field", l.Right.Field)
		}
		left, err := readRecord(ctx, tx, l, "left", req.LeftID)
		if err != nil {
			return err
		}
		right, err := readRecord(ctx, tx, l, "right", req.RightID)
		if err != nil {
			return err
		}
		if err := s.checkUnmatched(ctx, tx, l, []int64{req.LeftID}, []int64{req.RightID}); err != nil {
			return err
		}
		e, err := evaluate(ctx, tx, l, left, right)
		if err != nil {
			return err
		}
		forced, err := req.forced(e.refusal(l, left, right))
		if err != nil {
			return err
		}
		if err := s.gateMatch(ctx, tx, l, req, forced, []int64{req.LeftID}, []int64{req.RightID}, e.Variance); err != nil {
			return err
		}
		out, err = s.insertByHand(ctx, tx, l, req, forced, req.LeftID, req.RightID, e.Variance, e.Lag, actor)
		if err != nil {
			return err
		}
		entry := engine.AuditEntry{Action: "recon.match", Entity: "recon_match", EntityID: fmt.Sprint(out.ID), After: out}
		if forced {
			entry.Action = "recon.match.forced"
		}
		return engine.Audit(ctx, tx, entry)
	})
	if err != nil {
		return nil, fmt.Errorf("match %s: %w", l.Slug, s.nameBusyRun(ctx, l, err))
	}
	return out, nil
}

// forced tells whether the match is forced past refusal (nil: nothing to
// force), or returns the refusal when the request does not force it.
func (r *MatchRequest) forced(refusal *engine.Error) (bool, error) {
	if refusal == nil {
		return false, nil
	}
	if !r.Force {
		return false, refusal
	}
	return true, nil
}

// insertByHand writes a match made by hand (or an investigation) of the
// first records left and right, with its evaluation, rule and reason.
func (s *Service) insertByHand(ctx context.Context, tx pgx.Tx, l *Level, req MatchRequest, forced bool, left, right int64,
	variance *string, lag int, actor string) (*Match, error) {
	status, rule := "matched", "manual"
	switch {
	case req.Investigate:
		status, rule = "investigation", "investigation"
	case forced:
		rule = "forced"
	}
	var reason *string
	if req.Reason != "" {
		reason = &req.Reason
	}
	return s.scanMatch(tx.QueryRow(ctx, `insert into recon_match (level, left_id, right_id, status, rule, amount_variance, date_lag_days, reason, created_by)
		values ($1, $2, $3, $4, $5, $6::numeric, $7, $8, $9) returning `+matchColumns,
		l.N, left, right, status, rule, variance, lag, reason, actor))
}

// nameBusyRun names the run that kept a manual match waiting too long, so
// the user knows whose run and since when.
func (s *Service) nameBusyRun(ctx context.Context, l *Level, err error) error {
	var e *engine.Error
	if !errors.As(err, &e) || e.Key != "recon.levelBusy" {
		return err
	}
	if r, rerr := s.activeRun(ctx, l); rerr == nil && r != nil {
		e.Message = fmt.Sprintf("An automatic reconcile of %s (run %d, started by %s) is writing its matches; try again in a moment.", l.Slug, r.ID, r.CreatedBy)
		e.Params["runId"], e.Params["by"] = r.ID, r.CreatedBy
	}
	return err
}

// checkUnmatched refuses records of which one has a live match at l.
func (s *Service) checkUnmatched(ctx context.Context, tx pgx.Tx, l *Level, left, right []int64) error {
	for _, which := range []string{"left", "right"} {
		ids := left
		if which == "right" {
			ids = right
		}
		side := l.side(which)
		for _, id := range ids {
			m, err := s.liveMatchOf(ctx, tx, l, which, id)
			if err != nil {
				return err
			}
			if m == nil {
				continue
			}
			return engine.Conflict("The %s %d is already matched (match %d, %s by %s on %s); undo that match first.",
				side.Name, id, m.ID, m.Status, m.CreatedBy, m.CreatedOn.UTC().Format("2006-01-02 15:04 UTC")).
				With("recon.alreadyMatched", "kind", side.Name, "id", id, "matchId", m.ID, "by", m.CreatedBy, "at", m.CreatedOn)
		}
	}
	return nil
}

// Evaluation is recon_pair_eval's verdict on a pair: the one evaluation
// automatic runs, manual matches, "why" and live matches share.
type Evaluation struct {
	Variance *string // left minus right in the left currency; nil without a rate
	Lag      int
	DiffPct  *string // across currencies
	Rule     string
	Status   string
	Inside   bool
	// CurrencyOK: one currency, or two inside the currency tolerance.
	CurrencyOK bool
	NoRate     bool
	Tolerance  *string // the currency tolerance in percent; nil: none
	sameCur    bool
}

// evaluate runs the pair evaluation on two records with the tolerances of
// the level's provider.
func evaluate(ctx context.Context, tx pgx.Tx, l *Level, left, right *record) (*Evaluation, error) {
	provider := right.provider
	if l.Tolerance.Side == "left" {
		provider = left.provider
	}
	// a record made by hand is dated when it was booked: its date is not compared
	leftDate, rightDate := left.date, right.date
	if left.manual {
		leftDate = rightDate
	}
	if right.manual {
		rightDate = leftDate
	}
	var e Evaluation
	err := tx.QueryRow(ctx, `
		select e.variance::text, e.lag, e.diff_pct::text, e.rule, e.status, e.inside, e.currency_ok, e.no_rate, tol.currency_threshold::text
		from (select 1) one
		left join recon_tolerance tol on tol.level = $7 and tol.provider_key = lower($8)
		cross join lateral recon_pair_eval($1::numeric, $2::numeric, $3, $4, $5::date, $6::date,
			tol.amount_threshold, tol.date_threshold, tol.currency_threshold) e`,
		left.amount, right.amount, left.currency, right.currency, leftDate, rightDate, l.toleranceType(), provider).
		Scan(&e.Variance, &e.Lag, &e.DiffPct, &e.Rule, &e.Status, &e.Inside, &e.CurrencyOK, &e.NoRate, &e.Tolerance)
	e.sameCur = left.currency != nil && right.currency != nil && *left.currency == *right.currency
	return &e, err
}

// refusal is why a pair cannot be matched by hand without force: a record
// of no single currency, no rate, no currency tolerance, or a difference
// beyond it. A manual match accepts any amount difference and date lag in
// one currency: that is the point of matching by hand.
func (e *Evaluation) refusal(l *Level, left, right *record) *engine.Error {
	if e.sameCur {
		return nil
	}
	if left.currency == nil || right.currency == nil {
		return engine.Invalid("force", "The payout's settlements are in several currencies; give a reason and force to match it anyway.").
			With("recon.mixedCurrencies")
	}
	provider := right.provider
	if l.Tolerance.Side == "left" {
		provider = left.provider
	}
	switch {
	case e.NoRate:
		return engine.Invalid("force", "There is no USD exchange rate for %s or %s on these dates, so the amounts cannot be compared; give a reason and force to match anyway.",
			*left.currency, *right.currency).With("recon.noRate", "left", *left.currency, "right", *right.currency)
	case e.Tolerance == nil:
		return engine.Invalid("force", "The records are in %s and %s, and %s has no currency tolerance for %s, so different currencies do not match; give a reason and force to match anyway.",
			*left.currency, *right.currency, providerName(provider), l.Slug).
			With("recon.noCurrencyTolerance", "left", *left.currency, "right", *right.currency, "provider", provider)
	case !e.CurrencyOK:
		// (only the currency tolerance refuses a manual match: amount and
		// date differences are the user's to accept)
		pct := "an undefined share"
		var param any
		if e.DiffPct != nil {
			pct, param = *e.DiffPct+"%", *e.DiffPct
		}
		return engine.Invalid("force", "The amounts differ by %s in USD, beyond the currency tolerance of %s%% of %s; give a reason and force to match anyway.",
			pct, *e.Tolerance, providerName(provider)).
			With("recon.outsideCurrencyTolerance", "difference", param, "tolerance", *e.Tolerance, "provider", provider)
	}
	return nil
}

func providerName(p string) string {
	if p == "" {
		return "the provider"
	}
	return p
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
		before, err := s.scanMatch(tx.QueryRow(ctx, `select `+matchColumns+` from recon_match where id = $1 and level = $2 for update`, id, l.N))
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
		if before, err = withMembers(ctx, tx, before); err != nil {
			return err
		}
		if err := s.gate(ctx, tx, gateRequest{action: engine.ApprovalOldUndo, level: l, left: before.LeftIDs, right: before.RightIDs,
			ageDays: int(time.Since(before.CreatedOn).Hours() / 24), reason: reason,
			replay: map[string]any{"op": "recon.undo", "level": l.Slug, "id": id, "reason": reason}}); err != nil {
			return err
		}
		// the whole group: its further records follow (recon_match_member_follow)
		out, err = s.scanMatch(tx.QueryRow(ctx, `update recon_match set undone_by = $2, undone_on = now(), undo_reason = $3 where id = $1
			returning `+matchColumns, id, engine.ActorFrom(ctx).Username, reason))
		if err != nil {
			return err
		}
		out.LeftIDs, out.RightIDs = before.LeftIDs, before.RightIDs
		return engine.Audit(ctx, tx, engine.AuditEntry{Action: "recon.undo", Entity: "recon_match", EntityID: fmt.Sprint(id), Before: before, After: out})
	})
	if err != nil {
		return nil, fmt.Errorf("undo match %d: %w", id, err)
	}
	return out, nil
}
