package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"ledgerdesk/engine"
	"ledgerdesk/internal/pgtest"
)

// copyMetadata copies the repository's views.yaml, recon.yaml and forms/ to a temp folder.
func copyMetadata(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "forms"), 0o755)
	files, _ := filepath.Glob("../forms/*.yaml")
	for _, f := range append(files, "../views.yaml", "../recon.yaml") {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel("..", f)
		os.WriteFile(filepath.Join(dir, rel), b, 0o644)
	}
	return dir
}

// The README's "Add a screen" example: a few lines of YAML, no code, and the
// running server serves the new view's metadata and grid pages.
const newScreenYAML = `
  VW_SignInAttempts:
    source: login_attempt
    key: Id
    screen: 3
    defaultSort: {field: At, order: desc}
    export: Sign_In_Attempts
    columns:
      - {field: At, column: at, type: datetime}
      - {field: Username, column: username, type: text}
      - {field: Address, column: ip, type: text}
      - {field: Succeeded, column: succeeded, type: bool}
      - {field: Id, column: id, type: int, hidden: true}
`

func addView(t *testing.T, dir, yaml string) {
	t.Helper()
	p := filepath.Join(dir, "views.yaml")
	b, _ := os.ReadFile(p)
	s := strings.Replace(string(b), "\nviews:\n", "\nviews:"+yaml, 1)
	if s == string(b) {
		t.Fatal("views.yaml has no views: section")
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// serveMetadata runs Serve, as `ledgerdesk serve` does, with the metadata
// of dir and the environment env (beside a free port, the admin password
// and METADATA_DIR) until the test ends; it answers the server's base URL.
func serveMetadata(t *testing.T, dir string, env map[string]string) string {
	t.Helper()
	cfg, err := LoadConfig(func(k string) string {
		switch k {
		case "LISTEN_ADDR":
			return "127.0.0.1:0"
		case "LEDGERDESK_ADMIN_PASSWORD":
			return adminPassword
		case "METADATA_DIR":
			return dir
		}
		return env[k]
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	ready := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), ServeOptions{Metadata: os.DirFS(dir), MetadataDir: dir, Version: "test",
			Ready: func(a net.Addr) { ready <- a }})
	}()
	select {
	case a := <-ready:
		t.Cleanup(func() {
			stop()
			<-done
		})
		return "http://" + a.String()
	case err := <-done:
		stop()
		t.Fatalf("serve: %v", err)
	case <-time.After(60 * time.Second):
		stop()
		t.Fatal("server did not start")
	}
	return ""
}

func TestAddAScreenIsYAML(t *testing.T) {
	dir := copyMetadata(t)
	addView(t, dir, newScreenYAML)

	_, dbURL := pgtest.NewWithURL(t)
	base := serveMetadata(t, dir, map[string]string{"DATABASE_URL": dbURL})

	post := func(path, token, body string) map[string]any {
		t.Helper()
		req, _ := http.NewRequest("POST", base+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var env map[string]any
		json.NewDecoder(res.Body).Decode(&env)
		if res.StatusCode != 200 {
			t.Fatalf("POST %s: %d %v", path, res.StatusCode, env)
		}
		return env["data"].(map[string]any)
	}
	token := post("/api/auth/login", "", `{"username":"admin","password":"`+adminPassword+`"}`)["token"].(string)

	req, _ := http.NewRequest("GET", base+"/api/meta/views", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var views struct{ Data []engine.ViewSummary }
	json.NewDecoder(res.Body).Decode(&views)
	res.Body.Close()
	found := false
	for _, v := range views.Data {
		found = found || v.Name == "VW_SignInAttempts"
	}
	if !found {
		t.Fatalf("VW_SignInAttempts not in /api/meta/views: %v", views.Data)
	}
	page := post("/api/grid", token, `{"ViewName":"VW_SignInAttempts","PageSize":10,"Filters":[{"field":"Succeeded","op":"equals","value":"true"}]}`)
	rows := page["dataList"].([]any)
	if len(rows) != 1 || rows[0].(map[string]any)["Username"] != "admin" {
		t.Fatalf("the new grid's page: %v", page)
	}
}

func TestWatchReloadsMetadata(t *testing.T) {
	dir := copyMetadata(t)
	pool := pgtest.New(t)
	md, err := engine.LoadMetadata(os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	eng := engine.New(engine.Options{Pool: pool, Metadata: md})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logged := &lockedBuffer{}
	if err := WatchMetadata(ctx, dir, eng, pool, slog.New(slog.NewTextHandler(logged, nil))); err != nil {
		t.Fatal(err)
	}
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if cond() {
				return
			}
		}
		t.Fatalf("timed out waiting for %s", what)
	}

	addView(t, dir, newScreenYAML)
	waitFor("the new view", func() bool { return eng.Metadata().Views["VW_SignInAttempts"] != nil })

	// An edit that does not validate (a column the table lacks) keeps the old set.
	addView(t, dir, strings.Replace(strings.Replace(newScreenYAML, "VW_SignInAttempts", "VW_Broken", 1), "column: username", "column: no_such_column", 1))
	// The watcher says it refused the edit (presence, not a pause): then the old set must still be there.
	waitFor("the refusal of the broken edit", func() bool {
		return strings.Contains(logged.String(), "metadata reload refused") && strings.Contains(logged.String(), "no_such_column")
	})
	if eng.Metadata().Views["VW_Broken"] != nil || eng.Metadata().Views["VW_SignInAttempts"] == nil {
		t.Fatal("an invalid edit replaced the metadata")
	}
}

// lockedBuffer is a log destination the watcher goroutine writes while the test reads.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
