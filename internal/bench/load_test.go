package bench

import (
	"bytes"
	"context"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ledgerdesk/internal/pgtest"
	"ledgerdesk/server"
)

// The load benchmark runs end to end at a small scale (a few users for a
// few seconds, the real binary serving), so it cannot rot between the runs
// that measure. It fails on any error a user meets.
func TestLoadBenchRuns(t *testing.T) {
	u, err := url.Parse(pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "ledgerdesk")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = "../.."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	cfg, err := server.LoadConfig(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err = Load(context.Background(), pgtest.AdminURL(), cfg, LoadOptions{Users: 3, Duration: 3 * time.Second, Scale: 1,
		Database: strings.TrimPrefix(u.Path, "/"), Binary: bin}, os.DirFS("../.."), &out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	for _, want := range []string{"| grid page ", "| reconcile report ", "| home ", "| import (200 transactions) ", " 0 errors", "server memory (resident)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the output lacks %q:\n%s", want, out.String())
		}
	}
}
