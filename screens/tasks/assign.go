package tasks

import (
	"context"
	"slices"
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

// Item is a record a task may follow: its kind (ticket, transaction,
// settlement, payout, bank: the sides of recon.yaml) and id.
type Item struct {
	Kind string `json:"kind"`
	ID   int64  `json:"id"`
}

// OtherKinds are the kinds a task links through task_record (tickets and
// card transactions have task_ticket and task_transaction).
var OtherKinds = []string{"settlement", "payout", "bank"}

// AssignRecords gives records of any kind (chosen in the exception queue)
// to a user, in one transaction: a record an open task (New or In Progress)
// already follows has that task assigned to the user (the latest such task,
// as the queue shows it); the records no open task follows get one new task,
// named name, assigned to the user. Each change is in the tasks' history.
func (s *Service) AssignRecords(ctx context.Context, items []Item, assignee int64, name string) (*Assigned, error) {
	if len(items) == 0 {
		return nil, engine.Invalid("items", "Choose at least one record for the task.").With("tasks.assignNothing")
	}
	if len(items) > maxLinks {
		return nil, engine.Invalid("items", "A task links at most %d records.", maxLinks).With("tasks.tooManyLinks", "max", maxLinks)
	}
	kinds, ids := make([]string, len(items)), make([]int64, len(items))
	for i, it := range items {
		if it.Kind != "ticket" && it.Kind != "transaction" && !slices.Contains(OtherKinds, it.Kind) {
			return nil, engine.Invalid("items", "A task follows tickets, transactions, settlements, payouts and bank bookings, not %q.", it.Kind).
				With("tasks.badKind", "kind", it.Kind)
		}
		kinds[i], ids[i] = it.Kind, it.ID
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
			    select (select t.id from task t join task_link l on l.task_id = t.id
			            where l.kind = i.kind and l.record_id = i.id and t.is_status <> 3 order by t.id desc limit 1) as task_id
			    from unnest($1::text[], $2::bigint[]) i(kind, id)) o
			where o.task_id is not null order by 1`, kinds, ids)
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
		rows, err = tx.Query(ctx, `select i.kind, i.id from unnest($1::text[], $2::bigint[]) i(kind, id)
			where not exists (select 1 from task t join task_link l on l.task_id = t.id
			                  where l.kind = i.kind and l.record_id = i.id and t.is_status <> 3)
			order by i.kind, i.id`, kinds, ids)
		if err != nil {
			return err
		}
		free, err := pgx.CollectRows(rows, pgx.RowToStructByPos[Item])
		if err != nil {
			return err
		}
		if len(free) == 0 {
			return nil
		}
		var id int64
		if err := tx.QueryRow(ctx, `insert into task (task_name, assigned_to_id, is_status, created_by, updated_by)
			values ($1, $2, $3, $4, $4) returning id`, f.name, *f.assignee, StatusNew, who).Scan(&id); err != nil {
			return err
		}
		if err := linkItems(ctx, tx, id, free); err != nil {
			return err
		}
		if out.Created, err = get(ctx, tx, id); err != nil {
			return err
		}
		return audit(ctx, tx, "create", id, nil, struct {
			snapshot
			linkSnapshot
			Records []Record `json:"records,omitempty"`
		}{snap(out.Created), linkSnapshot{out.Created.TicketIDs, out.Created.TransactionIDs}, out.Created.Records})
	})
	return out, engine.TranslatePG(err)
}

// linkItems links a task to records of any kind: tickets and card
// transactions in their own tables (checked to exist), the others in
// task_record.
func linkItems(ctx context.Context, tx pgx.Tx, task int64, items []Item) error {
	var tickets, transactions []int64
	var kinds []string
	var others []int64
	for _, it := range items {
		switch it.Kind {
		case "ticket":
			tickets = append(tickets, it.ID)
		case "transaction":
			transactions = append(transactions, it.ID)
		default:
			kinds, others = append(kinds, it.Kind), append(others, it.ID)
		}
	}
	if err := linkTickets(ctx, tx, task, tickets); err != nil {
		return err
	}
	if err := linkTransactions(ctx, tx, task, transactions); err != nil {
		return err
	}
	if len(others) == 0 {
		return nil
	}
	_, err := tx.Exec(ctx, `insert into task_record (task_id, kind, record_id) select $1, k, r from unnest($2::text[], $3::bigint[]) x(k, r)
		on conflict do nothing`, task, kinds, others)
	return err
}
