package tasks

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"ledgerdesk/engine"
)

// EscalationActor is who escalations are made as (the audit log's actor).
const EscalationActor = "system"

// maxEscalated bounds the items one escalation takes (the rest the next time).
const maxEscalated = 5000

// maxNamed bounds the references a task's remarks list.
const maxNamed = 40

type overdue struct {
	level    int
	side     string
	record   int64
	kind     string
	ref      string
	due      time.Time
	owner    int64
	slaDays  int
	levelKey string
}

// EscalateOverdue gives the open items that are past their SLA on today
// (recon_open_item.due_on before it) and were never escalated to the owner
// set for their provider and level (config_setting.owner_id, on the row
// whose SLA they run by; a ticket, which has no provider, by its level's
// strictest SLA): one new task per owner and level, assigned to the owner,
// linking the tickets and card transactions among the items and naming the
// others in its remarks; its history says why. Each item is escalated once
// (recon_escalation), and nodes running this together do not both take it.
// It answers the tasks made.
func (s *Service) EscalateOverdue(ctx context.Context, today time.Time) ([]int64, error) {
	var made []int64
	ctx = engine.WithActor(ctx, &engine.Actor{Username: EscalationActor})
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `select pg_advisory_xact_lock(hashtext('recon.escalate'))`); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `
			select o.level, o.side, o.record_id, o.kind, coalesce(o.ref, ''), o.due_on, w.owner_id, w.sla_days, l.slug
			from recon_open_item o
			join recon_level l on l.number = o.level
			cross join lateral (
			    select s.owner_id, s.sla_days from recon_sla s
			    where s.tolerance_type = l.tolerance_type and s.sla_days is not null
			      and (o.provider is null or s.provider_key = lower(o.provider))
			    order by s.sla_days, s.owner_id is null, s.provider_key limit 1) w
			join app_user u on u.id = w.owner_id and u.is_active
			where o.due_on < $1::date
			  and not exists (select 1 from recon_escalation e where e.level = o.level and e.side = o.side and e.record_id = o.record_id)
			order by w.owner_id, o.level, o.due_on, o.kind, o.record_id
			limit $2`, today.Format(time.DateOnly), maxEscalated)
		if err != nil {
			return err
		}
		var items []overdue
		for rows.Next() {
			var o overdue
			if err := rows.Scan(&o.level, &o.side, &o.record, &o.kind, &o.ref, &o.due, &o.owner, &o.slaDays, &o.levelKey); err != nil {
				return err
			}
			items = append(items, o)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		for start := 0; start < len(items); {
			end := start
			for end < len(items) && items[end].owner == items[start].owner && items[end].level == items[start].level {
				end++
			}
			id, err := s.escalate(ctx, tx, items[start:end], today)
			if err != nil {
				return err
			}
			made = append(made, id)
			start = end
		}
		return nil
	})
	return made, engine.TranslatePG(err)
}

// escalate makes the task of one owner's overdue items of one level.
func (s *Service) escalate(ctx context.Context, tx pgx.Tx, items []overdue, today time.Time) (int64, error) {
	first := items[0]
	var links []Item
	var named []string
	for _, o := range items {
		links = append(links, Item{Kind: o.kind, ID: o.record})
		if len(named) < maxNamed {
			named = append(named, fmt.Sprintf("%s %s (due %s)", o.kind, o.ref, o.due.Format(time.DateOnly)))
		}
	}
	if len(items) > maxNamed {
		named = append(named, fmt.Sprintf("and %d more", len(items)-maxNamed))
	}
	name := fmt.Sprintf("Past SLA: %d open items of %s", len(items), first.levelKey)
	remarks := "Open past their SLA on " + today.Format(time.DateOnly) + ": " + strings.Join(named, "; ")
	if len(remarks) > maxRemarksLength {
		remarks = remarks[:maxRemarksLength-1] + "…"
	}
	var id int64
	if err := tx.QueryRow(ctx, `insert into task (task_name, assigned_to_id, is_status, remarks, created_by, updated_by)
		values ($1, $2, $3, $4, $5, $5) returning id`, name, first.owner, StatusNew, remarks, EscalationActor).Scan(&id); err != nil {
		return 0, err
	}
	if err := linkItems(ctx, tx, id, links); err != nil {
		return 0, err
	}
	for _, o := range items {
		if _, err := tx.Exec(ctx, `insert into recon_escalation (level, side, record_id, task_id, due_on) values ($1, $2, $3, $4, $5)`,
			o.level, o.side, o.record, id, o.due); err != nil {
			return 0, err
		}
	}
	t, err := get(ctx, tx, id)
	if err != nil {
		return 0, err
	}
	return id, audit(ctx, tx, "escalate", id, nil, struct {
		snapshot
		linkSnapshot
		Reason string `json:"reason"`
	}{snap(t), linkSnapshot{t.TicketIDs, t.TransactionIDs},
		escalationReason(items, today)})
}

// escalationReason says why a task was made: how many items, of which
// level, past which SLA on which day.
func escalationReason(items []overdue, today time.Time) string {
	sla := fmt.Sprintf(" of %d days", items[0].slaDays)
	for _, o := range items {
		if o.slaDays != items[0].slaDays {
			sla = ""
		}
	}
	return fmt.Sprintf("%d open items of %s were past their SLA%s on %s", len(items), items[0].levelKey, sla, today.Format(time.DateOnly))
}

// EscalateArgs is the periodic job that escalates overdue items.
type EscalateArgs struct{}

// Kind names the job in the queue.
func (EscalateArgs) Kind() string { return "escalate_overdue" }

// EscalateWorker runs EscalateOverdue for today.
type EscalateWorker struct {
	river.WorkerDefaults[EscalateArgs]
	Service *Service
	Now     func() time.Time
}

// Work escalates what is overdue today.
func (w *EscalateWorker) Work(ctx context.Context, job *river.Job[EscalateArgs]) error {
	now := time.Now
	if w.Now != nil {
		now = w.Now
	}
	_, err := w.Service.EscalateOverdue(ctx, now())
	return err
}
