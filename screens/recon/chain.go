package recon

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"ledgerdesk/engine"
)

// ChainLimit bounds each kind of record in a chain (a payout can hold
// thousands of settlements).
const ChainLimit = 500

// Chain is every record linked to one record through the levels: ticket ->
// transaction -> settlement -> payout -> bank booking, with the links
// between them. Walking down from the start (towards the bank) and up
// (towards the tickets), never sideways: the chain of a ticket does not
// list the other tickets paid out with it.
type Chain struct {
	Start        ChainRef        `json:"start"`
	Tickets      json.RawMessage `json:"tickets"`
	Transactions json.RawMessage `json:"transactions"`
	Settlements  json.RawMessage `json:"settlements"`
	Payouts      json.RawMessage `json:"payouts"`
	BankBookings json.RawMessage `json:"bankBookings"`
	Links        []ChainLink     `json:"links"`
	Truncated    bool            `json:"truncated"`
}

// ChainRef names a record.
type ChainRef struct {
	Kind string `json:"kind"` // ticket, transaction, settlement, payout, bank
	ID   int64  `json:"id"`
}

// ChainLink joins two records of the chain: a live match (with its status,
// rule, variance, who and when), a pair that shares its key but is not
// matched (status unmatched), or a settlement's place in its payout
// (status member).
type ChainLink struct {
	Level          *int       `json:"level"`
	From           ChainRef   `json:"from"`
	To             ChainRef   `json:"to"`
	Status         string     `json:"status"`
	Rule           string     `json:"rule"`
	AmountVariance *string    `json:"amountVariance"`
	DateLagDays    *int       `json:"dateLagDays"`
	MatchID        *int64     `json:"matchId"`
	RunID          *int64     `json:"runId"`
	CreatedBy      *string    `json:"createdBy"`
	CreatedOn      *time.Time `json:"createdOn"`
}

// ChainKinds are the kinds a chain can start from, in chain order.
var ChainKinds = []string{"ticket", "transaction", "settlement", "payout", "bank"}

// steps walk from one kind's ids to the next kind's: down (towards the
// bank) and up. Live matches and unmatched records sharing the key.
var stepsDown = map[string]string{
	"ticket": `select m.right_id from recon_match m where m.level = 1 and m.left_id = any ($1) and m.undone_on is null
		union select x.id from ticket t join card_transaction x on x.client_unique_id = t.ticket_number
		where t.id = any ($1) and not exists (select 1 from recon_match m where m.level = 1 and m.right_id = x.id and m.undone_on is null)`,
	"transaction": `select m.right_id from recon_match m where m.level = 2 and m.left_id = any ($1) and m.undone_on is null
		union select s.id from card_transaction x join settlement s on s.client_unique_id = x.client_unique_id and lower(s.provider_actor) = lower(x.provider_actor)
		where x.id = any ($1) and not exists (select 1 from recon_match m where m.level = 2 and m.right_id = s.id and m.undone_on is null)`,
	"settlement": `select p.id from payout p where p.payout_key in (select s.payout_id from settlement s where s.id = any ($1))`,
	"payout":     `select m.right_id from recon_match m where m.level = 3 and m.left_id = any ($1) and m.undone_on is null`,
}

var stepsUp = map[string]string{
	"bank":   `select m.left_id from recon_match m where m.level = 3 and m.right_id = any ($1) and m.undone_on is null`,
	"payout": `select s.id from settlement s where s.payout_id in (select p.payout_key from payout p where p.id = any ($1))`,
	"settlement": `select m.left_id from recon_match m where m.level = 2 and m.right_id = any ($1) and m.undone_on is null
		union select x.id from settlement s join card_transaction x on x.client_unique_id = s.client_unique_id and lower(s.provider_actor) = lower(x.provider_actor)
		where s.id = any ($1) and not x.is_manual_adjust
		  and not exists (select 1 from recon_match m where m.level = 2 and m.left_id = x.id and m.undone_on is null)`,
	"transaction": `select m.left_id from recon_match m where m.level = 1 and m.right_id = any ($1) and m.undone_on is null
		union select t.id from card_transaction x join ticket t on t.ticket_number = x.client_unique_id
		where x.id = any ($1) and not exists (select 1 from recon_match m where m.level = 1 and m.left_id = t.id and m.undone_on is null)`,
}

// chainRecords reads each kind's records by id as a JSON array.
var chainRecords = map[string]string{
	"ticket": `select coalesce(json_agg(json_build_object('id', t.id, 'TicketNumber', t.ticket_number, 'Date', t.trans_date, 'Amount', t.sale_amount,
		'Currency', t.currency, 'PaymentType', t.payment_type, 'CountryCode', t.country_code) order by t.id), '[]') from ticket t where t.id = any ($1)`,
	"transaction": `select coalesce(json_agg(json_build_object('id', x.id, 'ClientUniqueID', x.client_unique_id, 'Date', x.processing_date,
		'Amount', x.transaction_amount, 'Currency', x.currency, 'ProviderActor', x.provider_actor, 'IsManualAdjust', x.is_manual_adjust) order by x.id), '[]')
		from card_transaction x where x.id = any ($1)`,
	"settlement": `select coalesce(json_agg(json_build_object('id', s.id, 'PayoutID', s.payout_id, 'ClientUniqueID', s.client_unique_id,
		'Date', s.settlement_date, 'GrossAmount', s.gross_amount, 'Fees', s.fees, 'Amount', s.settlement_net, 'Currency', s.settlement_currency,
		'ProviderActor', s.provider_actor) order by s.id), '[]') from settlement s where s.id = any ($1)`,
	"payout": `select coalesce(json_agg(json_build_object('id', p.id, 'PayoutID', p.payout_key, 'Date', p.latest_date, 'Amount', p.total_net,
		'Currency', p.currency, 'ProviderActor', p.provider_actor, 'SettlementCount', p.settlement_count) order by p.id), '[]') from payout p where p.id = any ($1)`,
	"bank": `select coalesce(json_agg(json_build_object('id', b.id, 'BankAccount', b.bank_account, 'Date', b.booked_date,
		'Amount', coalesce(b.reco_amount_in_local_currency, b.amount_local), 'Charges', b.bank_charges_in_local, 'Currency', b.currency,
		'ProviderActor', coalesce(nullif(b.manual_provider, ''), b.provider), 'Text', b.text) order by b.id), '[]') from bank_booking b where b.id = any ($1)`,
}

// existsSQL checks the start record.
var existsSQL = map[string]string{
	"ticket": `select exists (select 1 from ticket where id = $1)`, "transaction": `select exists (select 1 from card_transaction where id = $1)`,
	"settlement": `select exists (select 1 from settlement where id = $1)`, "payout": `select exists (select 1 from payout where id = $1)`,
	"bank": `select exists (select 1 from bank_booking where id = $1)`,
}

// ChainOf returns the chain of record kind/id.
func (s *Service) ChainOf(ctx context.Context, kind string, id int64) (*Chain, error) {
	start := -1
	for i, k := range ChainKinds {
		if k == kind {
			start = i
		}
	}
	if start < 0 {
		return nil, engine.Invalid("kind", "Unknown record kind %q: use ticket, transaction, settlement, payout or bank.", kind).
			With("recon.unknownKind", "kind", kind)
	}
	c := &Chain{Start: ChainRef{kind, id}, Links: []ChainLink{}}
	ids := map[string][]int64{kind: {id}}
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{}, func(tx pgx.Tx) error {
		if err := refreshPayouts(ctx, tx); err != nil {
			return err
		}
		var found bool
		if err := tx.QueryRow(ctx, existsSQL[kind], id).Scan(&found); err != nil {
			return err
		}
		if !found {
			return engine.NotFound("There is no %s with id %d.", kind, id).With("recon.unknownRecord", "kind", kind, "id", id)
		}
		walk := func(from, to string, sql string) error {
			if len(ids[from]) == 0 {
				return nil
			}
			rows, err := tx.Query(ctx, sql+fmt.Sprintf(" limit %d", ChainLimit+1), ids[from])
			if err != nil {
				return fmt.Errorf("chain %s -> %s: %w", from, to, err)
			}
			next, err := pgx.CollectRows(rows, pgx.RowTo[int64])
			if err != nil {
				return err
			}
			if len(next) > ChainLimit {
				next, c.Truncated = next[:ChainLimit], true
			}
			ids[to] = next
			return nil
		}
		for i := start; i+1 < len(ChainKinds); i++ {
			if err := walk(ChainKinds[i], ChainKinds[i+1], stepsDown[ChainKinds[i]]); err != nil {
				return err
			}
		}
		for i := start; i > 0; i-- {
			if err := walk(ChainKinds[i], ChainKinds[i-1], stepsUp[ChainKinds[i]]); err != nil {
				return err
			}
		}
		for k, dst := range map[string]*json.RawMessage{"ticket": &c.Tickets, "transaction": &c.Transactions, "settlement": &c.Settlements,
			"payout": &c.Payouts, "bank": &c.BankBookings} {
			if err := tx.QueryRow(ctx, chainRecords[k], nonNil(ids[k])).Scan(dst); err != nil {
				return fmt.Errorf("chain records %s: %w", k, err)
			}
		}
		var err error
		c.Links, err = chainLinks(ctx, tx, ids)
		return err
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

func nonNil(ids []int64) []int64 {
	if ids == nil {
		return []int64{}
	}
	return ids
}

// chainLinks reads the links among the chain's records: live matches,
// unmatched pairs sharing their key, and settlements' payouts.
func chainLinks(ctx context.Context, tx pgx.Tx, ids map[string][]int64) ([]ChainLink, error) {
	// In chain order: tickets, transactions, settlements, payouts, bank.
	rows, err := tx.Query(ctx, `select * from (
		select m.level, m.left_id, m.right_id, m.status, m.rule, m.amount_variance::text, m.date_lag_days, m.id, m.run_id, m.created_by, m.created_on
		from recon_match m
		where m.undone_on is null and (
		      m.level = 1 and m.left_id = any ($1) and m.right_id = any ($2)
		   or m.level = 2 and m.left_id = any ($2) and m.right_id = any ($3)
		   or m.level = 3 and m.left_id = any ($4) and m.right_id = any ($5))
		union all
		select 1, t.id, x.id, 'unmatched', 'key', null, abs(x.processing_date - t.trans_date), null, null, null, null
		from ticket t join card_transaction x on x.client_unique_id = t.ticket_number
		where t.id = any ($1) and x.id = any ($2)
		  and not exists (select 1 from recon_match m where m.level = 1 and m.left_id = t.id and m.right_id = x.id and m.undone_on is null)
		union all
		select 2, x.id, s.id, 'unmatched', 'key', null, abs(s.settlement_date - x.processing_date), null, null, null, null
		from card_transaction x join settlement s on s.client_unique_id = x.client_unique_id
		where x.id = any ($2) and s.id = any ($3)
		  and not exists (select 1 from recon_match m where m.level = 2 and m.left_id = x.id and m.right_id = s.id and m.undone_on is null)
		union all
		select 0, s.id, p.id, 'member', 'payout', null, null, null, null, null, null
		from settlement s join payout p on p.payout_key = s.payout_id
		where s.id = any ($3) and p.id = any ($4)) links
		order by case level when 0 then 2.5 else level end, left_id, right_id`,
		nonNil(ids["ticket"]), nonNil(ids["transaction"]), nonNil(ids["settlement"]), nonNil(ids["payout"]), nonNil(ids["bank"]))
	if err != nil {
		return nil, fmt.Errorf("chain links: %w", err)
	}
	kinds := [][2]string{{"settlement", "payout"}, {"ticket", "transaction"}, {"transaction", "settlement"}, {"payout", "bank"}}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (ChainLink, error) {
		var l ChainLink
		var level int
		if err := row.Scan(&level, &l.From.ID, &l.To.ID, &l.Status, &l.Rule, &l.AmountVariance, &l.DateLagDays, &l.MatchID, &l.RunID,
			&l.CreatedBy, &l.CreatedOn); err != nil {
			return l, err
		}
		l.From.Kind, l.To.Kind = kinds[level][0], kinds[level][1]
		if level > 0 {
			l.Level = &level
		}
		return l, nil
	})
}
