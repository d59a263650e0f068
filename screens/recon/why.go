package recon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"ledgerdesk/engine"
)

// WhyLimit is how many candidates Why explains.
const WhyLimit = 5

// whyDays is how far apart in days a record without a key partner may be
// from the candidates Why looks at.
const whyDays = 14

// Why explains a record of a level: its live match if it has one, and the
// closest records of the other side with, for each, which tolerance it
// missed and by how much (DESIGN.md section 6, beyond the spec).
type Why struct {
	Level      string          `json:"level"`
	Side       string          `json:"side"` // left or right
	Record     json.RawMessage `json:"record"`
	Match      *Match          `json:"match"`
	Candidates json.RawMessage `json:"candidates"`
}

// whySQL evaluates the pairs of whyPairsSQL with the one pair evaluation
// (recon_pair_eval) against the tolerances of their provider ($4: the
// level's tolerance type) and explains each as JSON. $2 is the level, $3
// the side explained.
const whySQL = `
	with c as (%s),
	e as (
		select c.*, tol.config_id, coalesce(tol.amount_threshold, 0) as amount_tol, coalesce(tol.date_threshold, 0) as date_tol,
		       tol.currency_threshold as currency_tol, ev.lag, ev.diff_pct as fx_pct, ev.amount_ok, ev.date_ok, ev.currency_ok, ev.no_rate,
		       ev.amount_missed, ev.date_missed, ev.currency_missed,
		       case when ev.rule <> 'fx' then ev.variance end as amount_diff,
		       coalesce(ev.rank_diff, abs(c.l_amount - c.r_amount)) as rank_diff,
		       m.id as cand_match_id,
		       exists (select 1 from recon_match u where u.level = $2 and u.left_id = c.left_id and u.right_id = c.right_id
		               and u.undone_on is not null) as undone
		from c
		left join recon_tolerance tol on tol.level = $4 and tol.provider_key = c.provider_key
		cross join lateral recon_pair_eval(c.l_amount, c.r_amount, c.l_cur, c.r_cur, c.l_date, c.r_date,
		                                   tol.amount_threshold, tol.date_threshold, tol.currency_threshold) ev
		-- the candidate's live match, unless it is the explained record's too
		left join recon_match_live m on m.level = $2 and m.side = case when $3::text = 'left' then 'right' else 'left' end
		     and m.record_id = case when $3::text = 'left' then c.right_id else c.left_id end
		     and not exists (select 1 from recon_match_live o where o.level = $2 and o.id = m.id and o.side = $3::text
		                     and o.record_id = case when $3::text = 'left' then c.left_id else c.right_id end)
	),
	ranked as (
		select e.* from e
		order by e.key_match desc, e.provider_match desc, e.cand_match_id is not null, e.rank_diff, e.lag, e.cand_id
		limit %d
	)
	select coalesce(json_agg(json_build_object(
		'id', cand_id, 'ref', cand_ref, 'amount', cand_amount, 'currency', cand_cur, 'date', cand_date, 'provider', cand_provider,
		'keyMatches', key_match, 'providerMatches', provider_match,
		'toleranceConfigId', config_id,
		'amountDifference', amount_diff, 'amountTolerance', amount_tol, 'amountMissedBy', amount_missed,
		'dateLagDays', lag, 'dateTolerance', date_tol, 'dateMissedBy', date_missed,
		'currencyDiffers', l_cur is distinct from r_cur, 'differencePercent', fx_pct, 'currencyTolerance', currency_tol,
		'currencyMissedBy', currency_missed,
		'matchedElsewhere', cand_match_id, 'undoneByUser', undone,
		'reasons', array_remove(array[
			case when not key_match then 'key' end,
			case when not provider_match then 'provider' end,
			case when not amount_ok then 'amount' end,
			case when not date_ok then 'date' end,
			case when l_cur is distinct from r_cur and currency_tol is null then 'noCurrencyTolerance' end,
			case when no_rate then 'noRate' end,
			case when currency_missed is not null then 'currency' end,
			case when cand_match_id is not null then 'matchedElsewhere' end,
			case when undone then 'undoneByUser' end], null)
	) order by key_match desc, provider_match desc, cand_match_id is not null, rank_diff, lag, cand_id), '[]')
	from ranked`

// WhyNot explains record id on side (left or right) of level l.
func (s *Service) WhyNot(ctx context.Context, l *Level, side string, id int64) (*Why, error) {
	if side != "left" && side != "right" {
		return nil, engine.Invalid("side", "The side is left or right, not %q.", side).With("recon.unknownSide", "side", side)
	}
	w := &Why{Level: l.Slug, Side: side}
	me := l.side(side)
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, fmt.Sprintf(`select to_jsonb(s) from %s s where s.id = $1`, me.Source), id).Scan(&w.Record)
		if errors.Is(err, pgx.ErrNoRows) {
			return engine.NotFound("There is no %s with id %d.", me.Name, id).With("recon.unknownRecord", "kind", me.Name, "id", id)
		}
		if err != nil {
			return err
		}
		m, err := s.liveMatchOf(ctx, tx, l, side, id)
		if err != nil {
			return err
		}
		w.Match = m
		sql := fmt.Sprintf(whySQL, whyPairsSQL(l, side, whyDays), WhyLimit)
		return tx.QueryRow(ctx, sql, id, l.N, side, l.toleranceType()).Scan(&w.Candidates)
	})
	if err != nil {
		return nil, fmt.Errorf("why %s %s %d: %w", l.Slug, side, id, err)
	}
	return w, nil
}
