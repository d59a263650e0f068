package engine_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"ledgerdesk/engine"
	"ledgerdesk/internal/pgtest"
)

// audit writes n audit rows in one transaction as user.
func audit(t *testing.T, pool *pgxpool.Pool, user string, n int, before, after any) {
	t.Helper()
	ctx := engine.WithActor(context.Background(), &engine.Actor{UserID: 7, Username: user, IP: "10.0.0.1", RequestID: "r-1"})
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		for i := 0; i < n; i++ {
			if err := engine.Audit(ctx, tx, engine.AuditEntry{Action: "grid.edit", Entity: "VW_Test", EntityID: fmt.Sprint(i), Before: before, After: after}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func verify(t *testing.T, pool *pgxpool.Pool, anchor *engine.AuditAnchor) *engine.AuditVerdict {
	t.Helper()
	v, err := engine.VerifyAudit(context.Background(), pool, anchor)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// superuser runs sql with the append-only trigger switched off, as someone
// with the table's ownership could: the tampering verify must find.
func superuser(t *testing.T, pool *pgxpool.Pool, sql string) {
	t.Helper()
	err := pgx.BeginFunc(context.Background(), pool, func(tx pgx.Tx) error {
		for _, s := range []string{`alter table audit_log disable trigger audit_log_append_only`, sql,
			`alter table audit_log enable trigger audit_log_append_only`} {
			if _, err := tx.Exec(context.Background(), s); err != nil {
				return fmt.Errorf("%s: %w", s, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestAuditChainSealsEveryCommittedRow(t *testing.T) {
	pool := pgtest.New(t)
	ctx := context.Background()
	// Values the line's encoding must keep apart: none and empty, text with
	// the separator in it, JSON with non-ASCII text, no signed-in user.
	audit(t, pool, "ana", 2, nil, map[string]any{"note": "line\nbreak", "amount": "1012.56", "name": "Åsa Núñez"})
	audit(t, pool, "", 1, map[string]any{}, nil)
	anonymous := engine.WithActor(ctx, &engine.Actor{Username: "anonymous"})
	if err := engine.Audit(anonymous, pool, engine.AuditEntry{Action: "login.failed", Entity: "user", Actor: "2:ab\n3:cd"}); err != nil {
		t.Fatal(err)
	}

	// Eight writers at once, 1 to 3 rows a transaction, one of them rolled
	// back: the chain holds every committed row once, in one line.
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 10; i++ {
				audit(t, pool, fmt.Sprintf("user%d", w), 1+(w+i)%3, nil, map[string]any{"i": i})
			}
		}()
	}
	rolledBack := errors.New("rolled back")
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := engine.Audit(ctx, tx, engine.AuditEntry{Action: "x", Entity: "y"}); err != nil {
			return err
		}
		return rolledBack
	})
	if !errors.Is(err, rolledBack) {
		t.Fatal(err)
	}
	wg.Wait()

	// Sealed apart from the writes (the server every few seconds): every
	// committed row once, in one line.
	var total, unsealed int64
	if err := pool.QueryRow(ctx, `select count(*), count(*) filter (where hash is null) from audit_log`).Scan(&total, &unsealed); err != nil {
		t.Fatal(err)
	}
	if unsealed != total {
		t.Fatalf("%d of %d rows sealed before a seal ran", total-unsealed, total)
	}
	if n, err := engine.SealAudit(ctx, pool); err != nil || int64(n) != total {
		t.Fatalf("sealed %d of %d: %v", n, total, err)
	}
	if n, err := engine.SealAudit(ctx, pool); err != nil || n != 0 {
		t.Fatalf("sealed again: %d, %v", n, err)
	}
	v := verify(t, pool, nil)
	if v.Break != nil || v.Rows != total || v.HeadSeq != total || len(v.HeadHash) != 64 {
		t.Fatalf("verify: %+v (break %+v), want %d rows that fit", v, v.Break, total)
	}
	want := int64(2 + 1 + 1)
	for w := 0; w < 8; w++ {
		for i := 0; i < 10; i++ {
			want += int64(1 + (w+i)%3)
		}
	}
	if total != want {
		t.Fatalf("%d rows, want %d", total, want)
	}
}

func TestAuditLogIsAppendOnly(t *testing.T) {
	pool := pgtest.New(t)
	ctx := context.Background()
	audit(t, pool, "ana", 3, nil, map[string]any{"a": 1})
	if _, err := engine.SealAudit(ctx, pool); err != nil {
		t.Fatal(err)
	}

	// What the application's connection may try, each refused by the database.
	for _, sql := range []string{
		`update audit_log set actor = 'someone else' where seq = 2`,
		`update audit_log set after = '{"a": 2}' where seq = 3`,
		`update audit_log set hash = repeat('0', 64) where seq = 1`,
		`update audit_log set seq = 9 where seq = 3`,
		`delete from audit_log where seq = 3`,
		`truncate audit_log`,
		`update audit_chain_head set seq = 1`,
		`delete from audit_chain_head`,
	} {
		_, err := pool.Exec(ctx, sql)
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != "42501" || !strings.Contains(pgErr.Message, "audit_") {
			t.Errorf("%s: %v, want refused (42501)", sql, err)
		}
	}
	// An insert cannot bring its own seal: the database makes it.
	if _, err := pool.Exec(ctx, `insert into audit_log (actor, action, entity, seq, prev_hash, hash) values ('x', 'y', 'z', 1, 'f', 'f')`); err != nil {
		t.Fatal(err)
	}
	if _, err := engine.SealAudit(ctx, pool); err != nil {
		t.Fatal(err)
	}
	var seq int64
	var hash string
	if err := pool.QueryRow(ctx, `select seq, hash from audit_log where actor = 'x'`).Scan(&seq, &hash); err != nil {
		t.Fatal(err)
	}
	if seq != 4 || hash == "f" {
		t.Fatalf("a forged seal was kept: seq %d, hash %s", seq, hash)
	}
	if v := verify(t, pool, nil); v.Break != nil || v.Rows != 4 {
		t.Fatalf("verify: %+v %+v", v, v.Break)
	}
}

func TestAuditVerifyFindsTampering(t *testing.T) {
	cases := []struct {
		name    string
		tamper  string
		atSeq   int64
		fit     int64
		because string
	}{
		{"a changed value", `update audit_log set after = '{"a": 2}' where seq = 3`, 3, 2, "does not fit its content"},
		{"a changed time", `update audit_log set at = at + interval '1 microsecond' where seq = 2`, 2, 1, "does not fit its content"},
		{"a removed row", `delete from audit_log where seq = 3`, 4, 2, "rows between are gone"},
		{"the last row removed", `delete from audit_log where seq = 5`, 5, 4, "rows after it were removed"},
		{"a row replaced with its hash recomputed", `update audit_log set actor = 'mallory' where seq = 2;
			update audit_log a set hash = encode(sha256(convert_to(audit_line(a), 'UTF8')), 'hex') where seq = 2`, 3, 2, "link to the row before"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pool := pgtest.New(t)
			audit(t, pool, "ana", 5, nil, map[string]any{"a": 1})
			verify(t, pool, nil) // (seals them)
			superuser(t, pool, c.tamper)
			v := verify(t, pool, nil)
			if v.Break == nil || v.Break.Seq != c.atSeq || !strings.Contains(v.Break.Reason, c.because) || v.Rows != c.fit {
				t.Fatalf("verify: %+v, break %+v; want a break at %d (%s)", v, v.Break, c.atSeq, c.because)
			}
		})
	}

	t.Run("a chain rewritten whole is caught by a recorded head", func(t *testing.T) {
		pool := pgtest.New(t)
		audit(t, pool, "ana", 4, nil, map[string]any{"a": 1})
		head := verify(t, pool, nil)
		anchor := &engine.AuditAnchor{Seq: head.HeadSeq, Hash: head.HeadHash}
		// Every hash recomputed from the changed row on: the chain fits again.
		superuser(t, pool, `update audit_log set actor = 'mallory' where seq = 2;
			update audit_log a set hash = encode(sha256(convert_to(audit_line(a), 'UTF8')), 'hex') where seq = 2;
			update audit_log a set prev_hash = (select hash from audit_log where seq = 2) where seq = 3;
			update audit_log a set hash = encode(sha256(convert_to(audit_line(a), 'UTF8')), 'hex') where seq = 3;
			update audit_log a set prev_hash = (select hash from audit_log where seq = 3) where seq = 4;
			update audit_log a set hash = encode(sha256(convert_to(audit_line(a), 'UTF8')), 'hex') where seq = 4;
			alter table audit_chain_head disable trigger audit_chain_head_guard;
			update audit_chain_head set hash = (select hash from audit_log where seq = 4);
			alter table audit_chain_head enable trigger audit_chain_head_guard`)
		if v := verify(t, pool, nil); v.Break != nil {
			t.Fatalf("the rewritten chain should fit by itself: %+v", v.Break)
		}
		v := verify(t, pool, anchor)
		if v.Break == nil || v.Break.Seq != 4 || !strings.Contains(v.Break.Reason, "rewritten") {
			t.Fatalf("verify with the head: %+v", v.Break)
		}
		// The last row removed and the head moved back: only the recorded head knows.
		superuser(t, pool, `delete from audit_log where seq = 4;
			alter table audit_chain_head disable trigger audit_chain_head_guard;
			update audit_chain_head set seq = 3, hash = (select hash from audit_log where seq = 3);
			alter table audit_chain_head enable trigger audit_chain_head_guard`)
		if v := verify(t, pool, nil); v.Break != nil {
			t.Fatalf("the shortened chain should fit by itself: %+v", v.Break)
		}
		if v := verify(t, pool, anchor); v.Break == nil || !strings.Contains(v.Break.Reason, "past the chain's end") {
			t.Fatalf("verify with the head after the last row went: %+v", v.Break)
		}
	})
}

// The application may seal a row not sealed yet (the guard lets a seal
// through, its content unchanged), but a seal written by hand does not fit.
func TestAuditVerifyFindsASealWrittenByHand(t *testing.T) {
	pool := pgtest.New(t)
	audit(t, pool, "ana", 3, nil, map[string]any{"a": 1})
	verify(t, pool, nil)
	audit(t, pool, "ana", 1, nil, map[string]any{"a": 2})
	if _, err := pool.Exec(context.Background(), `update audit_log set seq = 4, prev_hash = (select hash from audit_log where seq = 3),
		hash = repeat('ab', 32) where seq is null`); err != nil {
		t.Fatal(err)
	}
	v := verify(t, pool, nil)
	if v.Break == nil || v.Break.Seq != 4 || !strings.Contains(v.Break.Reason, "does not fit its content") {
		t.Fatalf("verify: %+v", v.Break)
	}
}

func TestParseAuditAnchor(t *testing.T) {
	good := "12:" + strings.Repeat("ab", 32)
	if a, err := engine.ParseAuditAnchor(good); err != nil || a.Seq != 12 {
		t.Fatalf("%v %v", a, err)
	}
	for _, bad := range []string{"", "12", "x:" + strings.Repeat("ab", 32), "0:" + strings.Repeat("ab", 32), "12:abc"} {
		if _, err := engine.ParseAuditAnchor(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
