// Package bench measures Ledgerdesk against floors run in the same process
// and database (DESIGN.md section 7): a grid page through the HTTP API
// against the same SQL alone, and an XLSX export against a bare excelize
// StreamWriter. `ledgerdesk bench grid|export` prints the figures; the
// README quotes them. Nothing here is a test: targets are read, not asserted.
package bench

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"ledgerdesk/migrations"
	"ledgerdesk/server"
)

// Database is the benchmark's own database on the same server: created and
// migrated on first use, its generated data kept between runs.
const Database = "ledgerdesk_bench"

// Open connects to the benchmark database next to the one at dbURL.
// The pool is set up as the server's (server.PoolConfig: DB_MAX_CONNS), so
// the figures describe the product as it runs.
func Open(ctx context.Context, dbURL string, scfg server.Config, out io.Writer) (*pgxpool.Pool, string, error) {
	return OpenNamed(ctx, dbURL, Database, scfg, out)
}

// OpenNamed connects to the benchmark database name next to the one at
// dbURL, creating and migrating it first when needed.
func OpenNamed(ctx context.Context, dbURL, name string, scfg server.Config, out io.Writer) (*pgxpool.Pool, string, error) {
	admin, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return nil, "", err
	}
	defer admin.Close(ctx)
	var exists bool
	admin.QueryRow(ctx, `select exists(select 1 from pg_database where datname = $1)`, name).Scan(&exists)
	if !exists {
		if _, err := admin.Exec(ctx, "create database "+name); err != nil {
			return nil, "", fmt.Errorf("create %s: %w", name, err)
		}
	}
	u, err := url.Parse(dbURL)
	if err != nil {
		return nil, "", err
	}
	u.Path = "/" + name
	cfg, err := server.PoolConfig(u.String(), scfg)
	if err != nil {
		return nil, "", err
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, "", err
	}
	if _, err := migrations.Up(ctx, pool, nil); err != nil {
		pool.Close()
		return nil, "", err
	}
	fmt.Fprintf(out, "benchmark database: %s (kept between runs)\n", name)
	return pool, u.String(), nil
}

// percentile returns the p-th percentile (0-100) of ds.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(float64(len(s)-1) * p / 100)
	return s[i]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

func ratio(a, b time.Duration) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx", float64(a)/float64(b))
}

func table(out io.Writer, header []string, rows [][]string) {
	widths := make([]int, len(header))
	for i, h := range header {
		widths[i] = len(h)
	}
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], len(c))
		}
	}
	line := func(cells []string) {
		parts := make([]string, len(cells))
		for i, c := range cells {
			parts[i] = c + strings.Repeat(" ", widths[i]-len(c))
		}
		fmt.Fprintln(out, "| "+strings.Join(parts, " | ")+" |")
	}
	line(header)
	sep := make([]string, len(header))
	for i := range sep {
		sep[i] = strings.Repeat("-", widths[i])
	}
	line(sep)
	for _, r := range rows {
		line(r)
	}
}

// seedBankRows fills bank_booking with the n rows insert makes (its $1 is
// n) unless have, a count of rows such a fill leaves, says they are there:
// generated data is kept between runs. label says what is generated.
func seedBankRows(ctx context.Context, pool *pgxpool.Pool, n int, have, label, insert string, out io.Writer) error {
	var got int
	pool.QueryRow(ctx, have).Scan(&got)
	if got == n {
		return nil
	}
	fmt.Fprintf(out, "generating %d %s (once; kept for later runs) ...\n", n, label)
	start := time.Now()
	if _, err := pool.Exec(ctx, `truncate bank_booking`); err != nil {
		return err
	}
	if _, err := pool.Exec(ctx, insert, n); err != nil {
		return err
	}
	if _, err := pool.Exec(ctx, `vacuum analyze bank_booking`); err != nil {
		return err
	}
	fmt.Fprintf(out, "generated in %s\n", time.Since(start).Round(time.Second))
	return nil
}
