package engine

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Read your writes. With a read replica (Options.ReadPool, READ_DATABASE_URL)
// grids, exports and record reads go there, and a replica lags its primary
// by its replay delay. A caller who wrote says so with WithWritten (the
// server passes the primary's WAL position after the caller's last write,
// kept in a cookie): its reads go to the replica only once it has replayed
// that far, and to the primary until then. Everyone else reads the replica.

// LSN is a position in the primary's write-ahead log (pg_lsn).
type LSN uint64

// ParseLSN reads a pg_lsn as PostgreSQL writes it ("16/B374D848").
func ParseLSN(s string) (LSN, bool) {
	hi, lo, ok := strings.Cut(s, "/")
	if !ok || hi == "" || lo == "" || len(hi) > 8 || len(lo) > 8 {
		return 0, false
	}
	h, err1 := strconv.ParseUint(hi, 16, 32)
	l, err2 := strconv.ParseUint(lo, 16, 32)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return LSN(h<<32 | l), true
}

// String is the LSN as PostgreSQL writes it.
func (l LSN) String() string { return fmt.Sprintf("%X/%X", uint64(l)>>32, uint64(l)&0xFFFFFFFF) }

type writtenKey struct{}

// WithWritten says the caller of ctx wrote up to lsn on the primary.
func WithWritten(ctx context.Context, lsn LSN) context.Context {
	return context.WithValue(ctx, writtenKey{}, lsn)
}

func writtenFrom(ctx context.Context) LSN {
	l, _ := ctx.Value(writtenKey{}).(LSN)
	return l
}

// HasReplica reports whether reads go to a read replica.
func (e *Engine) HasReplica() bool { return e.read != e.pool }

// PrimaryLSN is the primary's current WAL position: what a read must see
// to see everything committed so far.
func (e *Engine) PrimaryLSN(ctx context.Context) (LSN, error) {
	var s string
	if err := e.pool.QueryRow(ctx, `select pg_current_wal_lsn()::text`).Scan(&s); err != nil {
		return 0, err
	}
	l, ok := ParseLSN(s)
	if !ok {
		return 0, fmt.Errorf("pg_current_wal_lsn: unexpected %q", s)
	}
	return l, nil
}

// reader is the pool a read of ctx goes to: the replica, unless the caller
// wrote something it has not replayed yet. The replica's replay position is
// asked only when a caller's write is past the last one seen (positions
// only grow), so a read that needs no check costs nothing more.
func (e *Engine) reader(ctx context.Context) *pgxpool.Pool {
	want := writtenFrom(ctx)
	if !e.HasReplica() || want == 0 || LSN(e.replayed.Load()) >= want {
		return e.read
	}
	var s *string
	if err := e.read.QueryRow(ctx, `select pg_last_wal_replay_lsn()::text`).Scan(&s); err != nil {
		return e.pool
	}
	if s == nil {
		return e.read // not a standby: it sees every commit
	}
	got, ok := ParseLSN(*s)
	if !ok {
		return e.pool
	}
	for {
		old := e.replayed.Load()
		if uint64(got) <= old || e.replayed.CompareAndSwap(old, uint64(got)) {
			break
		}
	}
	if got >= want {
		return e.read
	}
	return e.pool
}
