package bench

import (
	"bytes"
	"context"
	"net/url"
	"os"
	"strings"
	"testing"

	"ledgerdesk/engine"
	"ledgerdesk/internal/pgtest"
	"ledgerdesk/screens/recon"
	"ledgerdesk/server"
)

// The reconciliation benchmark runs end to end at a small scale, so it
// cannot rot between the runs that measure (no figure is asserted).
func TestReconcileBenchRuns(t *testing.T) {
	u, err := url.Parse(pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	md, err := engine.LoadMetadata(os.DirFS("../.."))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cfg, err := server.LoadConfig(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	levels, err := recon.Load(os.DirFS("../.."))
	if err != nil {
		t.Fatal(err)
	}
	err = Reconcile(context.Background(), pgtest.AdminURL(), cfg, ReconcileOptions{Rows: 3000, Iterations: 2, Clients: 2,
		Database: strings.TrimPrefix(u.Path, "/"), Levels: levels}, &out, md)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if strings.Contains(out.String(), "| 0 / 0 /") {
		t.Errorf("a level matched nothing:\n%s", out.String())
	}
	for _, want := range []string{"ticket-transaction", "transaction-settlement", "settlement-bank", "COPY of its matches", "matches per second", "API/SQL p95"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the output lacks %q:\n%s", want, out.String())
		}
	}
}
