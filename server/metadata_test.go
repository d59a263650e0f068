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

// copyMetadata copies the repository's views.yaml, recon.yaml, forms/ and labels/ to a temp folder.
func copyMetadata(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "forms"), 0o755)
	os.MkdirAll(filepath.Join(dir, "labels"), 0o755)
	files, _ := filepath.Glob("../forms/*.yaml")
	labels, _ := filepath.Glob("../labels/*.yaml")
	for _, f := range append(append(files, labels...), "../views.yaml", "../recon.yaml") {
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

// Its screen: a menu entry among the administration screens, after Roles.
const newScreenEntryYAML = `
  sign-ins:
    screen: 3
    title: screens.signIns.title
    menu: {group: administration, icon: pi-sign-in, after: roleslist}
    tabs:
      - {id: attempts, title: tabs.signIns, view: VW_SignInAttempts}
`

// And its labels, one block per language.
var newScreenLabels = map[string][3]string{ // views, screens, tabs
	"en": {"  VW_SignInAttempts:\n    fields: {At: Signed in at, Username: User, Address: Address, Succeeded: Succeeded}\n",
		"  signIns: {title: Sign-ins}\n", "  signIns: Sign-in attempts\n"},
	"sv": {"  VW_SignInAttempts:\n    fields: {At: Inloggad, Username: Användare, Address: Adress, Succeeded: Lyckades}\n",
		"  signIns: {title: Inloggningar}\n", "  signIns: Inloggningsförsök\n"},
	"es": {"  VW_SignInAttempts:\n    fields: {At: Inicio de sesión, Username: Usuario, Address: Dirección, Succeeded: Correcto}\n",
		"  signIns: {title: Inicios de sesión}\n", "  signIns: Intentos de inicio de sesión\n"},
	"pt": {"  VW_SignInAttempts:\n    fields: {At: Sessão iniciada, Username: Utilizador, Address: Endereço, Succeeded: Bem-sucedido}\n",
		"  signIns: {title: Inícios de sessão}\n", "  signIns: Tentativas de início de sessão\n"},
}

func addView(t *testing.T, dir, yaml string) {
	t.Helper()
	insertAfter(t, filepath.Join(dir, "views.yaml"), "\nviews:\n", yaml[1:])
}

// addScreen adds the new view's screen and its labels in the languages
// given (the others lack them).
func addScreen(t *testing.T, dir string, langs ...string) {
	t.Helper()
	insertAfter(t, filepath.Join(dir, "views.yaml"), "\nscreens:\n", newScreenEntryYAML[1:])
	for _, lang := range langs {
		l := newScreenLabels[lang]
		p := filepath.Join(dir, "labels", lang+".yaml")
		insertAfter(t, p, "\nviews:\n", l[0])
		insertAfter(t, p, "\nscreens:\n", l[1])
		insertAfter(t, p, "\ntabs:\n", l[2])
	}
}

// insertAfter writes text into the file p right after the first mark.
func insertAfter(t *testing.T, p, mark, text string) {
	t.Helper()
	b, _ := os.ReadFile(p)
	s := strings.Replace(string(b), mark, mark+text, 1)
	if s == string(b) {
		t.Fatalf("%s has no %q", p, mark)
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

// The README's recipe: a view, its screen with a menu entry and their
// labels in four languages are files only; a label a language lacks is
// named (file and key) before the server starts.
func TestAddAScreenIsYAML(t *testing.T) {
	dir := copyMetadata(t)
	addView(t, dir, newScreenYAML)
	addScreen(t, dir, "en", "sv")
	_, err := LoadMetadata(os.DirFS(dir))
	if err == nil {
		t.Fatal("a screen without its Spanish and Portuguese labels was accepted")
	}
	for _, want := range []string{"labels/es.yaml: missing views.VW_SignInAttempts.fields.At", "labels/pt.yaml: missing screens.signIns.title",
		"labels/pt.yaml: missing tabs.signIns"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "labels/sv.yaml") || strings.Contains(err.Error(), "labels/en.yaml") {
		t.Errorf("names a language that has its labels: %v", err)
	}
	dir = copyMetadata(t)
	addView(t, dir, newScreenYAML)
	addScreen(t, dir, "en", "sv", "es", "pt")

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

	get := func(path, etag string) (*http.Response, []byte) {
		t.Helper()
		req, _ := http.NewRequest("GET", base+path, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		if etag != "" {
			req.Header.Set("If-None-Match", etag)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res, b
	}
	// The screen is listed with its menu entry, and its labels are served in Swedish.
	_, b := get("/api/meta/screens", "")
	if !strings.Contains(string(b), `"route":"sign-ins"`) || !strings.Contains(string(b), `"menu":{"group":"administration","icon":"pi-sign-in","after":"roleslist"}`) {
		t.Errorf("screens: %s", b)
	}
	res, b = get("/api/meta/labels/sv", "")
	var labels struct {
		Data struct {
			Views   map[string]struct{ Fields map[string]string }
			Screens map[string]struct{ Title string }
		}
	}
	json.Unmarshal(b, &labels)
	if res.StatusCode != 200 || labels.Data.Views["VW_SignInAttempts"].Fields["Username"] != "Användare" || labels.Data.Screens["signIns"].Title != "Inloggningar" ||
		labels.Data.Views["VW_TblMasterCountry"].Fields["CountryName"] == "" {
		t.Errorf("Swedish labels: %d %.300s", res.StatusCode, b)
	}
	// A browser that has them is told they have not changed.
	if again, _ := get("/api/meta/labels/sv", res.Header.Get("ETag")); again.StatusCode != http.StatusNotModified {
		t.Errorf("labels with their ETag: %d, want 304", again.StatusCode)
	}
	if other, b := get("/api/meta/labels/de", ""); other.StatusCode != 404 || !strings.Contains(string(b), "labels.language") {
		t.Errorf("German labels: %d %s", other.StatusCode, b)
	}
	req, _ = http.NewRequest("GET", base+"/api/meta/labels/en", nil)
	if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode != 401 {
		t.Errorf("labels without a token: %v %v", res, err)
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

	// A view, its screen and their labels: reloaded together (a view whose
	// labels are not all there yet is refused until they are).
	addView(t, dir, newScreenYAML)
	addScreen(t, dir, "en", "sv", "es", "pt")
	waitFor("the new view, its screen and labels", func() bool {
		sv := eng.Metadata().Labels["sv"]
		return eng.Metadata().Screens["sign-ins"] != nil && sv != nil && sv.Flat["tabs.signIns"] == "Inloggningsförsök"
	})

	// An edit that does not validate (a column the table lacks) keeps the old set.
	addView(t, dir, strings.Replace(strings.Replace(newScreenYAML, "VW_SignInAttempts", "VW_Broken", 1), "column: username", "column: no_such_column", 1))
	for _, lang := range engine.Languages { // with its labels, so the column is what is refused
		insertAfter(t, filepath.Join(dir, "labels", lang+".yaml"), "\nviews:\n", strings.Replace(newScreenLabels[lang][0], "VW_SignInAttempts", "VW_Broken", 1))
	}
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
