package intake

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"ledgerdesk/screens/imports"
)

// TestExpectedFilesAndAlerts drives the checks of expected files by a
// clock the test holds: at its time (Stockholm) a settlement file of a
// provider that has not come that day raises one alert (yesterday's file
// does not count), which a file arriving later clears; a bank file that did
// come in time raises none (account names compared without case). Failed
// runs and failed intake imports raise alerts in their own transaction, and
// a run of the level that succeeds clears the level's; an import records
// the providers its rows hold.
func TestExpectedFilesAndAlerts(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	s := e.service(t, `timeZone: Europe/Stockholm
digest: {off: true}
expected:
  - {name: nuvei-settlements, kind: settlement, provider: Nuvei, by: "09:00"}
  - {name: seb, kind: bank, bankAccount: SE123, by: "10:00", days: daily}
`, "", nil)
	at := func(v string) time.Time { return instant(t, v) }
	tick := func(now string) {
		t.Helper()
		if _, err := s.Tick(ctx, at(now)); err != nil {
			t.Fatal(err)
		}
	}
	loaded := func(kind, holder, finished string) {
		t.Helper()
		if _, err := e.pool.Exec(ctx, `insert into import_file (kind, file_name, format, descriptor, sha256, size_bytes, status, finished_on, holders)
			values ($1, 'f.csv', 'csv', 'default', md5(random()::text) || md5(random()::text), 10, 'succeeded', $2, array[$3])`, kind, at(finished), holder); err != nil {
			t.Fatal(err)
		}
	}
	open := func(kind string) int {
		return e.count(t, `select count(*) from alert where kind = $1 and cleared_on is null`, kind)
	}

	if err := s.Sync(ctx, at("2026-11-26T06:00:00Z")); err != nil { // Thursday
		t.Fatal(err)
	}
	loaded("settlement", "Nuvei", "2026-11-25T12:00:00Z") // yesterday's
	tick("2026-11-26T07:59:59Z")
	if n := e.count(t, `select count(*) from alert`); n != 0 {
		t.Fatalf("%d alerts before the expected time", n)
	}
	tick("2026-11-26T08:00:00Z") // 09:00 in Stockholm
	tick("2026-11-26T08:00:30Z")
	if open(AlertFileMissing) != 1 || e.text(t, `select key from alert`) != "missing:nuvei-settlements:2026-11-26" {
		t.Fatalf("%d missing-file alerts, key %q", open(AlertFileMissing), e.text(t, `select key from alert`))
	}
	loaded("bank", "se123", "2026-11-26T08:30:00Z")
	tick("2026-11-26T09:00:00Z") // 10:00: the bank file came
	if open(AlertFileMissing) != 1 || e.text(t, `select last_result_code from intake_schedule where name = 'expect:seb'`) != "intake.expectArrived" {
		t.Fatalf("the bank file that came in time: %d alerts, result %q", open(AlertFileMissing),
			e.text(t, `select last_result_code from intake_schedule where name = 'expect:seb'`))
	}
	loaded("settlement", "Adyen", "2026-11-26T09:10:00Z") // another provider's
	tick("2026-11-26T09:15:00Z")
	if open(AlertFileMissing) != 1 {
		t.Fatal("another provider's file cleared the alert")
	}
	loaded("settlement", "Nuvei", "2026-11-26T09:30:00Z") // late
	tick("2026-11-26T09:30:15Z")
	if open(AlertFileMissing) != 0 {
		t.Fatal("the late file did not clear its alert")
	}
	if due := e.text(t, `select to_char(next_due at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI') from intake_schedule where name = 'expect:nuvei-settlements'`); due != "2026-11-27T08:00" {
		t.Fatalf("next check %s, want Friday 09:00 Stockholm", due)
	}

	// A run that fails, then one that succeeds.
	var run int64
	if err := e.pool.QueryRow(ctx, `insert into recon_run (level, created_by) values (2, 'system') returning id`).Scan(&run); err != nil {
		t.Fatal(err)
	}
	if _, err := e.pool.Exec(ctx, `update recon_run set status = 'failed', error = 'boom', error_code = 'recon.runFailed', error_params = '{"runId": 1}' where id = $1`, run); err != nil {
		t.Fatal(err)
	}
	if open(AlertRunFailed) != 1 || e.text(t, `select message_code from alert where kind = 'runFailed'`) != "recon.runFailed" {
		t.Fatal("a failed run raised no alert with its error's code")
	}
	if _, err := e.pool.Exec(ctx, `insert into recon_run (level, created_by, status) values (2, 'system', 'running');
		update recon_run set status = 'succeeded' where status = 'running'`); err != nil {
		t.Fatal(err)
	}
	if open(AlertRunFailed) != 0 {
		t.Fatal("a run of the level that succeeded did not clear the alert")
	}

	// An intake import that fails; a user's upload that fails raises nothing.
	if _, err := e.pool.Exec(ctx, `insert into import_file (kind, file_name, format, descriptor, sha256, size_bytes, origin, status)
		values ('ticket', 'a.csv', 'csv', 'default', md5('a') || md5('a'), 1, 'folder:ticket/1-a.csv', 'running'),
		       ('ticket', 'b.csv', 'csv', 'default', md5('b') || md5('b'), 1, null, 'running');
		update import_file set status = 'failed', error = 'bad', error_code = 'import.badRows', error_params = '{"file": "a.csv", "count": 1}'
		where file_name in ('a.csv', 'b.csv')`); err != nil {
		t.Fatal(err)
	}
	if open(AlertIntakeFailed) != 1 || !strings.Contains(e.text(t, `select message_params::text from alert where kind = 'intakeFailed'`), `"count": 1`) {
		t.Fatalf("%d intake alerts for one failed intake import and a failed upload", open(AlertIntakeFailed))
	}

	// What a real import records of its rows' providers.
	f, err := e.imports.ImportNow(ctx, imports.Upload{Kind: imports.Settlement, FileName: "s.csv", Content: imports.ContentOf([]byte(
		"PayoutID,ClientUniqueID,SettlementDate,ProviderActor,AcquirerBank,SettlementCurrency,GrossAmount,Fees,SettlementNet\n" +
			"P1,C1,2026-03-01,Nuvei,Acq,SEK,10.00,1.00,9.00\nP2,C2,2026-03-01,Adyen,Acq,SEK,10.00,1.00,9.00\nP3,C3,2026-03-01,Nuvei,Acq,SEK,10.00,1.00,9.00\n"))})
	if err != nil || f.Status != "succeeded" {
		t.Fatalf("import: %v %+v", err, f)
	}
	var holders []string
	if err := e.pool.QueryRow(ctx, `select holders from import_file where id = $1`, f.ImportID).Scan(&holders); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(holders, []string{"Adyen", "Nuvei"}) {
		t.Fatalf("holders %v", holders)
	}
}
