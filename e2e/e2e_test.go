//go:build e2e

// Package e2e runs the browser tests: it builds the real binary with the UI
// embedded, starts it on a free port against a throwaway database, and runs
// every ui/e2e/*.e2e.mjs script (playwright-core driving Debian's chromium)
// against it. Run with `go tool task test` (or `go test -tags e2e ./e2e/`
// after `go tool task ui:build`).
package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"ledgerdesk/internal/pgtest"
	"ledgerdesk/internal/smtptest"
)

// adminPassword is the first admin's password in the throwaway database.
const adminPassword = "E2e#Admin2026"

func TestBrowser(t *testing.T) {
	p := startProduct(t)
	root, baseURL, srv, exited, logs := p.root, p.baseURL, p.srv, p.exited, p.logs
	// Scripts that need the demo data set load it with the binary (recon.e2e.mjs).
	demoEnv := []string{"LEDGERDESK_BIN=" + p.bin, "DATABASE_URL=" + p.databaseURL, "METADATA_DIR=" + root}
	mailbox := p.mailbox

	// E2E_SCRIPTS narrows the run to some scripts while working on them
	// (a glob such as "recon*"); CI runs them all.
	pattern := "*"
	if p := os.Getenv("E2E_SCRIPTS"); p != "" {
		pattern = p
	}
	scripts, _ := filepath.Glob(filepath.Join(root, "ui", "e2e", pattern+".e2e.mjs"))
	if len(scripts) == 0 {
		t.Fatal("no browser test scripts under ui/e2e")
	}
	for _, script := range scripts {
		t.Run(strings.TrimSuffix(filepath.Base(script), ".e2e.mjs"), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			node := exec.CommandContext(ctx, "node", script)
			node.Dir = filepath.Join(root, "ui")
			node.Env = append(os.Environ(), "BASE_URL="+baseURL, "ADMIN_PASSWORD="+adminPassword, "MAILBOX_URL="+mailbox.URL, "SCREENSHOT_DIR="+filepath.Join(root, "ui", "e2e-artifacts"))
			node.Env = append(node.Env, demoEnv...)
			node.Env = append(node.Env, "INBOX_DIR="+p.inbox)
			out, err := node.CombinedOutput()
			t.Logf("%s", out)
			if err != nil {
				t.Fatalf("%s failed: %v", filepath.Base(script), err)
			}
		})
	}

	// Graceful shutdown: SIGTERM ends the server cleanly and promptly.
	srv.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("server exit after SIGTERM: %v", err)
		}
		if !strings.Contains(logs.String(), "shutting down") {
			t.Error("the server did not log its shutdown")
		}
	case <-time.After(20 * time.Second):
		t.Error("server did not stop within 20s of SIGTERM")
	}
}

// TestAddAScreenInTheBrowser is the low-code proof: against a running
// server (serve --watch) with a copy of the metadata, the script adds a
// screen by writing files only (a view, a form, its menu entry and labels
// in four languages), then opens it in Swedish, filters, sorts, adds a row,
// edits a cell and exports it. No build step runs in between.
func TestAddAScreenInTheBrowser(t *testing.T) {
	root, _ := filepath.Abs("..")
	dir := t.TempDir()
	for _, name := range []string{"views.yaml", "recon.yaml", "intake.yaml", "forms", "imports", "labels"} {
		from, to := filepath.Join(root, name), filepath.Join(dir, name)
		if info, err := os.Stat(from); err == nil && info.IsDir() {
			err = os.CopyFS(to, os.DirFS(from))
			if err != nil {
				t.Fatal(err)
			}
			continue
		}
		b, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := startProductWith(t, dir)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	node := exec.CommandContext(ctx, "node", filepath.Join(root, "ui", "e2e", "addscreen.proof.mjs"))
	node.Dir = filepath.Join(root, "ui")
	node.Env = append(os.Environ(), "BASE_URL="+p.baseURL, "ADMIN_PASSWORD="+adminPassword, "METADATA_DIR="+dir,
		"SCREENSHOT_DIR="+filepath.Join(root, "ui", "e2e-artifacts"))
	out, err := node.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("addscreen.proof.mjs failed: %v\nserver log:\n%s", err, p.logs.String())
	}
}

// product is the real binary running on a free port against a throwaway
// database, with an in-process SMTP server and its mailbox.
type product struct {
	root, baseURL string
	metadataDir   string // METADATA_DIR: the repository, or a copy the test may edit
	bin           string // the binary under test
	databaseURL   string // its throwaway database
	srv           *exec.Cmd
	exited        chan error
	logs          *bytes.Buffer
	mailbox       *httptest.Server
	inbox         string // INBOX_DIR, the drop folder the server watches
}

// The binary is built once for all tests of the package.
var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
)

// startProduct builds the binary with the UI embedded and starts it, with
// the repository's metadata.
func startProduct(t testing.TB) *product {
	t.Helper()
	root, _ := filepath.Abs("..")
	return startProductWith(t, root)
}

// startProductWith starts the product with the metadata of metadataDir
// (METADATA_DIR) and, when that is not the repository, `serve --watch`: an
// edit of its files is live without a restart.
func startProductWith(t testing.TB, metadataDir string) *product {
	t.Helper()
	root, _ := filepath.Abs("..")
	if _, err := os.Stat(filepath.Join(root, "ui", "dist", "index.html")); err != nil {
		t.Fatal("ui/dist is not built: run `go tool task ui:build` first")
	}
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "ledgerdesk-e2e-")
		if err != nil {
			buildErr = err
			return
		}
		builtBin = filepath.Join(dir, "ledgerdesk")
		build := exec.Command("go", "build", "-tags", "embedui", "-o", builtBin, ".")
		build.Dir = root
		if out, err := build.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("%v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatalf("build: %v", buildErr)
	}
	bin := builtBin

	// Mail goes to a real SMTP server in this process; the browser scripts
	// read the codes it received from MAILBOX_URL/latest?to=<address>.
	smtp := smtptest.Start(t)
	mailbox := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m, ok := smtp.Latest(r.URL.Query().Get("to"))
		if !ok {
			http.Error(w, "no mail", http.StatusNotFound)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"to": m.To, "data": m.Data, "code": m.FindCode()})
	}))
	t.Cleanup(mailbox.Close)

	addr := freeAddr(t)
	baseURL := "http://" + addr
	srv := exec.Command(bin, "serve")
	if metadataDir != root {
		srv = exec.Command(bin, "serve", "--watch")
	}
	srv.Dir = root
	databaseURL := pgtest.NewDatabase(t)
	// the drop folder the intake script writes into (intake.yaml's folder)
	inbox := t.TempDir()
	srv.Env = append(os.Environ(),
		"DATABASE_URL="+databaseURL,
		"LISTEN_ADDR="+addr,
		"METADATA_DIR="+metadataDir,
		"LEDGERDESK_ADMIN_PASSWORD="+adminPassword,
		"SMTP_URL="+smtp.URL,
		"INBOX_DIR="+inbox,
	)
	logs := &bytes.Buffer{}
	srv.Stdout, srv.Stderr = logs, logs
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- srv.Wait() }()
	t.Cleanup(func() {
		if srv.ProcessState == nil {
			srv.Process.Kill()
		}
		if t.Failed() {
			t.Logf("server log:\n%s", logs.String())
		}
	})
	waitHealthy(t, baseURL, exited)
	return &product{root: root, metadataDir: metadataDir, baseURL: baseURL, bin: bin, databaseURL: databaseURL, srv: srv, exited: exited, logs: logs, mailbox: mailbox, inbox: inbox}
}

func freeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func waitHealthy(t testing.TB, baseURL string, exited <-chan error) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			t.Fatalf("server exited during start: %v", err)
		default:
		}
		res, err := http.Get(baseURL + "/api/health")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatal("server not healthy within 60s")
}

// TestMain removes the binary built for the package's tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if builtBin != "" {
		os.RemoveAll(filepath.Dir(builtBin))
	}
	os.Exit(code)
}
