package tasks

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"ledgerdesk/engine"
)

// Assigned tells what AssignRecords did.
type Assigned struct {
	// Created is the task made for the records no open task followed (nil: none was needed).
	Created *Task `json:"created"`
	// Updated are the open tasks that followed some of the records, now assigned to the user.
	Updated []int64 `json:"updated"`
}

// AssignRecords gives tickets and card transactions (chosen in the exception
// queue) to a user, in one transaction: a record an open task (New or In
// Progress) already follows has that task assigned to the user (the latest
// such task, as the queue shows it); the records no open task follows get one
// new task, named name, assigned to the user. Each change is in the tasks'
// history.
func (s *Service) AssignRecords(ctx context.Context, tickets, transactions []int64, assignee int64, name string) (*Assigned, error) {
	if len(tickets)+len(transactions) == 0 {
		return nil, engine.Invalid("items", "Choose at least one ticket or card transaction: tasks follow those.").With("tasks.assignNothing")
	}
	if len(tickets)+len(transactions) > maxLinks {
		return nil, engine.Invalid("items", "A task links at most %d records.", maxLinks).With("tasks.tooManyLinks", "max", maxLinks)
	}
	if s.MayLink != nil && !s.MayLink(ctx) {
		return nil, errLinkNotAllowed
	}
	out := &Assigned{Updated: []int64{}}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		f, err := s.check(ctx, tx, Input{TaskName: &name, AssignedToID: &assignee})
		if err != nil {
			return err
		}
		if f.assignee == nil {
			return engine.Invalid("assignedToId", "Choose the user the records go to.").With("tasks.assigneeRequired")
		}
		// the latest open task of each record, as recon_open_task picks it
		rows, err := tx.Query(ctx, `
			select distinct o.task_id from (
			    select (select t.id from task t join task_ticket tt on tt.task_id = t.id
			            where tt.ticket_id = r and t.is_status <> 3 order by t.id desc limit 1) as task_id
			    from unnest($1::bigint[]) r
			    union all
			    select (select t.id from task t join task_transaction tx on tx.task_id = t.id
			            where tx.transaction_id = r and t.is_status <> 3 order by t.id desc limit 1)
			    from unnest($2::bigint[]) r) o
			where o.task_id is not null order by 1`, tickets, transactions)
		if err != nil {
			return err
		}
		open, err := pgx.CollectRows(rows, pgx.RowTo[int64])
		if err != nil {
			return err
		}
		who := engine.ActorFrom(ctx).Username
		for _, id := range open {
			before, err := lockTask(ctx, tx, id, time.Time{}) // no version: the queue names records, not task versions
			if err != nil {
				return err
			}
			if before.AssignedToID != nil && *before.AssignedToID == *f.assignee {
				continue
			}
			if _, err := tx.Exec(ctx, `update task set assigned_to_id = $2, updated_by = $3, updated_on = clock_timestamp() where id = $1`,
				id, *f.assignee, who); err != nil {
				return err
			}
			after, err := get(ctx, tx, id)
			if err != nil {
				return err
			}
			if err := audit(ctx, tx, "update", id, snap(before), snap(after)); err != nil {
				return err
			}
			out.Updated = append(out.Updated, id)
		}
		// the records no open task follows
		var freeTickets, freeTransactions []int64
		if err := tx.QueryRow(ctx, `
			select coalesce(array(select r from unnest($1::bigint[]) r where not exists (
			           select 1 from task t join task_ticket tt on tt.task_id = t.id where tt.ticket_id = r and t.is_status <> 3) order by r), '{}'),
			       coalesce(array(select r from unnest($2::bigint[]) r where not exists (
			           select 1 from task t join task_transaction tx on tx.task_id = t.id where tx.transaction_id = r and t.is_status <> 3) order by r), '{}')`,
			tickets, transactions).Scan(&freeTickets, &freeTransactions); err != nil {
			return err
		}
		if len(freeTickets)+len(freeTransactions) == 0 {
			return nil
		}
		var id int64
		if err := tx.QueryRow(ctx, `insert into task (task_name, assigned_to_id, is_status, created_by, updated_by)
			values ($1, $2, $3, $4, $4) returning id`, f.name, *f.assignee, StatusNew, who).Scan(&id); err != nil {
			return err
		}
		if err := linkTickets(ctx, tx, id, freeTickets); err != nil {
			return err
		}
		if err := linkTransactions(ctx, tx, id, freeTransactions); err != nil {
			return err
		}
		if out.Created, err = get(ctx, tx, id); err != nil {
			return err
		}
		return audit(ctx, tx, "create", id, nil, struct {
			snapshot
			linkSnapshot
		}{snap(out.Created), linkSnapshot{out.Created.TicketIDs, out.Created.TransactionIDs}})
	})
	return out, engine.TranslatePG(err)
}
