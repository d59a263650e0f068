// Package recon is reconciliation (DESIGN.md section 6): automatic runs
// per level as set-based SQL in one transaction, manual matches and their
// undo, the records a manual match chooses from, the details of a report
// row, the chain of a record through every level and why a record did not
// match. Reports are engine views (views.yaml) over the SQL functions of the
// migrations; this package never builds SQL from client text.
package recon

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"ledgerdesk/engine"
)

// Level is one of the three reconciliation levels.
type Level struct {
	N     int    // 1, 2, 3: recon_match.level and config_setting.transaction_type
	Slug  string // in API paths
	Name  string // for messages
	Left  string // the left record, for messages and field names
	Right string
	// LeftField and RightField are the id fields of the spec's manual-match
	// bodies ({ticketId, transactionId}, {transactionId, settlementId}).
	LeftField, RightField string
	// pairs selects every candidate pair of the level sharing its key, both
	// sides without a live match, with (left_id, right_id, l_amount,
	// r_amount, l_cur, r_cur, l_date, r_date, provider_key); $1 is the
	// widest date threshold of the level, in days. It adds the columns of
	// carry, which candidates keep for facts.
	pairs string
	carry []string
	// facts selects, from the run's single candidates (recon_cand), what
	// their matches add to the level's day sums (recon_*_day_facts of
	// migration 00017); empty where the level keeps no day sums.
	facts string
	// leftUnmatched and rightUnmatched count the records without a live match.
	leftUnmatched, rightUnmatched string
}

// Levels in order.
var Levels = []*Level{
	{N: 1, Slug: "ticket-transaction", Name: "tickets vs transactions", Left: "ticket", Right: "transaction",
		LeftField: "ticketId", RightField: "transactionId",
		pairs: `
			select t.id as left_id, x.id as right_id, t.sale_amount as l_amount, x.transaction_amount as r_amount,
			       t.currency as l_cur, x.currency as r_cur, t.trans_date as l_date, x.processing_date as r_date,
			       lower(x.provider_actor) as provider_key, t.payment_type, t.country_code
			from ticket t
			join card_transaction x on x.client_unique_id = t.ticket_number and not x.is_manual_adjust
			where abs(x.processing_date - t.trans_date) <= $1::int
			  and not exists (select 1 from recon_match m where m.level = 1 and m.left_id = t.id and m.undone_on is null)
			  and not exists (select 1 from recon_match m where m.level = 1 and m.right_id = x.id and m.undone_on is null)`,
		carry: []string{"payment_type", "country_code"},
		facts: `select l_date, l_cur, coalesce(payment_type, ''), coalesce(country_code, ''), coalesce(provider_key, ''),
			status, variance, l_amount from recon_cand`,
		leftUnmatched: `select count(*) from ticket t
			where not exists (select 1 from recon_match m where m.level = 1 and m.left_id = t.id and m.undone_on is null)`,
		rightUnmatched: `select count(*) from card_transaction x where not x.is_manual_adjust
			and not exists (select 1 from recon_match m where m.level = 1 and m.right_id = x.id and m.undone_on is null)`,
	},
	{N: 2, Slug: "transaction-settlement", Name: "transactions vs settlements", Left: "transaction", Right: "settlement",
		LeftField: "transactionId", RightField: "settlementId",
		pairs: `
			select x.id as left_id, s.id as right_id, x.transaction_amount as l_amount,
			       coalesce(s.gross_amount, s.settlement_net + coalesce(s.fees, 0)) as r_amount,
			       x.currency as l_cur, s.settlement_currency as r_cur, x.processing_date as l_date, s.settlement_date as r_date,
			       lower(s.provider_actor) as provider_key, x.provider_actor, s.fees, s.settlement_net
			from card_transaction x
			join settlement s on s.client_unique_id = x.client_unique_id and lower(s.provider_actor) = lower(x.provider_actor)
			where not x.is_manual_adjust and abs(s.settlement_date - x.processing_date) <= $1::int
			  and not exists (select 1 from recon_match m where m.level = 2 and m.left_id = x.id and m.undone_on is null)
			  and not exists (select 1 from recon_match m where m.level = 2 and m.right_id = s.id and m.undone_on is null)`,
		carry: []string{"provider_actor", "fees", "settlement_net"},
		facts: `select l_date, l_cur, provider_actor, r_cur, status, variance, l_amount, r_amount, fees, settlement_net from recon_cand`,
		leftUnmatched: `select count(*) from card_transaction x where not x.is_manual_adjust
			and not exists (select 1 from recon_match m where m.level = 2 and m.left_id = x.id and m.undone_on is null)`,
		rightUnmatched: `select count(*) from settlement s
			where not exists (select 1 from recon_match m where m.level = 2 and m.right_id = s.id and m.undone_on is null)`,
	},
	{N: 3, Slug: "settlement-bank", Name: "settlements vs bank", Left: "payout", Right: "bank booking",
		LeftField: "payoutId", RightField: "bankId",
		// A payout meets the bookings of its provider (the booking's manual
		// provider, else the one its recon mapping gave) in its currency; the
		// booking's amount counts with the charges the bank took from it.
		pairs: `
			select p.id as left_id, b.id as right_id, p.total_net as l_amount,
			       coalesce(b.reco_amount_in_local_currency, b.amount_local) + coalesce(b.bank_charges_in_local, 0) as r_amount,
			       p.currency as l_cur, b.currency as r_cur, p.latest_date as l_date, b.booked_date as r_date,
			       lower(p.provider_actor) as provider_key
			-- each day of a payout's window, so bookings join on the day too
			-- (with the window as a range condition, every payout met every
			-- booking of its currency and provider first: 0.4 s at 6,655
			-- payouts, and it grows with the square of them)
			from (select p.*, p.latest_date + w.lag as day from payout p cross join generate_series(-$1::int, $1::int) w(lag)
			      offset 0) p
			join bank_booking b on b.booked_date = p.day and b.currency = p.currency
			     and lower(coalesce(nullif(b.manual_provider, ''), b.provider)) = lower(p.provider_actor)
			where b.status = 'Processed'
			  and not exists (select 1 from recon_match m where m.level = 3 and m.left_id = p.id and m.undone_on is null)
			  and not exists (select 1 from recon_match m where m.level = 3 and m.right_id = b.id and m.undone_on is null)`,
		leftUnmatched: `select count(*) from payout p
			where not exists (select 1 from recon_match m where m.level = 3 and m.left_id = p.id and m.undone_on is null)`,
		// Bookings of the providers that pay out (not bank charges, say).
		rightUnmatched: `select count(*) from bank_booking b where b.status = 'Processed'
			and lower(coalesce(nullif(b.manual_provider, ''), b.provider)) in (select lower(provider_actor) from payout)
			and not exists (select 1 from recon_match m where m.level = 3 and m.right_id = b.id and m.undone_on is null)`,
	},
}

// LevelBySlug returns the level of an API path segment, or an Invalid error.
func LevelBySlug(slug string) (*Level, error) {
	for _, l := range Levels {
		if l.Slug == slug {
			return l, nil
		}
	}
	names := make([]string, len(Levels))
	for i, l := range Levels {
		names[i] = l.Slug
	}
	return nil, engine.Invalid("level", "Unknown reconciliation level %q: use %s.", slug, strings.Join(names, ", ")).
		With("recon.unknownLevel", "level", slug)
}

// Service is reconciliation over one database.
type Service struct {
	pool  *pgxpool.Pool
	queue *river.Client[pgx.Tx]
	log   *slog.Logger
	// Wait is how long Auto waits for its run before answering that it is
	// still running (the run goes on).
	Wait time.Duration
}

// NewService returns reconciliation over pool.
func NewService(pool *pgxpool.Pool, log *slog.Logger) *Service {
	if log == nil {
		log = slog.Default()
	}
	return &Service{pool: pool, log: log, Wait: 60 * time.Second}
}

// SetQueue gives the service the job queue auto runs are queued on.
func (s *Service) SetQueue(q *river.Client[pgx.Tx]) { s.queue = q }

// refreshPayouts brings the payout table up to date with the settlements:
// one row per payout id with its provider, currency (null when its
// settlements disagree), net total, latest date and size. It reads the
// settlements' day sums per payout (recon_payout_day, kept exact by the
// settlements' trigger): a few rows per payout, not every settlement.
// Concurrent refreshes queue behind one another (an upsert of many rows in
// two orders could deadlock).
func refreshPayouts(ctx context.Context, tx pgx.Tx) error {
	if _, err := tx.Exec(ctx, `select pg_advisory_xact_lock(hashtext('recon.payout'))`); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, `
		insert into payout as p (payout_key, provider_actor, currency, total_net, latest_date, settlement_count)
		select d.payout_id, min(d.provider_actor),
		       case when count(distinct d.settlement_currency) = 1 then min(d.settlement_currency) end,
		       sum(d.net), max(d.settlement_date), sum(d.settlements)
		from recon_payout_day d
		group by d.payout_id
		order by d.payout_id
		on conflict (payout_key) do update set
			provider_actor = excluded.provider_actor, currency = excluded.currency, total_net = excluded.total_net,
			latest_date = excluded.latest_date, settlement_count = excluded.settlement_count
		where (p.provider_actor, p.currency, p.total_net, p.latest_date, p.settlement_count) is distinct from
		      (excluded.provider_actor, excluded.currency, excluded.total_net, excluded.latest_date, excluded.settlement_count)`)
	if err != nil {
		return fmt.Errorf("refresh payouts: %w", err)
	}
	return nil
}
