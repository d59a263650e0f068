package engine

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"
)

// Actor is who makes a call: set by the server's authentication middleware,
// read by the engine and the screens for permission checks and audit rows.
type Actor struct {
	UserID    int64
	Username  string
	SessionID string
	Screens   map[int]bool
	IP        string
	RequestID string
	// Language is the user's profile language (en, sv, es, pt): message
	// columns are filtered and exported in it.
	Language string
}

// Can reports whether the actor's roles grant any of the screens.
func (a *Actor) Can(screens ...int) bool {
	if a == nil {
		return false
	}
	for _, s := range screens {
		if a.Screens[s] {
			return true
		}
	}
	return false
}

type actorKey struct{}

// WithActor returns ctx carrying a.
func WithActor(ctx context.Context, a *Actor) context.Context {
	return context.WithValue(ctx, actorKey{}, a)
}

// ActorFrom returns the actor of ctx, or an anonymous one (no user, no screens).
func ActorFrom(ctx context.Context) *Actor {
	if a, ok := ctx.Value(actorKey{}).(*Actor); ok && a != nil {
		return a
	}
	return &Actor{Username: "anonymous"}
}

// Execer is what writing an audit row needs: a pool, a connection or a transaction.
type Execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// AuditEntry is one audited change: who (from the context's actor), what,
// and the record before and after (nil when created or deleted).
type AuditEntry struct {
	Action   string // e.g. login.failed, user.update, role.screens, grid.edit
	Entity   string // e.g. user, role, VW_BankFinal
	EntityID string
	Before   any
	After    any
	// Actor overrides the context's actor name (sign-in attempts have no
	// signed-in actor yet, only the username typed).
	Actor string
}

// Audit writes e in the caller's transaction, so the audit row and the change
// commit or roll back together.
func Audit(ctx context.Context, db Execer, e AuditEntry) error {
	a := ActorFrom(ctx)
	name := a.Username
	if e.Actor != "" {
		name = e.Actor
	}
	var actorID *int64
	if a.UserID != 0 {
		actorID = &a.UserID
	}
	before, err := jsonOrNil(e.Before)
	if err != nil {
		return fmt.Errorf("audit %s: %w", e.Action, err)
	}
	after, err := jsonOrNil(e.After)
	if err != nil {
		return fmt.Errorf("audit %s: %w", e.Action, err)
	}
	_, err = db.Exec(ctx, `insert into audit_log (actor_id, actor, action, entity, entity_id, before, after, ip, request_id)
		values ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
		actorID, name, e.Action, e.Entity, e.EntityID, before, after, a.IP, a.RequestID)
	if err != nil {
		return fmt.Errorf("audit %s: %w", e.Action, err)
	}
	return nil
}

func jsonOrNil(v any) ([]byte, error) {
	if v == nil {
		return nil, nil
	}
	return json.Marshal(v)
}
