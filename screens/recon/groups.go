package recon

import (
	"context"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"

	"ledgerdesk/engine"
)

// MaxGroup bounds the records of one side of a match group made by hand.
const MaxGroup = 200

// group tells whether the request is a group of more than one record on a
// side; a one-and-one request given as lists becomes a pair. It checks the
// lists: at least one record a side, none twice, at most MaxGroup.
func (r *MatchRequest) group(l *Level) (bool, error) {
	if len(r.LeftIDs) == 0 && len(r.RightIDs) == 0 {
		return false, nil
	}
	if len(r.LeftIDs) == 0 && r.LeftID > 0 {
		r.LeftIDs = []int64{r.LeftID}
	}
	if len(r.RightIDs) == 0 && r.RightID > 0 {
		r.RightIDs = []int64{r.RightID}
	}
	for _, side := range []struct {
		ids   []int64
		field string
	}{{r.LeftIDs, "leftIds"}, {r.RightIDs, "rightIds"}} {
		if err := checkIDs(side.ids, side.field); err != nil {
			return false, err
		}
	}
	if len(r.LeftIDs) == 1 && len(r.RightIDs) == 1 {
		r.LeftID, r.RightID = r.LeftIDs[0], r.RightIDs[0]
		return false, nil
	}
	return true, nil
}

// checkIDs refuses an empty, oversized or repeating list of record ids.
func checkIDs(ids []int64, field string) error {
	if len(ids) == 0 {
		return engine.Invalid(field, "Choose at least one record on each side.").With("recon.chooseBoth", "field", field)
	}
	if len(ids) > MaxGroup {
		return engine.Invalid(field, "A group holds at most %d records of a side.", MaxGroup).With("recon.groupTooLarge", "max", MaxGroup, "field", field)
	}
	seen := make(map[int64]bool, len(ids))
	for _, id := range ids {
		if id <= 0 {
			return engine.Invalid(field, "%s must list record ids.", field).With("recon.idNumber", "field", field)
		}
		if seen[id] {
			return engine.Invalid(field, "The record %d is listed twice.", id).With("recon.duplicateRecord", "id", id, "field", field)
		}
		seen[id] = true
	}
	return nil
}

// GroupEvaluation is recon_group_eval's verdict on records of each side of
// a level taken together: their sums, currencies, the difference and
// whether the level's tolerances hold, and why a match of them would be
// refused without force (nil: it would not).
type GroupEvaluation struct {
	LeftSum       string     `json:"leftSum"`
	RightSum      string     `json:"rightSum"`
	LeftCurrency  *string    `json:"leftCurrency"`  // nil: several
	RightCurrency *string    `json:"rightCurrency"` // nil: several
	Variance      *string    `json:"variance"`      // left minus right in the left currency; nil without a rate
	DateLagDays   int        `json:"dateLagDays"`
	Inside        bool       `json:"inside"`
	Status        string     `json:"status"`
	Rule          string     `json:"rule"`
	Tolerance     Tolerances `json:"tolerance"`
	Refusal       *Refusal   `json:"refusal"`
	refusal       *engine.Error
	diffPct       *string
	amountOK      bool
	currencyOK    bool
	noRate        bool
	provider      string
}

// Tolerances are the tolerances of the level and provider that apply.
type Tolerances struct {
	Amount      *string `json:"amount"`
	Days        *int    `json:"days"`
	CurrencyPct *string `json:"currencyPct"`
}

// checkExist refuses ids of which one is no record of side s, naming the
// request's field.
func checkExist(ctx context.Context, tx pgx.Tx, s *LevelSide, ids []int64, field string) error {
	var missing *int64
	if err := tx.QueryRow(ctx, fmt.Sprintf(`select min(i) from unnest($1::bigint[]) i where not exists (select 1 from %s s where s.id = i)`, s.Source),
		ids).Scan(&missing); err != nil {
		return err
	}
	if missing != nil {
		return engine.Invalid(field, "There is no %s with id %d.", s.Name, *missing).
			With("recon.unknownRecord", "kind", s.Name, "id", *missing, "field", field)
	}
	return nil
}

// evaluateGroup runs the group evaluation on the records, after checking
// every one exists.
func evaluateGroup(ctx context.Context, tx pgx.Tx, l *Level, left, right []int64) (*GroupEvaluation, error) {
	for _, side := range []struct {
		which string
		ids   []int64
	}{{"left", left}, {"right", right}} {
		if err := checkExist(ctx, tx, l.side(side.which), side.ids, l.side(side.which).Field); err != nil {
			return nil, err
		}
	}
	var e GroupEvaluation
	err := tx.QueryRow(ctx, `
		select coalesce(left_sum, 0)::text, coalesce(right_sum, 0)::text, left_cur, right_cur, variance::text, coalesce(lag, 0),
		       coalesce(inside, false), status, rule, amount_threshold::text, date_threshold, currency_threshold::text,
		       diff_pct::text, coalesce(amount_ok, false), coalesce(currency_ok, false), coalesce(no_rate, false), coalesce(provider, provider_key, '')
		from recon_group_eval($1, $2, $3)`, l.N, left, right).
		Scan(&e.LeftSum, &e.RightSum, &e.LeftCurrency, &e.RightCurrency, &e.Variance, &e.DateLagDays, &e.Inside, &e.Status, &e.Rule,
			&e.Tolerance.Amount, &e.Tolerance.Days, &e.Tolerance.CurrencyPct, &e.diffPct, &e.amountOK, &e.currencyOK, &e.noRate, &e.provider)
	if err != nil {
		return nil, err
	}
	if e.refusal = e.refuse(l, len(left) > 1 || len(right) > 1); e.refusal != nil {
		e.Refusal = &Refusal{Error: e.refusal.Message, Code: e.refusal.Key, Params: e.refusal.Params}
	}
	return &e, nil
}

// Refusal is why a match needs force, as an error answer names it: the
// English text, its message code and parameters.
type Refusal struct {
	Error  string         `json:"error"`
	Code   string         `json:"code"`
	Params map[string]any `json:"params"`
}

// refuse is why a match of the records needs force and a reason: a side
// in several currencies, two currencies that cannot be compared or differ
// beyond the currency tolerance, and, for a group, sums outside the
// level's tolerances (a pair by hand may differ in amount and date: that
// is the point of matching one by hand).
func (e *GroupEvaluation) refuse(l *Level, group bool) *engine.Error {
	if e.LeftCurrency == nil || e.RightCurrency == nil {
		return engine.Invalid("force", "The records of one side are in several currencies; give a reason and force to match them anyway.").
			With("recon.groupMixedCurrencies")
	}
	if *e.LeftCurrency != *e.RightCurrency {
		switch {
		case e.noRate:
			return engine.Invalid("force", "There is no USD exchange rate for %s or %s on these dates, so the amounts cannot be compared; give a reason and force to match anyway.",
				*e.LeftCurrency, *e.RightCurrency).With("recon.noRate", "left", *e.LeftCurrency, "right", *e.RightCurrency)
		case e.Tolerance.CurrencyPct == nil:
			return engine.Invalid("force", "The records are in %s and %s, and %s has no currency tolerance for %s, so different currencies do not match; give a reason and force to match anyway.",
				*e.LeftCurrency, *e.RightCurrency, providerName(e.provider), l.Slug).
				With("recon.noCurrencyTolerance", "left", *e.LeftCurrency, "right", *e.RightCurrency, "provider", e.provider)
		case !e.currencyOK:
			pct := "an undefined share"
			var param any
			if e.diffPct != nil {
				pct, param = *e.diffPct+"%", *e.diffPct
			}
			return engine.Invalid("force", "The amounts differ by %s in USD, beyond the currency tolerance of %s%% of %s; give a reason and force to match anyway.",
				pct, *e.Tolerance.CurrencyPct, providerName(e.provider)).
				With("recon.outsideCurrencyTolerance", "difference", param, "tolerance", *e.Tolerance.CurrencyPct, "provider", e.provider)
		}
	}
	if group && !e.Inside {
		diff, tol := "an unknown amount", "0"
		if e.Variance != nil {
			diff = *e.Variance
		}
		if e.Tolerance.Amount != nil {
			tol = *e.Tolerance.Amount
		}
		days := 0
		if e.Tolerance.Days != nil {
			days = *e.Tolerance.Days
		}
		return engine.Invalid("force", "The group's sums differ by %s and %d days (%s and %d days allowed for %s); give a reason and force to match anyway.",
			diff, e.DateLagDays, tol, days, providerName(e.provider)).
			With("recon.groupOutsideTolerance", "difference", diff, "days", e.DateLagDays, "tolerance", tol, "toleranceDays", days, "provider", e.provider)
	}
	return nil
}

// Evaluate tells what a match of the records would be, without making it:
// the manual dialog's running sums and difference as the user ticks.
func (s *Service) Evaluate(ctx context.Context, l *Level, left, right []int64) (*GroupEvaluation, error) {
	for _, side := range []struct {
		ids   []int64
		field string
	}{{left, "leftIds"}, {right, "rightIds"}} {
		if err := checkIDs(side.ids, side.field); err != nil {
			return nil, err
		}
	}
	var out *GroupEvaluation
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		var err error
		out, err = evaluateGroup(ctx, tx, l, left, right)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("evaluate %s: %w", l.Slug, err)
	}
	return out, nil
}

// matchGroup makes a match group of the request's records in tx (the
// level's lock held): every record exists and is unmatched at the level,
// the group's sums are inside the tolerances (else Force with a reason);
// the group's first records go in recon_match with its evaluation, the
// rest in recon_match_member; audited with every record.
func (s *Service) matchGroup(ctx context.Context, tx pgx.Tx, l *Level, req MatchRequest, actor string) (*Match, error) {
	e, err := evaluateGroup(ctx, tx, l, req.LeftIDs, req.RightIDs)
	if err != nil {
		return nil, err
	}
	if err := s.checkUnmatched(ctx, tx, l, req.LeftIDs, req.RightIDs); err != nil {
		return nil, err
	}
	forced, err := req.forced(e.refusal)
	if err != nil {
		return nil, err
	}
	if err := s.gateMatch(ctx, tx, l, req, forced, req.LeftIDs, req.RightIDs, e.Variance); err != nil {
		return nil, err
	}
	m, err := s.insertByHand(ctx, tx, l, req, forced, req.LeftIDs[0], req.RightIDs[0], e.Variance, e.DateLagDays, actor)
	if err != nil {
		return nil, err
	}
	if _, err := tx.Exec(ctx, `insert into recon_match_member (match_id, level, side, record_id)
		select $1::bigint, $2::smallint, 'left', unnest($3::bigint[]) union all select $1, $2, 'right', unnest($4::bigint[])`,
		m.ID, l.N, req.LeftIDs[1:], req.RightIDs[1:]); err != nil {
		return nil, err
	}
	m.LeftIDs, m.RightIDs = slices.Clone(req.LeftIDs), slices.Clone(req.RightIDs)
	entry := engine.AuditEntry{Action: "recon.match.group", Entity: "recon_match", EntityID: fmt.Sprint(m.ID), After: m}
	if forced {
		entry.Action = "recon.match.group.forced"
	}
	return m, engine.Audit(ctx, tx, entry)
}
