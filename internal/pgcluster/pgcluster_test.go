package pgcluster

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"ledgerdesk/internal/pgtest"
)

// dataDir is a folder the postgres OS user can reach when the tests run as
// root (t.TempDir's folders are private to the running user).
func dataDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "pgcluster-test-")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o755)
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func TestStartCreatesUsesAndStops(t *testing.T) {
	if _, err := FindBinaries(); err != nil {
		t.Skipf("no PostgreSQL binaries on this machine: %v", err)
	}
	ctx := context.Background()
	dir := dataDir(t)

	c, err := Start(ctx, dir, quiet())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Stop() })
	if _, err := os.Stat(filepath.Join(dir, "pg", "PG_VERSION")); err != nil {
		t.Fatalf("no cluster made: %v", err)
	}
	conn, err := pgx.Connect(ctx, c.URL())
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	var db string
	if err := conn.QueryRow(ctx, "select current_database()").Scan(&db); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)
	if db != Database {
		t.Errorf("database %q, want %q", db, Database)
	}

	// A second start on the same folder finds the running cluster and does
	// not own it: stopping it leaves the first one running.
	c2, err := Start(ctx, dir, quiet())
	if err != nil {
		t.Fatal(err)
	}
	if c2.Port != c.Port || c2.started {
		t.Errorf("second start: port %d (first %d), started %v", c2.Port, c.Port, c2.started)
	}
	c2.Stop()
	if _, running := c.runningPort(ctx); !running {
		t.Fatal("stopping a non-owning handle stopped the cluster")
	}

	// The password is required: the cluster is not open to anyone on the machine.
	if conn, err := pgx.Connect(ctx, "postgres://postgres:wrong@127.0.0.1:"+strconv.Itoa(c.Port)+"/ledgerdesk?sslmode=disable"); err == nil {
		conn.Close(ctx)
		t.Error("connected with a wrong password")
	}

	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, running := c.runningPort(ctx); running {
		t.Fatal("cluster still running after Stop")
	}

	// Restart on the existing cluster keeps the data and the password.
	c3, err := Start(ctx, dir, quiet())
	if err != nil {
		t.Fatalf("restart: %v", err)
	}
	defer c3.Stop()
	conn, err = pgx.Connect(ctx, c3.URL())
	if err != nil {
		t.Fatalf("connect after restart: %v", err)
	}
	conn.Close(ctx)
}

func TestUnwritableDataDir(t *testing.T) {
	if _, err := FindBinaries(); err != nil {
		t.Skipf("no PostgreSQL binaries on this machine: %v", err)
	}
	_, err := Start(context.Background(), "/proc/ledgerdesk-cannot-write-here", quiet())
	if err == nil {
		t.Fatal("started in an unwritable folder")
	}
	want := "set DATA_DIR to a writable folder, or DATABASE_URL"
	if got := err.Error(); !strings.Contains(got, want) {
		t.Errorf("error %q lacks %q", got, want)
	}
}

func TestNoBinariesMessageNamesBothWaysOut(t *testing.T) {
	msg := ErrNoBinaries.Error()
	for _, want := range []string{"DATABASE_URL", "install PostgreSQL"} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q lacks %q", msg, want)
		}
	}
}

func TestFindBinaries(t *testing.T) {
	root := t.TempDir()
	t.Setenv("PATH", t.TempDir())
	old := libGlob
	libGlob = filepath.Join(root, "*", "bin")
	t.Cleanup(func() { libGlob = old })

	if _, err := FindBinaries(); err != ErrNoBinaries {
		t.Fatalf("nothing installed: got %v, want ErrNoBinaries", err)
	}
	for _, v := range []string{"9.6", "15", "13"} {
		bin := filepath.Join(root, v, "bin")
		os.MkdirAll(bin, 0o755)
		for _, name := range []string{"initdb", "pg_ctl", "postgres"} {
			os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"), 0o755)
		}
	}
	os.Remove(filepath.Join(root, "15", "bin", "postgres")) // an incomplete install is skipped
	dir, err := FindBinaries()
	if err != nil || dir != filepath.Join(root, "13", "bin") {
		t.Fatalf("got %q, %v; want the newest complete version (13)", dir, err)
	}
}

// A replica made of a running cluster is a standby that follows it: it
// answers reads, refuses writes, and shows what the primary commits.
func TestReplicaFollowsThePrimary(t *testing.T) {
	if _, err := FindBinaries(); err != nil {
		t.Skipf("no PostgreSQL binaries on this machine: %v", err)
	}
	ctx := context.Background()
	primary, err := Start(ctx, dataDir(t), quiet())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { primary.Stop() })
	pconn, err := pgx.Connect(ctx, primary.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer pconn.Close(ctx)
	if _, err := pconn.Exec(ctx, `create table t (n int); insert into t values (1)`); err != nil {
		t.Fatal(err)
	}

	replica, err := StartReplica(ctx, primary, dataDir(t), quiet())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { replica.Stop() })
	if replica.Port == primary.Port {
		t.Fatal("the replica runs on the primary's port")
	}
	rconn, err := pgx.Connect(ctx, replica.URL())
	if err != nil {
		t.Fatalf("connect to the replica: %v", err)
	}
	defer rconn.Close(ctx)
	var standby bool
	if err := rconn.QueryRow(ctx, `select pg_is_in_recovery()`).Scan(&standby); err != nil || !standby {
		t.Fatalf("the replica is not a standby: %v %v", standby, err)
	}
	if _, err := rconn.Exec(ctx, `insert into t values (2)`); err == nil {
		t.Error("the replica took a write")
	}
	// what the primary commits from now on reaches the replica
	if _, err := pconn.Exec(ctx, `insert into t values (3)`); err != nil {
		t.Fatal(err)
	}
	pgtest.WaitFor(t, 30*time.Second, "the primary's commit on the replica", func() bool {
		var n int
		if err := rconn.QueryRow(ctx, `select count(*) from t`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n == 2
	})
}
