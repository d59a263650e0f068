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

// whyCandidates selects, for one record ($1) of a level and side, the
// records of the other side worth explaining: those sharing its key, and
// those in its currency within whyDays days. Every row is one pair with
// the left and right values (l_*, r_*), the provider whose tolerances count,
// whether the key and the provider agree, and the candidate's own fields.
var whyCandidates = map[string]string{
	"1/left": `select x.id as cand_id, x.transaction_amount as cand_amount, x.currency as cand_cur, x.processing_date as cand_date,
			x.provider_actor as cand_provider, t.sale_amount as l_amount, x.transaction_amount as r_amount, t.currency as l_cur, x.currency as r_cur,
			t.trans_date as l_date, x.processing_date as r_date, lower(x.provider_actor) as provider_key,
			x.client_unique_id = t.ticket_number as key_match, true as provider_match, t.id as left_id, x.id as right_id
		from ticket t join card_transaction x on not x.is_manual_adjust and (x.client_unique_id = t.ticket_number
			or x.currency = t.currency and x.processing_date between t.trans_date - %[1]d and t.trans_date + %[1]d)
		where t.id = $1`,
	"1/right": `select t.id, t.sale_amount, t.currency, t.trans_date, null::text, t.sale_amount, x.transaction_amount, t.currency, x.currency,
			t.trans_date, x.processing_date, lower(x.provider_actor), t.ticket_number = x.client_unique_id, true, t.id, x.id
		from card_transaction x join ticket t on (t.ticket_number = x.client_unique_id
			or t.currency = x.currency and t.trans_date between x.processing_date - %[1]d and x.processing_date + %[1]d)
		where x.id = $1 and not x.is_manual_adjust`,
	"2/left": `select s.id, coalesce(s.gross_amount, s.settlement_net + coalesce(s.fees, 0)), s.settlement_currency, s.settlement_date, s.provider_actor,
			x.transaction_amount, coalesce(s.gross_amount, s.settlement_net + coalesce(s.fees, 0)), x.currency, s.settlement_currency,
			x.processing_date, s.settlement_date, lower(s.provider_actor), s.client_unique_id = x.client_unique_id,
			lower(s.provider_actor) = lower(x.provider_actor), x.id, s.id
		from card_transaction x join settlement s on (s.client_unique_id = x.client_unique_id
			or s.settlement_currency = x.currency and s.settlement_date between x.processing_date - %[1]d and x.processing_date + %[1]d)
		where x.id = $1 and not x.is_manual_adjust`,
	"2/right": `select x.id, x.transaction_amount, x.currency, x.processing_date, x.provider_actor,
			x.transaction_amount, coalesce(s.gross_amount, s.settlement_net + coalesce(s.fees, 0)), x.currency, s.settlement_currency,
			x.processing_date, s.settlement_date, lower(s.provider_actor), x.client_unique_id = s.client_unique_id,
			lower(s.provider_actor) = lower(x.provider_actor), x.id, s.id
		from settlement s join card_transaction x on not x.is_manual_adjust and (x.client_unique_id = s.client_unique_id
			or x.currency = s.settlement_currency and x.processing_date between s.settlement_date - %[1]d and s.settlement_date + %[1]d)
		where s.id = $1`,
	"3/left": `select b.id, coalesce(b.reco_amount_in_local_currency, b.amount_local) + coalesce(b.bank_charges_in_local, 0), b.currency, b.booked_date,
			coalesce(nullif(b.manual_provider, ''), b.provider),
			p.total_net, coalesce(b.reco_amount_in_local_currency, b.amount_local) + coalesce(b.bank_charges_in_local, 0), p.currency, b.currency,
			p.latest_date, b.booked_date, lower(p.provider_actor),
			lower(coalesce(nullif(b.manual_provider, ''), b.provider)) = lower(p.provider_actor), true, p.id, b.id
		from payout p join bank_booking b on b.status = 'Processed' and b.currency = p.currency
			and b.booked_date between p.latest_date - %[1]d and p.latest_date + %[1]d
		where p.id = $1`,
	"3/right": `select p.id, p.total_net, p.currency, p.latest_date, p.provider_actor,
			p.total_net, coalesce(b.reco_amount_in_local_currency, b.amount_local) + coalesce(b.bank_charges_in_local, 0), p.currency, b.currency,
			p.latest_date, b.booked_date, lower(p.provider_actor),
			lower(coalesce(nullif(b.manual_provider, ''), b.provider)) = lower(p.provider_actor), true, p.id, b.id
		from bank_booking b join payout p on p.currency = b.currency and p.latest_date between b.booked_date - %[1]d and b.booked_date + %[1]d
		where b.id = $1 and b.status = 'Processed'`,
}

// whySQL evaluates the candidates against the tolerances of their
// provider at the level ($2) and explains each as JSON.
const whySQL = `
	with c as (%s),
	e as (
		select c.*, tol.config_id, coalesce(tol.amount_threshold, 0) as amount_tol, coalesce(tol.date_threshold, 0) as date_tol,
		       tol.currency_threshold as currency_tol, abs(c.r_date - c.l_date) as lag,
		       case when c.l_cur is distinct from c.r_cur then usd_rate(c.l_cur, c.l_date) end as l_rate,
		       case when c.l_cur is distinct from c.r_cur then usd_rate(c.r_cur, c.r_date) end as r_rate,
		       m.id as cand_match_id,
		       exists (select 1 from recon_match u where u.level = $2 and u.left_id = c.left_id and u.right_id = c.right_id
		               and u.undone_on is not null) as undone
		from c
		left join recon_tolerance tol on tol.level = $2 and tol.provider_key = c.provider_key
		left join recon_match m on m.level = $2 and m.undone_on is null
		     and (case when $3::text = 'left' then m.right_id = c.right_id else m.left_id = c.left_id end)
		     and not (m.left_id = c.left_id and m.right_id = c.right_id)
	),
	x as (
		select e.*,
		       case when e.l_cur = e.r_cur then e.l_amount - e.r_amount end as amount_diff,
		       case when e.l_cur is distinct from e.r_cur and e.l_rate is not null and e.r_rate is not null and e.l_amount <> 0
		            then round(abs(e.l_amount * e.l_rate - e.r_amount * e.r_rate) * 100 / abs(e.l_amount * e.l_rate), 2) end as fx_pct
		from e
	),
	ranked as (
		select x.*, coalesce(abs(x.amount_diff), x.fx_pct * abs(x.l_amount) / 100, abs(x.l_amount - x.r_amount)) as rank_diff
		from x
		order by x.key_match desc, x.provider_match desc, x.cand_match_id is not null, rank_diff, x.lag, x.cand_id
		limit %d
	)
	select coalesce(json_agg(json_build_object(
		'id', cand_id, 'amount', cand_amount, 'currency', cand_cur, 'date', cand_date, 'provider', cand_provider,
		'keyMatches', key_match, 'providerMatches', provider_match,
		'toleranceConfigId', config_id,
		'amountDifference', amount_diff, 'amountTolerance', amount_tol,
		'amountMissedBy', case when amount_diff is not null and abs(amount_diff) > amount_tol then abs(amount_diff) - amount_tol end,
		'dateLagDays', lag, 'dateTolerance', date_tol, 'dateMissedBy', case when lag > date_tol then lag - date_tol end,
		'currencyDiffers', l_cur is distinct from r_cur, 'differencePercent', fx_pct, 'currencyTolerance', currency_tol,
		'currencyMissedBy', case when fx_pct is not null and currency_tol is not null and fx_pct > currency_tol then fx_pct - currency_tol end,
		'matchedElsewhere', cand_match_id, 'undoneByUser', undone,
		'reasons', array_remove(array[
			case when not key_match then 'key' end,
			case when not provider_match then 'provider' end,
			case when amount_diff is not null and abs(amount_diff) > amount_tol then 'amount' end,
			case when lag > date_tol then 'date' end,
			case when l_cur is distinct from r_cur and currency_tol is null then 'noCurrencyTolerance' end,
			case when l_cur is distinct from r_cur and (l_rate is null or r_rate is null) then 'noRate' end,
			case when fx_pct is not null and currency_tol is not null and fx_pct > currency_tol then 'currency' end,
			case when cand_match_id is not null then 'matchedElsewhere' end,
			case when undone then 'undoneByUser' end], null)
	) order by key_match desc, provider_match desc, cand_match_id is not null, rank_diff, lag, cand_id), '[]')
	from ranked`

// recordOf reads the explained record itself as JSON, per level and side.
var recordOf = map[string]string{
	"1/left": "ticket", "1/right": "transaction", "2/left": "transaction", "2/right": "settlement", "3/left": "payout", "3/right": "bank",
}

// WhyNot explains record id on side (left or right) of level l.
func (s *Service) WhyNot(ctx context.Context, l *Level, side string, id int64) (*Why, error) {
	if side != "left" && side != "right" {
		return nil, engine.Invalid("side", "The side is left or right, not %q.", side).With("recon.unknownSide", "side", side)
	}
	key := fmt.Sprintf("%d/%s", l.N, side)
	w := &Why{Level: l.Slug, Side: side}
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{}, func(tx pgx.Tx) error {
		if l.N == 3 {
			if err := refreshPayouts(ctx, tx); err != nil {
				return err
			}
		}
		kind := recordOf[key]
		if err := tx.QueryRow(ctx, chainRecords[kind], []int64{id}).Scan(&w.Record); err != nil {
			return err
		}
		if string(w.Record) == "[]" {
			return engine.NotFound("There is no %s with id %d.", kind, id).With("recon.unknownRecord", "kind", kind, "id", id)
		}
		w.Record = w.Record[1 : len(w.Record)-1] // the one object
		column := "left_id"
		if side == "right" {
			column = "right_id"
		}
		m, err := scanMatch(tx.QueryRow(ctx, `select `+matchColumns+` from recon_match where level = $1 and `+column+` = $2 and undone_on is null`, l.N, id))
		switch {
		case err == nil:
			w.Match = m
		case !errors.Is(err, pgx.ErrNoRows):
			return err
		}
		sql := fmt.Sprintf(whySQL, fmt.Sprintf(whyCandidates[key], whyDays), WhyLimit)
		return tx.QueryRow(ctx, sql, id, l.N, side).Scan(&w.Candidates)
	})
	if err != nil {
		return nil, fmt.Errorf("why %s %s %d: %w", l.Slug, side, id, err)
	}
	return w, nil
}
