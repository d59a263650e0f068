package engine

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"ledgerdesk/internal/pgtest"
)

func TestTranslatePG(t *testing.T) {
	tests := []struct {
		code string
		want Code
	}{
		{"23505", CodeConflict},
		{"23503", CodeConflict},
		{"23502", CodeInvalid},
		{"23514", CodeInvalid},
		{"22001", CodeInvalid},
		{"22P02", CodeInvalid},
		{"57014", CodeUnavailable},
		{"42P01", CodeInternal}, // undefined table: a bug, not the user's fault
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			err := fmt.Errorf("grid VW_X: %w", &pgconn.PgError{Code: tt.code, Message: "relation secret_table does not exist"})
			if got := ErrorCode(err); got != tt.want {
				t.Fatalf("code %s -> %s, want %s", tt.code, got, tt.want)
			}
			var e *Error
			if errors.As(TranslatePG(err), &e) && e.Message == "relation secret_table does not exist" {
				t.Error("the SQL error text reached the user message")
			}
		})
	}
	if TranslatePG(nil) != nil {
		t.Error("nil must stay nil")
	}
	typed := Invalid("Name", "Name is required")
	if got := TranslatePG(fmt.Errorf("op: %w", typed)); !errors.Is(got, typed) {
		t.Error("a typed error must pass through")
	}
}

// TestHole7DroppedConnectionIsUnavailable: a statement whose connection was
// ended under it (a restart, a network cut) is a 503 to try again, not a bug.
func TestHole7DroppedConnectionIsUnavailable(t *testing.T) {
	pool := pgtest.New(t)
	ctx := context.Background()
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	var pid int
	conn.QueryRow(ctx, `select pg_backend_pid()`).Scan(&pid)
	if _, err := pool.Exec(ctx, `select pg_terminate_backend($1)`, pid); err != nil {
		t.Fatal(err)
	}
	_, err = conn.Exec(ctx, `select 1`)
	if err == nil {
		t.Fatal("a statement on an ended connection succeeded")
	}
	if got := ErrorCode(err); got != CodeUnavailable {
		t.Fatalf("%v: code %s, want unavailable", err, got)
	}
	for _, code := range []string{"57P01", "08006", "53300"} {
		if got := ErrorCode(&pgconn.PgError{Code: code}); got != CodeUnavailable {
			t.Errorf("SQLSTATE %s: %s", code, got)
		}
	}
}
