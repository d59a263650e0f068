package main

import (
	"bytes"
	"strings"
	"testing"

	"ledgerdesk/internal/pgtest"
)

func runWith(t *testing.T, env map[string]string, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(args, func(k string) string { return env[k] }, &out, &errOut)
	return out.String(), err
}

func TestCommands(t *testing.T) {
	dbURL := pgtest.NewDatabase(t) // empty: migrate must create the schema
	env := map[string]string{"DATABASE_URL": dbURL, "LOG_LEVEL": "error"}

	out, err := runWith(t, env, "check")
	if err != nil || !strings.Contains(out, "schema version 0 of") || !strings.Contains(out, "pending migrations") {
		t.Fatalf("check before migrate: %q, %v", out, err)
	}
	out, err = runWith(t, env, "migrate")
	if err != nil || !strings.Contains(out, "database at schema version") {
		t.Fatalf("migrate: %q, %v", out, err)
	}
	out, err = runWith(t, env, "migrate") // idempotent
	if err != nil {
		t.Fatalf("second migrate: %q, %v", out, err)
	}
	out, err = runWith(t, env, "check")
	if err != nil || strings.Contains(out, "pending") || !strings.Contains(out, "metadata (") {
		t.Fatalf("check after migrate: %q, %v", out, err)
	}
	out, err = runWith(t, env, "outbox")
	if err != nil || !strings.Contains(out, "the outbox is empty") {
		t.Fatalf("outbox: %q, %v", out, err)
	}
}

func TestCommandErrors(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"unknown command", nil, []string{"frobnicate"}, `unknown command "frobnicate"`},
		{"bad configuration", map[string]string{"LISTEN_ADDR": "nope"}, []string{"serve"}, "LISTEN_ADDR"},
		{"unreachable database", map[string]string{"DATABASE_URL": "postgres://postgres@127.0.0.1:1/x?connect_timeout=2"}, []string{"migrate"}, "cannot connect to DATABASE_URL"},
		{"bad metadata dir", map[string]string{"METADATA_DIR": "/no/such"}, []string{"check"}, "METADATA_DIR"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := runWith(t, tt.env, tt.args...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "goroutine") {
				t.Error("a stack trace instead of a message")
			}
		})
	}
}

func TestVersion(t *testing.T) {
	out, err := runWith(t, nil, "version")
	if err != nil || !strings.HasPrefix(out, "ledgerdesk ") {
		t.Fatalf("%q %v", out, err)
	}
}
