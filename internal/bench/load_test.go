package bench

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"ledgerdesk/internal/pgtest"
)

// The load benchmark runs end to end at a small scale (a few users for a
// few seconds, the real binary serving), so it cannot rot between the runs
// that measure. It fails on any error a user meets.
func TestLoadBenchRuns(t *testing.T) {
	database, _, cfg := smallRun(t)
	bin := filepath.Join(t.TempDir(), "ledgerdesk")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = "../.."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	var out bytes.Buffer
	err := Load(context.Background(), pgtest.AdminURL(), cfg, LoadOptions{Users: 3, Duration: 3 * time.Second, Scale: 1,
		Database: database, Binary: bin}, os.DirFS("../.."), &out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	outputHas(t, out.String(), "| grid page ", "| reconcile report ", "| home ", "| import (200 transactions) ", " 0 errors", "server memory (resident)")
}
