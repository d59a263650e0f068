package engine

import (
	"errors"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
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
