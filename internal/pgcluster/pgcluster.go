// Package pgcluster runs Ledgerdesk's embedded default database: a private
// PostgreSQL cluster under the data folder, made and started with the
// PostgreSQL binaries installed on the machine, and stopped with the server.
// It is used only when DATABASE_URL is unset.
package pgcluster

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// ErrNoBinaries means neither PATH nor /usr/lib/postgresql holds initdb and pg_ctl.
var ErrNoBinaries = errors.New("no PostgreSQL server binaries found (initdb, pg_ctl): " +
	"set DATABASE_URL to a PostgreSQL database you run, " +
	"or install PostgreSQL (for example: apt-get install -y postgresql) so Ledgerdesk can run its own under DATA_DIR/pg")

// Database is the database Ledgerdesk uses inside the embedded cluster.
const Database = "ledgerdesk"

// Cluster is a running embedded cluster.
type Cluster struct {
	Dir     string // the cluster's data directory
	Port    int
	binDir  string
	pass    string
	cred    *syscall.Credential // nil unless we run as root and act as the postgres user
	started bool                // false when another process had already started it
	log     *slog.Logger
}

// URL is the connection string of the Ledgerdesk database in the cluster.
func (c *Cluster) URL() string {
	return fmt.Sprintf("postgres://postgres:%s@127.0.0.1:%d/%s?sslmode=disable", c.pass, c.Port, Database)
}

// Start makes sure a cluster exists under dataDir/pg, starts it unless it is
// already running, and creates the Ledgerdesk database in it. The caller must
// call Stop, which stops the cluster only if this process started it.
func Start(ctx context.Context, dataDir string, log *slog.Logger) (*Cluster, error) {
	binDir, err := FindBinaries()
	if err != nil {
		return nil, err
	}
	absData, err := filepath.Abs(dataDir)
	if err != nil {
		return nil, fmt.Errorf("DATA_DIR %q: %w", dataDir, err)
	}
	c := &Cluster{Dir: filepath.Join(absData, "pg"), binDir: binDir, log: log}
	if err := os.MkdirAll(absData, 0o755); err != nil {
		return nil, fmt.Errorf("cannot create the data folder %s (%s): set DATA_DIR to a writable folder, or DATABASE_URL", absData, reason(err))
	}
	if err := checkWritable(absData); err != nil {
		return nil, fmt.Errorf("the data folder %s is not writable (%s): set DATA_DIR to a writable folder, or DATABASE_URL", absData, reason(err))
	}
	if os.Geteuid() == 0 {
		// PostgreSQL refuses to run as root; act as the postgres OS user.
		if c.cred, err = postgresUser(); err != nil {
			return nil, err
		}
	}
	if c.pass, err = loadOrCreatePassword(filepath.Join(absData, "pg.password")); err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(c.Dir, "PG_VERSION")); errors.Is(err, os.ErrNotExist) {
		if err := c.initdb(ctx); err != nil {
			return nil, err
		}
	}
	if port, running := c.runningPort(ctx); running {
		c.Port = port
		log.Info("embedded database already running", "dir", c.Dir, "port", port)
	} else {
		if err := c.start(ctx); err != nil {
			return nil, err
		}
	}
	if err := c.createDatabase(ctx); err != nil {
		c.Stop()
		return nil, err
	}
	return c, nil
}

// StartReplica makes a streaming replica of the running cluster primary
// under dataDir/pg (a base backup taken with pg_basebackup, which writes
// the standby's connection to the primary), starts it on a port of its own
// and waits until it answers reads. It serves what READ_DATABASE_URL is for
// (grids, exports and reports read there) on one machine: the tests, or a
// trial of a deployment with a replica. The caller must call Stop.
func StartReplica(ctx context.Context, primary *Cluster, dataDir string, log *slog.Logger) (*Cluster, error) {
	absData, err := filepath.Abs(dataDir)
	if err != nil {
		return nil, fmt.Errorf("replica folder %q: %w", dataDir, err)
	}
	c := &Cluster{Dir: filepath.Join(absData, "pg"), binDir: primary.binDir, pass: primary.pass, cred: primary.cred, log: log}
	if _, err := os.Stat(filepath.Join(c.binDir, "pg_basebackup")); err != nil {
		return nil, fmt.Errorf("no pg_basebackup beside %s: %s", filepath.Join(c.binDir, "pg_ctl"), reason(err))
	}
	if err := os.MkdirAll(c.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("create %s: %s", c.Dir, reason(err))
	}
	if err := c.chown(c.Dir); err != nil {
		return nil, err
	}
	// -R: standby.signal and the primary's connection in postgresql.auto.conf;
	// -X stream: the WAL written during the copy comes with it.
	out, err := c.runEnv(ctx, []string{"PGPASSWORD=" + c.pass}, "pg_basebackup", "-D", c.Dir, "-R", "-X", "stream", "-c", "fast",
		"-h", "127.0.0.1", "-p", strconv.Itoa(primary.Port), "-U", "postgres")
	if err != nil {
		return nil, fmt.Errorf("pg_basebackup failed: %s", lastLines(out, 3))
	}
	if err := c.start(ctx); err != nil {
		return nil, err
	}
	// pg_ctl -w returns once the standby accepts connections: it has
	// replayed up to a consistent state and reads are served.
	log.Info("embedded replica started", "dir", c.Dir, "port", c.Port, "primary", primary.Port)
	return c, nil
}

// Stop stops the cluster if this process started it. Safe to call twice.
func (c *Cluster) Stop() error {
	if c == nil || !c.started {
		return nil
	}
	c.started = false
	out, err := c.run(context.Background(), "pg_ctl", "stop", "-D", c.Dir, "-m", "fast", "-w", "-t", "60")
	if err != nil {
		return fmt.Errorf("stop embedded database: %v: %s", err, lastLines(out, 3))
	}
	c.log.Info("embedded database stopped", "dir", c.Dir)
	return nil
}

// libGlob is where Debian and Ubuntu install the server binaries, one
// folder per major version.
var libGlob = "/usr/lib/postgresql/*/bin"

// FindBinaries returns the folder holding initdb, pg_ctl and postgres: the one
// on PATH, else the newest /usr/lib/postgresql/<version>/bin.
func FindBinaries() (string, error) {
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		dir := filepath.Dir(p)
		if hasAll(dir) {
			return dir, nil
		}
	}
	dirs, _ := filepath.Glob(libGlob)
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if hasAll(d) {
			return d, nil
		}
	}
	return "", ErrNoBinaries
}

func hasAll(dir string) bool {
	for _, name := range []string{"initdb", "pg_ctl", "postgres"} {
		if st, err := os.Stat(filepath.Join(dir, name)); err != nil || st.IsDir() {
			return false
		}
	}
	return true
}

func version(binDir string) float64 {
	v, _ := strconv.ParseFloat(filepath.Base(filepath.Dir(binDir)), 64)
	return v
}

func (c *Cluster) initdb(ctx context.Context) error {
	if err := os.MkdirAll(c.Dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %s", c.Dir, reason(err))
	}
	pwfile := c.Dir + ".pwfile"
	if err := os.WriteFile(pwfile, []byte(c.pass+"\n"), 0o600); err != nil {
		return fmt.Errorf("write %s: %s", pwfile, reason(err))
	}
	defer os.Remove(pwfile)
	if err := c.chown(c.Dir, pwfile); err != nil {
		return err
	}
	c.log.Info("creating the embedded database cluster", "dir", c.Dir, "binaries", c.binDir)
	out, err := c.run(ctx, "initdb", "-D", c.Dir, "-U", "postgres", "--pwfile", pwfile,
		"-A", "scram-sha-256", "-E", "UTF8", "--locale=C")
	if err != nil {
		os.RemoveAll(c.Dir) // a half-made cluster would fail every later start
		return fmt.Errorf("initdb failed: %s", lastLines(out, 3))
	}
	// Only this machine may connect, and only over TCP: no socket file to place.
	// Memory for bulk imports and grids over millions of rows: the 128 MB
	// default makes index maintenance of a million-row import thrash.
	conf := "\n# ledgerdesk embedded cluster\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = ''\n" +
		"shared_buffers = '512MB'\nmax_wal_size = '4GB'\nwal_compression = on\ncheckpoint_timeout = '15min'\n"
	f, err := os.OpenFile(filepath.Join(c.Dir, "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("configure the embedded database: %s", reason(err))
	}
	defer f.Close()
	_, err = f.WriteString(conf)
	return err
}

func (c *Cluster) start(ctx context.Context) error {
	port, err := freePort()
	if err != nil {
		return fmt.Errorf("find a free port for the embedded database: %w", err)
	}
	logFile := filepath.Join(c.Dir, "server.log")
	out, err := c.run(ctx, "pg_ctl", "start", "-D", c.Dir, "-w", "-t", "60", "-l", logFile, "-o", "-p "+strconv.Itoa(port))
	if err != nil {
		detail := lastLines(out, 2)
		if b, rerr := os.ReadFile(logFile); rerr == nil {
			detail = lastLines(b, 3)
		}
		return fmt.Errorf("the embedded database did not start: %s", detail)
	}
	c.Port, c.started = port, true
	c.log.Info("embedded database started", "dir", c.Dir, "port", port)
	return nil
}

// runningPort reports whether a postmaster is running on the cluster and on
// which port (line 4 of postmaster.pid).
func (c *Cluster) runningPort(ctx context.Context) (int, bool) {
	if _, err := c.run(ctx, "pg_ctl", "status", "-D", c.Dir); err != nil {
		return 0, false
	}
	b, err := os.ReadFile(filepath.Join(c.Dir, "postmaster.pid"))
	if err != nil {
		return 0, false
	}
	lines := strings.Split(string(b), "\n")
	if len(lines) < 4 {
		return 0, false
	}
	port, err := strconv.Atoi(strings.TrimSpace(lines[3]))
	return port, err == nil
}

func (c *Cluster) createDatabase(ctx context.Context) error {
	admin := fmt.Sprintf("postgres://postgres:%s@127.0.0.1:%d/postgres?sslmode=disable", c.pass, c.Port)
	cctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	conn, err := pgx.Connect(cctx, admin)
	if err != nil {
		return fmt.Errorf("connect to the embedded database: %w", err)
	}
	defer conn.Close(context.Background())
	var exists bool
	if err := conn.QueryRow(cctx, "select exists(select 1 from pg_database where datname = $1)", Database).Scan(&exists); err != nil {
		return fmt.Errorf("embedded database: %w", err)
	}
	if !exists {
		if _, err := conn.Exec(cctx, "create database "+Database); err != nil {
			return fmt.Errorf("create database %s: %w", Database, err)
		}
	}
	return nil
}

// run executes one of the PostgreSQL binaries, as the postgres user when we
// are root, in its own process group so a Ctrl-C at the terminal reaches only
// Ledgerdesk, which then stops the cluster in order.
func (c *Cluster) run(ctx context.Context, name string, args ...string) ([]byte, error) {
	return c.runEnv(ctx, nil, name, args...)
}

// runEnv is run with further environment variables.
func (c *Cluster) runEnv(ctx context.Context, env []string, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, filepath.Join(c.binDir, name), args...)
	cmd.Dir = filepath.Dir(c.Dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Credential: c.cred}
	cmd.Env = append(append(os.Environ(), "LC_ALL=C"), env...)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err := cmd.Run()
	return buf.Bytes(), err
}

func (c *Cluster) chown(paths ...string) error {
	if c.cred == nil {
		return nil
	}
	for _, p := range paths {
		if err := os.Chown(p, int(c.cred.Uid), int(c.cred.Gid)); err != nil {
			return fmt.Errorf("hand %s to the postgres user: %s", p, reason(err))
		}
	}
	return nil
}

func postgresUser() (*syscall.Credential, error) {
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, errors.New("running as root, the embedded database needs the postgres OS user (PostgreSQL refuses to run as root): create it, run as another user, or set DATABASE_URL")
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

func loadOrCreatePassword(path string) (string, error) {
	if b, err := os.ReadFile(path); err == nil && len(bytes.TrimSpace(b)) > 0 {
		return string(bytes.TrimSpace(b)), nil
	}
	buf := make([]byte, 24)
	if _, err := rand.Read(buf); err != nil {
		return "", err
	}
	pass := hex.EncodeToString(buf)
	if err := os.WriteFile(path, []byte(pass+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("write %s: %s", path, reason(err))
	}
	return pass, nil
}

func checkWritable(dir string) error {
	f, err := os.CreateTemp(dir, ".write-check-*")
	if err != nil {
		return err
	}
	f.Close()
	return os.Remove(f.Name())
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// reason is the short cause of a file-system error, without the path that the
// caller's message already names.
func reason(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

func lastLines(b []byte, n int) string {
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if s := strings.TrimSpace(sc.Text()); s != "" {
			lines = append(lines, s)
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " / ")
}
