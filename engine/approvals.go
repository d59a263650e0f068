package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// Four-eyes approvals (DESIGN section 8): an action above its configured
// threshold waits for a second user. The screens and the engine ask their
// Approvals inside the action's transaction, before writing; the
// implementation (screens/controls) decides from its rules.

// Approval actions: the rules of table approval_rule.
const (
	ApprovalMatchDifference = "matchDifference" // a manual match with a difference above the threshold
	ApprovalForcedMatch     = "forcedMatch"     // a match forced past the tolerances
	ApprovalAdjustment      = "adjustment"      // an adjustment above the threshold
	ApprovalWriteOff        = "writeoff"        // a write-off above the threshold
	ApprovalOldUndo         = "oldUndo"         // an undo of a match older than the rule's days
	ApprovalTolerance       = "tolerance"       // a change to a tolerance row
)

// Approval is one action asking whether it may go on.
type Approval struct {
	Action    string      // one of the Approval* actions
	Level     int         // the reconciliation level it acts on (0: none)
	Months    []time.Time // the months (first days) it writes in: a closing waits for it
	AmountUSD *string     // compared with an amount threshold
	AgeDays   int         // compared with a days threshold
	// Summary is what the approver reads: text (one line, in English and
	// as a message code with params for the reader's language), amount,
	// reason and the references of the records.
	Summary map[string]any
	// Replay is what carrying the action out again needs: {op: ..., ...},
	// handed to the executor registered for op.
	Replay map[string]any
}

// Approvals decides whether an action may go on. Gate runs inside the
// action's transaction: nil lets it go on (no rule holds it, or it is the
// approval being carried out); an error stops it, Pending when the
// request was stored for a second user.
type Approvals interface {
	Gate(ctx context.Context, tx pgx.Tx, a Approval) error
}

// CodePending: the action waits for approval (202).
const CodePending Code = "pending"

// Pending is the answer to an action kept for approval.
func Pending(id int64, action string) *Error {
	return (&Error{Code: CodePending, Message: fmt.Sprintf("Sent for approval (request %d): a second user with the Approvals screen must approve it before it is carried out.", id)}).
		With("approvals.pending", "id", id, "action", action)
}

// Approving is the approval being carried out: who approves it, and why.
// Its first gate marks it approved in the action's transaction; later
// gates of the same action pass.
type Approving struct {
	ID       int64
	Approver *Actor
	Reason   string
	Marked   bool
}

type approvingKey struct{}

// WithApproving returns ctx carrying out approval a.
func WithApproving(ctx context.Context, a *Approving) context.Context {
	return context.WithValue(ctx, approvingKey{}, a)
}

// ApprovingFrom returns the approval ctx carries out, or nil.
func ApprovingFrom(ctx context.Context) *Approving {
	a, _ := ctx.Value(approvingKey{}).(*Approving)
	return a
}

// approvalActions are the rules a view or form may name (approval:).
var approvalActions = map[string]bool{ApprovalMatchDifference: true, ApprovalForcedMatch: true, ApprovalAdjustment: true,
	ApprovalWriteOff: true, ApprovalOldUndo: true, ApprovalTolerance: true}

func approvalActionList() string {
	return strings.Join(slices.Sorted(maps.Keys(approvalActions)), ", ")
}

// SetApprovals gives the engine the approvals its edits ask.
func (e *Engine) SetApprovals(a Approvals) { e.approvals = a }

// gate asks the approvals whether an edit of entity (a view or a form's
// resource) naming rule may go on now; replay carries it out once
// approved (Executors).
func (e *Engine) gate(ctx context.Context, tx pgx.Tx, rule, entity, id string, before, after any, replay map[string]any) error {
	if rule == "" || e.approvals == nil {
		return nil
	}
	change, text := "create", "create a record of"
	switch {
	case before != nil && after != nil:
		change, text = "update", "change"
	case before != nil:
		change, text = "delete", "delete"
	}
	params := map[string]any{"entity": entity, "id": id, "change": change}
	return e.approvals.Gate(ctx, tx, Approval{Action: rule,
		Summary: map[string]any{"text": strings.TrimSpace(fmt.Sprintf("%s %s %s", text, entity, id)), "code": "approvals.what." + rule + "." + change,
			"params": params, "before": before, "after": after},
		Replay: replay})
}

// Executors are the replay ops of the engine's edits, for the approvals to
// carry an approved edit out.
func (e *Engine) Executors() map[string]func(ctx context.Context, replay json.RawMessage) (any, error) {
	return map[string]func(context.Context, json.RawMessage) (any, error){
		"engine.edit": func(ctx context.Context, raw json.RawMessage) (any, error) {
			var r struct {
				Edit RowEdit `json:"edit"`
			}
			if err := json.Unmarshal(raw, &r); err != nil {
				return nil, err
			}
			return e.UpdateRow(ctx, r.Edit)
		},
		"engine.create": func(ctx context.Context, raw json.RawMessage) (any, error) {
			var r struct {
				Form string         `json:"form"`
				Body map[string]any `json:"body"`
			}
			if err := json.Unmarshal(raw, &r); err != nil {
				return nil, err
			}
			f, err := e.FormByName(ctx, r.Form)
			if err != nil {
				return nil, err
			}
			return e.Create(ctx, f, r.Body)
		},
		"engine.update": func(ctx context.Context, raw json.RawMessage) (any, error) {
			var r struct {
				Form string         `json:"form"`
				ID   int64          `json:"id"`
				Body map[string]any `json:"body"`
			}
			if err := json.Unmarshal(raw, &r); err != nil {
				return nil, err
			}
			f, err := e.FormByName(ctx, r.Form)
			if err != nil {
				return nil, err
			}
			return e.Update(ctx, f, r.ID, r.Body)
		},
		"engine.delete": func(ctx context.Context, raw json.RawMessage) (any, error) {
			var r struct {
				Form string `json:"form"`
				ID   int64  `json:"id"`
			}
			if err := json.Unmarshal(raw, &r); err != nil {
				return nil, err
			}
			f, err := e.FormByName(ctx, r.Form)
			if err != nil {
				return nil, err
			}
			return nil, e.Delete(ctx, f, r.ID)
		},
	}
}
