package recon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"ledgerdesk/engine"
)

// ChainLimit bounds each kind of record in a chain (a payout can hold
// thousands of settlements).
const ChainLimit = 500

// Chain is every record linked to one record through the levels, walked
// over the kinds in chain order (ticket -> transaction -> settlement ->
// payout -> bank booking for the levels of recon.yaml), with the links
// between them. Walking down from the start (towards the bank) and up
// (towards the tickets), never sideways: the chain of a ticket does not
// list the other tickets paid out with it. Records lists every kind's
// records (their canonical source's columns); the five named lists are the
// same records with the field names the dashboard has always read.
type Chain struct {
	Start        ChainRef                   `json:"start"`
	Kinds        []string                   `json:"kinds"`
	Records      map[string]json.RawMessage `json:"records"`
	Tickets      json.RawMessage            `json:"tickets"`
	Transactions json.RawMessage            `json:"transactions"`
	Settlements  json.RawMessage            `json:"settlements"`
	Payouts      json.RawMessage            `json:"payouts"`
	BankBookings json.RawMessage            `json:"bankBookings"`
	Links        []ChainLink                `json:"links"`
	Truncated    bool                       `json:"truncated"`
}

// ChainRef names a record.
type ChainRef struct {
	Kind string `json:"kind"` // a side of recon.yaml: ticket, transaction, settlement, payout, bank
	ID   int64  `json:"id"`
}

// ChainLink joins two records of the chain: a live match (with its status,
// rule, variance, who and when), a pair that shares its key but is not
// matched (status unmatched), or a record's place in the record that
// groups it, a settlement in its payout (status member).
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

// edge is a way from one kind's records to another's: a level (from its
// left to its right) or a grouping (from the members to the group).
type edge struct {
	from, to string
	level    *Level // nil: members
	members  *Side  // the grouping side when level is nil
}

// chainOrder is the kinds in chain order: every edge goes forward (a
// topological order of the levels and groupings; ties by declaration).
func (d *Definition) chainOrder() ([]string, []edge) {
	var edges []edge
	var kinds []string
	seen := map[string]bool{}
	add := func(k string) {
		if !seen[k] {
			seen[k] = true
			kinds = append(kinds, k)
		}
	}
	for _, l := range d.Levels {
		edges = append(edges, edge{from: l.Left.SideName, to: l.Right.SideName, level: l})
		add(l.Left.SideName)
		add(l.Right.SideName)
	}
	for _, k := range slices.Sorted(maps.Keys(d.Sides)) {
		if m := d.Sides[k].Members; m != nil {
			edges = append(edges, edge{from: m.Side, to: k, members: d.Sides[k]})
		}
	}
	// Kahn's algorithm over the declaration order.
	in := map[string]int{}
	for _, e := range edges {
		in[e.to]++
		add(e.from)
		add(e.to)
	}
	var order []string
	done := map[string]bool{}
	for len(order) < len(kinds) {
		progressed := false
		for _, k := range kinds {
			if done[k] || in[k] > 0 {
				continue
			}
			done[k], progressed = true, true
			order = append(order, k)
			for _, e := range edges {
				if e.from == k {
					in[e.to]--
				}
			}
			break
		}
		if !progressed { // a cycle: keep the declaration order for the rest
			for _, k := range kinds {
				if !done[k] {
					order = append(order, k)
					done[k] = true
				}
			}
		}
	}
	slices.SortStableFunc(edges, func(a, b edge) int { return slices.Index(order, a.from) - slices.Index(order, b.from) })
	return order, edges
}

// step is the SQL from ids ($1) of one end of e to the other end's: down
// (from -> to) or up.
func (e edge) step(d *Definition, down bool) string {
	if e.level == nil {
		g, m := e.members, d.Sides[e.from]
		if down {
			return fmt.Sprintf(`select g.id from %s g where g.ref in (select s.%s from %s s where s.id = any ($1))`, g.Source, g.Members.Column, m.Source)
		}
		return fmt.Sprintf(`select s.id from %s s where s.%s in (select g.ref from %s g where g.id = any ($1))`, m.Source, g.Members.Column, g.Source)
	}
	l := e.level
	mine, theirs, me, them := "left", "right", l.Left.Source, l.Right.Source
	if !down {
		mine, theirs, me, them = "right", "left", l.Right.Source, l.Left.Source
	}
	// every record of the other side of the groups of ours
	sql := fmt.Sprintf(`select o.record_id from recon_match_live m join recon_match_live o on o.level = m.level and o.id = m.id and o.side = '%s'
		where m.level = %d and m.side = '%s' and m.record_id = any ($1)`, theirs, l.N, mine)
	if l.Window == "key" {
		// the unmatched records sharing the key, as candidates to look at
		sql += fmt.Sprintf(` union select o.id from %s me join %s o on %s where me.id = any ($1) and %s`,
			me, them, keyEqual(l, "me", "o"), openSQL(l, theirs, "o"))
	}
	return sql
}

// ChainOf returns the chain of record kind/id.
func (s *Service) ChainOf(ctx context.Context, kind string, id int64) (*Chain, error) {
	order, edges := s.def.chainOrder()
	start := slices.Index(order, kind)
	if start < 0 {
		return nil, engine.Invalid("kind", "Unknown record kind %q: use %s.", kind, strings.Join(order, ", ")).
			With("recon.unknownKind", "kind", kind)
	}
	c := &Chain{Start: ChainRef{kind, id}, Kinds: order, Records: map[string]json.RawMessage{}, Links: []ChainLink{}}
	ids := map[string][]int64{kind: {id}}
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		var found bool
		if err := tx.QueryRow(ctx, fmt.Sprintf(`select exists (select 1 from %s where id = $1)`, s.def.Sides[kind].Source), id).Scan(&found); err != nil {
			return err
		}
		if !found {
			return engine.NotFound("There is no %s with id %d.", kind, id).With("recon.unknownRecord", "kind", kind, "id", id)
		}
		walk := func(from, to, sql string) error {
			if len(ids[from]) == 0 {
				return nil
			}
			rows, err := tx.Query(ctx, `select distinct id from (`+sql+`) w(id) order by 1`+fmt.Sprintf(" limit %d", ChainLimit+1), ids[from])
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
			ids[to] = union(ids[to], next)
			return nil
		}
		for i := start; i < len(order); i++ {
			for _, e := range edges {
				if e.from == order[i] && slices.Index(order, e.to) > i {
					if err := walk(e.from, e.to, e.step(s.def, true)); err != nil {
						return err
					}
				}
			}
		}
		for i := start; i > 0; i-- {
			for _, e := range edges {
				if e.to == order[i] && slices.Index(order, e.from) < i {
					if err := walk(e.to, e.from, e.step(s.def, false)); err != nil {
						return err
					}
				}
			}
		}
		for _, k := range order {
			var raw json.RawMessage
			if err := tx.QueryRow(ctx, fmt.Sprintf(`select coalesce(json_agg(to_jsonb(s) order by s.id), '[]') from %s s where s.id = any ($1)`,
				s.def.Sides[k].Source), nonNil(ids[k])).Scan(&raw); err != nil {
				return fmt.Errorf("chain records %s: %w", k, err)
			}
			c.Records[k] = raw
		}
		for k, dst := range map[string]*json.RawMessage{"ticket": &c.Tickets, "transaction": &c.Transactions, "settlement": &c.Settlements,
			"payout": &c.Payouts, "bank": &c.BankBookings} {
			*dst = json.RawMessage("[]")
			if sql, ok := chainRecords[k]; ok && s.def.Sides[k] != nil {
				if err := tx.QueryRow(ctx, sql, nonNil(ids[k])).Scan(dst); err != nil {
					return fmt.Errorf("chain records %s: %w", k, err)
				}
			}
		}
		var err error
		c.Links, err = s.chainLinks(ctx, tx, edges, ids)
		return err
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// ChainOfRef returns the chain of the record of kind known by ref (the
// first by id when several share it).
func (s *Service) ChainOfRef(ctx context.Context, kind, ref string) (*Chain, error) {
	side := s.def.Sides[kind]
	if side == nil {
		return s.ChainOf(ctx, kind, 0) // the unknown kind's message
	}
	ref = strings.TrimSpace(ref)
	if ref == "" || len(ref) > 200 {
		return nil, engine.Invalid("ref", "Name the %s by its reference.", kind).With("recon.refRequired", "kind", kind)
	}
	var id int64
	err := s.pool.QueryRow(ctx, fmt.Sprintf(`select id from %s where ref = $1 order by id limit 1`, side.Source), ref).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, engine.NotFound("There is no %s %q.", kind, ref).With("recon.unknownRef", "kind", kind, "ref", ref, "field", "ref")
	}
	if err != nil {
		return nil, err
	}
	return s.ChainOf(ctx, kind, id)
}

// chainRecords reads the five kinds of the built-in levels by id with the
// field names the dashboard reads.
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

func nonNil(ids []int64) []int64 {
	if ids == nil {
		return []int64{}
	}
	return ids
}

func union(a, b []int64) []int64 {
	out := append(append([]int64{}, a...), b...)
	slices.Sort(out)
	return slices.Compact(out)
}

// chainLinks reads the links among the chain's records, edge by edge in
// chain order: live matches, unmatched pairs sharing their key (levels
// paired by key), and members in their group.
func (s *Service) chainLinks(ctx context.Context, tx pgx.Tx, edges []edge, ids map[string][]int64) ([]ChainLink, error) {
	out := []ChainLink{}
	for _, e := range edges {
		from, to := nonNil(ids[e.from]), nonNil(ids[e.to])
		if len(from) == 0 && len(to) == 0 {
			continue
		}
		var sql string
		if e.level == nil {
			g, m := e.members, s.def.Sides[e.from]
			sql = fmt.Sprintf(`select s.id, g.id, 'member', 'payout', null::text, null::int, null::bigint, null::bigint, null::text, null::timestamptz
				from %s s join %s g on g.ref = s.%s where s.id = any ($1) and g.id = any ($2)`, m.Source, g.Source, g.Members.Column)
		} else {
			l := e.level
			// a group links each of its left records with each of its right ones
			sql = fmt.Sprintf(`select a.record_id, b.record_id, a.status, a.rule, a.amount_variance::text, a.date_lag_days, a.id, a.run_id, a.created_by, a.created_on
				from recon_match_live a join recon_match_live b on b.level = a.level and b.id = a.id and b.side = 'right'
				where a.level = %[1]d and a.side = 'left' and a.record_id = any ($1) and b.record_id = any ($2)
				union all
				-- a write-off links its records with no counter-record (id 0)
				select a.record_id, 0, a.status, a.rule, a.amount_variance::text, a.date_lag_days, a.id, a.run_id, a.created_by, a.created_on
				from recon_match_live a where a.level = %[1]d and a.side = 'left' and a.right_id is null and a.record_id = any ($1)
				union all
				select 0, b.record_id, b.status, b.rule, b.amount_variance::text, b.date_lag_days, b.id, b.run_id, b.created_by, b.created_on
				from recon_match_live b where b.level = %[1]d and b.side = 'right' and b.left_id is null and b.record_id = any ($2)`, l.N)
			if l.Window == "key" {
				sql += fmt.Sprintf(`
				union all
				select l.id, r.id, 'unmatched', 'key', null, abs(r.date - l.date), null, null, null, null
				from %s l join %s r on %s
				where l.id = any ($1) and r.id = any ($2)
				  and not exists (select 1 from recon_match_live a join recon_match_live b on b.level = a.level and b.id = a.id and b.side = 'right'
				                  where a.level = %d and a.side = 'left' and a.record_id = l.id and b.record_id = r.id)`,
					l.Left.Source, l.Right.Source, keyEqual(l, "l", "r"), l.N)
			}
		}
		rows, err := tx.Query(ctx, `select * from (`+sql+`) x order by 1, 2`, from, to)
		if err != nil {
			return nil, fmt.Errorf("chain links %s -> %s: %w", e.from, e.to, err)
		}
		links, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (ChainLink, error) {
			l := ChainLink{From: ChainRef{Kind: e.from}, To: ChainRef{Kind: e.to}}
			if err := row.Scan(&l.From.ID, &l.To.ID, &l.Status, &l.Rule, &l.AmountVariance, &l.DateLagDays, &l.MatchID, &l.RunID,
				&l.CreatedBy, &l.CreatedOn); err != nil {
				return l, err
			}
			if e.level != nil {
				n := e.level.N
				l.Level = &n
			}
			return l, nil
		})
		if err != nil {
			return nil, err
		}
		out = append(out, links...)
	}
	return out, nil
}
