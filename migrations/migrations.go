// Package migrations holds Ledgerdesk's numbered SQL migrations, embedded in
// the binary, and applies them with goose. Each file runs in one transaction.
package migrations

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
)

//go:embed *.sql
var files embed.FS

// provider opens a goose provider on pool. The session lock makes concurrent
// starts of several instances apply each migration once.
func provider(pool *pgxpool.Pool, log *slog.Logger) (*goose.Provider, *sql.DB, error) {
	db := stdlib.OpenDBFromPool(pool)
	locker, err := lock.NewPostgresSessionLocker()
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	opts := []goose.ProviderOption{goose.WithSessionLocker(locker)}
	if log != nil {
		opts = append(opts, goose.WithSlog(log))
	}
	p, err := goose.NewProvider(goose.DialectPostgres, db, files, opts...)
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	return p, db, nil
}

// Up applies every pending migration and returns the schema version reached.
func Up(ctx context.Context, pool *pgxpool.Pool, log *slog.Logger) (int64, error) {
	p, db, err := provider(pool, log)
	if err != nil {
		return 0, fmt.Errorf("migrate: %w", err)
	}
	defer db.Close()
	if _, err := p.Up(ctx); err != nil {
		return 0, fmt.Errorf("migrate: %w", err)
	}
	if err := riverUp(ctx, pool, log); err != nil {
		return 0, fmt.Errorf("migrate the job queue: %w", err)
	}
	return p.GetDBVersion(ctx)
}

// riverUp applies the job queue's own migrations (riverqueue/river keeps its
// tables in step with its version). An advisory lock orders instances that
// start together.
func riverUp(ctx context.Context, pool *pgxpool.Pool, log *slog.Logger) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `select pg_advisory_lock(7310002)`); err != nil {
		return err
	}
	defer conn.Exec(context.Background(), `select pg_advisory_unlock(7310002)`)
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	m, err := rivermigrate.New(riverpgxv5.New(pool), &rivermigrate.Config{Logger: log})
	if err != nil {
		return err
	}
	_, err = m.Migrate(ctx, rivermigrate.DirectionUp, nil)
	return err
}

// Version returns the schema version of the database (0 before any migration).
// It reads goose's own table directly: cheap enough for every health check.
func Version(ctx context.Context, pool *pgxpool.Pool) (int64, error) {
	var v int64
	err := pool.QueryRow(ctx, `select coalesce(max(version_id), 0) from goose_db_version`).Scan(&v)
	return v, err
}

// Latest is the highest migration version embedded in this binary.
func Latest() int64 {
	entries, _ := fs.ReadDir(files, ".")
	var latest int64
	for _, e := range entries {
		num, _, _ := strings.Cut(e.Name(), "_")
		if v, err := strconv.ParseInt(num, 10, 64); err == nil && v > latest {
			latest = v
		}
	}
	return latest
}
