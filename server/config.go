package server

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/mail"
	"net/url"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"ledgerdesk/engine"
)

// Config is everything Ledgerdesk reads from the environment, with its
// defaults. It is read once in main and passed down explicitly; nothing else
// calls os.Getenv. The README lists the same variables.
type Config struct {
	DatabaseURL     string        // DATABASE_URL; empty: the embedded cluster under DataDir/pg
	ReadDatabaseURL string        // READ_DATABASE_URL; optional replica for grids, exports, reports
	ListenAddr      string        // LISTEN_ADDR
	MetadataDir     string        // METADATA_DIR; empty: ./ when it holds views.yaml, else the embedded copy
	DataDir         string        // DATA_DIR: the embedded cluster and other local state
	JWTSecret       string        // JWT_SECRET; empty: generated and stored in the database on first run
	AdminPassword   string        // LEDGERDESK_ADMIN_PASSWORD; empty: generated and printed once
	SMTPURL         string        // SMTP_URL; empty: mail goes to the outbox table and the log
	MailFrom        string        // MAIL_FROM: sender address of the product's mail
	RatesURL        string        // RATES_URL
	UploadMaxBytes  int64         // UPLOAD_MAX_BYTES
	BodyLimitBytes  int           // BODY_LIMIT_BYTES: every request body except uploads
	SessionIdle     time.Duration // SESSION_IDLE_MINUTES: a session unused this long ends
	SessionsPerUser int           // SESSIONS_PER_USER: live sessions a user may have; a new one ends the oldest
	DBMaxConns      int           // DB_MAX_CONNS: connections of the pool (requests and the job queue share it)
	LogLevel        slog.Level
	LogFormat       string // LOG_FORMAT: text or json
	PreferenceKeys  int    // PREFERENCE_KEYS: preference keys a user may keep
	PreferenceBytes int    // PREFERENCE_BYTES: bytes of preferences a user may keep, all keys together
	ExportsPerUser  int    // EXPORTS_PER_USER: downloads a user may stream at once
	ExportsTotal    int    // EXPORTS_TOTAL: downloads streaming at once, all users together
	// GRID_QUICK_MS: the statement timeout of the quick lane of grid reads;
	// a read that outlasts it goes to the heavy lane (0: no lanes).
	GridQuick time.Duration
	// GRID_DEMAND_MS: a grid read of a large view slower than this asks for
	// an index made on demand when one can serve it (0: only reads that
	// outlast the quick lane do).
	GridDemand      time.Duration
	GridTimeout     time.Duration // GRID_TIMEOUT_SECONDS: the statement timeout of a heavy grid read
	GridHeavyTotal  int           // GRID_HEAVY_TOTAL: heavy grid reads at once, all users together
	GridHeavyUser   int           // GRID_HEAVY_PER_USER: heavy grid reads at once of one user
	PivotPeriods    int           // PIVOT_MAX_PERIODS: rows (periods) a bank overview may have
	ImportYearsBack int           // IMPORT_YEARS_BACK: how many years before today an imported date may lie
	ImportYearsNext int           // IMPORT_YEARS_AHEAD: how many years after today an imported date may lie
	StopWithParent  bool          // STOP_WITH_PARENT=1: serve ends when the process that started it does (go tool task up)
	InboxDir        string        // INBOX_DIR: the drop folder of intake.yaml; empty: none is watched
	// Getenv reads the secrets intake.yaml names by their variables (SFTP
	// passwords and keys): the getenv LoadConfig was given.
	Getenv func(string) string
}

// Defaults, in one place so the README and the code agree.
const (
	DefaultListenAddr     = ":8080"
	DefaultDataDir        = ".data"
	DefaultMailFrom       = "Ledgerdesk <no-reply@ledgerdesk.local>"
	DefaultRatesURL       = "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml"
	DefaultUploadMaxBytes = 100 << 20
	DefaultBodyLimitBytes = 1 << 20
	DefaultDBMaxConns     = 16
	DefaultSessionIdle    = 30 * time.Minute
	DefaultSessionsPer    = 10
	DefaultPrefKeys       = 100
	DefaultPrefBytes      = 1 << 20
	DefaultExportsPerUser = 2
	DefaultExportsTotal   = 4
	DefaultGridQuick      = 500 * time.Millisecond
	DefaultGridDemand     = 100 * time.Millisecond
	DefaultGridTimeout    = 10 * time.Second
	DefaultGridHeavyUser  = 1
	DefaultPivotPeriods   = 2000
	DefaultImportBack     = 20
	DefaultImportAhead    = 1
)

// LoadConfig reads the configuration from getenv (os.Getenv in production, a
// map in tests). It reports every bad value at once, each naming its variable.
func LoadConfig(getenv func(string) string) (Config, error) {
	cfg := Config{
		DatabaseURL:     strings.TrimSpace(getenv("DATABASE_URL")),
		ReadDatabaseURL: strings.TrimSpace(getenv("READ_DATABASE_URL")),
		ListenAddr:      orDefault(getenv("LISTEN_ADDR"), DefaultListenAddr),
		MetadataDir:     strings.TrimSpace(getenv("METADATA_DIR")),
		DataDir:         orDefault(getenv("DATA_DIR"), DefaultDataDir),
		JWTSecret:       getenv("JWT_SECRET"),
		AdminPassword:   getenv("LEDGERDESK_ADMIN_PASSWORD"),
		SMTPURL:         strings.TrimSpace(getenv("SMTP_URL")),
		MailFrom:        orDefault(getenv("MAIL_FROM"), DefaultMailFrom),
		RatesURL:        orDefault(getenv("RATES_URL"), DefaultRatesURL),
		UploadMaxBytes:  DefaultUploadMaxBytes,
		BodyLimitBytes:  DefaultBodyLimitBytes,
		DBMaxConns:      DefaultDBMaxConns,
		SessionIdle:     DefaultSessionIdle,
		SessionsPerUser: DefaultSessionsPer,
		LogFormat:       orDefault(getenv("LOG_FORMAT"), "text"),
		PreferenceKeys:  DefaultPrefKeys,
		PreferenceBytes: DefaultPrefBytes,
		ExportsPerUser:  DefaultExportsPerUser,
		ExportsTotal:    DefaultExportsTotal,
		GridQuick:       DefaultGridQuick,
		GridDemand:      DefaultGridDemand,
		GridTimeout:     DefaultGridTimeout,
		GridHeavyTotal:  max(1, runtime.NumCPU()/2),
		GridHeavyUser:   DefaultGridHeavyUser,
		PivotPeriods:    DefaultPivotPeriods,
		ImportYearsBack: DefaultImportBack,
		ImportYearsNext: DefaultImportAhead,
		InboxDir:        strings.TrimSpace(getenv("INBOX_DIR")),
		Getenv:          getenv,
	}
	var errs []error
	bad := func(name, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", name, fmt.Sprintf(format, args...)))
	}

	for name, v := range map[string]string{"DATABASE_URL": cfg.DatabaseURL, "READ_DATABASE_URL": cfg.ReadDatabaseURL} {
		if v == "" {
			continue
		}
		if u, err := url.Parse(v); err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
			bad(name, "must be a postgres:// URL")
		}
	}
	if cfg.ReadDatabaseURL != "" && cfg.DatabaseURL == "" {
		bad("READ_DATABASE_URL", "needs DATABASE_URL as well (the embedded database has no replica)")
	}
	if _, port, err := net.SplitHostPort(cfg.ListenAddr); err != nil {
		bad("LISTEN_ADDR", "must be host:port or :port, got %q", cfg.ListenAddr)
	} else if p, err := strconv.Atoi(port); err != nil || p < 0 || p > 65535 {
		bad("LISTEN_ADDR", "port must be a number from 0 to 65535, got %q", port)
	}
	if cfg.JWTSecret != "" && len(cfg.JWTSecret) < 32 {
		bad("JWT_SECRET", "must be at least 32 characters (or unset to generate one)")
	}
	if cfg.SMTPURL != "" {
		if u, err := url.Parse(cfg.SMTPURL); err != nil || (u.Scheme != "smtp" && u.Scheme != "smtps") || u.Host == "" {
			bad("SMTP_URL", "must look like smtp://user:pass@host:587 or smtps://host:465")
		}
	}
	if _, err := mail.ParseAddress(cfg.MailFrom); err != nil {
		bad("MAIL_FROM", "must be an email address, optionally with a name (Name <addr@host>)")
	}
	if u, err := url.Parse(cfg.RatesURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		bad("RATES_URL", "must be an http(s) URL")
	}
	if v := getenv("UPLOAD_MAX_BYTES"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1024 {
			bad("UPLOAD_MAX_BYTES", "must be a whole number of bytes, at least 1024, got %q", v)
		}
		cfg.UploadMaxBytes = n
	}
	if v := getenv("BODY_LIMIT_BYTES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1024 {
			bad("BODY_LIMIT_BYTES", "must be a whole number of bytes, at least 1024, got %q", v)
		}
		cfg.BodyLimitBytes = n
	}
	if v := getenv("DB_MAX_CONNS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 4 || n > 1000 {
			bad("DB_MAX_CONNS", "must be a whole number from 4 to 1000 (the job queue holds a few), got %q", v)
		}
		cfg.DBMaxConns = n
	}
	if v := getenv("SESSION_IDLE_MINUTES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 24*60 {
			bad("SESSION_IDLE_MINUTES", "must be a whole number of minutes from 1 to 1440, got %q", v)
		}
		cfg.SessionIdle = time.Duration(n) * time.Minute
	}
	if v := getenv("SESSIONS_PER_USER"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			bad("SESSIONS_PER_USER", "must be a whole number from 1 to 1000, got %q", v)
		}
		cfg.SessionsPerUser = n
	}
	for _, b := range []struct {
		name     string
		dst      *int
		min, max int
		unit     string
	}{
		{"PREFERENCE_KEYS", &cfg.PreferenceKeys, 10, 10000, ""},
		{"PREFERENCE_BYTES", &cfg.PreferenceBytes, 64 << 10, 64 << 20, " of bytes"},
		{"EXPORTS_PER_USER", &cfg.ExportsPerUser, 1, 100, ""},
		{"EXPORTS_TOTAL", &cfg.ExportsTotal, 1, 1000, ""},
		{"GRID_HEAVY_TOTAL", &cfg.GridHeavyTotal, 1, 1000, ""},
		{"GRID_HEAVY_PER_USER", &cfg.GridHeavyUser, 1, 100, ""},
		{"PIVOT_MAX_PERIODS", &cfg.PivotPeriods, 100, 100000, ""},
		{"IMPORT_YEARS_BACK", &cfg.ImportYearsBack, 1, 200, " of years"},
		{"IMPORT_YEARS_AHEAD", &cfg.ImportYearsNext, 0, 100, " of years"},
	} {
		if v := getenv(b.name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < b.min || n > b.max {
				bad(b.name, "must be a whole number%s from %d to %d, got %q", b.unit, b.min, b.max, v)
			}
			*b.dst = n
		}
	}
	for _, d := range []struct {
		name     string
		dst      *time.Duration
		unit     time.Duration
		min, max int
	}{
		{"GRID_QUICK_MS", &cfg.GridQuick, time.Millisecond, 0, 60000},
		{"GRID_DEMAND_MS", &cfg.GridDemand, time.Millisecond, 0, 60000},
		{"GRID_TIMEOUT_SECONDS", &cfg.GridTimeout, time.Second, 1, 3600},
	} {
		if v := getenv(d.name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < d.min || n > d.max {
				bad(d.name, "must be a whole number from %d to %d, got %q", d.min, d.max, v)
			}
			*d.dst = time.Duration(n) * d.unit
		}
	}
	switch v := getenv("STOP_WITH_PARENT"); v {
	case "", "0", "false":
	case "1", "true":
		cfg.StopWithParent = true
	default:
		bad("STOP_WITH_PARENT", "must be 1 or 0, got %q", v)
	}
	if v := getenv("LOG_LEVEL"); v != "" {
		if err := cfg.LogLevel.UnmarshalText([]byte(v)); err != nil {
			bad("LOG_LEVEL", "must be debug, info, warn or error, got %q", v)
		}
	}
	if cfg.LogFormat != "text" && cfg.LogFormat != "json" {
		bad("LOG_FORMAT", "must be text or json, got %q", cfg.LogFormat)
	}
	if cfg.InboxDir != "" {
		if st, err := os.Stat(cfg.InboxDir); err != nil || !st.IsDir() {
			bad("INBOX_DIR", "%q is not a directory", cfg.InboxDir)
		}
	}
	if cfg.MetadataDir != "" {
		if st, err := os.Stat(cfg.MetadataDir); err != nil || !st.IsDir() {
			bad("METADATA_DIR", "%q is not a directory", cfg.MetadataDir)
		}
	}
	return cfg, errors.Join(errs...)
}

// LogValue keeps secrets out of logs: passwords in URLs and the secrets
// themselves are masked.
func (c Config) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("database", describeDatabase(c.DatabaseURL)),
		slog.String("listen", c.ListenAddr),
		slog.String("metadata_dir", c.MetadataDir),
		slog.String("data_dir", c.DataDir),
		slog.Bool("jwt_secret_set", c.JWTSecret != ""),
		slog.String("smtp", MaskURL(c.SMTPURL)),
		slog.Int64("upload_max_bytes", c.UploadMaxBytes),
	)
}

func describeDatabase(u string) string {
	if u == "" {
		return "embedded"
	}
	return MaskURL(u)
}

// MaskURL hides the password of a URL so it can be logged or printed.
func MaskURL(raw string) string {
	if raw == "" {
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}

func orDefault(v, def string) string {
	if v = strings.TrimSpace(v); v == "" {
		return def
	}
	return v
}

// Lanes are the grid reads' quick and heavy lanes as configured (nil when
// GRID_QUICK_MS is 0).
func (cfg Config) Lanes() *engine.Lanes {
	if cfg.GridQuick <= 0 {
		return nil
	}
	return &engine.Lanes{Quick: cfg.GridQuick, HeavyTotal: cfg.GridHeavyTotal, HeavyPerUser: cfg.GridHeavyUser, Demand: cfg.GridDemand}
}
