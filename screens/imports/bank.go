package imports

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"ledgerdesk/engine"
)

// ProcessBank enriches bank bookings into the processed bank-final record
// again (the database function bank_booking_process over
// bank_booking_derived, migration 00028; an import derives the same as it
// inserts, and the inline edit's recomputation shares it): in/out by sign; actor, recon mapping,
// provider and the distribution flags from the first transaction provider (by
// priority) whose recon mapping occurs literally in the booking text; the USD
// rate of the booking currency on the booked date, else the latest earlier one,
// and the amounts in USD. Manual overrides stay, each on its own: a rate or a
// USD amount set by hand is kept, and the manual provider, creditor and
// comments are never touched. importID limits it to one file; nil processes
// every booking (reprocess).
func ProcessBank(ctx context.Context, tx pgx.Tx, importID *int64) error {
	_, err := tx.Exec(ctx, `select bank_booking_process($1, null)`, importID)
	return err
}

// Reprocess queues the reprocessing of every bank booking.
func (s *Service) Reprocess(ctx context.Context) (int64, error) {
	if s.queue == nil {
		return 0, errors.New("the job queue is not running")
	}
	res, err := s.queue.Insert(ctx, ReprocessArgs{}, nil)
	if err != nil {
		return 0, err
	}
	if err := engine.Audit(ctx, s.pool, engine.AuditEntry{Action: "bank.reprocess", Entity: "bank_booking", EntityID: fmt.Sprint(res.Job.ID)}); err != nil {
		return 0, err
	}
	return res.Job.ID, nil
}
