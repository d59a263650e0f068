package intake

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"ledgerdesk/engine"
	"ledgerdesk/internal/mail"
	"ledgerdesk/internal/screenids"
	"ledgerdesk/screens/identity"
)

// Mailer sends a message (mail.Sender).
type Mailer interface {
	Send(m mail.Message)
}

// DigestArgs is the job that sends the daily digest due at At.
type DigestArgs struct {
	At time.Time `json:"at"`
}

// Kind names the job for the queue.
func (DigestArgs) Kind() string { return "intake_digest" }

// InsertOpts: one try; a digest sent twice is worse than one missed.
func (DigestArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{MaxAttempts: 1} }

// DigestWorker sends digests on any node.
type DigestWorker struct {
	river.WorkerDefaults[DigestArgs]
	Intake *Service
}

// Work sends the digest of the job's day.
func (w *DigestWorker) Work(ctx context.Context, job *river.Job[DigestArgs]) error {
	n, err := w.Intake.SendDigest(ctx, job.Args.At)
	if err != nil {
		return err
	}
	_, err = w.Intake.Pool.Exec(ctx, `update intake_schedule set last_result = $1, last_result_code = 'intake.digestSent',
		last_result_params = $2, updated_on = now() where name = 'digest'`,
		fmt.Sprintf("Sent to %d users.", n), map[string]any{"count": n})
	return err
}

// DigestDays is how far back the digest lists alerts still open.
const DigestDays = 7

// digestAlert is an open alert as the digest lists it.
type digestAlert struct {
	kind, text, code string
	screen           int
	params           map[string]any
	raised           time.Time
}

// SendDigest mails, at time at, every active user who asked for the daily
// digest (Profile) what needs them: the alerts not cleared of the last
// DigestDays days and the open items past their SLA, per level; each only
// what the user's screens permit (data import for intake alerts, reconcile
// for runs and open items), in the user's language. A user with nothing to
// read gets no mail. It answers how many were sent.
func (s *Service) SendDigest(ctx context.Context, at time.Time) (int, error) {
	if s.Mail == nil {
		return 0, nil
	}
	rows, err := s.Pool.Query(ctx, `select kind, message, message_code, screen, coalesce(message_params, '{}'), raised_on from alert
		where cleared_on is null and raised_on >= $1 order by raised_on desc, id desc`, at.Add(-DigestDays*24*time.Hour))
	if err != nil {
		return 0, err
	}
	alerts, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (a digestAlert, err error) {
		err = r.Scan(&a.kind, &a.text, &a.code, &a.screen, &a.params, &a.raised)
		return a, err
	})
	if err != nil {
		return 0, err
	}
	today := at.In(s.Config.Location()).Format(time.DateOnly)
	overdue := map[int]int64{}
	rows, err = s.Pool.Query(ctx, `select level, count(*) from recon_open_item where due_on < $1::date group by level order by level`, today)
	if err != nil {
		return 0, err
	}
	for rows.Next() {
		var level int
		var n int64
		if err := rows.Scan(&level, &n); err != nil {
			rows.Close()
			return 0, err
		}
		overdue[level] = n
	}
	rows.Close()

	rows, err = s.Pool.Query(ctx, `select u.first_name, u.email, u.language_code, array(`+identity.ScreensOfUser("u.id")+`)
		from app_user u where u.daily_digest and u.is_active order by u.id`)
	if err != nil {
		return 0, err
	}
	type reader struct {
		name, email, lang string
		screens           []int32
	}
	readers, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (u reader, err error) {
		err = r.Scan(&u.name, &u.email, &u.lang, &u.screens)
		return u, err
	})
	if err != nil {
		return 0, err
	}
	sent := 0
	for _, u := range readers {
		can := func(screen int) bool { return slices.Contains(u.screens, int32(screen)) }
		var mine []digestAlert
		for _, a := range alerts {
			if can(a.screen) {
				mine = append(mine, a)
			}
		}
		levels := []int{}
		if can(screenids.Reconcile) {
			for level := range overdue {
				levels = append(levels, level)
			}
			slices.Sort(levels)
		}
		if len(mine) == 0 && len(levels) == 0 {
			continue
		}
		subject, body := s.digestText(u.lang, u.name, today, mine, levels, overdue)
		s.Mail.Send(mail.Message{Channel: mail.Email, To: u.email, Subject: subject, Body: body})
		sent++
	}
	return sent, nil
}

// digestText writes one user's digest in lang.
func (s *Service) digestText(lang, name, today string, alerts []digestAlert, levels []int, overdue map[int]int64) (subject, body string) {
	msgs, texts := s.Messages(lang), s.Texts(lang)
	say := func(code string, params map[string]any) string {
		return engine.RenderMessage(lang, msgs, code, params, code)
	}
	text := func(key string) string {
		if t, ok := texts[key]; ok {
			return t
		}
		return key
	}
	subject = say("digest.subject", map[string]any{"date": today, "count": len(alerts) + len(levels)})
	var b strings.Builder
	b.WriteString(say("digest.greeting", map[string]any{"name": name, "date": today}) + "\n")
	if len(alerts) > 0 {
		b.WriteString("\n" + say("digest.alerts", map[string]any{"count": len(alerts)}) + "\n")
		for _, a := range alerts {
			fmt.Fprintf(&b, "- %s %s: %s\n", a.raised.In(s.Config.Location()).Format("2006-01-02 15:04"), say("digest.kinds."+a.kind, nil),
				engine.RenderMessage(lang, msgs, a.code, a.params, a.text))
		}
	}
	if len(levels) > 0 {
		b.WriteString("\n" + say("digest.overdueTitle", nil) + "\n")
		for _, level := range levels {
			fmt.Fprintf(&b, "- %s\n", say("digest.overdue", map[string]any{"count": overdue[level], "level": text(s.LevelNames[level])}))
		}
	}
	b.WriteString("\n" + say("digest.footer", nil) + "\n")
	return subject, b.String()
}
