package recon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"ledgerdesk/engine"
)

// CandidateLimit is how many records each side of the manual-reconcile
// dialog gets at most; the totals say when there are more.
const CandidateLimit = 2000

// Candidates are the unmatched records of both sides of a level in the
// filter range, for the manual-reconcile dialog, in the spec's order (level
// 3: the bank bookings first, then the payouts).
type Candidates struct {
	Item1      json.RawMessage `json:"item1"`
	Item2      json.RawMessage `json:"item2"`
	Item1Total int             `json:"item1Total"`
	Item2Total int             `json:"item2Total"`
	Limit      int             `json:"limit"`
}

// AppendJSON appends c as JSON to b, as encoding/json writes it but with
// each side's rows as the database wrote them (valid JSON, not checked and
// copied again: a dialog's two sides are a megabyte).
func (c *Candidates) AppendJSON(b []byte) []byte {
	b = append(b, `{"item1":`...)
	b = append(b, c.Item1...)
	b = append(b, `,"item2":`...)
	b = append(b, c.Item2...)
	b = append(b, `,"item1Total":`...)
	b = strconv.AppendInt(b, int64(c.Item1Total), 10)
	b = append(b, `,"item2Total":`...)
	b = strconv.AppendInt(b, int64(c.Item2Total), 10)
	b = append(b, `,"limit":`...)
	b = strconv.AppendInt(b, int64(c.Limit), 10)
	return append(b, '}')
}

// Near are the records a user has ticked in the manual dialog: the other
// records of each side are then ranked by how close they come to closing
// the group (issue: candidates that help).
type Near struct {
	LeftIDs  []int64 `json:"leftIds"`
	RightIDs []int64 `json:"rightIds"`
	// SumsTo keeps only the records whose amount is what the group still
	// lacks, within the level's widest amount tolerance (the ticked ones
	// stay listed).
	SumsTo bool `json:"sumsTo"`
}

// CandidatesRequest is the dialog's filters and, optionally, its ticks.
type CandidatesRequest struct {
	Filters
	Near *Near `json:"near"`
}

// Candidates lists what a manual match of level l can choose from: item1
// the side the level's dialog shows first, item2 the other, by id; with
// ticks (near), each side's records closest to closing the group first:
// sharing a reference with a ticked record of the other side, then by how
// far their amount is from what the group lacks on that side (in its
// currency; other currencies last), then by days from the ticked records'
// latest date. Each row then says so: SameReference, AmountGap.
func (s *Service) Candidates(ctx context.Context, l *Level, req CandidatesRequest) (*Candidates, error) {
	f := req.Filters
	if err := f.Check(); err != nil {
		return nil, err
	}
	near := req.Near
	if near != nil {
		for _, side := range []struct {
			ids   []int64
			field string
		}{{near.LeftIDs, "near.leftIds"}, {near.RightIDs, "near.rightIds"}} {
			if len(side.ids) == 0 {
				continue
			}
			if err := checkIDs(side.ids, side.field); err != nil {
				return nil, err
			}
		}
	}
	out := &Candidates{Limit: CandidateLimit}
	// The two sides are read at once, each on its own connection: the
	// dialog waits for the slower, not for both (a side at a million
	// records is 90 ms on a slow 2-core machine, most of it its 2,000 rows
	// ranked and written as JSON).
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, which := range []string{l.Dialog, other(l.Dialog)} {
		items, total := &out.Item1, &out.Item1Total
		if i == 1 {
			items, total = &out.Item2, &out.Item2Total
		}
		args := []any{f.FromDate, f.ToDate, nullList(f.Currency), nullList(f.Provider), nullText(f.ClientUniqueID)}
		rows, order := candidatesOfSQL(l, which), `c.id__`
		fields := l.side(which).Columns
		var ranked bool
		if near != nil {
			own, theirs := near.LeftIDs, near.RightIDs
			if which == "right" {
				own, theirs = near.RightIDs, near.LeftIDs
			}
			if len(theirs) > 0 {
				rows = nearSQL(l, which, rows, near.SumsTo)
				ranked = true
				order = `c."SameReference" desc, c."AmountGap" nulls last, c.days__ nulls last, c.id__`
				args = append(args, own, theirs)
				if near.SumsTo {
					args = append(args, l.toleranceType())
				}
			}
		}
		sql := fmt.Sprintf(filterSQL+` select coalesce(json_agg(%[4]s order by r.n__), '[]'), coalesce(max(r.total__), 0)::int from (
			select c.*, row_number() over (order by %[3]s) as n__, count(*) over () as total__ from (%[1]s) c order by %[3]s limit %[2]d) r`,
			rows, CandidateLimit, order, rowJSON(fields, ranked))
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
				if _, err := tx.Exec(ctx, candidatesPlanSQL); err != nil {
					return err
				}
				return tx.QueryRow(ctx, sql, args...).Scan(items, total)
			})
			if err != nil {
				errs[i] = fmt.Errorf("candidates %s %s: %w", l.Slug, which, err)
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// candidatesPlanSQL plans a side's candidates as what they are: a month's
// few thousand records read along their keys, their pages cached (index
// lookups at random_page_cost 1.1, not 4), on the one core the side has
// (the two sides already read at once). With the defaults the planner
// hashed the month's 84,000 transactions to join 3,300 open ones, and
// started two parallel workers for it: level 1 at a million records, 82 ms
// a side on a 2-core machine where starting a worker costs 50 to 100 ms;
// 33 ms planned this way.
const candidatesPlanSQL = `select set_config('max_parallel_workers_per_gather', '0', true), set_config('random_page_cost', '1.1', true)`

// rowJSON is a candidate row as the dialog reads it: the side's dialog
// columns, and how close it comes when ranked against ticks, as a record
// json_agg writes (built from the names, not as to_jsonb of the row less
// its helper columns: at 2,000 rows a side that was a third of the
// answer's time).
func rowJSON(cols []Column, ranked bool) string {
	fields := make([]string, 0, len(cols)+2)
	for _, c := range cols {
		fields = append(fields, fmt.Sprintf("r.%q", c.Field))
	}
	if ranked {
		fields = append(fields, `r."SameReference"`, `r."AmountGap"`)
	}
	return "(select x from (select " + strings.Join(fields, ", ") + ") x)"
}

// nearSQL ranks the candidates rows of side which against the ticks: $6
// the side's own ticked ids, $7 the other side's, $8 (sumsTo only) the
// level's tolerance type. What the group lacks on this side is the other side's ticked sum
// less this side's (in the other side's currency, when one).
func nearSQL(l *Level, which, rows string, sumsTo bool) string {
	me, them := l.side(which), l.side(other(which))
	sql := fmt.Sprintf(`
		select c.*, c.ref__ = any (n.refs) as "SameReference",
		       case when c.currency__ = n.currency then abs(c.amount__ - n.lacks) end as "AmountGap",
		       abs(c.date__ - n.latest) as days__
		from (%[1]s) c
		cross join (
			select t.refs, t.currency, t.latest, t.total - coalesce((select sum(o.amount) from %[2]s o where o.id = any ($6)), 0) as lacks
			from (select array_agg(t.ref) as refs, max(t.date) as latest, sum(t.amount) as total,
			             case when count(distinct t.currency) = 1 then min(t.currency) end as currency
			      from %[3]s t where t.id = any ($7)) t) n`, rows, me.Source, them.Source)
	if sumsTo {
		sql = fmt.Sprintf(`select * from (%s) c
			where c.id__ = any ($6)
			   or c."AmountGap" <= coalesce((select max(amount_threshold) from recon_tolerance where level = $8), 0)`, sql)
	}
	return sql
}

// DetailRequest names a report row whose records the details dialog shows
// (spec 03 section 3.4): level 1 by Currency, SelectDate, PaymentType and
// CountryCode; level 2 by Currency, SelectDate and ProviderActor; level 3
// by PayoutID. The report row's own field names are accepted too.
type DetailRequest struct {
	Currency      string `json:"Currency"`
	SelectDate    string `json:"SelectDate"`
	PaymentType   string `json:"PaymentType"`
	CountryCode   string `json:"CountryCode"`
	ProviderActor string `json:"ProviderActor"`
	PayoutID      string `json:"PayoutID"`
	// The report rows' names for the same values.
	SalesCurrency string `json:"SalesCurrency"`
	TicketDate    string `json:"TicketDate"`
	TransCurrency string `json:"TransCurrency"`
	TransDate     string `json:"TransDate"`
}

func (r *DetailRequest) normalise() {
	if r.Currency == "" {
		r.Currency = r.SalesCurrency + r.TransCurrency
	}
	if r.SelectDate == "" {
		r.SelectDate = r.TicketDate + r.TransDate
	}
	if len(r.SelectDate) > 10 {
		r.SelectDate = r.SelectDate[:10]
	}
}

// Details are the records behind a report row: level 1 the row's tickets
// (item1) and the transactions of their ticket numbers, manual adjustments
// included (item2); level 2 the row's transactions and the settlements of
// their client ids; level 3 the payout's settlements and its booking.
type Details struct {
	Item1 json.RawMessage `json:"item1"`
	Item2 json.RawMessage `json:"item2"`
}

// detailSQL per level: item1 and item2 as JSON arrays, from the request's
// values bound once in q.
var detailSQL = map[int]string{
	1: `with q as (select $1::text as currency, $2::date as day, $3::text as payment_type, $4::text as country_code,
			$5::text as provider, $6::text as payout), t as (
			select t.id, t.ticket_number as "TicketNumber", t.trans_date as "TransactionDate", t.payment_type as "PaymentType",
			       t.country_code as "CountryCode", t.currency as "Currency", t.transaction_code as "TransactionCode",
			       t.sale_amount as "TotalFareWithFees", m.status as "MatchStatus", m.id as "MatchId", m.right_id as "MatchedTransactionId"
			from q, ticket t
			left join recon_match_live m on m.level = 1 and m.side = 'left' and m.record_id = t.id
			where t.trans_date = q.day and t.currency = q.currency and coalesce(t.payment_type, '') = q.payment_type
			  and coalesce(t.country_code, '') = q.country_code
			order by t.id limit 5000
		), x as (
			select x.id, x.processing_date as "ProcessingDate", x.acquiring_bank as "AcquiringBank", x.currency,
			       x.client_unique_id as "ClientUniqueID", x.transaction_amount as "Amount", x.provider_actor as "ProviderActor",
			       x.is_manual_adjust as "IsManualAdjust", m.status as "MatchStatus", m.id as "MatchId"
			from card_transaction x
			left join recon_match_live m on m.level = 1 and m.side = 'right' and m.record_id = x.id
			where x.client_unique_id in (select "TicketNumber" from t)
			order by x.id limit 5000
		)
		select (select coalesce(json_agg(t order by t.id), '[]') from t), (select coalesce(json_agg(x order by x.id), '[]') from x)`,
	2: `with q as (select $1::text as currency, $2::date as day, $3::text as payment_type, $4::text as country_code,
			$5::text as provider, $6::text as payout), x as (
			select x.id, x.client_unique_id as "TicketNumber", x.processing_date as "TransactionDate", x.acquiring_bank as "AcquiringBank",
			       x.payment_method as "PaymentMethod", x.currency as "Currency", x.transaction_amount as "Amount",
			       x.transaction_type as "TransactionType", m.status as "MatchStatus", m.id as "MatchId", m.right_id as "MatchedSettlementId"
			from q, card_transaction x
			left join recon_match_live m on m.level = 2 and m.side = 'left' and m.record_id = x.id
			where not x.is_manual_adjust and x.processing_date = q.day and x.currency = q.currency and x.provider_actor = q.provider
			order by x.id limit 5000
		), s as (
			select s.id, s.settlement_date as "MovementDate", s.acquirer_bank as "AcquirerBank", s.settlement_currency as "Currency",
			       s.settlement_net as "Amount", s.gross_amount as "GrossAmount", s.fees as "Fees", s.client_unique_id as "ClientUniqueID",
			       s.payout_id as "PayoutID", m.status as "MatchStatus", m.id as "MatchId"
			from settlement s
			left join recon_match_live m on m.level = 2 and m.side = 'right' and m.record_id = s.id
			where s.client_unique_id in (select "TicketNumber" from x) and s.provider_actor = (select provider from q)
			order by s.id limit 5000
		)
		select (select coalesce(json_agg(x order by x.id), '[]') from x), (select coalesce(json_agg(s order by s.id), '[]') from s)`,
	3: `with q as (select $1::text as currency, $2::date as day, $3::text as payment_type, $4::text as country_code,
			$5::text as provider, $6::text as payout), s as (
			select s.id, s.settlement_date as "MovementDate", s.acquirer_bank as "AcquirerBank", s.settlement_currency as "Currency",
			       s.settlement_net as "Amount", s.client_unique_id as "ClientUniqueID", s.payout_id as "PayoutID"
			from q, settlement s where s.payout_id = q.payout
			order by s.id limit 5000
		), b as (
			select b.id, b.bank_account as "BankAccount", b.booked_date as "BookedDate", coalesce(b.reco_amount_in_local_currency, b.amount_local) as "Amount",
			       b.bank_charges_in_local as "Charges", b.currency as "Currency", b.text as "Text", m.status as "MatchStatus", m.id as "MatchId"
			from q, payout p
			join recon_match_live pm on pm.level = 3 and pm.side = 'left' and pm.record_id = p.id
			join recon_match_live m on m.level = 3 and m.id = pm.id and m.side = 'right'
			join bank_booking b on b.id = m.record_id
			where p.payout_key = q.payout
		)
		select (select coalesce(json_agg(s order by s.id), '[]') from s), (select coalesce(json_agg(b order by b.id), '[]') from b)`,
}

// Details returns the records behind a report row of level l.
func (s *Service) Details(ctx context.Context, l *Level, r DetailRequest) (*Details, error) {
	r.normalise()
	switch l.N {
	case 1, 2:
		if r.Currency == "" {
			return nil, engine.Invalid("Currency", "Currency is required.").With("recon.detailField", "field", "Currency")
		}
		if _, err := time.Parse("2006-01-02", r.SelectDate); err != nil {
			return nil, engine.Invalid("SelectDate", "SelectDate must be a date as yyyy-MM-dd.").With("recon.dateFormat", "field", "SelectDate")
		}
		if l.N == 2 && r.ProviderActor == "" {
			return nil, engine.Invalid("ProviderActor", "ProviderActor is required.").With("recon.detailField", "field", "ProviderActor")
		}
	case 3:
		if strings.TrimSpace(r.PayoutID) == "" {
			return nil, engine.Invalid("PayoutID", "PayoutID is required.").With("recon.detailField", "field", "PayoutID")
		}
	}
	var d Details
	date := any(r.SelectDate)
	if l.N == 3 {
		date = nil
	}
	sql, ok := detailSQL[l.N]
	if !ok {
		return nil, engine.Invalid("level", "The rows of %s have no details.", l.Slug).With("recon.noDetails", "level", l.Slug)
	}
	err := s.pool.QueryRow(ctx, sql, r.Currency, date, r.PaymentType, r.CountryCode, r.ProviderActor, r.PayoutID).Scan(&d.Item1, &d.Item2)
	if err != nil {
		return nil, fmt.Errorf("details %s: %w", l.Slug, err)
	}
	return &d, nil
}
