package recon

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"ledgerdesk/engine"
	"ledgerdesk/internal/decimal"
)

// Closing is what a ticket's adjustments did to it at the level pairing
// tickets with card transactions: the match group that holds them now
// (nil: the ticket stays open), or the difference still left.
type Closing struct {
	Closed bool   `json:"closed"`
	Match  *Match `json:"match,omitempty"`
	// Difference is the ticket's group's difference with the adjustments
	// (left minus right in the ticket's currency; nil without a rate).
	Difference *string `json:"difference"`
	// Tolerance is the amount difference the level accepts for the group's
	// provider (nil: none, the amounts must be equal).
	Tolerance *string `json:"tolerance"`
}

// adjustmentLevel is the level that pairs tickets with card transactions,
// where a task's adjustments count (spec 03 section 3.5), or nil when
// recon.yaml declares none.
func (d *Definition) adjustmentLevel() *Level {
	for _, l := range d.Levels {
		if l.Left.SideName == "ticket" && l.Right.SideName == "transaction" {
			return l
		}
	}
	return nil
}

// CloseByAdjustment joins the open adjustments made for a ticket (those in
// no match group) to the ticket's match group, or makes one of the ticket,
// the task's linked card transactions of its number that are still open,
// and the adjustments, in tx, the transaction that made the adjustment.
// The group closes the ticket when its sums agree within the level's
// amount tolerance (and its currency tolerance across currencies); an
// adjustment's date is not compared (it is dated when it was booked). Then
// the group's rule is adjustment, its status matched (no difference left)
// or partial, and the audit log has it; otherwise nothing changes and the
// difference left is told. DESIGN.md section 6, match groups.
func (s *Service) CloseByAdjustment(ctx context.Context, tx pgx.Tx, ticketID, taskID int64, reason string) (*Closing, error) {
	l := s.def.adjustmentLevel()
	if l == nil {
		return &Closing{}, nil
	}
	if err := lockLevel(ctx, tx, l, 5*time.Second); err != nil {
		return nil, s.nameBusyRun(ctx, l, err)
	}
	var adjustments []int64
	rows, err := tx.Query(ctx, fmt.Sprintf(`select a.id from %s a join card_transaction x on x.id = a.id
		where a.manual and x.adjusted_ticket_id = $1 and %s order by a.id`, l.Right.Source, openSQL(l, "right", "a")), ticketID)
	if err == nil {
		adjustments, err = pgx.CollectRows(rows, pgx.RowTo[int64])
	}
	if err != nil || len(adjustments) == 0 {
		return &Closing{}, err
	}
	group, err := s.liveMatchOf(ctx, tx, l, "left", ticketID)
	if err != nil {
		return nil, err
	}
	left, right := []int64{ticketID}, []int64{}
	if group != nil {
		left, right = group.LeftIDs, group.RightIDs
	} else {
		// the task's card transactions of the ticket's number, still open
		rows, err := tx.Query(ctx, fmt.Sprintf(`select r.id from task_transaction tt join %[1]s r on r.id = tt.transaction_id
			join %[2]s t on t.id = $2
			where tt.task_id = $1 and not r.manual and r.ref = t.ref and %[3]s order by r.id`,
			l.Right.Source, l.Left.Source, openSQL(l, "right", "r")), taskID, ticketID)
		if err == nil {
			right, err = pgx.CollectRows(rows, pgx.RowTo[int64])
		}
		if err != nil {
			return nil, err
		}
	}
	right = append(right, adjustments...)
	if len(right) > MaxGroup {
		return nil, engine.Invalid("transactionIds", "A group holds at most %d records of a side.", MaxGroup).With("recon.groupTooLarge", "max", MaxGroup, "field", "transactionIds")
	}
	e, err := evaluateGroup(ctx, tx, l, left, right)
	if err != nil {
		return nil, err
	}
	out := &Closing{Difference: e.Variance, Tolerance: e.Tolerance.Amount}
	if e.Variance == nil || !e.amountOK || !e.currencyOK {
		return out, nil
	}
	status := "partial"
	if decimal.IsZero(*e.Variance) {
		status = "matched"
	}
	actor := engine.ActorFrom(ctx).Username
	var before any
	if group != nil {
		before = group
		if _, err := tx.Exec(ctx, `insert into recon_match_member (match_id, level, side, record_id) select $1, $2, 'right', unnest($3::bigint[])`,
			group.ID, l.N, adjustments); err != nil {
			return nil, err
		}
		out.Match, err = s.scanMatch(tx.QueryRow(ctx, `update recon_match set rule = 'adjustment', status = $2, amount_variance = $3::numeric,
				date_lag_days = $4, reason = coalesce(reason, $5)
			where id = $1 returning `+matchColumns, group.ID, status, e.Variance, e.DateLagDays, nullIfEmpty(reason)))
	} else {
		out.Match, err = s.scanMatch(tx.QueryRow(ctx, `insert into recon_match (level, left_id, right_id, status, rule, amount_variance, date_lag_days, reason, created_by)
			values ($1, $2, $3, $4, 'adjustment', $5::numeric, $6, $7, $8) returning `+matchColumns,
			l.N, ticketID, right[0], status, e.Variance, e.DateLagDays, nullIfEmpty(reason), actor))
		if err == nil {
			_, err = tx.Exec(ctx, `insert into recon_match_member (match_id, level, side, record_id) select $1, $2, 'right', unnest($3::bigint[])`,
				out.Match.ID, l.N, right[1:])
		}
	}
	if err != nil {
		return nil, err
	}
	out.Closed = true
	out.Match.LeftIDs, out.Match.RightIDs = slices.Clone(left), slices.Clone(right)
	return out, engine.Audit(ctx, tx, engine.AuditEntry{Action: "recon.match.adjustment", Entity: "recon_match",
		EntityID: fmt.Sprint(out.Match.ID), Before: before, After: out.Match})
}

func nullIfEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
