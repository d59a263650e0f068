// Package tasks is the follow-up work on reconciliation differences (spec 03
// sections 2.2, 2.3, 3.5, 7.2): tasks with a name, an assignee, a status and
// remarks, linked to tickets and card transactions, balanced by manual
// adjustments (card transactions made by hand for the task, which count in
// reconciliation like any other). Every change is one transaction with its
// audit row (entity "task", before and after); the task's updated_on is its
// version, so a stale edit is a conflict. The paged list and the export run
// on the engine's VW_Tasks view.
package tasks

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"ledgerdesk/engine"
)

// Statuses of spec 03 section 4.
const (
	StatusNew        = 1
	StatusInProgress = 2
	StatusComplete   = 3
)

// Limits of the task table's check constraints.
const (
	maxNameLength    = 200
	maxRemarksLength = 2000
	maxLinks         = 1000
)

// Service is the task logic over the database and the engine (for the
// paged list and the export).
type Service struct {
	pool   *pgxpool.Pool
	engine *engine.Engine
	// MayLink says whether the caller may link documents to a task (or
	// change its links): linking reads tickets and transactions of the
	// caller's choosing, which is reconciliation data. nil: everyone may.
	MayLink func(context.Context) bool
	// Close closes the ticket an adjustment is made for, in the
	// adjustment's transaction (reconciliation: the ticket's match group,
	// recon.Service.CloseByAdjustment), and tells what it did; nil:
	// adjustments close nothing.
	Close func(ctx context.Context, tx pgx.Tx, ticketID, taskID int64, reason string) (any, error)
	// Approvals are asked before an adjustment is written (four-eyes
	// above a threshold); nil: none.
	Approvals engine.Approvals
}

// errLinkNotAllowed refuses a link change by a caller MayLink refuses.
var errLinkNotAllowed = engine.Forbidden("Linking tickets and transactions to a task needs the Reconcile screen; ask a reconciler to link them.").With("tasks.linkNeedsReconcile")

// New returns the task service.
func New(pool *pgxpool.Pool, eng *engine.Engine) *Service {
	return &Service{pool: pool, engine: eng}
}

// Task is a task as the API answers it (spec 03 section 3.5).
type Task struct {
	ID             int64     `json:"id"`
	TaskName       string    `json:"taskName"`
	AssignedToID   *int64    `json:"assignedToId"`
	AssignedToName *string   `json:"assignedToName"`
	IsStatus       int16     `json:"isStatus"`
	StatusLabel    string    `json:"statusLabel"`
	Remarks        *string   `json:"remarks"`
	Priority       *int32    `json:"priority"`
	CreatedBy      string    `json:"createdBy"`
	CreatedOn      time.Time `json:"createdOn"`
	UpdatedBy      string    `json:"updatedBy"`
	UpdatedOn      time.Time `json:"updatedOn"`
	TotalAmount    string    `json:"totalAmount"`
	Balance        string    `json:"balance"`
	TicketIDs      []int64   `json:"ticketIds"`
	TransactionIDs []int64   `json:"transactionIds"`
	// Records are the settlements, payouts and bank bookings the task
	// follows (the exception queue's Assign, the SLA escalation), each with
	// the reference people know it by.
	Records []Record `json:"records"`
}

// Record is a settlement, payout or bank booking a task follows.
type Record struct {
	Kind string  `json:"kind"`
	ID   int64   `json:"id"`
	Ref  *string `json:"ref"`
}

const taskColumns = `id, task_name, assigned_to_id, assigned_to_name, is_status, status_label, remarks, priority,
	created_by, created_on, updated_by, updated_on, total_amount::text, balance::text,
	array(select ticket_id from task_ticket where task_id = l.id order by ticket_id),
	array(select transaction_id from task_transaction where task_id = l.id order by transaction_id),
	coalesce((select json_agg(json_build_object('kind', tr.kind, 'id', tr.record_id, 'ref', (
	        select x.ref from recon_side_settlement x where tr.kind = 'settlement' and x.id = tr.record_id
	        union all select x.ref from recon_side_payout x where tr.kind = 'payout' and x.id = tr.record_id
	        union all select x.ref from recon_side_bank x where tr.kind = 'bank' and x.id = tr.record_id limit 1))
	    order by tr.kind, tr.record_id) from task_record tr where tr.task_id = l.id), '[]')`

func scanTask(row pgx.Row) (*Task, error) {
	var t Task
	err := row.Scan(&t.ID, &t.TaskName, &t.AssignedToID, &t.AssignedToName, &t.IsStatus, &t.StatusLabel, &t.Remarks, &t.Priority,
		&t.CreatedBy, &t.CreatedOn, &t.UpdatedBy, &t.UpdatedOn, &t.TotalAmount, &t.Balance, &t.TicketIDs, &t.TransactionIDs, &t.Records)
	return &t, err
}

// Get returns one task.
func (s *Service) Get(ctx context.Context, id int64) (*Task, error) {
	return get(ctx, s.pool, id)
}

type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

func get(ctx context.Context, q querier, id int64) (*Task, error) {
	t, err := scanTask(q.QueryRow(ctx, `select `+taskColumns+` from task_list l where id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, engine.NotFound("Task %d does not exist.", id).With("tasks.notFound", "id", id)
	}
	if err != nil {
		return nil, fmt.Errorf("task %d: %w", id, err)
	}
	return t, nil
}

// List returns the newest tasks (GET /TaskTT), at most 1,000; the screen
// pages through /TaskTT/paged.
func (s *Service) List(ctx context.Context) ([]*Task, error) {
	rows, err := s.pool.Query(ctx, `select `+taskColumns+` from task_list l order by id desc limit 1000`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*Task{}
	for rows.Next() {
		t, err := scanTask(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// Input is what create and update take (spec 03 section 7.2). The id lists
// are raw JSON: numbers, digit strings or one comma-separated string, each
// checked here so a bad one is refused naming its field.
type Input struct {
	TaskName       *string `json:"taskName"`
	AssignedToID   *int64  `json:"assignedToId"`
	IsStatus       *int    `json:"isStatus"`
	Remarks        *string `json:"remarks"`
	Priority       *int32  `json:"priority"`
	TicketIDs      RawIDs  `json:"ticketIds"`
	TransactionIDs RawIDs  `json:"transactionIds"`
	UpdatedOn      *string `json:"updatedOn"` // the version the client read (PUT)
	Version        *string `json:"version"`   // the same, by its other name
}

// fields are the checked scalar fields of an input.
type fields struct {
	name     string
	assignee *int64
	status   int
	remarks  *string
	priority *int32
}

func (s *Service) check(ctx context.Context, q querier, in Input) (fields, error) {
	f := fields{status: StatusNew, assignee: in.AssignedToID, priority: in.Priority}
	if in.TaskName != nil {
		f.name = strings.TrimSpace(*in.TaskName)
	}
	if err := checkName(f.name); err != nil {
		return f, err
	}
	if in.IsStatus != nil {
		f.status = *in.IsStatus
	}
	if f.status < StatusNew || f.status > StatusComplete {
		return f, engine.Invalid("isStatus", "Status must be 1 (New), 2 (In Progress) or 3 (Complete), got %d.", f.status).With("tasks.badStatus", "status", f.status)
	}
	var err error
	if f.remarks, err = checkRemarks(in.Remarks); err != nil {
		return f, err
	}
	if f.assignee != nil && *f.assignee == 0 {
		f.assignee = nil // "no one", as a cleared dropdown sends it
	}
	if f.assignee != nil {
		var active bool
		err := q.QueryRow(ctx, `select is_active from app_user where id = $1`, *f.assignee).Scan(&active)
		if errors.Is(err, pgx.ErrNoRows) || err == nil && !active {
			return f, engine.Invalid("assignedToId", "User %d does not exist or is not active.", *f.assignee).With("tasks.unknownUser", "userId", *f.assignee)
		}
		if err != nil {
			return f, err
		}
	}
	return f, nil
}

func checkName(name string) error {
	if name == "" {
		return engine.Invalid("taskName", "Task name is required.").With("tasks.nameRequired")
	}
	if utf8.RuneCountInString(name) > maxNameLength {
		return engine.Invalid("taskName", "Task name can be at most %d characters.", maxNameLength).With("tasks.nameTooLong", "max", maxNameLength)
	}
	return nil
}

func checkRemarks(r *string) (*string, error) {
	if r == nil {
		return nil, nil
	}
	t := strings.TrimSpace(*r)
	if t == "" {
		return nil, nil
	}
	if utf8.RuneCountInString(t) > maxRemarksLength {
		return nil, engine.Invalid("remarks", "Remarks can be at most %d characters.", maxRemarksLength).With("tasks.remarksTooLong", "max", maxRemarksLength)
	}
	return &t, nil
}

// snapshot is a task's own fields as the audit log keeps them.
type snapshot struct {
	TaskName     string  `json:"taskName"`
	AssignedToID *int64  `json:"assignedToId"`
	IsStatus     int16   `json:"isStatus"`
	Remarks      *string `json:"remarks"`
	Priority     *int32  `json:"priority"`
}

type linkSnapshot struct {
	TicketIDs      []int64 `json:"ticketIds"`
	TransactionIDs []int64 `json:"transactionIds"`
}

func snap(t *Task) snapshot {
	return snapshot{TaskName: t.TaskName, AssignedToID: t.AssignedToID, IsStatus: t.IsStatus, Remarks: t.Remarks, Priority: t.Priority}
}

func audit(ctx context.Context, tx pgx.Tx, action string, id int64, before, after any) error {
	return engine.Audit(ctx, tx, engine.AuditEntry{Action: "task." + action, Entity: "task", EntityID: fmt.Sprint(id), Before: before, After: after})
}

// Create makes a task with its links (POST /TaskTT and /TaskTT/with-items).
func (s *Service) Create(ctx context.Context, in Input) (*Task, error) {
	tickets, transactions, err := in.links()
	if err != nil {
		return nil, err
	}
	if len(tickets)+len(transactions) > 0 && s.MayLink != nil && !s.MayLink(ctx) {
		return nil, errLinkNotAllowed
	}
	var out *Task
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		f, err := s.check(ctx, tx, in)
		if err != nil {
			return err
		}
		who := engine.ActorFrom(ctx).Username
		var id int64
		err = tx.QueryRow(ctx, `insert into task (task_name, assigned_to_id, is_status, remarks, priority, created_by, updated_by)
			values ($1, $2, $3, $4, $5, $6, $6) returning id`, f.name, f.assignee, f.status, f.remarks, f.priority, who).Scan(&id)
		if err != nil {
			return err
		}
		if err := linkTickets(ctx, tx, id, tickets); err != nil {
			return err
		}
		if err := linkTransactions(ctx, tx, id, transactions); err != nil {
			return err
		}
		if out, err = get(ctx, tx, id); err != nil {
			return err
		}
		return audit(ctx, tx, "create", id, nil, struct {
			snapshot
			linkSnapshot
		}{snap(out), linkSnapshot{out.TicketIDs, out.TransactionIDs}})
	})
	return out, engine.TranslatePG(err)
}

// Update saves a task's fields (PUT /TaskTT/{id}); ticketIds and
// transactionIds, when sent, replace its links (manual adjustments stay).
// updatedOn must be the version the client read: a task saved by someone
// else since is a conflict.
func (s *Service) Update(ctx context.Context, id int64, in Input) (*Task, error) {
	version, err := in.version()
	if err != nil {
		return nil, err
	}
	tickets, transactions, err := in.links()
	if err != nil {
		return nil, err
	}
	var out *Task
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		before, err := lockTask(ctx, tx, id, version)
		if err != nil {
			return err
		}
		f, err := s.check(ctx, tx, in)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `update task set task_name = $2, assigned_to_id = $3, is_status = $4, remarks = $5, priority = $6,
			updated_by = $7, updated_on = clock_timestamp() where id = $1`,
			id, f.name, f.assignee, f.status, f.remarks, f.priority, engine.ActorFrom(ctx).Username)
		if err != nil {
			return err
		}
		if in.TicketIDs != nil {
			if _, err := tx.Exec(ctx, `delete from task_ticket where task_id = $1`, id); err != nil {
				return err
			}
			if err := linkTickets(ctx, tx, id, tickets); err != nil {
				return err
			}
		}
		if in.TransactionIDs != nil {
			// Manual adjustments belong to the task: they stay linked.
			if _, err := tx.Exec(ctx, `delete from task_transaction tt using card_transaction c
				where tt.task_id = $1 and c.id = tt.transaction_id and not c.is_manual_adjust`, id); err != nil {
				return err
			}
			if err := linkTransactions(ctx, tx, id, transactions); err != nil {
				return err
			}
		}
		if out, err = get(ctx, tx, id); err != nil {
			return err
		}
		if b, a := snap(before), snap(out); b != a {
			if err := audit(ctx, tx, "update", id, b, a); err != nil {
				return err
			}
		}
		bl, al := linkSnapshot{before.TicketIDs, before.TransactionIDs}, linkSnapshot{out.TicketIDs, out.TransactionIDs}
		if !sameIDs(bl.TicketIDs, al.TicketIDs) || !sameIDs(bl.TransactionIDs, al.TransactionIDs) {
			if s.MayLink != nil && !s.MayLink(ctx) {
				return errLinkNotAllowed
			}
			return audit(ctx, tx, "links", id, bl, al)
		}
		return nil
	})
	return out, engine.TranslatePG(err)
}

func sameIDs(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// links reads the input's id lists (nil when not sent).
func (in Input) links() (tickets, transactions []int64, err error) {
	if tickets, err = in.TicketIDs.parse("ticketIds"); err != nil {
		return nil, nil, err
	}
	transactions, err = in.TransactionIDs.parse("transactionIds")
	return tickets, transactions, err
}

// version reads the client's version (updatedOn, or version) of a PUT.
func (in Input) version() (time.Time, error) {
	v := in.UpdatedOn
	if v == nil {
		v = in.Version
	}
	if v == nil || strings.TrimSpace(*v) == "" {
		return time.Time{}, engine.Invalid("updatedOn", "updatedOn is required: send the task's updatedOn as you read it.").With("tasks.versionRequired")
	}
	t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(*v))
	if err != nil {
		return time.Time{}, engine.Invalid("updatedOn", "updatedOn must be a timestamp as the task was read (RFC 3339).").With("tasks.badVersion")
	}
	return t, nil
}

// lockTask reads a task for update, checking the client's version when one
// is given (zero: no check).
func lockTask(ctx context.Context, tx pgx.Tx, id int64, version time.Time) (*Task, error) {
	var stored time.Time
	err := tx.QueryRow(ctx, `select updated_on from task where id = $1 for update`, id).Scan(&stored)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, engine.NotFound("Task %d does not exist.", id).With("tasks.notFound", "id", id)
	}
	if err != nil {
		return nil, err
	}
	if !version.IsZero() && !stored.Equal(version) {
		return nil, engine.Conflict("Task %d was changed by someone else since you opened it; reload it and make your change again.", id).
			With("tasks.stale", "id", id)
	}
	return get(ctx, tx, id)
}

// Editable fields of the single-field update, by their database names.
var patchable = map[string]bool{"taskname": true, "remarks": true}

// Patch sets one field (PATCH /TaskTT/{id}/field?field=TaskName|Remarks).
// version, when not zero, must be the task's updatedOn as read.
func (s *Service) Patch(ctx context.Context, id int64, field string, value *string, version time.Time) (*Task, error) {
	key := strings.ToLower(strings.TrimSpace(field))
	if !patchable[key] {
		return nil, engine.Invalid("field", "Only TaskName and Remarks can be changed one at a time, not %q.", field).With("tasks.fieldNotEditable", "field", field)
	}
	var out *Task
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		before, err := lockTask(ctx, tx, id, version)
		if err != nil {
			return err
		}
		who := engine.ActorFrom(ctx).Username
		if key == "taskname" {
			name := ""
			if value != nil {
				name = strings.TrimSpace(*value)
			}
			if err := checkName(name); err != nil {
				return err
			}
			_, err = tx.Exec(ctx, `update task set task_name = $2, updated_by = $3, updated_on = clock_timestamp() where id = $1`, id, name, who)
		} else {
			r, cerr := checkRemarks(value)
			if cerr != nil {
				return cerr
			}
			_, err = tx.Exec(ctx, `update task set remarks = $2, updated_by = $3, updated_on = clock_timestamp() where id = $1`, id, r, who)
		}
		if err != nil {
			return err
		}
		if out, err = get(ctx, tx, id); err != nil {
			return err
		}
		return audit(ctx, tx, "field", id, snap(before), snap(out))
	})
	return out, engine.TranslatePG(err)
}

// touch marks a task changed by the caller (its version moves on).
func touch(ctx context.Context, tx pgx.Tx, id int64) error {
	_, err := tx.Exec(ctx, `update task set updated_by = $2, updated_on = clock_timestamp() where id = $1`, id, engine.ActorFrom(ctx).Username)
	return err
}

func linkTickets(ctx context.Context, tx pgx.Tx, task int64, ids []int64) error {
	return link(ctx, tx, task, ids, "ticketIds", "ticket", `insert into task_ticket (task_id, ticket_id) select $1, unnest($2::bigint[])`)
}

func linkTransactions(ctx context.Context, tx pgx.Tx, task int64, ids []int64) error {
	return link(ctx, tx, task, ids, "transactionIds", "card_transaction",
		`insert into task_transaction (task_id, transaction_id) select $1, unnest($2::bigint[]) on conflict do nothing`)
}

// link inserts the links after checking that every id exists, naming the
// missing ones.
func link(ctx context.Context, tx pgx.Tx, task int64, ids []int64, field, table, insert string) error {
	if len(ids) == 0 {
		return nil
	}
	var missing []int64
	err := tx.QueryRow(ctx, `select coalesce(array_agg(i order by i), '{}') from unnest($1::bigint[]) i
		where not exists (select 1 from `+table+` r where r.id = i)`, ids).Scan(&missing)
	if err != nil {
		return err
	}
	if len(missing) > 0 {
		list := joinIDs(missing)
		return engine.Invalid(field, "%s: no record with id %s.", field, list).With("tasks.unknownIds", "field", field, "ids", list)
	}
	_, err = tx.Exec(ctx, insert, task, ids)
	return err
}

// History is a task's audit trail, newest first.
type History struct {
	At     time.Time `json:"at"`
	Actor  string    `json:"actor"`
	Action string    `json:"action"`
	Before any       `json:"before"`
	After  any       `json:"after"`
}

// History returns the audit rows of a task (GET /TaskTT/{id}/history).
func (s *Service) History(ctx context.Context, id int64) ([]History, error) {
	if _, err := s.Get(ctx, id); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `select at, actor, action, before, after from audit_log
		where entity = 'task' and entity_id = $1 order by at desc, id desc limit 500`, fmt.Sprint(id))
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowToStructByPos[History])
}
