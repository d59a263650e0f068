package controls

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"ledgerdesk/engine"
	"ledgerdesk/internal/decimal"
	"ledgerdesk/internal/screenids"
	"ledgerdesk/screens/identity"
)

// actionScreens are the screens whose routes make each action: its
// requester must still hold it when the request is approved.
var actionScreens = map[string]int{
	engine.ApprovalMatchDifference: 13, engine.ApprovalForcedMatch: 13, engine.ApprovalWriteOff: 13, engine.ApprovalOldUndo: 13,
	engine.ApprovalAdjustment: 14, engine.ApprovalTolerance: 11,
}

// Executor carries an approved action out again from its replay, as its
// requester (the context's actor), inside the approval's context.
type Executor func(ctx context.Context, replay json.RawMessage) (any, error)

// Register gives the replay op its executor (the server registers those of
// the screens whose actions can wait for approval).
func (s *Service) Register(op string, e Executor) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.executors[op] = e
}

func (s *Service) executor(op string) Executor {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.executors[op]
}

// Request is one action kept for approval.
type Request struct {
	ID             int64          `json:"id"`
	Action         string         `json:"action"`
	Level          string         `json:"level"` // slug, empty when none
	Months         []string       `json:"months"`
	Summary        map[string]any `json:"summary"`
	Status         string         `json:"status"` // pending, approved, rejected
	RequestedBy    string         `json:"requestedBy"`
	RequestedByID  int64          `json:"requestedById"`
	RequestedOn    time.Time      `json:"requestedOn"`
	DecidedBy      *string        `json:"decidedBy"`
	DecidedOn      *time.Time     `json:"decidedOn"`
	DecisionReason *string        `json:"decisionReason"`
	replay         json.RawMessage
}

const requestColumns = `id, action, coalesce(level, 0), array(select to_char(m, 'YYYY-MM') from unnest(months) m order by m), summary, replay,
	status, requested_by, requested_by_id, requested_on, decided_by, decided_on, decision_reason`

func (s *Service) scanRequest(row pgx.Row) (*Request, error) {
	var r Request
	var level int
	var summary []byte
	if err := row.Scan(&r.ID, &r.Action, &level, &r.Months, &summary, &r.replay, &r.Status, &r.RequestedBy, &r.RequestedByID,
		&r.RequestedOn, &r.DecidedBy, &r.DecidedOn, &r.DecisionReason); err != nil {
		return nil, err
	}
	for _, l := range s.recon.Levels() {
		if l.N == level {
			r.Level = l.Slug
		}
	}
	if err := json.Unmarshal(summary, &r.Summary); err != nil {
		return nil, fmt.Errorf("approval %d: summary: %w", r.ID, err)
	}
	return &r, nil
}

// Gate implements engine.Approvals: inside the action's transaction, the
// approval being carried out is marked approved and the action goes on;
// otherwise the action's rule decides, and an action it holds is stored
// as pending (in its own transaction: the action's rolls back) and
// answered with engine.Pending.
func (s *Service) Gate(ctx context.Context, tx pgx.Tx, a engine.Approval) error {
	if ap := engine.ApprovingFrom(ctx); ap != nil {
		return s.mark(ctx, tx, ap, a.Action)
	}
	var enabled bool
	var threshold *string
	var days *int
	err := tx.QueryRow(ctx, `select enabled, threshold::text, days from approval_rule where action = $1`, a.Action).Scan(&enabled, &threshold, &days)
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("approval rule %q: not in approval_rule", a.Action)
	}
	if err != nil || !enabled || !s.holds(a, threshold, days) {
		return err
	}
	id, err := s.request(ctx, a)
	if err != nil {
		return err
	}
	return engine.Pending(id, a.Action)
}

// holds tells whether an enabled rule keeps the action waiting.
func (s *Service) holds(a engine.Approval, threshold *string, days *int) bool {
	switch a.Action {
	case engine.ApprovalMatchDifference, engine.ApprovalAdjustment, engine.ApprovalWriteOff:
		if a.AmountUSD == nil { // no rate to hold it against: a person looks
			return true
		}
		limit := "0"
		if threshold != nil {
			limit = *threshold
		}
		amount, err := decimal.Cents(strings.TrimPrefix(*a.AmountUSD, "-"))
		max, errMax := decimal.Cents(limit)
		return err != nil || errMax != nil || amount.Cmp(max) > 0
	case engine.ApprovalOldUndo:
		return days == nil || a.AgeDays > *days
	}
	return true // forcedMatch, tolerance: every one
}

// request stores a as pending, in its own transaction, with its requester.
func (s *Service) request(ctx context.Context, a engine.Approval) (int64, error) {
	actor := engine.ActorFrom(ctx)
	if actor.UserID == 0 {
		return 0, engine.Forbidden("Only a signed-in user can ask for an approval.").With("auth.required")
	}
	summary, err := json.Marshal(a.Summary)
	if err != nil {
		return 0, err
	}
	replay, err := json.Marshal(a.Replay)
	if err != nil {
		return 0, err
	}
	var level *int
	if a.Level != 0 {
		level = &a.Level
	}
	months := make([]time.Time, len(a.Months))
	for i, m := range a.Months {
		months[i] = time.Date(m.Year(), m.Month(), 1, 0, 0, 0, 0, time.UTC)
	}
	var id int64
	err = pgx.BeginFunc(context.WithoutCancel(ctx), s.pool, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `insert into approval (action, level, months, summary, replay, requested_by, requested_by_id, requested_on)
			values ($1, $2, $3, $4, $5, $6, $7, $8) returning id`, a.Action, level, months, summary, replay, actor.Username, actor.UserID, s.now()).Scan(&id); err != nil {
			return err
		}
		return engine.Audit(ctx, tx, engine.AuditEntry{Action: "approval.request", Entity: "approval", EntityID: fmt.Sprint(id),
			After: map[string]any{"action": a.Action, "summary": a.Summary, "replay": a.Replay}})
	})
	return id, err
}

// mark marks the approval ap carries out approved, in the action's
// transaction, once; the action must be the one requested.
func (s *Service) mark(ctx context.Context, tx pgx.Tx, ap *engine.Approving, action string) error {
	if ap.Marked {
		return nil
	}
	tag, err := tx.Exec(ctx, `update approval set status = 'approved', decided_by = $2, decided_by_id = $3, decided_on = $4, decision_reason = $5
		where id = $1 and status = 'pending' and action = $6`, ap.ID, ap.Approver.Username, ap.Approver.UserID, s.now(), nullIfEmpty(ap.Reason), action)
	if err != nil {
		return err
	}
	if tag.RowsAffected() != 1 {
		return engine.Conflict("Approval %d no longer waits for a decision.", ap.ID).With("approvals.decided", "id", ap.ID)
	}
	ap.Marked = true
	return engine.Audit(ctx, tx, engine.AuditEntry{Action: "approval.approve", Entity: "approval", EntityID: fmt.Sprint(ap.ID),
		Actor: ap.Approver.Username, After: map[string]any{"status": "approved", "reason": ap.Reason, "approvedBy": ap.Approver.Username}})
}

func nullIfEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func (s *Service) get(ctx context.Context, id int64) (*Request, error) {
	r, err := s.scanRequest(s.pool.QueryRow(ctx, `select `+requestColumns+` from approval where id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, engine.NotFound("There is no approval %d.", id).With("approvals.notFound", "id", id)
	}
	return r, err
}

// decidable refuses a request that no longer waits, or one of the
// approver's own.
func decidable(r *Request, approver *engine.Actor) error {
	if r.Status != "pending" {
		return engine.Conflict("Approval %d was %s already.", r.ID, r.Status).With("approvals.decided", "id", r.ID)
	}
	if r.RequestedByID == approver.UserID {
		return engine.Forbidden("Nobody approves or rejects their own request: another user with the Approvals screen decides it.").
			With("approvals.own", "id", r.ID)
	}
	return nil
}

// Approve carries the request out as its requester, and marks it approved
// in the same transaction; when carrying it out fails (its records were
// matched meanwhile, say), it stays pending and the failure is answered.
func (s *Service) Approve(ctx context.Context, id int64, reason string) (*Request, any, error) {
	reason = strings.TrimSpace(reason)
	if len(reason) > 1000 {
		return nil, nil, engine.Invalid("reason", "The reason must be at most 1000 characters.").With("recon.reasonTooLong")
	}
	r, err := s.get(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	approver := engine.ActorFrom(ctx)
	if err := decidable(r, approver); err != nil {
		return nil, nil, err
	}
	var op struct {
		Op string `json:"op"`
	}
	if err := json.Unmarshal(r.replay, &op); err != nil {
		return nil, nil, fmt.Errorf("approval %d: replay: %w", id, err)
	}
	exec := s.executor(op.Op)
	if exec == nil {
		return nil, nil, fmt.Errorf("approval %d: no executor for %q", id, op.Op)
	}
	// carried out as its requester, with the screens their roles grant now
	requester := &engine.Actor{UserID: r.RequestedByID, Username: r.RequestedBy, IP: approver.IP, RequestID: approver.RequestID,
		Language: approver.Language, Screens: map[int]bool{}}
	var screens []int32
	if err := s.pool.QueryRow(ctx, `select coalesce(array_agg(id), '{}') from (`+identity.ScreensOfUser("$1")+`) s`, r.RequestedByID).Scan(&screens); err != nil {
		return nil, nil, err
	}
	for _, id := range screens {
		requester.Screens[int(id)] = true
	}
	if need := actionScreens[r.Action]; need != 0 && !requester.Can(need) {
		return nil, nil, engine.Forbidden("%s no longer holds the screen this action needs, so it cannot be carried out as theirs; reject it.", r.RequestedBy).
			With("approvals.requesterLacksScreen", "id", id, "user", r.RequestedBy)
	}
	ap := &engine.Approving{ID: id, Approver: approver, Reason: reason}
	result, err := exec(engine.WithApproving(engine.WithActor(ctx, requester), ap), r.replay)
	if err != nil {
		return nil, nil, err
	}
	if !ap.Marked { // carried out without meeting its gate (no difference left, say)
		if err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error { return s.mark(ctx, tx, ap, r.Action) }); err != nil {
			return nil, nil, err
		}
	}
	r, err = s.get(ctx, id)
	return r, result, err
}

// Reject rejects the request with a reason; nothing is carried out.
func (s *Service) Reject(ctx context.Context, id int64, reason string) (*Request, error) {
	reason = strings.TrimSpace(reason)
	if reason == "" {
		return nil, engine.Invalid("reason", "Say why the request is rejected.").With("approvals.reasonRequired")
	}
	if len(reason) > 1000 {
		return nil, engine.Invalid("reason", "The reason must be at most 1000 characters.").With("recon.reasonTooLong")
	}
	approver := engine.ActorFrom(ctx)
	var out *Request
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		r, err := s.scanRequest(tx.QueryRow(ctx, `select `+requestColumns+` from approval where id = $1 for update`, id))
		if errors.Is(err, pgx.ErrNoRows) {
			return engine.NotFound("There is no approval %d.", id).With("approvals.notFound", "id", id)
		}
		if err != nil {
			return err
		}
		if err := decidable(r, approver); err != nil {
			return err
		}
		out, err = s.scanRequest(tx.QueryRow(ctx, `update approval set status = 'rejected', decided_by = $2, decided_by_id = $3, decided_on = $4,
			decision_reason = $5 where id = $1 returning `+requestColumns, id, approver.Username, approver.UserID, s.now(), reason))
		if err != nil {
			return err
		}
		return engine.Audit(ctx, tx, engine.AuditEntry{Action: "approval.reject", Entity: "approval", EntityID: fmt.Sprint(id),
			After: map[string]any{"status": "rejected", "reason": reason, "action": r.Action, "summary": r.Summary}})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Requests is GET /api/approvals: the requests waiting that the caller may
// decide (holders of the Approvals screen: everyone's but their own) and
// the caller's own of the last 30 days, with their outcome.
type Requests struct {
	Waiting []*Request `json:"waiting"`
	Mine    []*Request `json:"mine"`
}

// List answers the caller's Requests.
func (s *Service) List(ctx context.Context) (*Requests, error) {
	actor := engine.ActorFrom(ctx)
	out := &Requests{Waiting: []*Request{}, Mine: []*Request{}}
	read := func(into *[]*Request, sql string, args ...any) error {
		rows, err := s.pool.Query(ctx, sql, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			r, err := s.scanRequest(rows)
			if err != nil {
				return err
			}
			*into = append(*into, r)
		}
		return rows.Err()
	}
	if actor.Can(screenids.Approvals) {
		if err := read(&out.Waiting, `select `+requestColumns+` from approval where status = 'pending' and requested_by_id <> $1
			order by requested_on desc limit 500`, actor.UserID); err != nil {
			return nil, err
		}
	}
	if err := read(&out.Mine, `select `+requestColumns+` from approval where requested_by_id = $1 and requested_on > $2
		order by requested_on desc limit 200`, actor.UserID, s.now().Add(-30*24*time.Hour)); err != nil {
		return nil, err
	}
	return out, nil
}
