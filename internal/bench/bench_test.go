package bench

import (
	"net/url"
	"os"
	"strings"
	"testing"

	"ledgerdesk/engine"
	"ledgerdesk/internal/pgtest"
	"ledgerdesk/server"
)

// smallRun is what a benchmark run at a small scale in a test needs: a
// throwaway database of its own (by name, next to pgtest.AdminURL), the
// repository's metadata and the default configuration.
func smallRun(t *testing.T) (database string, md *engine.Metadata, cfg server.Config) {
	t.Helper()
	u, err := url.Parse(pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	if md, err = engine.LoadMetadata(os.DirFS("../..")); err != nil {
		t.Fatal(err)
	}
	if cfg, err = server.LoadConfig(func(string) string { return "" }); err != nil {
		t.Fatal(err)
	}
	return strings.TrimPrefix(u.Path, "/"), md, cfg
}

// outputHas reports each of wants the benchmark's output lacks.
func outputHas(t *testing.T, out string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
}
