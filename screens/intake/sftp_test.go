package intake

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"ledgerdesk/engine"
	"ledgerdesk/internal/pgtest"
	"ledgerdesk/internal/sftptest"
)

// TestSFTPIntake pulls from a real SFTP server started in the test (SSH
// from golang.org/x/crypto, SFTP from github.com/pkg/sftp): a file is taken
// when two pulls in a row find it unchanged, once (the server keeps it); the
// same content under another name is refused as a duplicate; a bad file's
// import fails; a file renamed while it is read is not taken under the old
// name but once under the new; a server with another host key than the one
// pinned is refused before anything is read, and a missing password says
// which variable to set.
func TestSFTPIntake(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	root := t.TempDir()
	out := filepath.Join(root, "outgoing")
	if err := os.Mkdir(out, 0o750); err != nil {
		t.Fatal(err)
	}
	srv := sftptest.Start(t, root)
	source := func(hostKey string) string {
		return fmt.Sprintf(`sftp:
  - name: nuvei
    host: %s
    port: %d
    user: %s
    password: NUVEI_SFTP_PASSWORD
    hostKey: %q
    folder: %s
    kind: transaction
    schedule: "*/15 * * * *"
`, srv.Host, srv.Port, srv.User, strings.TrimSpace(hostKey), out)
	}
	env := map[string]string{"NUVEI_SFTP_PASSWORD": srv.Password}
	s := e.service(t, source(srv.HostKey), "", func(k string) string { return env[k] })
	pull := func(want Pulled) {
		t.Helper()
		got, err := s.Pull(ctx, "nuvei")
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("pull = %+v, want %+v", got, want)
		}
	}
	imported := func(name string) {
		t.Helper()
		pgtest.WaitFor(t, time.Minute, name+" imported", func() bool {
			return e.count(t, `select count(*) from import_file where file_name = $1 and status in ('succeeded', 'failed')`, name) == 1
		})
	}

	// Half-written, then complete: taken at the pull after the one that saw it complete.
	write(t, filepath.Join(out, "a.csv"), transactions(1, 1))
	pull(Pulled{Waiting: 1})
	appendTo(t, filepath.Join(out, "a.csv"), "C2,2026-03-01,Nuvei,Acq,Visa,SEK,100.00,Sale\n")
	pull(Pulled{Waiting: 1})
	pull(Pulled{Taken: 1})
	imported("a.csv")
	pull(Pulled{Skipped: 1}) // still on the server: not taken again
	if n := e.count(t, `select count(*) from card_transaction`); n != 2 {
		t.Fatalf("%d transactions, want 2", n)
	}

	// The same content as b.csv, and a bad file.
	content, _ := os.ReadFile(filepath.Join(out, "a.csv"))
	write(t, filepath.Join(out, "b.csv"), string(content))
	write(t, filepath.Join(out, "c.csv"), header+"C9,2026-03-01,Nuvei,Acq,Visa,SEK,12x,Sale\n")
	pull(Pulled{Skipped: 1, Waiting: 2})
	pull(Pulled{Skipped: 1, Taken: 2})
	imported("c.csv")
	if code := e.text(t, `select message_code from intake_seen where path like '%/b.csv'`); code != "import.duplicate" {
		t.Fatalf("b.csv: %q, want import.duplicate", code)
	}
	if status := e.text(t, `select status from import_file where file_name = 'c.csv'`); status != "failed" {
		t.Fatalf("c.csv import %s, want failed", status)
	}
	if n := e.count(t, `select count(*) from extraction_log where created_by = 'system'`); n != 3 {
		t.Fatalf("%d extraction-log rows, want 3 (a loaded, b refused, c failed)", n)
	}
	if n := e.count(t, `select count(*) from alert where kind = 'intakeFailed'`); n != 2 {
		t.Fatalf("%d intake alerts, want 2 (b refused, c failed)", n)
	}

	// Renamed while it is read: not taken; taken once under its new name.
	write(t, filepath.Join(out, "d.csv"), transactions(40, 1))
	pull(Pulled{Skipped: 3, Waiting: 1})
	s.afterDownload = func(path string) {
		if strings.HasSuffix(path, "/d.csv") {
			if err := os.Rename(filepath.Join(out, "d.csv"), filepath.Join(out, "d-final.csv")); err != nil {
				t.Error(err)
			}
		}
	}
	pull(Pulled{Skipped: 3, Waiting: 1})
	s.afterDownload = nil
	if n := e.count(t, `select count(*) from import_file where file_name = 'd.csv'`); n != 0 {
		t.Fatal("a file renamed while read was imported under its old name")
	}
	pull(Pulled{Skipped: 3, Waiting: 1})
	pull(Pulled{Skipped: 3, Taken: 1})
	imported("d-final.csv")
	if n := e.count(t, `select count(*) from card_transaction`); n != 3 {
		t.Fatalf("%d transactions, want 3", n)
	}

	// The pull job writes its outcome on the schedule.
	if err := s.Sync(ctx, time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := (&PullWorker{Intake: s}).Work(ctx, &river.Job[PullArgs]{Args: PullArgs{Source: "nuvei"}}); err != nil {
		t.Fatal(err)
	}
	if code := e.text(t, `select last_result_code from intake_schedule where name = 'sftp:nuvei'`); code != "intake.pulled" {
		t.Fatalf("schedule result %q, want intake.pulled", code)
	}

	// Another host key than the pinned one: refused, nothing read.
	other := sftptest.Start(t, t.TempDir())
	write(t, filepath.Join(out, "e.csv"), transactions(50, 1))
	wrong := e.service(t, source(other.HostKey), "", func(k string) string { return env[k] })
	if _, err := wrong.Pull(ctx, "nuvei"); !hasKey(err, "intake.hostKey") {
		t.Fatalf("pull with another host key: %v", err)
	}
	if n := e.count(t, `select count(*) from intake_seen where path like '%/e.csv'`); n != 0 {
		t.Fatal("a server with the wrong host key was read")
	}
	// The pull job raises one alert a day for a source that fails.
	for range 2 {
		if err := (&PullWorker{Intake: wrong}).Work(ctx, &river.Job[PullArgs]{Args: PullArgs{Source: "nuvei"}}); err != nil {
			t.Fatal(err)
		}
	}
	if n := e.count(t, `select count(*) from alert where key like 'pull:nuvei:%' and message_code = 'intake.hostKey'`); n != 1 {
		t.Fatalf("%d alerts for the failing pulls, want 1", n)
	}
	unset := e.service(t, source(srv.HostKey), "", func(string) string { return "" })
	if _, err := unset.Pull(ctx, "nuvei"); !hasKey(err, "intake.secretMissing") || !strings.Contains(err.Error(), "NUVEI_SFTP_PASSWORD") {
		t.Fatalf("pull without the password: %v", err)
	}
}

func hasKey(err error, key string) bool {
	var e *engine.Error
	return errors.As(err, &e) && e.Key == key
}

func (e *env) text(t *testing.T, sql string, args ...any) string {
	t.Helper()
	var s *string
	if err := e.pool.QueryRow(context.Background(), sql, args...).Scan(&s); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	if s == nil {
		return ""
	}
	return *s
}
