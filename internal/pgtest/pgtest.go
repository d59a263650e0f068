// Package pgtest gives each test package its own throwaway PostgreSQL
// database, migrated to the latest schema and dropped when the tests end.
// It connects to DATABASE_URL, else postgres://postgres@127.0.0.1:5432/postgres.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"ledgerdesk/migrations"
)

// DefaultURL is the server the tests use when DATABASE_URL is unset.
const DefaultURL = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

// AdminURL is the URL of the server tests create databases on.
func AdminURL() string {
	if u := os.Getenv("DATABASE_URL"); u != "" {
		return u
	}
	return DefaultURL
}

// NewDatabase creates an empty database and returns its URL; it is dropped
// (with any open connections) when the test ends.
func NewDatabase(t testing.TB) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admin, err := pgx.Connect(ctx, AdminURL())
	if err != nil {
		t.Fatalf("pgtest: connect to %s: %v (start PostgreSQL or set DATABASE_URL)", AdminURL(), err)
	}
	defer admin.Close(context.Background())
	buf := make([]byte, 6)
	rand.Read(buf)
	name := "ledgerdesk_test_" + hex.EncodeToString(buf)
	if _, err := admin.Exec(ctx, "create database "+name); err != nil {
		t.Fatalf("pgtest: create database: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, AdminURL())
		if err != nil {
			t.Logf("pgtest: drop %s: %v", name, err)
			return
		}
		defer conn.Close(context.Background())
		if _, err := conn.Exec(ctx, "drop database if exists "+name+" with (force)"); err != nil {
			t.Logf("pgtest: drop %s: %v", name, err)
		}
	})
	u, err := url.Parse(AdminURL())
	if err != nil {
		t.Fatalf("pgtest: DATABASE_URL: %v", err)
	}
	u.Path = "/" + name
	return u.String()
}

// New returns a pool on a fresh database migrated to the latest schema.
func New(t testing.TB) *pgxpool.Pool {
	t.Helper()
	pool, _ := NewWithURL(t)
	return pool
}

// NewWithURL is New that also returns the database URL, for tests that start
// the real server or binary against it.
func NewWithURL(t testing.TB) (*pgxpool.Pool, string) {
	t.Helper()
	dbURL := NewDatabase(t)
	pool, err := pgxpool.New(context.Background(), dbURL)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(pool.Close)
	if _, err := migrations.Up(context.Background(), pool, nil); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	return pool, dbURL
}
