// Package server is Ledgerdesk's HTTP side: configuration, the Fiber
// application with its middleware (request ids, access and error logs, panic
// recovery, body limits, security headers), the one mapping from typed errors
// to statuses and the {succeeded, data, error} envelope, the routes, and the
// built UI served from the binary. It is the only package that imports Fiber.
package server

import (
	"context"
	"encoding/json"
	"io/fs"
	"log/slog"
	"time"

	"github.com/gofiber/fiber/v3"
	"github.com/gofiber/fiber/v3/middleware/recover"
	"github.com/gofiber/fiber/v3/middleware/requestid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"ledgerdesk/engine"
	"ledgerdesk/internal/screenids"
	"ledgerdesk/migrations"
	"ledgerdesk/screens/controls"
	"ledgerdesk/screens/identity"
	"ledgerdesk/screens/imports"
	"ledgerdesk/screens/prefs"
	"ledgerdesk/screens/rates"
	"ledgerdesk/screens/recon"
	"ledgerdesk/screens/reports"
	"ledgerdesk/screens/tasks"
)

// Deps is what the HTTP application needs from the outside world.
type Deps struct {
	Config   Config
	Pool     *pgxpool.Pool
	Log      *slog.Logger
	UI       fs.FS // the built UI (index.html at its root); nil when not built in
	Identity *identity.Service
	Engine   *engine.Engine
	Rates    *rates.Runner
	Imports  *imports.Service
	Recon    *recon.Service
	Version  string
	Now      func() time.Time
}

// New builds the Fiber application with every route and middleware.
func New(d Deps) *fiber.App { return newApp(d, nil) }

// newApp is New with a hook that registers extra API routes ahead of the
// catch-all ones (tests use it to exercise the error path and recovery).
func newApp(d Deps, extra func(api fiber.Router)) *fiber.App {
	if d.Now == nil {
		d.Now = time.Now
	}
	app := fiber.New(fiber.Config{
		AppName:   "Ledgerdesk",
		BodyLimit: int(max(int64(d.Config.BodyLimitBytes), d.Config.UploadMaxBytes+1<<20)),
		// Reading a request may take a while: an upload of UPLOAD_MAX_BYTES
		// (100 MB by default) over an office line of a few Mbit/s takes minutes.
		ReadTimeout:  5 * time.Minute,
		WriteTimeout: 5 * time.Minute, // exports stream for a while
		IdleTimeout:  2 * time.Minute,
		ErrorHandler: errorHandler(d.Log, d.Config.UploadMaxBytes, int64(d.Config.BodyLimitBytes)),
		// Bodies are read by the handlers, after the route's limit and the
		// token are checked (limitBodies, authenticate), never up front.
		StreamRequestBody:            true,
		DisablePreParseMultipartForm: true,
	})
	app.Use(requestid.New())
	app.Use(accessLog(d.Log))
	app.Use(recover.New(recover.Config{
		EnableStackTrace:  true,
		StackTraceHandler: logPanic(d.Log),
	}))
	app.Use(securityHeaders, noStore, cleanURL)
	app.Use(limitBodies(d.Config.BodyLimitBytes, d.Config.UploadMaxBytes))
	app.Use(newExportGate(d.Config.ExportsPerUser, d.Config.ExportsTotal).offer)
	app.Use(readYourWrites(d.Engine, d.Log))

	api := app.Group("/api")
	api.Get("/health", health(d))
	ids := &apiHandlers{identity: d.Identity}
	ids.mountIdentity(api)
	grids := &gridHandlers{engine: d.Engine, log: d.Log, dateFormat: ids.dateFormat}
	grids.mount(api, ids.authenticate)
	(&screenHandlers{rates: d.Rates}).mount(api, ids.authenticate)
	(&importHandlers{imports: d.Imports, maxBytes: d.Config.UploadMaxBytes, slots: make(chan struct{}, uploadSlots)}).mount(api, ids.authenticate)
	taskService := tasks.New(d.Pool, d.Engine)
	taskService.MayLink = func(ctx context.Context) bool { return engine.ActorFrom(ctx).Can(screenids.Reconcile) }
	taskService.Close = func(ctx context.Context, tx pgx.Tx, ticketID, taskID int64, reason string) (any, error) {
		return d.Recon.CloseByAdjustment(ctx, tx, ticketID, taskID, reason)
	}
	// Four-eyes approvals: the manual actions and the edits of views and
	// forms naming a rule ask them; approved, they are carried out by the
	// executors the screens register.
	ctl := controls.New(d.Pool, d.Recon)
	executors := []map[string]func(context.Context, json.RawMessage) (any, error){taskService.Executors()}
	taskService.Approvals = ctl
	if d.Recon != nil { // (nil: an app built only to list its routes)
		d.Recon.SetApprovals(ctl)
		executors = append(executors, d.Recon.Executors())
	}
	if d.Engine != nil {
		d.Engine.SetApprovals(ctl)
		executors = append(executors, d.Engine.Executors())
	}
	for _, ops := range executors {
		for op, exec := range ops {
			ctl.Register(op, exec)
		}
	}
	(&controlHandlers{controls: ctl}).mount(api, ids.authenticate)
	// (before the levels' routes: open-items is no level)
	(&queueHandlers{recon: d.Recon, tasks: taskService}).mount(api, ids.authenticate)
	(&reconHandlers{recon: d.Recon, engine: d.Engine, grids: grids, dateFormat: ids.dateFormat}).mount(api, ids.authenticate)
	(&taskHandlers{tasks: taskService, prefs: prefs.New(d.Pool, d.Config.PreferenceKeys, d.Config.PreferenceBytes), log: d.Log, dateFormat: ids.dateFormat}).mount(api, ids.authenticate)
	(&reportHandlers{reports: reports.New(d.Pool, d.Config.PivotPeriods), log: d.Log}).mount(api, ids.authenticate)
	newHomeHandlers(d).mount(api, ids.authenticate)
	if extra != nil {
		extra(api)
	}
	grids.mountResources(api, ids.authenticate)
	api.All("/*", func(c fiber.Ctx) error {
		return fiber.NewError(fiber.StatusNotFound, "no such API endpoint: "+c.Method()+" "+c.Path())
	})

	app.Get("/assets/app-config.json", appConfig(d))
	mountUI(app, d.UI)
	return app
}

// health reports whether the database answers and at which schema version.
// It is public: load balancers and the README's first check use it.
func health(d Deps) fiber.Handler {
	type answer struct {
		Status        string `json:"status"`
		Database      string `json:"database"`
		SchemaVersion int64  `json:"schemaVersion"`
		LatestSchema  int64  `json:"latestSchema"`
		Version       string `json:"version"`
		Time          string `json:"time"`
	}
	return func(c fiber.Ctx) error {
		ctx, cancel := context.WithTimeout(c.Context(), 2*time.Second)
		defer cancel()
		a := answer{Status: "ok", Database: "up", LatestSchema: migrations.Latest(), Version: d.Version,
			Time: d.Now().UTC().Format(time.RFC3339)}
		v, err := migrations.Version(ctx, d.Pool)
		if err != nil {
			d.Log.Warn("health: database unreachable", "err", err)
			a.Status, a.Database = "degraded", "down"
			return c.Status(fiber.StatusServiceUnavailable).JSON(envelope{Succeeded: false, Data: a, Error: "the database is not reachable"})
		}
		a.SchemaVersion = v
		return ok(c, a)
	}
}

// appConfig is the application configuration the UI loads at start (spec 01
// section 3, "Application configuration").
// passwordRules: a password's length bounds, and the special characters of
// which it needs one (besides an uppercase and a lowercase letter and a digit).
type passwordRules struct {
	MinLength int    `json:"minLength"`
	MaxLength int    `json:"maxLength"`
	Specials  string `json:"specials"`
}

func appConfig(d Deps) fiber.Handler {
	type language struct {
		Code string `json:"code"`
		Name string `json:"name"`
	}
	cfg := struct {
		APIBase           string     `json:"apiBase"`
		AppName           string     `json:"appName"`
		Version           string     `json:"version"`
		Languages         []language `json:"languages"`
		DefaultLanguage   string     `json:"defaultLanguage"`
		DateFormats       []string   `json:"dateFormats"`
		DefaultDateFormat string     `json:"defaultDateFormat"`
		PageSizes         []int      `json:"pageSizes"`
		DefaultPageSize   int        `json:"defaultPageSize"`
		UploadMaxBytes    int64      `json:"uploadMaxBytes"`
		// PasswordRules are the rules the server checks passwords by, so the
		// UI's checklist and meter judge by the same ones.
		PasswordRules passwordRules `json:"passwordRules"`
		// Screens are the web_screen rows (id and route): the UI's route guards
		// and menu take a screen's id from here, never from a number of their own.
		Screens []identity.WebScreen `json:"screens"`
	}{
		APIBase: "/api",
		AppName: "Ledgerdesk",
		Version: d.Version,
		Languages: []language{
			{"en", "English"}, {"sv", "Svenska"}, {"es", "Español"}, {"pt", "Português"},
		},
		DefaultLanguage: "en",
		DateFormats: []string{
			"DD-MM-YYYY HH:mm:ss", "DD/MM/YYYY HH:mm:ss", "MM-DD-YYYY HH:mm:ss",
			"MM/DD/YYYY HH:mm:ss", "YYYY-MM-DD HH:mm:ss", "YYYY/MM/DD HH:mm:ss",
		},
		DefaultDateFormat: "DD-MM-YYYY HH:mm:ss",
		PageSizes:         []int{10, 25, 50, 100},
		DefaultPageSize:   100,
		UploadMaxBytes:    d.Config.UploadMaxBytes,
		PasswordRules:     passwordRules{identity.PasswordMinLength, identity.PasswordMaxLength, identity.PasswordSpecials},
	}
	return func(c fiber.Ctx) error {
		c.Set(fiber.HeaderCacheControl, "no-store")
		answer := cfg
		answer.Screens = []identity.WebScreen{}
		if d.Identity != nil {
			screens, err := d.Identity.WebScreens(c.Context())
			if err != nil {
				return err
			}
			answer.Screens = screens
		}
		return c.JSON(answer)
	}
}
