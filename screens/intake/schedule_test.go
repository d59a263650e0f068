package intake

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestSchedules drives the schedules by a clock the test holds: a weekday
// run at 06:00 Stockholm time starts once at that time (05:00 UTC in
// November), not before, not twice, and skips the weekend; a run whose
// level is still running waits, due, until it has finished; an intake
// import that loads rows makes the after-intake run of a level it feeds
// due, and a user's upload or an import of a kind the level does not read
// does not; a changed schedule is due at its new time and a schedule no
// longer declared goes.
func TestSchedules(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	const yamlText = `timeZone: Europe/Stockholm
digest: {off: true}
runs:
  - {level: ticket-transaction, schedule: "0 6 * * 1-5"}
  - {level: settlement-bank, afterIntake: true}
`
	s := e.service(t, yamlText, "", nil)
	at := func(v string) time.Time { return instant(t, v) }
	tick := func(now string, want int) {
		t.Helper()
		n, err := s.Tick(ctx, at(now))
		if err != nil {
			t.Fatal(err)
		}
		if n != want {
			t.Fatalf("tick at %s started %d, want %d", now, n, want)
		}
	}
	nextDue := func(name string) string {
		t.Helper()
		var due *time.Time
		if err := e.pool.QueryRow(ctx, `select next_due from intake_schedule where name = $1`, name).Scan(&due); err != nil {
			t.Fatal(err)
		}
		if due == nil {
			return ""
		}
		return due.UTC().Format(time.RFC3339)
	}
	runs := func(level int) int {
		return e.count(t, `select count(*) from recon_run where level = $1 and created_by = 'system'`, level)
	}

	if err := s.Sync(ctx, at("2026-11-26T12:00:00Z")); err != nil { // a Thursday
		t.Fatal(err)
	}
	if due := nextDue("run:ticket-transaction"); due != "2026-11-27T05:00:00Z" {
		t.Fatalf("first due %s, want Friday 06:00 in Stockholm", due)
	}
	if due := nextDue("run:settlement-bank"); due != "" {
		t.Fatalf("an after-intake run is due %s before any intake", due)
	}
	tick("2026-11-27T04:59:59Z", 0)
	tick("2026-11-27T05:00:00Z", 1)
	tick("2026-11-27T05:00:30Z", 0)
	if runs(1) != 1 {
		t.Fatalf("%d runs of level 1, want 1", runs(1))
	}
	if due := nextDue("run:ticket-transaction"); due != "2026-11-30T05:00:00Z" {
		t.Fatalf("next due %s, want Monday (the weekend skipped)", due)
	}
	// Monday: Friday's run is still queued (nothing runs level 1 here), so
	// Monday's waits, due, and starts once it has finished.
	tick("2026-11-30T05:00:00Z", 0)
	if code := e.text(t, `select last_result_code from intake_schedule where name = 'run:ticket-transaction'`); code != "intake.runWaiting" {
		t.Fatalf("result %q, want intake.runWaiting", code)
	}
	if _, err := e.pool.Exec(ctx, `update recon_run set status = 'succeeded', finished_on = now() where level = 1`); err != nil {
		t.Fatal(err)
	}
	tick("2026-11-30T05:00:15Z", 1)
	if runs(1) != 2 || nextDue("run:ticket-transaction") != "2026-12-01T05:00:00Z" {
		t.Fatalf("%d runs, next due %s", runs(1), nextDue("run:ticket-transaction"))
	}

	// Imports finishing: a user's upload (no origin), an intake import of
	// tickets (level 3 reads settlements and bank bookings), an intake
	// import that loaded nothing new: none makes level 3 due.
	finish := func(kind, origin string, loaded int) {
		t.Helper()
		var id int64
		if err := e.pool.QueryRow(ctx, `insert into import_file (kind, file_name, format, descriptor, sha256, size_bytes, origin)
			values ($1, 'f.csv', 'csv', 'default', md5(random()::text) || md5(random()::text), 10, nullif($2, '')) returning id`, kind, origin).Scan(&id); err != nil {
			t.Fatal(err)
		}
		if _, err := e.pool.Exec(ctx, `update import_file set status = 'succeeded', rows_loaded = $2 where id = $1`, id, loaded); err != nil {
			t.Fatal(err)
		}
	}
	finish("settlement", "", 5)
	finish("ticket", "folder:ticket/1-t.csv", 5)
	finish("bank", "folder:bank/2-b.csv", 0)
	if due := nextDue("run:settlement-bank"); due != "" {
		t.Fatalf("level 3 due %s without an intake of its kinds", due)
	}
	finish("bank", "sftp:bank:/out/b.csv@10:1", 3)
	if nextDue("run:settlement-bank") == "" {
		t.Fatal("an intake of bank bookings did not make level 3 due")
	}
	if n, err := s.Tick(ctx, time.Now().Add(time.Second)); err != nil || n != 1 || runs(3) != 1 {
		t.Fatalf("tick after the intake: %d started, %v; %d runs of level 3", n, err, runs(3))
	}
	if due := nextDue("run:settlement-bank"); due != "" {
		t.Fatalf("level 3 still due %s after its run started", due)
	}

	// A changed schedule is due at its new time; one no longer declared goes.
	changed := e.service(t, "timeZone: UTC\ndigest: {off: true}\nruns:\n  - {level: ticket-transaction, schedule: \"30 7 * * *\"}\n", "", nil)
	if err := changed.Sync(ctx, at("2026-12-01T08:00:00Z")); err != nil {
		t.Fatal(err)
	}
	if due := nextDue("run:ticket-transaction"); due != "2026-12-02T07:30:00Z" {
		t.Fatalf("changed schedule due %s", due)
	}
	if n := e.count(t, `select count(*) from intake_schedule`); n != 1 {
		t.Fatalf("%d schedules after the change, want 1", n)
	}
}

// TestParse names every problem of a bad intake.yaml at once.
func TestParse(t *testing.T) {
	_, err := Parse([]byte(`timeZone: Mars/Olympus
sftp:
  - {name: a, host: h, user: u, folder: /f, kind: card, schedule: "61 * * * *", hostKey: "nonsense"}
runs:
  - {level: nowhere}
`), func(string) bool { return false })
	if err == nil {
		t.Fatal("a bad intake.yaml was accepted")
	}
	for _, want := range []string{"timeZone", "give either password or key", "hostKey is not a public key", "kind must be", "schedule \"61 * * * *\"",
		"runs[0] nowhere: level is not a level", "give a schedule, afterIntake"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q:\n%v", want, err)
		}
	}
	if _, err := Parse([]byte("folder: {pool: 3s}\n"), nil); err == nil || !strings.Contains(err.Error(), "pool") {
		t.Errorf("an unknown key: %v", err)
	}
}
