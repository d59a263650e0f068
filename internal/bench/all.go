package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"time"

	"ledgerdesk/engine"
	"ledgerdesk/screens/recon"
	"ledgerdesk/server"
)

// FullScale is the --scale at which `bench all` runs the sizes the README
// quotes; a smaller scale shrinks them in proportion.
const FullScale = 20

// Sizes are the sizes `bench all` runs the benchmarks at.
type Sizes struct {
	GridRows         int `json:"grid_rows"`
	ClickRows        int `json:"clicks_rows"`
	ImportRows       int `json:"import_rows"`
	ExportRows       int `json:"export_rows"`
	ReconcileRows    int `json:"reconcile_rows"`
	PivotRows        int `json:"pivot_rows"`
	HomeRows         int `json:"home_rows"`
	AuditEdits       int `json:"audit_edits"`
	LoadUsers        int `json:"load_users"`
	LoadSeconds      int `json:"load_seconds"`
	IsolationSeconds int `json:"isolation_seconds"`
}

// SizesFor is the sizes at scale n (at least 1): the full ones at
// FullScale, in proportion below it. The load benchmark keeps at least 2
// users for 20 s, the isolation rounds of bench clicks 3 s each, and bench
// audit 1,200 edits (200 a round), so that each still measures something.
func SizesFor(n int) Sizes {
	of := func(full int) int { return full * n / FullScale }
	return Sizes{
		GridRows:         of(2_000_000),
		ClickRows:        of(2_000_000),
		ImportRows:       of(1_000_000),
		ExportRows:       of(100_000),
		ReconcileRows:    of(1_000_000),
		PivotRows:        of(2_000_000),
		HomeRows:         of(1_000_000),
		AuditEdits:       max(1_200, of(6_000)),
		LoadUsers:        max(2, of(50)),
		LoadSeconds:      max(20, of(120)),
		IsolationSeconds: max(3, of(10)),
	}
}

func (z Sizes) String() string {
	return fmt.Sprintf("grid %s rows, clicks %s, import %s, export %s, reconcile %s, pivot %s, home %s, audit %s edits, load %d users for %ds",
		thousands(int64(z.GridRows)), thousands(int64(z.ClickRows)), thousands(int64(z.ImportRows)), thousands(int64(z.ExportRows)),
		thousands(int64(z.ReconcileRows)), thousands(int64(z.PivotRows)), thousands(int64(z.HomeRows)), thousands(int64(z.AuditEdits)),
		z.LoadUsers, z.LoadSeconds)
}

// AllOptions say how `bench all` runs besides its sizes.
type AllOptions struct {
	Scale           int    // the size factor: SizesFor(Scale)
	Iterations      int    // grid and reconcile: requests per case and client (100)
	Clients         int    // grid and reconcile: concurrent clients (8)
	Calls           int    // clicks: timed calls per click (5)
	View            string // clicks: the view swept (VW_BankFinal)
	PivotIterations int    // pivot: calls per case (20)
	Binary          string // load: the ledgerdesk binary it serves
	Meta            fs.FS  // load: the metadata the server and the demo data read
	Levels          *recon.Definition
	JSON            bool // the summary as a JSON document instead of a table
}

// All runs every benchmark one after the other at the sizes of o.Scale,
// their own output to out, then writes to report one summary of their
// figures (a table, or JSON). A benchmark that fails does not stop the
// others; All then returns an error naming it, after the summary.
func All(ctx context.Context, dbURL string, cfg server.Config, o AllOptions, md *engine.Metadata, out, report io.Writer) error {
	if o.Scale < 1 {
		return errors.New("bench all: --scale is at least 1")
	}
	z := SizesFor(o.Scale)
	s := &Summary{Scale: o.Scale, Sizes: z}
	ctx = withSummary(ctx, s)
	benches := []struct {
		name string
		run  func() error
	}{
		{"grid", func() error {
			return Grid(ctx, dbURL, cfg, GridOptions{Rows: z.GridRows, Iterations: o.Iterations, Clients: o.Clients}, out, md)
		}},
		{"clicks", func() error {
			return Clicks(ctx, dbURL, cfg, ClicksOptions{Rows: z.ClickRows, Calls: o.Calls, View: o.View, Slow: 100 * time.Millisecond,
				Isolation: time.Duration(z.IsolationSeconds) * time.Second}, out, md)
		}},
		{"import", func() error { return Import(ctx, dbURL, cfg, z.ImportRows, out, md) }},
		{"export", func() error { return Export(ctx, dbURL, cfg, z.ExportRows, out) }},
		{"reconcile", func() error {
			return Reconcile(ctx, dbURL, cfg, ReconcileOptions{Rows: z.ReconcileRows, Iterations: o.Iterations, Clients: o.Clients,
				Levels: o.Levels}, out, md)
		}},
		{"pivot", func() error { return Pivot(ctx, dbURL, cfg, z.PivotRows, o.PivotIterations, out) }},
		{"home", func() error { return Home(ctx, dbURL, cfg, z.HomeRows, out) }},
		{"load", func() error {
			return Load(ctx, dbURL, cfg, LoadOptions{Users: z.LoadUsers, Duration: time.Duration(z.LoadSeconds) * time.Second, Scale: 1,
				Binary: o.Binary}, o.Meta, out)
		}},
		{"audit", func() error { return Audit(ctx, dbURL, cfg, z.AuditEdits, out, md) }},
	}
	fmt.Fprintf(out, "bench all, scale %d: %s\n", o.Scale, z)
	start := time.Now()
	for _, b := range benches {
		if ctx.Err() != nil { // interrupted: summarise what ran
			break
		}
		fmt.Fprintf(out, "\n=== bench %s ===\n\n", b.name)
		s.run(b.name, b.run)
	}
	s.Took = time.Since(start)
	if o.JSON {
		if err := s.WriteJSON(report); err != nil {
			return err
		}
	} else {
		fmt.Fprintln(report)
		s.WriteTable(report)
	}
	if err := s.Err(); err != nil {
		return err
	}
	return ctx.Err()
}
