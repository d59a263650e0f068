package intake

import (
	"context"
	"io"
	"log/slog"
	"mime"
	"mime/quotedprintable"
	"net/mail"
	"strings"
	"testing"
	"time"

	ldmail "ledgerdesk/internal/mail"
	"ledgerdesk/internal/pgtest"
	"ledgerdesk/internal/smtptest"
	"ledgerdesk/ui"
)

// TestDailyDigest sends the digest through a real SMTP server (in-process)
// and reads each mail as received: every user who asked for it gets the
// open alerts and overdue items their screens permit, in their language;
// a user who did not ask gets nothing, and neither does one with nothing
// to read. Cleared alerts and alerts older than a week are not listed.
func TestDailyDigest(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	smtp := smtptest.Start(t)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	sender, err := ldmail.New(smtp.URL, "Ledgerdesk <no-reply@ledgerdesk.test>", e.pool, log, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := e.service(t, "timeZone: Europe/Stockholm\n", "", nil)
	s.Mail, s.Messages, s.Texts = sender, ui.ServerMessages, ui.Texts
	s.LevelNames = map[int]string{}
	for _, l := range e.levels.Levels {
		s.LevelNames[l.N] = l.Name
	}

	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := e.pool.Exec(ctx, sql, args...); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	// roles: intake (data import), reconcile, both
	exec(`insert into role (role_name) values ('Intake'), ('Reconcile'), ('Both')`)
	exec(`insert into role_screen (role_id, screen_id) select r.id, s from role r, unnest(case r.role_name when 'Intake' then array[2]
		when 'Reconcile' then array[13] else array[2, 13] end) s where r.role_name in ('Intake', 'Reconcile', 'Both')`)
	user := func(name, lang, role string, digest bool) {
		t.Helper()
		exec(`insert into app_user (username, first_name, last_name, email, password_hash, language_code, daily_digest)
			values ($1, initcap($1), 'Test', $1 || '@example.com', 'x', $2, $3)`, name, lang, digest)
		exec(`insert into user_role (user_id, role_id) select u.id, r.id from app_user u, role r where u.username = $1 and r.role_name = $2`, name, role)
	}
	user("anna", "sv", "Both", true)
	user("bob", "en", "Reconcile", true)
	user("carl", "es", "Both", false)
	user("dora", "pt", "Intake", true)
	user("eve", "en", "Intake", true) // asked for it, but no longer active
	exec(`update app_user set is_active = false where username = 'eve'`)

	now := time.Date(2026, 11, 27, 6, 0, 0, 0, time.UTC)
	alert := func(key, kind string, screen int, code, params string, raised time.Time, cleared bool) {
		t.Helper()
		exec(`insert into alert (key, kind, screen, message, message_code, message_params, raised_on, cleared_on)
			values ($1, $2, $3, 'english text', $4, $5::jsonb, $6, case when $7 then now() end)`, key, kind, screen, code, params, raised, cleared)
	}
	alert("import:1", AlertIntakeFailed, 2, "alert.importFailed", `{"file": "nuvei.csv", "kind": "settlement", "detail": "line 3"}`, now.Add(-2*time.Hour), false)
	alert("run:1", AlertRunFailed, 13, "alert.runFailed", `{"runId": 7, "level": 2, "detail": "x"}`, now.Add(-time.Hour), false)
	alert("run:0", AlertRunFailed, 13, "alert.runFailed", `{"runId": 6, "level": 2, "detail": "x"}`, now.Add(-3*time.Hour), true)
	alert("import:0", AlertIntakeFailed, 2, "alert.importFailed", `{"file": "old.csv", "kind": "bank", "detail": "x"}`, now.Add(-8*24*time.Hour), false)
	// two items of level 1 past their SLA, one not yet
	exec(`insert into recon_open_item (level, side, record_id, kind, status, due_on) values
		(1, 'left', 1, 'ticket', 'unmatched', '2026-11-20'), (1, 'left', 2, 'ticket', 'unmatched', '2026-11-26'),
		(1, 'left', 3, 'ticket', 'unmatched', '2026-11-27')`)

	n, err := s.SendDigest(ctx, now)
	if err != nil {
		t.Fatal(err)
	}
	sender.Wait()
	if n != 3 {
		t.Fatalf("digest sent to %d users, want 3 (anna, bob, dora)", n)
	}
	read := func(to string) (subject, body string) {
		t.Helper()
		var m smtptest.Mail
		pgtest.WaitFor(t, 30*time.Second, "digest to "+to, func() bool { var ok bool; m, ok = smtp.Latest(to); return ok })
		msg, err := mail.ReadMessage(strings.NewReader(m.Data))
		if err != nil {
			t.Fatal(err)
		}
		subject, err = new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
		if err != nil {
			t.Fatal(err)
		}
		var r io.Reader = msg.Body
		if strings.EqualFold(msg.Header.Get("Content-Transfer-Encoding"), "quoted-printable") {
			r = quotedprintable.NewReader(r)
		}
		b, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		return subject, string(b)
	}
	has := func(who, body string, want ...string) {
		t.Helper()
		for _, w := range want {
			if !strings.Contains(body, w) {
				t.Errorf("%s's digest lacks %q:\n%s", who, w, body)
			}
		}
	}
	hasNot := func(who, body string, not ...string) {
		t.Helper()
		for _, w := range not {
			if strings.Contains(body, w) {
				t.Errorf("%s's digest has %q:\n%s", who, w, body)
			}
		}
	}
	level1 := func(lang string) string { return ui.Texts(lang)[s.LevelNames[1]] }

	subject, body := read("anna@example.com")
	if subject != "Ledgerdesk: 3 saker behöver dig (2026-11-27)" {
		t.Errorf("anna's subject %q", subject)
	}
	has("anna", body, "God morgon Anna", "Inläsning misslyckades", "Körning misslyckades", "nuvei.csv", level1("sv")+": 2")
	hasNot("anna", body, "old.csv", "körning 6", "Intake failed")

	subject, body = read("bob@example.com")
	if subject != "Ledgerdesk: 2 things need you (2026-11-27)" {
		t.Errorf("bob's subject %q", subject)
	}
	has("bob", body, "Good morning Bob", "Run failed", "Automatic reconcile run 7 of level 2 failed", level1("en")+": 2")
	hasNot("bob", body, "nuvei.csv", "Intake failed")

	_, body = read("dora@example.com")
	has("dora", body, "Bom dia Dora", "Receção falhada", "nuvei.csv")
	hasNot("dora", body, "Execução falhada", level1("pt"))

	for _, nobody := range []string{"carl@example.com", "eve@example.com"} {
		if _, ok := smtp.Latest(nobody); ok {
			t.Errorf("%s got a digest", nobody)
		}
	}
}
