package server

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ledgerdesk/internal/pgtest"
)

// TestIntakeServes runs the server as `serve` does with a drop folder and
// intake.yaml's after-intake run of level 1: a ticket file and a card
// transaction file dropped into their folders are imported as the user
// system and end in done/, the imports make level 1 due, the server's own
// tick starts the run, it matches the pair, and Configuration Settings'
// schedule grid says what the schedule last did.
func TestIntakeServes(t *testing.T) {
	dir := copyMetadata(t)
	if err := os.WriteFile(filepath.Join(dir, "intake.yaml"), []byte("tick: 1s\nfolder: {poll: 1s}\ndigest: {off: true}\nruns:\n  - {level: ticket-transaction, afterIntake: true}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	inbox := t.TempDir()
	pool, dbURL := pgtest.NewWithURL(t)
	base := serveMetadata(t, dir, map[string]string{"DATABASE_URL": dbURL, "INBOX_DIR": inbox})

	drop := func(kind, name, content string) {
		t.Helper()
		// written under a temporary name, then renamed: as a copying tool does
		tmp := filepath.Join(inbox, kind, name+".part")
		if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(inbox, kind, name)); err != nil {
			t.Fatal(err)
		}
	}
	drop("ticket", "tickets.csv", "TicketNumber,TransDate,PaymentType,CountryCode,Currency,TransactionCode,SaleAmount\n"+
		"1250000000001,2026-03-01,CC,SE,SEK,TKTT,100.00\n")
	drop("transaction", "transactions.csv", "ClientUniqueID,ProcessingDate,ProviderActor,AcquiringBank,PaymentMethod,Currency,TransactionAmount,TransactionType\n"+
		"1250000000001,2026-03-01,Nuvei,Acq,Visa,SEK,100.00,Sale\n")
	for _, f := range []string{"tickets.csv", "transactions.csv"} {
		pgtest.WaitFor(t, 2*time.Minute, f+" in done/", func() bool { return exists(filepath.Join(inbox, "done", f)) })
	}
	var matched int
	pgtest.WaitFor(t, 2*time.Minute, "level 1 matched by a run started after intake", func() bool {
		pool.QueryRow(context.Background(), `select count(*) from recon_match m join recon_run r on r.id = m.run_id
			where m.level = 1 and m.undone_on is null and r.created_by = 'system'`).Scan(&matched)
		return matched == 1
	})
	// a run the second import made due while the first ran starts after it
	pgtest.WaitFor(t, 2*time.Minute, "no run left due", func() bool {
		var due int
		pool.QueryRow(context.Background(), `select count(*) from intake_schedule where kind = 'run' and next_due is not null`).Scan(&due)
		return due == 0
	})
	var by string
	if err := pool.QueryRow(context.Background(), `select string_agg(distinct created_by, ',') from import_file`).Scan(&by); err != nil || by != "system" {
		t.Fatalf("imports made by %q (%v), want system", by, err)
	}

	token := login(t, base)
	req, _ := http.NewRequest("POST", base+"/api/grid", strings.NewReader(`{"ViewName":"VW_IntakeSchedules","PageSize":10}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var page struct {
		Data struct{ DataList []map[string]any }
	}
	if err := json.NewDecoder(res.Body).Decode(&page); err != nil || res.StatusCode != 200 {
		t.Fatalf("schedule grid: %d %v", res.StatusCode, err)
	}
	if len(page.Data.DataList) != 1 {
		t.Fatalf("schedule grid rows %v", page.Data.DataList)
	}
	row := page.Data.DataList[0]
	if row["Target"] != "ticket-transaction" || row["AfterIntake"] != true || row["LastResultCode"] != "intake.runStarted" || row["LastStarted"] == nil {
		t.Fatalf("schedule row %v", row)
	}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func login(t *testing.T, base string) string {
	t.Helper()
	res, err := http.Post(base+"/api/auth/login", "application/json", strings.NewReader(`{"username":"admin","password":"`+adminPassword+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var env struct{ Data struct{ Token string } }
	if err := json.NewDecoder(res.Body).Decode(&env); err != nil || env.Data.Token == "" {
		t.Fatalf("login: %d %v", res.StatusCode, err)
	}
	return env.Data.Token
}
