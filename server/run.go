package server

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/gofiber/fiber/v3"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"ledgerdesk/engine"
	"ledgerdesk/internal/liveness"
	"ledgerdesk/internal/mail"
	"ledgerdesk/internal/pgcluster"
	"ledgerdesk/migrations"
	"ledgerdesk/screens/identity"
	"ledgerdesk/screens/imports"
	"ledgerdesk/screens/intake"
	"ledgerdesk/screens/rates"
	"ledgerdesk/screens/recon"
	"ledgerdesk/screens/tasks"
	"ledgerdesk/ui"
)

// Database is the connection pool and, when DATABASE_URL is unset, the
// embedded cluster behind it.
type Database struct {
	Pool    *pgxpool.Pool
	URL     string
	cluster *pgcluster.Cluster
}

// OpenDatabase connects to DATABASE_URL, or starts the embedded cluster when
// it is unset, and checks the database answers. Failures come back as one
// line that says what to change.
func OpenDatabase(ctx context.Context, cfg Config, log *slog.Logger) (*Database, error) {
	db := &Database{URL: cfg.DatabaseURL}
	if db.URL == "" {
		c, err := pgcluster.Start(ctx, cfg.DataDir, log)
		if err != nil {
			return nil, err
		}
		db.cluster, db.URL = c, c.URL()
	}
	pcfg, err := PoolConfig(db.URL, cfg)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("DATABASE_URL: %s", shortCause(err))
	}
	db.Pool, err = pgxpool.NewWithConfig(ctx, pcfg)
	if err == nil {
		pctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		err = db.Pool.Ping(pctx)
		cancel()
	}
	if err != nil {
		db.Close()
		if cfg.DatabaseURL == "" {
			return nil, fmt.Errorf("the embedded database does not answer: %s", shortCause(err))
		}
		return nil, fmt.Errorf("cannot connect to DATABASE_URL %s: %s", MaskURL(cfg.DatabaseURL), shortCause(err))
	}
	return db, nil
}

// PoolConfig is the connection-pool setup of the server, for the server and
// for the benchmarks that measure it: DB_MAX_CONNS connections, a connect
// timeout, the application name in pg_stat_activity.
func PoolConfig(url string, cfg Config) (*pgxpool.Config, error) {
	pcfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, err
	}
	pcfg.ConnConfig.RuntimeParams["application_name"] = "ledgerdesk"
	// No JIT compilation: the planner's costs of the reports' generic plans
	// pass jit_above_cost, and compiling 206 functions took 67 ms for a
	// page read in 1.5 ms (tickets vs transactions at a million tickets;
	// with 8 clients its p95 was 300 ms). The product's statements are
	// pages, counts and set-based writes whose time is in joins and I/O.
	pcfg.ConnConfig.RuntimeParams["jit"] = "off"
	pcfg.ConnConfig.ConnectTimeout = 10 * time.Second
	pcfg.MaxConns = int32(cmp.Or(cfg.DBMaxConns, DefaultDBMaxConns))
	return pcfg, nil
}

// Close closes the pool and stops the embedded cluster if this process started it.
func (db *Database) Close() {
	if db.Pool != nil {
		db.Pool.Close()
	}
	if err := db.cluster.Stop(); err != nil {
		slog.Warn("embedded database", "err", err)
	}
}

// Embedded reports whether the database is the embedded cluster.
func (db *Database) Embedded() bool { return db.cluster != nil }

// ServeOptions are the parts of a server that come from the binary itself.
type ServeOptions struct {
	UI       fs.FS // built UI or nil
	Metadata fs.FS // views.yaml and forms/
	Version  string
	// MetadataDir is the folder Metadata was read from ("" when embedded);
	// with Watch, edits there are reloaded while the server runs.
	MetadataDir string
	Watch       bool
	// Ready, when set, is called with the bound address once the server accepts
	// connections (tests and the e2e runner use it).
	Ready func(addr net.Addr)
}

// Serve runs Ledgerdesk until ctx ends (SIGINT/SIGTERM in main): it binds the
// port first (a port in use fails fast), opens the database, migrates,
// loads the metadata, serves, then shuts down gracefully and stops the
// embedded database.
func Serve(ctx context.Context, cfg Config, log *slog.Logger, opt ServeOptions) error {
	if cfg.StopWithParent {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		go stopWithParent(ctx, cancel, log)
	}
	ln, err := Listen(cfg.ListenAddr)
	if err != nil {
		return err
	}
	defer ln.Close()

	md, err := LoadMetadata(opt.Metadata)
	if err != nil {
		return err
	}
	db, err := OpenDatabase(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer db.Close()
	version, err := migrations.Up(ctx, db.Pool, log)
	if err != nil {
		return fmt.Errorf("database migration failed: %s", shortCause(err))
	}
	log.Info("database ready", "schema_version", version, "database", describeDatabase(cfg.DatabaseURL))

	ident, sender, err := NewIdentity(ctx, cfg, db.Pool, log)
	if err != nil {
		return err
	}
	defer sender.Wait()
	admin, err := ident.EnsureAdmin(ctx, cfg.AdminPassword)
	if err != nil {
		return fmt.Errorf("first admin: %w", err)
	}

	if err := engine.Validate(ctx, db.Pool, md); err != nil {
		return err
	}
	readPool, err := openReadPool(ctx, cfg)
	if err != nil {
		return err
	}
	if readPool != nil {
		defer readPool.Close()
	}
	eng := engine.New(engine.Options{Pool: db.Pool, ReadPool: readPool, Metadata: md, Log: log, Messages: ui.ServerMessages, Texts: ui.Texts,
		QueryTimeout: cfg.GridTimeout, Lanes: cfg.Lanes()})
	go ensureIndexes(ctx, db.Pool, md, log)
	log.Info("metadata loaded", "views", len(md.Views), "forms", len(md.Forms), "screens", len(md.Screens))
	if opt.Watch {
		if opt.MetadataDir == "" {
			log.Warn("--watch needs metadata in a folder (METADATA_DIR or views.yaml in the working directory); the embedded copy cannot change")
		} else if err := WatchMetadata(ctx, opt.MetadataDir, eng, db.Pool, log); err != nil {
			return fmt.Errorf("watch %s: %w", opt.MetadataDir, err)
		}
	}

	layouts, err := imports.LoadDescriptors(opt.Metadata)
	if err != nil {
		return err
	}
	importer := imports.NewService(db.Pool, layouts, cfg.UploadMaxBytes, log)
	importer.SetDateWindow(cfg.ImportYearsBack, cfg.ImportYearsNext)
	syncer := &rates.Syncer{Pool: db.Pool, URL: cfg.RatesURL, Log: log}
	levels, err := recon.Load(opt.Metadata)
	if err != nil {
		return err
	}
	if err := levels.Validate(ctx, db.Pool, func(v string) bool { return md.Views[v] != nil }); err != nil {
		return err
	}
	if err := levels.Sync(ctx, db.Pool); err != nil {
		return fmt.Errorf("reconciliation levels: %w", err)
	}
	reconciler := recon.NewService(db.Pool, levels, log)
	intaker, err := NewIntake(opt.Metadata, cfg, db.Pool, importer, reconciler, levels, sender, log)
	if err != nil {
		return err
	}
	queue, err := startQueue(ctx, db.Pool, importer, syncer, sender, reconciler, intaker, log)
	if err != nil {
		return err
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := queue.Stop(sctx); err != nil {
			log.Warn("job queue stop", "err", err)
		}
	}()
	importer.SetQueue(queue)
	sender.SetQueue(queue)
	reconciler.SetQueue(queue)
	intaker.SetQueue(queue)
	if err := startIntake(ctx, intaker, cfg, log); err != nil {
		return err
	}
	// Work left running by a process that ended is marked at start-up and
	// whenever its heartbeat stops (internal/liveness).
	go liveness.Sweep(ctx, log, map[string]func(context.Context) (int, error){
		"imports": importer.MarkCutOff, "automatic reconcile runs": reconciler.MarkAbandoned})
	// New audit rows join the hash chain within seconds (migration 00035).
	go engine.KeepAuditSealed(ctx, db.Pool, log)

	app := New(Deps{Config: cfg, Pool: db.Pool, Log: log, UI: opt.UI, Version: opt.Version, Identity: ident, Engine: eng,
		Rates: &rates.Runner{Queue: queue, Wait: RateSyncWait}, Imports: importer, Recon: reconciler})
	if err := CheckRouteScreens(ctx, db.Pool, log); err != nil {
		return err
	}

	serveErr := make(chan error, 1)
	go func() {
		serveErr <- app.Listener(ln, fiber.ListenConfig{DisableStartupMessage: true})
	}()
	fmt.Fprintf(os.Stdout, "Ledgerdesk %s is running at %s\n", opt.Version, PublicURL(ln.Addr()))
	switch {
	case admin.Created && admin.Password != "":
		fmt.Fprintf(os.Stdout, "  first sign-in: user %q, password '%s' (generated now and shown only this once; change it under Profile or Users)\n", admin.Username, admin.Password)
	case admin.Created:
		fmt.Fprintf(os.Stdout, "  first sign-in: user %q with the password from LEDGERDESK_ADMIN_PASSWORD\n", admin.Username)
	default:
		fmt.Fprintf(os.Stdout, "  sign in with your account (the first admin user is %q)\n", admin.Username)
	}
	if opt.UI == nil {
		fmt.Fprintln(os.Stdout, "  (built without the web interface: use `go tool task up` or `go tool task build` for it)")
	}
	if opt.Ready != nil {
		opt.Ready(ln.Addr())
	}

	select {
	case err := <-serveErr:
		if err != nil {
			return fmt.Errorf("server stopped: %w", err)
		}
		return nil
	case <-ctx.Done():
	}
	log.Info("shutting down")
	if err := app.ShutdownWithTimeout(15 * time.Second); err != nil {
		log.Warn("shutdown", "err", err)
	}
	return nil
}

// stopWithParent ends the server (as a signal would) once the process that
// started it is gone. `go tool task up` runs it under task, which on a
// signal sent to it alone waits for its commands and, at the third, quits
// without them: the server would run on, orphaned, holding its port.
func stopWithParent(ctx context.Context, stop context.CancelFunc, log *slog.Logger) {
	parent := os.Getppid()
	t := time.NewTicker(500 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if os.Getppid() != parent {
				log.Info("the process that started the server has ended: shutting down")
				stop()
				return
			}
		}
	}
}

// EscalateEvery is how often open items past their SLA are escalated.
const EscalateEvery = 15 * time.Minute

// RateSyncWait is how long a sync request waits for its job before it
// answers 202 (the job goes on).
const RateSyncWait = 30 * time.Second

// startQueue starts the job queue (riverqueue/river on PostgreSQL) with the
// product's workers: every instance takes jobs, so long work neither blocks
// a request nor dies with it.
func startQueue(ctx context.Context, pool *pgxpool.Pool, importer *imports.Service, syncer *rates.Syncer, sender *mail.Sender,
	reconciler *recon.Service, intaker *intake.Service, log *slog.Logger) (*river.Client[pgx.Tx], error) {
	workers := river.NewWorkers()
	river.AddWorker(workers, &mail.DeliverWorker{Sender: sender})
	river.AddWorker(workers, &imports.ImportWorker{Service: importer})
	river.AddWorker(workers, &imports.ReprocessWorker{Pool: pool, Log: log})
	river.AddWorker(workers, &rates.SyncWorker{Syncer: syncer})
	river.AddWorker(workers, &recon.AutoWorker{Service: reconciler})
	river.AddWorker(workers, &tasks.EscalateWorker{Service: tasks.New(pool, nil)})
	river.AddWorker(workers, &intake.PullWorker{Intake: intaker})
	river.AddWorker(workers, &intake.DigestWorker{Intake: intaker})
	client, err := river.NewClient(riverpgxv5.New(pool), &river.Config{
		// Open items past their SLA go to their owners within the hour
		// (one node runs each due job: river's leader schedules it).
		PeriodicJobs: []*river.PeriodicJob{river.NewPeriodicJob(river.PeriodicInterval(EscalateEvery),
			func() (river.JobArgs, *river.InsertOpts) { return tasks.EscalateArgs{}, nil }, &river.PeriodicJobOpts{RunOnStart: true})},
		// Rate syncs have their own queue: a long import never holds one up.
		// Auto reconcile has its own queue too; one run of each level at a time
		// is enforced by recon_run, so two workers let two levels run at once.
		Queues: map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: 2}, rates.Queue: {MaxWorkers: 1},
			recon.Queue: {MaxWorkers: 2}},
		Workers: workers,
		Logger:  log.With("component", "jobs"),
		// A job whose worker died (a crash mid-import) runs again after minutes.
		RescueStuckJobsAfter: imports.RescueStuckJobsAfter,
	})
	if err != nil {
		return nil, fmt.Errorf("job queue: %w", err)
	}
	if err := client.Start(context.WithoutCancel(ctx)); err != nil {
		return nil, fmt.Errorf("job queue: %w", err)
	}
	return client, nil
}

// NewIntake reads intake.yaml (the metadata's; none: nothing arrives or
// runs by itself) and makes the intake service over the importer and the
// reconciler.
func NewIntake(meta fs.FS, cfg Config, pool *pgxpool.Pool, importer *imports.Service, reconciler *recon.Service,
	levels *recon.Definition, sender *mail.Sender, log *slog.Logger) (*intake.Service, error) {
	declared := func(slug string) bool { _, err := levels.Level(slug); return err == nil }
	icfg, err := intake.Load(meta, declared)
	if err != nil {
		return nil, err
	}
	names := map[int]string{}
	for _, l := range levels.Levels {
		names[l.N] = l.Name
	}
	return intake.New(intake.Options{Pool: pool, Config: icfg, Imports: importer, Runs: reconciler, Inbox: cfg.InboxDir,
		Getenv: cfg.Getenv, Log: log.With("component", "intake"),
		Mail: sender, Messages: ui.ServerMessages, Texts: ui.Texts, LevelNames: names,
		Kinds: func(slug string) []string {
			if l, err := levels.Level(slug); err == nil {
				return levels.ImportKinds(l)
			}
			return nil
		}}), nil
}

// startIntake writes intake.yaml's schedules, then starts looking for due
// ones and, with INBOX_DIR, watching the drop folder, until ctx ends.
func startIntake(ctx context.Context, in *intake.Service, cfg Config, log *slog.Logger) error {
	if err := in.Sync(ctx, time.Now()); err != nil {
		return fmt.Errorf("%s: %w", intake.File, err)
	}
	go in.Ticker(ctx)
	if cfg.InboxDir != "" {
		if err := in.PrepareFolder(); err != nil {
			return err
		}
		go in.WatchFolder(ctx)
		log.Info("watching the drop folder", "dir", cfg.InboxDir)
	}
	return nil
}

// openReadPool connects to READ_DATABASE_URL when it is set (grids, exports
// and reports read there); nil otherwise.
func openReadPool(ctx context.Context, cfg Config) (*pgxpool.Pool, error) {
	if cfg.ReadDatabaseURL == "" {
		return nil, nil
	}
	pcfg, err := PoolConfig(cfg.ReadDatabaseURL, cfg)
	var pool *pgxpool.Pool
	if err == nil {
		pool, err = pgxpool.NewWithConfig(ctx, pcfg)
	}
	if err == nil {
		pctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		err = pool.Ping(pctx)
		cancel()
	}
	if err != nil {
		return nil, fmt.Errorf("cannot connect to READ_DATABASE_URL %s: %s", MaskURL(cfg.ReadDatabaseURL), shortCause(err))
	}
	return pool, nil
}

// NewIdentity builds the identity service with its token secret (configured,
// or generated once and kept in the database) and its mail sender.
func NewIdentity(ctx context.Context, cfg Config, pool *pgxpool.Pool, log *slog.Logger) (*identity.Service, *mail.Sender, error) {
	secret, err := identity.LoadSecret(ctx, pool, cfg.JWTSecret)
	if err != nil {
		return nil, nil, err
	}
	sender, err := mail.New(cfg.SMTPURL, cfg.MailFrom, pool, log, mail.OutboxKey(secret))
	if err != nil {
		return nil, nil, err
	}
	return identity.New(identity.Options{Pool: pool, Secret: secret, Mail: sender, Log: log,
		IdleTimeout: cfg.SessionIdle, MaxSessions: cfg.SessionsPerUser}), sender, nil
}

// PrintOutbox writes the newest n messages of the mail outbox to w, codes
// included: the sealed bodies are opened with the server secret.
func PrintOutbox(ctx context.Context, pool *pgxpool.Pool, cfg Config, n int, w io.Writer) error {
	secret, err := identity.LoadSecret(ctx, pool, cfg.JWTSecret)
	if err != nil {
		return err
	}
	key := mail.OutboxKey(secret)
	rows, err := pool.Query(ctx, `select id, created_on, channel, recipient, subject, body, sealed, state, attempts, coalesce(last_error, '')
		from mail_outbox order by id desc limit $1`, n)
	if err != nil {
		return fmt.Errorf("outbox: %w", err)
	}
	defer rows.Close()
	shown := 0
	for rows.Next() {
		var id int64
		var at time.Time
		var channel, to, subject, body, state, lastError string
		var sealed *string
		var attempts int
		if err := rows.Scan(&id, &at, &channel, &to, &subject, &body, &sealed, &state, &attempts, &lastError); err != nil {
			return err
		}
		// Where the message stands: queued (waiting or retrying), sent, kept (no delivery configured), failed.
		status := state
		if attempts > 1 || lastError != "" {
			status = fmt.Sprintf("%s after %d tries", state, attempts)
		}
		if lastError != "" {
			status += ", last error: " + lastError
		}
		if sealed != nil {
			if plain, err := mail.Unseal(key, *sealed); err == nil {
				body = plain
			} else {
				body += "\n(the code cannot be shown: the message was sealed with another JWT_SECRET)"
			}
		}
		fmt.Fprintf(w, "#%d  %s  %s to %s  [%s]\n%s\n\n%s\n", id, at.Format(time.RFC3339), channel, to, status, subject, body)
		shown++
	}
	if shown == 0 {
		fmt.Fprintln(w, "the outbox is empty")
	}
	return rows.Err()
}

// Listen binds addr, turning the common failures into one clear line.
func Listen(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	switch {
	case err == nil:
		return ln, nil
	case errors.Is(err, syscall.EADDRINUSE):
		return nil, fmt.Errorf("LISTEN_ADDR %s: the port is already in use; stop the program using it or set LISTEN_ADDR to another port (for example LISTEN_ADDR=:8081)", addr)
	case errors.Is(err, syscall.EACCES):
		return nil, fmt.Errorf("LISTEN_ADDR %s: permission denied for this port; use a port above 1023", addr)
	default:
		return nil, fmt.Errorf("LISTEN_ADDR %s: %s", addr, shortCause(err))
	}
}

// PublicURL is the address a person on this machine opens in a browser.
func PublicURL(a net.Addr) string {
	tcp, ok := a.(*net.TCPAddr)
	if !ok {
		return "http://" + a.String()
	}
	host := tcp.IP.String()
	if tcp.IP.IsUnspecified() || tcp.IP.IsLoopback() {
		host = "localhost"
	}
	return fmt.Sprintf("http://%s", net.JoinHostPort(host, fmt.Sprint(tcp.Port)))
}

// shortCause keeps the last, most specific part of a chained driver error
// ("connection refused", "password authentication failed ..."): the whole
// chain repeats host and user details and reads as noise on one line.
func shortCause(err error) string {
	msg := err.Error()
	parts := strings.Split(msg, ": ")
	last := parts[len(parts)-1]
	if len(parts) > 1 && (strings.HasPrefix(last, "(") || len(last) < 12) {
		last = parts[len(parts)-2] + ": " + last
	}
	return last
}
