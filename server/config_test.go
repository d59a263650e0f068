package server

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"ledgerdesk/internal/pgtest"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestLoadConfigDefaults(t *testing.T) {
	cfg, err := LoadConfig(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ListenAddr != ":8080" || cfg.DataDir != ".data" || cfg.DatabaseURL != "" ||
		cfg.UploadMaxBytes != DefaultUploadMaxBytes || cfg.BodyLimitBytes != DefaultBodyLimitBytes ||
		cfg.RatesURL != DefaultRatesURL || cfg.LogLevel != slog.LevelInfo || cfg.LogFormat != "text" || cfg.DBMaxConns != DefaultDBMaxConns {
		t.Errorf("defaults: %+v", cfg)
	}
}

func TestLoadConfigValues(t *testing.T) {
	cfg, err := LoadConfig(env(map[string]string{
		"DATABASE_URL":         "postgres://u:p@db:5432/ledger",
		"LISTEN_ADDR":          "127.0.0.1:9000",
		"UPLOAD_MAX_BYTES":     "2048",
		"LOG_LEVEL":            "debug",
		"LOG_FORMAT":           "json",
		"SMTP_URL":             "smtp://mail:25",
		"JWT_SECRET":           strings.Repeat("s", 32),
		"SESSION_IDLE_MINUTES": "15",
		"SESSIONS_PER_USER":    "3",
		"DB_MAX_CONNS":         "24",
		"GRID_QUICK_MS":        "400",
		"GRID_DEMAND_MS":       "150",
		"GRID_TIMEOUT_SECONDS": "30",
		"GRID_HEAVY_TOTAL":     "3",
		"GRID_HEAVY_PER_USER":  "2",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if l := cfg.Lanes(); l == nil || l.Quick != 400*time.Millisecond || l.HeavyTotal != 3 || l.HeavyPerUser != 2 || cfg.GridTimeout != 30*time.Second ||
		l.Demand != 150*time.Millisecond {
		t.Errorf("grid lanes: %+v, timeout %v", l, cfg.GridTimeout)
	}
	if off, _ := LoadConfig(env(map[string]string{"GRID_QUICK_MS": "0"})); off.Lanes() != nil {
		t.Error("GRID_QUICK_MS=0 still has lanes")
	}
	if cfg.ListenAddr != "127.0.0.1:9000" || cfg.UploadMaxBytes != 2048 || cfg.LogLevel != slog.LevelDebug ||
		cfg.LogFormat != "json" || cfg.SMTPURL != "smtp://mail:25" || cfg.DBMaxConns != 24 || cfg.SessionIdle != 15*time.Minute ||
		cfg.SessionsPerUser != 3 {
		t.Errorf("values: %+v", cfg)
	}
}

func TestLoadConfigRejects(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"database scheme", map[string]string{"DATABASE_URL": "mysql://x/y"}, "DATABASE_URL: must be a postgres:// URL"},
		{"replica without primary", map[string]string{"READ_DATABASE_URL": "postgres://r/db"}, "READ_DATABASE_URL: needs DATABASE_URL"},
		{"listen without port", map[string]string{"LISTEN_ADDR": "localhost"}, "LISTEN_ADDR: must be host:port"},
		{"listen bad port", map[string]string{"LISTEN_ADDR": ":99999"}, "LISTEN_ADDR: port must be a number"},
		{"short jwt secret", map[string]string{"JWT_SECRET": "short"}, "JWT_SECRET: must be at least 32"},
		{"smtp scheme", map[string]string{"SMTP_URL": "http://mail"}, "SMTP_URL"},
		{"rates url", map[string]string{"RATES_URL": "ftp://x"}, "RATES_URL: must be an http(s) URL"},
		{"upload size", map[string]string{"UPLOAD_MAX_BYTES": "lots"}, "UPLOAD_MAX_BYTES"},
		{"body limit", map[string]string{"BODY_LIMIT_BYTES": "10"}, "BODY_LIMIT_BYTES"},
		{"log level", map[string]string{"LOG_LEVEL": "loud"}, "LOG_LEVEL"},
		{"pool size not a number", map[string]string{"DB_MAX_CONNS": "many"}, "DB_MAX_CONNS: must be a whole number from 4 to 1000"},
		{"pool too small for the job queue", map[string]string{"DB_MAX_CONNS": "2"}, "DB_MAX_CONNS: must be a whole number from 4 to 1000"},
		{"session idle", map[string]string{"SESSION_IDLE_MINUTES": "0"}, "SESSION_IDLE_MINUTES"},
		{"sessions per user", map[string]string{"SESSIONS_PER_USER": "many"}, "SESSIONS_PER_USER"},
		{"log format", map[string]string{"LOG_FORMAT": "xml"}, "LOG_FORMAT"},
		{"metadata dir", map[string]string{"METADATA_DIR": "/no/such/dir"}, "METADATA_DIR"},
		{"quick lane", map[string]string{"GRID_QUICK_MS": "-1"}, "GRID_QUICK_MS: must be a whole number from 0 to 60000"},
		{"demand", map[string]string{"GRID_DEMAND_MS": "soon"}, "GRID_DEMAND_MS: must be a whole number from 0 to 60000"},
		{"grid timeout", map[string]string{"GRID_TIMEOUT_SECONDS": "0"}, "GRID_TIMEOUT_SECONDS: must be a whole number from 1 to 3600"},
		{"heavy lane", map[string]string{"GRID_HEAVY_TOTAL": "0"}, "GRID_HEAVY_TOTAL"},
		{"heavy lane per user", map[string]string{"GRID_HEAVY_PER_USER": "lots"}, "GRID_HEAVY_PER_USER"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadConfig(env(tt.env))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestLoadConfigReportsEveryProblem(t *testing.T) {
	_, err := LoadConfig(env(map[string]string{"LISTEN_ADDR": "x", "LOG_FORMAT": "xml"}))
	if err == nil || !strings.Contains(err.Error(), "LISTEN_ADDR") || !strings.Contains(err.Error(), "LOG_FORMAT") {
		t.Fatalf("got %v", err)
	}
}

func TestLogValueMasksSecrets(t *testing.T) {
	cfg, _ := LoadConfig(env(map[string]string{
		"DATABASE_URL": "postgres://app:hunter2@db/ledger",
		"SMTP_URL":     "smtp://mailer:mailpass@mail:587",
		"JWT_SECRET":   strings.Repeat("k", 40),
	}))
	var sb strings.Builder
	slog.New(slog.NewTextHandler(&sb, nil)).Info("cfg", "config", cfg)
	for _, secret := range []string{"hunter2", "mailpass", strings.Repeat("k", 40)} {
		if strings.Contains(sb.String(), secret) {
			t.Errorf("log shows a secret: %s", sb.String())
		}
	}
	if !strings.Contains(sb.String(), "app:xxxxx@db") {
		t.Errorf("log should show the masked URL: %s", sb.String())
	}
}

func TestShortCause(t *testing.T) {
	tests := map[string]string{
		"failed to connect to `user=postgres database=x`: 127.0.0.1:5999 (127.0.0.1): dial error: dial tcp 127.0.0.1:5999: connect: connection refused": "connection refused",
		`failed to connect: server error: FATAL: database "nodb" does not exist (SQLSTATE 3D000)`:                                                       `database "nodb" does not exist (SQLSTATE 3D000)`,
	}
	for in, want := range tests {
		if got := shortCause(errString(in)); got != want {
			t.Errorf("shortCause(%q) = %q, want %q", in, got, want)
		}
	}
}

type errString string

func (e errString) Error() string { return string(e) }

// The server's pool has DB_MAX_CONNS connections (the benchmarks build theirs
// with the same PoolConfig).
func TestPoolSizeFromConfig(t *testing.T) {
	cfg, err := LoadConfig(env(map[string]string{"DATABASE_URL": pgtest.NewDatabase(t), "DB_MAX_CONNS": "7"}))
	if err != nil {
		t.Fatal(err)
	}
	db, err := OpenDatabase(context.Background(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got := db.Pool.Config().MaxConns; got != 7 {
		t.Errorf("pool of %d connections, want DB_MAX_CONNS 7", got)
	}
}

// Every screen id an API route checks is a screen of web_screen; an unknown
// one stops the start (and `ledgerdesk check`).
func TestRouteScreenIDsExist(t *testing.T) {
	pool := pgtest.New(t)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if err := CheckRouteScreens(context.Background(), pool, log); err != nil {
		t.Fatal(err)
	}
	count := 0
	routeScreens.Range(func(any, any) bool { count++; return true })
	if count < 3 {
		t.Fatalf("only %d screen ids registered by the routes", count)
	}
	screen(99)
	defer routeScreens.Delete(99)
	if err := CheckRouteScreens(context.Background(), pool, log); err == nil || !strings.Contains(err.Error(), "[99]") {
		t.Errorf("a route checking screen 99: %v", err)
	}
}

// The web_screen table the migrations make is the list internal/screenids
// declares, row for row; a screen renamed, moved or added on one side only
// is named.
func TestScreenTableIsTheDeclaredList(t *testing.T) {
	pool := pgtest.New(t)
	ctx := context.Background()
	if err := checkScreenTable(ctx, pool); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `update web_screen set route = 'dashboard/screens/audit' where id = 16;
		insert into web_screen (id, screen_name, route) values (99, 'Stray', 'dashboard/stray')`); err != nil {
		t.Fatal(err)
	}
	err := checkScreenTable(ctx, pool)
	for _, want := range []string{`screen 16 is "Audit Trail" at dashboard/screens/audit, internal/screenids says "Audit Trail" at dashboard/audit`,
		"screen 99 (Stray) is not in internal/screenids"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
}
