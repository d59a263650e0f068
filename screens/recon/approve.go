package recon

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"ledgerdesk/engine"
	"ledgerdesk/internal/decimal"
)

// Four-eyes approvals of the manual actions (DESIGN section 8): a match by
// hand with a difference, a forced match, a write-off and an undo ask the
// service's Approvals (screens/controls) inside their transaction, before
// writing. An action kept waiting is carried out later, as its requester,
// by the executor of its replay op (Executors).

// SetApprovals gives the service the approvals its manual actions ask.
func (s *Service) SetApprovals(a engine.Approvals) { s.approvals = a }

// gateRequest is a manual action asking to go on.
type gateRequest struct {
	action      string
	level       *Level
	left, right []int64
	amount      *string // in the left (else right) records' currency: a difference, a sum written off
	ageDays     int
	reason      string
	replay      map[string]any
}

// gate asks the approvals whether g may go on now (nil: it may).
func (s *Service) gate(ctx context.Context, tx pgx.Tx, g gateRequest) error {
	if s.approvals == nil {
		return nil
	}
	l := g.level
	var months []time.Time
	var leftRefs, rightRefs []string
	var currency *string
	var usd *string
	err := tx.QueryRow(ctx, fmt.Sprintf(`
		with r as (
			select 'left' as side, s.id, s.ref, s.currency, s.date from %s s where s.id = any ($1)
			union all
			select 'right', s.id, s.ref, s.currency, s.date from %s s where s.id = any ($2))
		select coalesce(array_agg(distinct date_trunc('month', r.date::timestamp)::date) filter (where r.date is not null), '{}'),
		       coalesce(array_agg(r.ref order by r.id) filter (where r.side = 'left'), '{}'),
		       coalesce(array_agg(r.ref order by r.id) filter (where r.side = 'right'), '{}'),
		       c.currency,
		       round(abs($3::numeric) * usd_rate(c.currency, max(r.date)), 2)::text
		from r cross join lateral (select x.currency from r x order by x.side, x.id limit 1) c
		group by c.currency`, l.Left.Source, l.Right.Source), g.left, g.right, g.amount).
		Scan(&months, &leftRefs, &rightRefs, &currency, &usd)
	if err != nil {
		return fmt.Errorf("approval of %s: %w", g.action, err)
	}
	if g.amount == nil {
		usd = nil
	} else if currency != nil && *currency == "USD" {
		usd = &[]string{strings.TrimPrefix(*g.amount, "-")}[0]
	}
	params := map[string]any{"level": l.Slug, "left": strings.Join(leftRefs, ", "), "right": strings.Join(rightRefs, ", "),
		"leftCount": len(g.left), "rightCount": len(g.right), "days": g.ageDays}
	amount := ""
	if g.amount != nil {
		amount = *g.amount
		if currency != nil {
			amount += " " + *currency
		}
		params["amount"] = amount
	}
	summary := map[string]any{"text": whatText(g.action, params), "code": "approvals.what." + g.action, "params": params,
		"amount": amount, "reason": g.reason, "leftRefs": leftRefs, "rightRefs": rightRefs}
	return s.approvals.Gate(ctx, tx, engine.Approval{Action: g.action, Level: l.N, Months: months, AmountUSD: usd,
		AgeDays: g.ageDays, Summary: summary, Replay: g.replay})
}

// whatText is the English line an approver reads (the UI shows the
// translation of approvals.what.<action> with the same params).
func whatText(action string, p map[string]any) string {
	switch action {
	case engine.ApprovalMatchDifference:
		return fmt.Sprintf("Match %v with %v at %v, a difference of %v", p["left"], p["right"], p["level"], p["amount"])
	case engine.ApprovalForcedMatch:
		return fmt.Sprintf("Force a match of %v with %v at %v, outside the tolerances", p["left"], p["right"], p["level"])
	case engine.ApprovalWriteOff:
		refs := p["left"]
		if refs == "" {
			refs = p["right"]
		}
		return fmt.Sprintf("Write off %v at %v: %v", refs, p["level"], p["amount"])
	case engine.ApprovalOldUndo:
		return fmt.Sprintf("Undo the match of %v with %v at %v, made %v days ago", p["left"], p["right"], p["level"], p["days"])
	}
	return action
}

// Executors are the replay ops of the manual actions, for the approvals
// to carry a request out once approved.
func (s *Service) Executors() map[string]func(ctx context.Context, replay json.RawMessage) (any, error) {
	return map[string]func(context.Context, json.RawMessage) (any, error){
		"recon.match": func(ctx context.Context, raw json.RawMessage) (any, error) {
			var r struct {
				Level   string       `json:"level"`
				Request MatchRequest `json:"request"`
			}
			if err := json.Unmarshal(raw, &r); err != nil {
				return nil, err
			}
			l, err := s.Level(r.Level)
			if err != nil {
				return nil, err
			}
			return s.MatchByHand(ctx, l, r.Request)
		},
		"recon.writeoff": func(ctx context.Context, raw json.RawMessage) (any, error) {
			var r struct {
				Level  string  `json:"level"`
				Side   string  `json:"side"`
				IDs    []int64 `json:"ids"`
				Reason string  `json:"reason"`
			}
			if err := json.Unmarshal(raw, &r); err != nil {
				return nil, err
			}
			l, err := s.Level(r.Level)
			if err != nil {
				return nil, err
			}
			return s.WriteOff(ctx, l, r.Side, r.IDs, r.Reason)
		},
		"recon.writeoffQueued": func(ctx context.Context, raw json.RawMessage) (any, error) {
			var r struct {
				Items  []QueueItem `json:"items"`
				Reason string      `json:"reason"`
			}
			if err := json.Unmarshal(raw, &r); err != nil {
				return nil, err
			}
			return s.WriteOffQueued(ctx, r.Items, r.Reason)
		},
		"recon.undo": func(ctx context.Context, raw json.RawMessage) (any, error) {
			var r struct {
				Level  string `json:"level"`
				ID     int64  `json:"id"`
				Reason string `json:"reason"`
			}
			if err := json.Unmarshal(raw, &r); err != nil {
				return nil, err
			}
			l, err := s.Level(r.Level)
			if err != nil {
				return nil, err
			}
			return s.Undo(ctx, l, r.ID, r.Reason)
		},
	}
}

// gateMatch asks approval of a match by hand: a forced one always (when
// the rule is on), one with a difference by its amount; an investigation
// mark and an exact match never.
func (s *Service) gateMatch(ctx context.Context, tx pgx.Tx, l *Level, req MatchRequest, forced bool, left, right []int64, variance *string) error {
	action := engine.ApprovalMatchDifference
	switch {
	case req.Investigate:
		return nil
	case forced:
		action = engine.ApprovalForcedMatch
	case variance != nil && decimal.IsZero(*variance):
		return nil
	}
	return s.gate(ctx, tx, gateRequest{action: action, level: l, left: left, right: right, amount: variance, reason: req.Reason,
		replay: map[string]any{"op": "recon.match", "level": l.Slug, "request": req}})
}
