package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gofiber/fiber/v3"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"ledgerdesk/engine"
	"ledgerdesk/internal/pgtest"
	"ledgerdesk/migrations"
	"ledgerdesk/screens/identity"
)

var testUI = fstest.MapFS{
	"index.html":         {Data: []byte(`<!doctype html><div id="root"></div><script type="module" src="/assets/app-1.js"></script>`)},
	"assets/app-1.js":    {Data: []byte(`console.log("app")`)},
	"assets/style-1.css": {Data: []byte(`body{}`)},
	"logo.svg":           {Data: []byte(`<svg xmlns="http://www.w3.org/2000/svg"></svg>`)},
}

func testConfig(t *testing.T) Config {
	t.Helper()
	cfg, err := LoadConfig(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	cfg.BodyLimitBytes = 4096
	return cfg
}

// testApp is the real application on a throwaway database, with a few extra
// routes that fail in the ways handlers can fail.
func testApp(t *testing.T, pool *pgxpool.Pool, logs io.Writer) *fiber.App {
	t.Helper()
	if logs == nil {
		logs = io.Discard
	}
	d := Deps{Config: testConfig(t), Pool: pool, Log: slog.New(slog.NewTextHandler(logs, nil)), UI: testUI, Version: "test",
		Engine: engine.New(engine.Options{Pool: pool, Metadata: &engine.Metadata{}})}
	return newApp(d, func(api fiber.Router) {
		api.Get("/test/invalid", func(fiber.Ctx) error {
			return engine.Invalid("CountryCode", "CountryCode must be at most 3 characters")
		})
		api.Get("/test/conflict", func(fiber.Ctx) error {
			return engine.Conflict("the row was changed by someone else").With("grid.stale", "field", "UpdatedOn")
		})
		api.Get("/test/unique", func(fiber.Ctx) error {
			return &pgconn.PgError{Code: "23505", ConstraintName: "country_code_key", Message: "duplicate key value violates unique constraint"}
		})
		api.Get("/test/boom", func(fiber.Ctx) error { return errors.New("select secret from internals failed") })
		api.Get("/test/panic", func(fiber.Ctx) error { panic("nil map write") })
		api.Post("/test/echo", func(c fiber.Ctx) error { return ok(c, len(c.Body())) })
	})
}

type answer struct {
	status int
	header http.Header
	body   []byte
	env    envelope
}

func call(t *testing.T, app *fiber.App, method, path string, body io.Reader) answer {
	t.Helper()
	req := httptest.NewRequest(method, path, body)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := app.Test(req, fiber.TestConfig{Timeout: 0})
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	a := answer{status: res.StatusCode, header: res.Header, body: b}
	if strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		json.Unmarshal(b, &a.env)
	}
	return a
}

func TestAPI(t *testing.T) {
	pool := pgtest.New(t)
	var logs bytes.Buffer
	app := testApp(t, pool, &logs)

	tests := []struct {
		name, method, path string
		body               io.Reader
		status             int
		succeeded          bool
		errContains        string
		field              string
		code               string // the message code the UI translates
	}{
		{"health", "GET", "/api/health", nil, 200, true, "", "", ""},
		{"unknown endpoint needs a session first", "GET", "/api/no-such-thing", nil, 401, false, "Sign in", "", "auth.signIn"},
		{"unknown deep endpoint", "GET", "/api/a/b/c/d", nil, 404, false, "no such API endpoint: GET /api/a/b/c/d", "", "error.not_found"},
		{"typed invalid names the field", "GET", "/api/test/invalid", nil, 400, false, "at most 3 characters", "CountryCode", "error.invalid"},
		{"typed conflict carries its message code", "GET", "/api/test/conflict", nil, 409, false, "changed by someone else", "", "grid.stale"},
		{"unique violation becomes 409", "GET", "/api/test/unique", nil, 409, false, "already exists", "country_code_key", "db.duplicate"},
		{"unexpected error is a generic 500", "GET", "/api/test/boom", nil, 500, false, "internal error", "", "error.internal"},
		{"panic is recovered as 500", "GET", "/api/test/panic", nil, 500, false, "internal error", "", "error.internal"},
		{"body within limit", "POST", "/api/test/echo", strings.NewReader(`{"a":1}`), 200, true, "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := call(t, app, tt.method, tt.path, tt.body)
			if a.status != tt.status {
				t.Fatalf("status %d, want %d; body %s", a.status, tt.status, a.body)
			}
			if a.env.Succeeded != tt.succeeded {
				t.Errorf("succeeded = %v, want %v; body %s", a.env.Succeeded, tt.succeeded, a.body)
			}
			if !strings.Contains(a.env.Error, tt.errContains) {
				t.Errorf("error %q does not contain %q", a.env.Error, tt.errContains)
			}
			if a.env.Field != tt.field {
				t.Errorf("field %q, want %q", a.env.Field, tt.field)
			}
			if a.env.Code != tt.code {
				t.Errorf("code %q, want %q", a.env.Code, tt.code)
			}
			if tt.code == "grid.stale" && a.env.Params["field"] != "UpdatedOn" {
				t.Errorf("params %v, want field UpdatedOn", a.env.Params)
			}
			if a.header.Get("X-Request-Id") == "" {
				t.Error("no X-Request-Id header")
			}
			if tt.status >= 500 && a.env.RequestID == "" {
				t.Error("a 500 must carry the request id for support")
			}
			if strings.Contains(string(a.body), "select secret") || strings.Contains(string(a.body), "nil map") {
				t.Errorf("internal detail leaked to the client: %s", a.body)
			}
		})
	}

	// The log has the causes the client did not get, and never a body.
	for _, want := range []string{"select secret from internals failed", "nil map write", "path=/api/test/panic status=500"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %q", want)
		}
	}
	if strings.Contains(logs.String(), strings.Repeat("x", 100)) {
		t.Error("a request body reached the log")
	}
	// A failed request is one line with its cause, not an access line and an
	// error line (a panic adds its stack trace, once).
	if n := strings.Count(logs.String(), "path=/api/test/boom "); n != 1 {
		t.Errorf("a failed request is logged %d times, want once:\n%s", n, logs.String())
	}
}

func TestHealthReportsSchema(t *testing.T) {
	pool := pgtest.New(t)
	a := call(t, testApp(t, pool, nil), "GET", "/api/health", nil)
	data := a.env.Data.(map[string]any)
	if data["database"] != "up" || data["version"] != "test" {
		t.Errorf("health data %v", data)
	}
	if got, want := int64(data["schemaVersion"].(float64)), migrations.Latest(); got != want || want < 1 {
		t.Errorf("schemaVersion %d, want %d", got, want)
	}
}

func TestHealthWhenDatabaseIsDown(t *testing.T) {
	pool, err := pgxpool.New(context.Background(), "postgres://postgres@127.0.0.1:1/none?connect_timeout=1")
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	a := call(t, testApp(t, pool, nil), "GET", "/api/health", nil)
	if a.status != 503 || a.env.Succeeded || !strings.Contains(a.env.Error, "database is not reachable") {
		t.Fatalf("got %d %s", a.status, a.body)
	}
	if a.env.Data.(map[string]any)["database"] != "down" {
		t.Errorf("data %v", a.env.Data)
	}
}

func TestAppConfig(t *testing.T) {
	a := call(t, testApp(t, nil, nil), "GET", "/assets/app-config.json", nil)
	if a.status != 200 || a.header.Get("Cache-Control") != "no-store" {
		t.Fatalf("status %d, cache %q", a.status, a.header.Get("Cache-Control"))
	}
	var cfg struct {
		APIBase         string `json:"apiBase"`
		DefaultLanguage string `json:"defaultLanguage"`
		Languages       []struct{ Code string }
		DateFormats     []string
		PageSizes       []int
		DefaultPageSize int
		PasswordRules   passwordRules
	}
	if err := json.Unmarshal(a.body, &cfg); err != nil {
		t.Fatal(err)
	}
	var codes []string
	for _, l := range cfg.Languages {
		codes = append(codes, l.Code)
	}
	if cfg.APIBase != "/api" || cfg.DefaultLanguage != "en" || strings.Join(codes, ",") != "en,sv,es,pt" ||
		len(cfg.DateFormats) != 6 || cfg.DefaultPageSize != 100 || len(cfg.PageSizes) != 4 ||
		cfg.PasswordRules != (passwordRules{8, 20, identity.PasswordSpecials}) {
		t.Errorf("app config %+v", cfg)
	}
}

func TestServesTheUI(t *testing.T) {
	app := testApp(t, nil, nil)
	tests := []struct {
		name, path   string
		status       int
		bodyContains string
		cache        string
	}{
		{"root is the app", "/", 200, `id="root"`, "no-cache"},
		{"deep link falls back to index", "/dashboard/home", 200, `id="root"`, "no-cache"},
		{"hashed asset", "/assets/app-1.js", 200, `console.log`, "max-age=31536000"},
		{"file at the root", "/logo.svg", 200, "<svg", ""},
		{"missing asset is a 404, not index.html", "/assets/app-2.js", 404, "", ""},
		{"missing file with extension is a 404", "/nothing.png", 404, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := call(t, app, "GET", tt.path, nil)
			if a.status != tt.status {
				t.Fatalf("status %d, want %d (%s)", a.status, tt.status, a.body)
			}
			if !strings.Contains(string(a.body), tt.bodyContains) {
				t.Errorf("body %q lacks %q", a.body, tt.bodyContains)
			}
			if tt.status == 404 && strings.Contains(string(a.body), `id="root"`) {
				t.Error("a missing asset was answered with index.html")
			}
			if tt.cache != "" && !strings.Contains(a.header.Get("Cache-Control"), tt.cache) {
				t.Errorf("Cache-Control %q, want %q", a.header.Get("Cache-Control"), tt.cache)
			}
		})
	}
}

func TestSecurityHeaders(t *testing.T) {
	a := call(t, testApp(t, nil, nil), "GET", "/", nil)
	want := map[string]string{
		"X-Content-Type-Options": "nosniff",
		"Referrer-Policy":        "same-origin",
		"X-Frame-Options":        "DENY",
	}
	for h, v := range want {
		if got := a.header.Get(h); got != v {
			t.Errorf("%s = %q, want %q", h, got, v)
		}
	}
	csp := a.header.Get("Content-Security-Policy")
	for _, part := range []string{"default-src 'self'", "script-src 'self'", "frame-ancestors 'none'"} {
		if !strings.Contains(csp, part) {
			t.Errorf("CSP %q lacks %q", csp, part)
		}
	}
	if strings.Contains(csp, "unsafe-eval") || strings.Contains(strings.SplitN(csp, "style-src", 2)[0], "unsafe-inline") {
		t.Errorf("CSP allows inline or eval scripts: %q", csp)
	}
}

func TestNoUIBuilt(t *testing.T) {
	d := Deps{Config: testConfig(t), Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	a := call(t, New(d), "GET", "/dashboard/home", nil)
	if a.status != 200 || !strings.Contains(string(a.body), "go tool task build") {
		t.Fatalf("got %d %s", a.status, a.body)
	}
}

// The body limit is enforced by the HTTP server itself, so this test goes
// through a real listener rather than app.Test.
func TestBodyLimitOverHTTP(t *testing.T) {
	var logs bytes.Buffer
	app := testApp(t, nil, &logs)
	ln, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go app.Listener(ln, fiber.ListenConfig{DisableStartupMessage: true})
	t.Cleanup(func() { app.Shutdown() })

	big := `{"a":"` + strings.Repeat("x", 5000) + `"}`
	res, err := http.Post("http://"+ln.Addr().String()+"/api/test/echo", "application/json", strings.NewReader(big))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var env envelope
	json.NewDecoder(res.Body).Decode(&env)
	if res.StatusCode != 413 || env.Succeeded || !strings.Contains(env.Error, "too large") {
		t.Fatalf("got %d %+v", res.StatusCode, env)
	}
	if strings.Contains(logs.String(), strings.Repeat("x", 100)) {
		t.Error("the rejected body reached the log")
	}
}

func TestListenPortInUse(t *testing.T) {
	ln, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, err = Listen(ln.Addr().String())
	if err == nil || !strings.Contains(err.Error(), "already in use") || !strings.Contains(err.Error(), "LISTEN_ADDR") {
		t.Fatalf("got %v", err)
	}
}
