package intake

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"ledgerdesk/internal/pgtest"
)

// TestDropFolder drops files into a real folder and looks at it as the
// server does: a file is taken only when two looks in a row find it
// unchanged (a half-written one waits), a file renamed between looks is
// taken once under its new name, tools' temporary names are left alone,
// and every file taken ends in done/ or failed/ with its result beside it
// and one extraction-log row: loaded, failed (a bad row) or refused (the
// same content again, an empty file).
func TestDropFolder(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	inbox := t.TempDir()
	s := e.service(t, "", inbox, nil)
	if err := s.PrepareFolder(); err != nil {
		t.Fatal(err)
	}
	scan := func() {
		t.Helper()
		if err := s.ScanFolder(ctx); err != nil {
			t.Fatal(err)
		}
	}
	in := func(name string) string { return filepath.Join(inbox, "transaction", name) }
	settled := func(dir, name string) {
		t.Helper()
		pgtest.WaitFor(t, time.Minute, name+" in "+dir, func() bool { scan(); return exists(filepath.Join(inbox, dir, name)) })
	}

	// Half-written: the first look sees part of it, the second a longer
	// file; only the third, finding it as the second did, takes it.
	write(t, in("march.csv"), transactions(1, 2))
	scan()
	appendTo(t, in("march.csv"), "C3,2026-03-01,Nuvei,Acq,Visa,SEK,100.00,Sale\n")
	scan()
	if !exists(in("march.csv")) || e.count(t, `select count(*) from import_file`) != 0 {
		t.Fatal("a file that changed between two looks was taken")
	}
	write(t, in("april.csv.part"), transactions(100, 1)) // a tool still writing it
	scan()
	settled("done", "march.csv")
	r := readResult(t, filepath.Join(inbox, "done", "march.csv.result.json"))
	if r.Outcome != "loaded" || r.Import == nil || r.Import.RowsLoaded != 3 || r.Import.CreatedBy != SystemUser {
		t.Fatalf("march.csv result = %+v (import %+v)", r, r.Import)
	}
	if n := e.count(t, `select count(*) from card_transaction`); n != 3 {
		t.Fatalf("%d transactions loaded, want 3", n)
	}
	if n := e.count(t, `select count(*) from extraction_log where created_by = 'system' and status = 'Success'`); n != 1 {
		t.Fatalf("%d success rows in the extraction log, want 1", n)
	}
	if !exists(in("april.csv.part")) {
		t.Fatal("a .part file was taken")
	}

	// The same content again under another name: refused, nothing loaded twice.
	write(t, in("march-again.csv"), transactions(1, 2)+"C3,2026-03-01,Nuvei,Acq,Visa,SEK,100.00,Sale\n")
	// A file with a bad amount: its import fails, nothing of it is loaded.
	write(t, in("bad.csv"), header+"C9,2026-03-01,Nuvei,Acq,Visa,SEK,12x,Sale\n")
	// An empty file: refused before it is stored.
	write(t, in("empty.csv"), "")
	scan()
	settled("failed", "march-again.csv")
	settled("failed", "bad.csv")
	settled("failed", "empty.csv")
	if r := readResult(t, filepath.Join(inbox, "failed", "march-again.csv.result.json")); r.Outcome != "refused" || r.ErrorCode != "import.duplicate" {
		t.Fatalf("duplicate result = %+v", r)
	}
	if r := readResult(t, filepath.Join(inbox, "failed", "bad.csv.result.json")); r.Outcome != "failed" || r.Import == nil || len(r.Import.RowErrors) == 0 {
		t.Fatalf("bad file result = %+v", r)
	}
	if r := readResult(t, filepath.Join(inbox, "failed", "empty.csv.result.json")); r.Outcome != "refused" || r.Error == "" {
		t.Fatalf("empty file result = %+v", r)
	}
	if n := e.count(t, `select count(*) from card_transaction`); n != 3 {
		t.Fatalf("%d transactions after the duplicate and the bad file, want 3", n)
	}
	if n := e.count(t, `select count(*) from extraction_log where created_by = 'system' and status = 'Failed'`); n != 3 {
		t.Fatalf("%d failed rows in the extraction log, want 3 (duplicate, bad, empty)", n)
	}
	if n := e.count(t, `select count(*) from alert where kind = 'intakeFailed' and screen = 2`); n != 3 {
		t.Fatalf("%d intake alerts, want 3 (duplicate, bad, empty)", n)
	}

	// Renamed between two looks: taken once, under the new name.
	write(t, in("may.csv"), transactions(200, 1))
	scan()
	if err := os.Rename(in("may.csv"), in("may-final.csv")); err != nil {
		t.Fatal(err)
	}
	scan()
	if e.count(t, `select count(*) from import_file where file_name like 'may%'`) != 0 {
		t.Fatal("a file renamed since the previous look was taken")
	}
	settled("done", "may-final.csv")
	// A name taken in done/ gets a number.
	write(t, in("march.csv"), transactions(300, 1))
	scan()
	settled("done", "march (2).csv")
	if n := e.count(t, `select count(*) from import_file where origin like 'folder:%'`); n != 4 {
		t.Fatalf("%d imports from the folder, want 4 (march, bad, may-final, march again)", n)
	}
	if !exists(in("april.csv.part")) {
		t.Fatal("the .part file went")
	}
}
