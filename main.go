// Command ledgerdesk is the Ledgerdesk server and its tools in one binary:
//
//	ledgerdesk serve     run the web application (the default)
//	ledgerdesk migrate   apply pending database migrations and exit
//	ledgerdesk check     validate the configuration, the metadata and the database
//	ledgerdesk outbox    show the newest messages waiting in the mail outbox
//	ledgerdesk audit verify  prove the audit trail's hash chain
//	ledgerdesk bench     measure grid pages, exports, imports and the pivot against their floors
//	                     (bench all: every benchmark, then one summary table or JSON)
//	ledgerdesk demo      write (and with --load, import) the demo data set
//	ledgerdesk version   print the version
//
// Configuration is environment variables only; see the README.
package main

import (
	"context"
	"embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"ledgerdesk/engine"
	"ledgerdesk/internal/bench"
	"ledgerdesk/internal/demo"
	"ledgerdesk/migrations"
	"ledgerdesk/screens/imports"
	"ledgerdesk/screens/intake"
	"ledgerdesk/screens/recon"
	"ledgerdesk/server"
	"ledgerdesk/ui"
)

// version is set at build time: -ldflags "-X main.version=...".
var version = "dev"

// embeddedMetadata is the copy of views.yaml, forms/, imports/ (file
// layouts), recon.yaml (the reconciliation levels) and intake.yaml compiled in, used
// when METADATA_DIR is unset and the working directory has no views.yaml.
//
//go:embed views.yaml forms imports recon.yaml intake.yaml labels
var embeddedMetadata embed.FS

const usage = `usage: ledgerdesk <command>

commands:
  serve     run the web application (default); --watch reloads views.yaml and forms/ on change
  migrate   apply pending database migrations, build the large views' grid indexes, and exit
  check     validate configuration, metadata and database, then exit
  outbox    show the newest messages in the mail outbox (-n count)
  audit     verify [-head POSITION:HASH]: walk the audit trail's hash chain; exits 1 at the first row
            that does not fit (-head: a position and hash printed by an earlier verify)
  bench     grid [-rows 2000000 -iterations 100 -clients 8] | clicks [-rows 2000000 -calls 5 -view VW_BankFinal]
            | load [-users 50 -duration 2m -scale 1] | export [-rows 100000] | import [-rows 1000000]
            | reconcile [-rows 1000000 -iterations 100 -clients 8 -level SLUG]
            | pivot [-rows 2000000 -iterations 20] | home [-rows 1000000] | audit [-rows 6000 (inline edits)]
            | all [-scale 1 --json]: all nine in turn, then one summary table (--json: the summary as JSON on
              stdout, the benchmarks' own output on stderr). -scale N is the size factor: N = 20 runs the full
              sizes above, a smaller N shrinks them in proportion (-rows, -users and -duration do not apply):
                                               N = 1      N = 20
                grid, clicks, pivot rows       100,000    2,000,000    100,000 x N
                import, reconcile, home rows   50,000     1,000,000    50,000 x N
                export rows                    5,000      100,000      5,000 x N
                audit edits                    1,200      6,000        300 x N, at least 1,200
                load users                     2          50           2.5 x N, at least 2
                load duration                  20 s       2 min        6 s x N, at least 20 s
                clicks isolation rounds        3 s        10 s         N / 2 s, at least 3 s
  demo      [-seed 1 -scale 1 -out DATA_DIR/demo] [--load [--if-empty]]: the demo files, imported with --load
  version   print the version

Configuration comes from environment variables (see README.md).
`

func main() {
	if err := run(os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintf(os.Stderr, "ledgerdesk: %v\n", err)
		os.Exit(1)
	}
}

func run(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cmd := "serve"
	if len(args) > 0 {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "version", "--version", "-v":
		fmt.Fprintln(stdout, "ledgerdesk", version)
		return nil
	case "help", "--help", "-h":
		fmt.Fprint(stdout, usage)
		return nil
	}
	if cmd == "audit" {
		if len(args) == 0 || args[0] != "verify" {
			return errors.New("audit: say what to do: ledgerdesk audit verify [-head POSITION:HASH]")
		}
		args = args[1:]
	}
	benchWhat := ""
	if cmd == "bench" {
		if len(args) == 0 || strings.HasPrefix(args[0], "-") {
			return errors.New("bench: say what to measure: ledgerdesk bench grid, clicks, load, export, import, reconcile, pivot, home, audit or all")
		}
		benchWhat, args = args[0], args[1:]
	}
	fset := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fset.SetOutput(stderr)
	count := fset.Int("n", 5, "outbox: how many messages to show")
	watch := fset.Bool("watch", false, "serve: reload views.yaml and forms/ when they change")
	rows := fset.Int("rows", 0, "bench: rows to generate (grid 2000000, export 100000)")
	iterations := fset.Int("iterations", 100, "bench grid: requests per case and client")
	clients := fset.Int("clients", 8, "bench grid: concurrent clients")
	calls := fset.Int("calls", 5, "bench clicks: timed calls per click (p50)")
	users := fset.Int("users", 50, "bench load: users at once")
	duration := fset.Duration("duration", 2*time.Minute, "bench load: how long they work")
	view := fset.String("view", "VW_BankFinal", "bench clicks: the view swept")
	level := fset.String("level", "", "bench reconcile: only this level's first run (its slug; default every level, a later run and the reports)")
	seed := fset.Uint64("seed", 1, "demo: random seed (the same seed gives the same data)")
	scale := fset.Int("scale", 1, "demo, bench load: tickets per day, provider and currency, in pairs; bench all: the size factor (20: the full sizes)")
	asJSON := fset.Bool("json", false, "bench all: the summary as JSON on stdout (the benchmarks' own output on stderr)")
	out := fset.String("out", "", "demo: folder for the files (default DATA_DIR/demo)")
	load := fset.Bool("load", false, "demo: import the files and the reference data")
	ifEmpty := fset.Bool("if-empty", false, "demo --load: only into a database without imports")
	head := fset.String("head", "", "audit verify: a chain position and hash recorded earlier (POSITION:HASH)")
	if err := fset.Parse(args); err != nil {
		return err
	}

	cfg, err := server.LoadConfig(getenv)
	if err != nil {
		return fmt.Errorf("configuration:\n%w", err)
	}
	log := newLogger(cfg, stderr)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	meta, metaFrom, err := metadataFS(cfg)
	if err != nil {
		return err
	}

	switch cmd {
	case "serve":
		log.Info("starting", "version", version, "config", cfg, "metadata", metaFrom)
		dir := metaFrom
		if metaFrom == "embedded" {
			dir = ""
		}
		return server.Serve(ctx, cfg, log, server.ServeOptions{UI: ui.Dist(), Metadata: meta, Version: version, MetadataDir: dir, Watch: *watch})
	case "migrate":
		db, err := server.OpenDatabase(ctx, cfg, log)
		if err != nil {
			return err
		}
		defer db.Close()
		v, err := migrations.Up(ctx, db.Pool, log)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "database at schema version %d\n", v)
		md, err := engine.LoadMetadata(meta)
		if err != nil {
			return err
		}
		if err := engine.EnsureIndexes(ctx, db.Pool, md, log); err != nil {
			return fmt.Errorf("grid indexes: %w", err)
		}
		fmt.Fprintln(stdout, "grid indexes of the large views: built")
		return nil
	case "check":
		return check(ctx, cfg, log, meta, metaFrom, stdout)
	case "outbox":
		return outbox(ctx, cfg, log, *count, stdout)
	case "audit":
		return auditVerify(ctx, cfg, log, *head, stdout)
	case "demo":
		return runDemo(ctx, cfg, log, meta, demo.Options{Seed: *seed, Scale: *scale}, *out, *load, *ifEmpty, stdout)
	case "bench":
		db, err := server.OpenDatabase(ctx, cfg, log)
		if err != nil {
			return err
		}
		defer db.Close()
		switch benchWhat {
		case "grid":
			md, err := engine.LoadMetadata(meta)
			if err != nil {
				return err
			}
			return bench.Grid(ctx, db.URL, cfg, bench.GridOptions{Rows: orInt(*rows, 2_000_000), Iterations: *iterations, Clients: *clients}, stdout, md)
		case "clicks":
			md, err := engine.LoadMetadata(meta)
			if err != nil {
				return err
			}
			return bench.Clicks(ctx, db.URL, cfg, bench.ClicksOptions{Rows: orInt(*rows, 2_000_000), Calls: *calls, View: *view, Slow: 100 * time.Millisecond,
				Isolation: 10 * time.Second}, stdout, md)
		case "load":
			self, err := os.Executable()
			if err != nil {
				return err
			}
			return bench.Load(ctx, db.URL, cfg, bench.LoadOptions{Users: *users, Duration: *duration, Scale: *scale, Binary: self}, meta, stdout)
		case "export":
			return bench.Export(ctx, db.URL, cfg, orInt(*rows, 100_000), stdout)
		case "import":
			md, err := engine.LoadMetadata(meta)
			if err != nil {
				return err
			}
			return bench.Import(ctx, db.URL, cfg, orInt(*rows, 1_000_000), stdout, md)
		case "reconcile":
			md, err := engine.LoadMetadata(meta)
			if err != nil {
				return err
			}
			levels, err := recon.Load(meta)
			if err != nil {
				return err
			}
			return bench.Reconcile(ctx, db.URL, cfg, bench.ReconcileOptions{Rows: orInt(*rows, 1_000_000), Iterations: *iterations, Clients: *clients,
				Levels: levels, Level: *level}, stdout, md)
		case "pivot":
			n := 20 // each call sums every row: fewer than the grid's 100 by default
			fset.Visit(func(f *flag.Flag) {
				if f.Name == "iterations" {
					n = *iterations
				}
			})
			return bench.Pivot(ctx, db.URL, cfg, orInt(*rows, 2_000_000), n, stdout)
		case "home":
			return bench.Home(ctx, db.URL, cfg, orInt(*rows, 1_000_000), stdout)
		case "audit":
			md, err := engine.LoadMetadata(meta)
			if err != nil {
				return err
			}
			return bench.Audit(ctx, db.URL, cfg, orInt(*rows, 6000), stdout, md)
		case "all":
			return benchAll(ctx, db.URL, cfg, fset, meta, bench.AllOptions{Scale: *scale, Iterations: *iterations, Clients: *clients,
				Calls: *calls, View: *view, JSON: *asJSON}, stdout, stderr)
		}
		return fmt.Errorf("bench: unknown benchmark %q (grid, clicks, load, export, import, reconcile, pivot, home, audit or all)", benchWhat)
	default:
		fmt.Fprint(stderr, usage)
		return fmt.Errorf("unknown command %q", cmd)
	}
}

// benchAll runs `bench all`: every benchmark at the sizes of o.Scale, then
// their summary; with --json the summary alone goes to stdout, so that a
// machine can read it, and the benchmarks' own output to stderr.
func benchAll(ctx context.Context, dbURL string, cfg server.Config, fset *flag.FlagSet, meta fs.FS, o bench.AllOptions, stdout, stderr io.Writer) error {
	var sized []string     // flags that size one benchmark: --scale sizes them all here
	o.PivotIterations = 20 // as bench pivot: each call sums every row
	fset.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "rows", "users", "duration":
			sized = append(sized, "-"+f.Name)
		case "iterations":
			o.PivotIterations = o.Iterations
		}
	})
	if len(sized) > 0 {
		return fmt.Errorf("bench all: -scale sets the sizes; leave out %s", strings.Join(sized, " and "))
	}
	md, err := engine.LoadMetadata(meta)
	if err != nil {
		return err
	}
	if o.Levels, err = recon.Load(meta); err != nil {
		return err
	}
	if o.Binary, err = os.Executable(); err != nil {
		return err
	}
	o.Meta = meta
	out := stdout
	if o.JSON {
		out = stderr
	}
	return bench.All(ctx, dbURL, cfg, o, md, out, stdout)
}

// check validates what `serve` would validate, without serving: the
// configuration (already parsed), the metadata, and the database schema.
func check(ctx context.Context, cfg server.Config, log *slog.Logger, meta fs.FS, metaFrom string, stdout io.Writer) error {
	md, err := server.LoadMetadata(meta)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "metadata (%s): %d views, %d forms, %d screens, labels in %d languages: ok\n", metaFrom, len(md.Views), len(md.Forms), len(md.Screens), len(md.Labels))
	layouts, err := imports.LoadDescriptors(meta)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "import layouts: %d: ok\n", len(layouts))
	levels, err := recon.Load(meta)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "reconciliation levels: %d: ok\n", len(levels.Levels))
	icfg, err := intake.Load(meta, func(slug string) bool { _, err := levels.Level(slug); return err == nil })
	if err != nil {
		return err
	}
	for _, src := range icfg.SFTP {
		for _, v := range []string{src.Password, src.Key} {
			if v != "" && cfg.Getenv(v) == "" {
				return fmt.Errorf("%s: sftp source %s: the environment variable %s is not set", intake.File, src.Name, v)
			}
		}
	}
	fmt.Fprintf(stdout, "intake: %d SFTP sources, %d scheduled levels: ok\n", len(icfg.SFTP), len(icfg.Runs))
	db, err := server.OpenDatabase(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer db.Close()
	v, err := migrations.Version(ctx, db.Pool)
	if err != nil {
		v = 0 // a database never migrated has no goose table yet
	}
	latest := migrations.Latest()
	fmt.Fprintf(stdout, "database: reachable, schema version %d of %d", v, latest)
	if v < latest {
		fmt.Fprintln(stdout, " (pending migrations run at the next serve or migrate;")
		fmt.Fprintln(stdout, "  the metadata is checked against the database once it is migrated)")
		return nil
	}
	fmt.Fprintln(stdout)
	if err := engine.Validate(ctx, db.Pool, md); err != nil {
		return err
	}
	if err := levels.Validate(ctx, db.Pool, func(v string) bool { return md.Views[v] != nil }); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "metadata matches the database: ok")
	if err := server.CheckRouteScreens(ctx, db.Pool, log); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "screen ids of the API routes: ok")
	gaps, err := engine.IndexGaps(ctx, db.Pool, md)
	if err != nil {
		return err
	}
	for _, g := range gaps {
		fmt.Fprintln(stdout, "not served:", g)
	}
	if len(gaps) == 0 {
		fmt.Fprintln(stdout, "every sort and filter of the large views has its index: ok")
	}
	demanded, err := engine.DemandedIndexes(ctx, db.Pool)
	if err != nil {
		return err
	}
	for _, d := range demanded {
		fmt.Fprintf(stdout, "made on demand: %s on %s(%s) for %s, demanded %d times, last %s: %s\n",
			d.Name, d.Table, d.Columns, d.View, d.Demanded, d.LastOn.Format("2006-01-02 15:04"), d.State)
	}
	warnings, err := engine.IndexWarnings(ctx, db.Pool, md)
	if err != nil {
		return err
	}
	for _, w := range warnings {
		fmt.Fprintln(stdout, "warning:", w)
	}
	return nil
}

// auditVerify walks the audit trail's hash chain (engine.VerifyAudit) and
// fails, naming the row, where it breaks.
func auditVerify(ctx context.Context, cfg server.Config, log *slog.Logger, head string, stdout io.Writer) error {
	var anchor *engine.AuditAnchor
	if head != "" {
		a, err := engine.ParseAuditAnchor(head)
		if err != nil {
			return fmt.Errorf("audit verify: %w", err)
		}
		anchor = a
	}
	db, err := server.OpenDatabase(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer db.Close()
	v, err := engine.VerifyAudit(ctx, db.Pool, anchor)
	if err != nil {
		return err
	}
	if b := v.Break; b != nil {
		if b.ID == 0 {
			return fmt.Errorf("audit chain broken after position %d: %s", v.HeadSeq, b.Reason)
		}
		return fmt.Errorf("audit chain broken at row %d (position %d, %s, %s): %s; the %d rows before it fit",
			b.ID, b.Seq, b.At.UTC().Format(time.RFC3339), b.Action, b.Reason, v.Rows)
	}
	fmt.Fprintf(stdout, "audit chain: %d rows fit\nhead: %d:%s\n", v.Rows, v.HeadSeq, v.HeadHash)
	if v.Unsealed > 0 {
		fmt.Fprintf(stdout, "%d rows committed during the check wait for their seal; verify again to include them\n", v.Unsealed)
	}
	return nil
}

// outbox prints the newest messages of the mail outbox: where sign-in and
// reset codes wait when SMTP_URL (or a mobile provider) is not configured.
func outbox(ctx context.Context, cfg server.Config, log *slog.Logger, n int, stdout io.Writer) error {
	db, err := server.OpenDatabase(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer db.Close()
	return server.PrintOutbox(ctx, db.Pool, cfg, n, stdout)
}

// metadataFS picks where views.yaml and forms/ come from: METADATA_DIR, else
// the working directory when it holds views.yaml, else the embedded copy.
func metadataFS(cfg server.Config) (fs.FS, string, error) {
	if cfg.MetadataDir != "" {
		return os.DirFS(cfg.MetadataDir), cfg.MetadataDir, nil
	}
	if _, err := os.Stat("views.yaml"); err == nil {
		wd, _ := os.Getwd()
		return os.DirFS("."), wd, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, "", fmt.Errorf("views.yaml: %w", err)
	}
	return embeddedMetadata, "embedded", nil
}

// runDemo writes the demo files and, with load, imports them with the
// reference data; ifEmpty skips a database that already has imports.
func runDemo(ctx context.Context, cfg server.Config, log *slog.Logger, meta fs.FS, o demo.Options, out string, load, ifEmpty bool, stdout io.Writer) error {
	if out == "" {
		out = filepath.Join(cfg.DataDir, "demo")
	}
	set := demo.Generate(o)
	files, err := demo.WriteFiles(set, out)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "demo data written to %s: %d tickets, %d transactions, %d settlements, %d bank bookings in %d files\n",
		out, len(set.Tickets), len(set.Transactions), len(set.Settlements), len(set.Bookings), len(files))
	if !load {
		return nil
	}
	db, err := server.OpenDatabase(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := migrations.Up(ctx, db.Pool, log); err != nil {
		return err
	}
	if ifEmpty {
		var n int
		if err := db.Pool.QueryRow(ctx, `select count(*) from import_file`).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			fmt.Fprintln(stdout, "the database already has imports: demo data not loaded")
			return nil
		}
	}
	layouts, err := imports.LoadDescriptors(meta)
	if err != nil {
		return err
	}
	importer := imports.NewService(db.Pool, layouts, cfg.UploadMaxBytes, log)
	importer.SetDateWindow(cfg.ImportYearsBack, cfg.ImportYearsNext)
	dctx := engine.WithActor(ctx, &engine.Actor{Username: "demo"})
	results, err := demo.Load(dctx, db.Pool, set, files, importer)
	if err != nil {
		return err
	}
	for _, r := range results {
		fmt.Fprintf(stdout, "  %-32s %-10s %5d rows loaded\n", r.FileName, r.Status, r.RowsLoaded)
	}
	return nil
}

func orInt(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

func newLogger(cfg server.Config, w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: cfg.LogLevel}
	if cfg.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}
