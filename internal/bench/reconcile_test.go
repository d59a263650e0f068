package bench

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"ledgerdesk/internal/pgtest"
	"ledgerdesk/screens/recon"
)

// The reconciliation benchmark runs end to end at a small scale, so it
// cannot rot between the runs that measure (no figure is asserted).
func TestReconcileBenchRuns(t *testing.T) {
	database, md, cfg := smallRun(t)
	var out bytes.Buffer
	levels, err := recon.Load(os.DirFS("../.."))
	if err != nil {
		t.Fatal(err)
	}
	err = Reconcile(context.Background(), pgtest.AdminURL(), cfg, ReconcileOptions{Rows: 3000, Iterations: 2, Clients: 2,
		Database: database, Levels: levels}, &out, md)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if strings.Contains(out.String(), "| 0 / 0 /") {
		t.Errorf("a level matched nothing:\n%s", out.String())
	}
	outputHas(t, out.String(), "ticket-transaction", "transaction-settlement", "settlement-bank", "COPY of its matches", "COPY of its other writes", "matches per second", "API/SQL p95")
}
