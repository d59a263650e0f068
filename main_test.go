package main

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
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

// TestAuditVerifyCommand breaks the audit chain on purpose with psql, as a
// superuser would, and expects `ledgerdesk audit verify` to name the row.
func TestAuditVerifyCommand(t *testing.T) {
	psql, err := exec.LookPath("psql")
	if err != nil {
		t.Fatal("psql is needed to tamper with the audit trail as a superuser would: install postgresql-client")
	}
	pool, dbURL := pgtest.NewWithURL(t)
	env := map[string]string{"DATABASE_URL": dbURL, "LOG_LEVEL": "error"}
	for i := 0; i < 5; i++ {
		if _, err := pool.Exec(context.Background(), `insert into audit_log (actor, action, entity, entity_id, after) values ('ana', 'grid.edit', 'VW_Test', $1, '{"a": 1}')`, fmt.Sprint(i)); err != nil {
			t.Fatal(err)
		}
	}
	out, err := runWith(t, env, "audit", "verify")
	if err != nil || !strings.Contains(out, "audit chain: 5 rows fit") {
		t.Fatalf("verify: %q, %v", out, err)
	}
	head := strings.TrimSpace(strings.TrimPrefix(strings.Split(out, "\n")[1], "head: "))
	if out, err := runWith(t, env, "audit", "verify", "-head", head); err != nil {
		t.Fatalf("verify with its own head: %q, %v", out, err)
	}

	var id int64
	if err := pool.QueryRow(context.Background(), `select id from audit_log where seq = 3`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	tamper := exec.Command(psql, dbURL, "-v", "ON_ERROR_STOP=1", "-c", `alter table audit_log disable trigger audit_log_append_only;
		update audit_log set after = '{"a": 1000}' where seq = 3;
		alter table audit_log enable trigger audit_log_append_only;`)
	if b, err := tamper.CombinedOutput(); err != nil {
		t.Fatalf("psql: %v: %s", err, b)
	}
	_, err = runWith(t, env, "audit", "verify")
	want := fmt.Sprintf("audit chain broken at row %d (position 3", id)
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "changed after it was written") {
		t.Fatalf("verify after tampering: %v; want %q", err, want)
	}
	if _, err := runWith(t, env, "audit", "check"); err == nil || !strings.Contains(err.Error(), "audit verify") {
		t.Fatalf("audit without verify: %v", err)
	}
}
