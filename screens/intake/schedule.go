package intake

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"ledgerdesk/engine"
)

// entry is one schedule intake.yaml declares.
type entry struct {
	name, kind, target, cron string
	afterIntake              bool
	kinds                    []string
}

func (s *Service) entries() []entry {
	var out []entry
	for _, src := range s.Config.SFTP {
		out = append(out, entry{name: "sftp:" + src.Name, kind: "sftp", target: src.Name, cron: src.Schedule, kinds: []string{}})
	}
	for _, r := range s.Config.Runs {
		kinds := []string{}
		if r.AfterIntake && s.Kinds != nil {
			kinds = s.Kinds(r.Level)
		}
		out = append(out, entry{name: "run:" + r.Level, kind: "run", target: r.Level, cron: r.Schedule, afterIntake: r.AfterIntake, kinds: kinds})
	}
	for _, e := range s.Config.Expected {
		out = append(out, entry{name: "expect:" + e.Name, kind: "expect", target: e.Name, cron: e.cron, kinds: []string{}})
	}
	if !s.Config.Digest.Off {
		out = append(out, entry{name: "digest", kind: "digest", target: "daily", cron: s.Config.Digest.cron, kinds: []string{}})
	}
	return out
}

// Sync writes intake.yaml's schedules to intake_schedule: new ones are due
// at their first time after now, changed ones at their new time (a run an
// intake made due stays due), and schedules no longer declared go. A time
// that passed while no server ran is due at the first tick.
func (s *Service) Sync(ctx context.Context, now time.Time) error {
	zone := s.Config.Location().String()
	return pgx.BeginFunc(ctx, s.Pool, func(tx pgx.Tx) error {
		names := []string{}
		for _, e := range s.entries() {
			var due *time.Time
			if e.cron != "" {
				t, err := next(e.cron, s.Config.Location(), now)
				if err != nil {
					return err
				}
				due = &t
			}
			_, err := tx.Exec(ctx, `insert into intake_schedule as s (name, kind, target, cron, time_zone, after_intake, kinds, next_due)
				values ($1, $2, $3, nullif($4, ''), $5, $6, $7, $8)
				on conflict (name) do update set kind = excluded.kind, target = excluded.target, cron = excluded.cron,
					time_zone = excluded.time_zone, after_intake = excluded.after_intake, kinds = excluded.kinds, updated_on = now(),
					next_due = case when s.cron is distinct from excluded.cron or s.time_zone <> excluded.time_zone
						then case when s.after_intake and excluded.after_intake and s.next_due <= $9 then s.next_due else excluded.next_due end
						else s.next_due end`,
				e.name, e.kind, e.target, e.cron, zone, e.afterIntake, e.kinds, due, now)
			if err != nil {
				return err
			}
			names = append(names, e.name)
		}
		_, err := tx.Exec(ctx, `delete from intake_schedule where name <> all($1)`, names)
		return err
	})
}

// due is a schedule whose time has come.
type due struct {
	name, kind, target, cron, zone string
	nextDue                        time.Time
	lastJob                        *int64
}

// Tick starts the work whose time has come at now: an SFTP pull job, or an
// automatic run of a level. One transaction; a schedule another node is
// starting is skipped (its row is locked). A run whose level is already
// running stays due and starts at a later tick; a pull whose last job is
// still going is skipped until its next time. It answers how many started.
func (s *Service) Tick(ctx context.Context, now time.Time) (int, error) {
	ctx = system(ctx)
	started := 0
	err := pgx.BeginFunc(ctx, s.Pool, func(tx pgx.Tx) error {
		started = 0
		rows, err := tx.Query(ctx, `select name, kind, target, coalesce(cron, ''), time_zone, next_due, last_job_id from intake_schedule
			where next_due <= $1 order by next_due, name for update skip locked`, now)
		if err != nil {
			return err
		}
		list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (d due, err error) {
			err = r.Scan(&d.name, &d.kind, &d.target, &d.cron, &d.zone, &d.nextDue, &d.lastJob)
			return d, err
		})
		if err != nil {
			return err
		}
		// Missing files that came late clear their alerts.
		if err := clearArrived(ctx, tx); err != nil {
			return err
		}
		for _, d := range list {
			res, ok, jobID, keep, err := s.start(ctx, tx, d)
			if err != nil {
				return err
			}
			if ok {
				started++
			}
			nextDue := &d.nextDue
			if !keep {
				nextDue = nil
				if d.cron != "" {
					loc, lerr := time.LoadLocation(d.zone)
					if lerr != nil {
						loc = time.UTC
					}
					t, err := next(d.cron, loc, now)
					if err != nil {
						return err
					}
					nextDue = &t
				}
			}
			if _, err := tx.Exec(ctx, `update intake_schedule set next_due = $2,
					last_started = case when $3 then $4 else last_started end, last_job_id = coalesce($5, last_job_id),
					last_result = $6, last_result_code = $7, last_result_params = $8, updated_on = now()
				where name = $1`, d.name, nextDue, ok, now, jobID, res.Text, res.Code, res.Params); err != nil {
				return err
			}
		}
		return nil
	})
	return started, err
}

// start starts one due schedule's work in tx. started: it did; jobID: the
// pull job it queued; keep: it could not start yet and stays due.
func (s *Service) start(ctx context.Context, tx pgx.Tx, d due) (res message, started bool, jobID *int64, keep bool, err error) {
	switch d.kind {
	case "run":
		if s.Runs == nil {
			return message{}, false, nil, true, nil
		}
		runID, active, err := s.Runs.QueueTx(ctx, tx, d.target, SystemUser)
		var e *engine.Error
		if errors.As(err, &e) {
			return message{Text: e.Message, Code: e.Key, Params: e.Params}, false, nil, false, nil
		}
		if err != nil {
			return message{}, false, nil, false, err
		}
		if runID == 0 {
			return message{Text: fmt.Sprintf("Waiting for run %d of the level to finish.", active),
				Code: "intake.runWaiting", Params: map[string]any{"runId": active}}, false, nil, true, nil
		}
		return message{Text: fmt.Sprintf("Run %d started.", runID), Code: "intake.runStarted", Params: map[string]any{"runId": runID}},
			true, nil, false, nil
	case "expect":
		loc, lerr := time.LoadLocation(d.zone)
		if lerr != nil {
			loc = time.UTC
		}
		m, err := s.checkExpected(ctx, tx, d.target, d.nextDue, loc)
		return m, err == nil, nil, false, err
	case "digest":
		if s.queue == nil {
			return message{}, false, nil, true, nil
		}
		job, err := s.queue.InsertTx(ctx, tx, DigestArgs{At: d.nextDue}, nil)
		if err != nil {
			return message{}, false, nil, false, err
		}
		return message{Text: "Sending the daily digest.", Code: "intake.digestQueued"}, true, &job.Job.ID, false, nil
	case "sftp":
		if s.queue == nil {
			return message{}, false, nil, true, nil
		}
		if d.lastJob != nil {
			var busy bool
			if err := tx.QueryRow(ctx, `select exists (select 1 from river_job where id = $1 and state in ('available', 'running', 'retryable', 'scheduled', 'pending'))`,
				*d.lastJob).Scan(&busy); err != nil {
				return message{}, false, nil, false, err
			}
			if busy {
				return message{Text: "The previous pull is still going; this one was skipped.", Code: "intake.pullBusy"}, false, nil, false, nil
			}
		}
		job, err := s.queue.InsertTx(ctx, tx, PullArgs{Source: d.target}, nil)
		if err != nil {
			return message{}, false, nil, false, err
		}
		return message{Text: "Pulling files.", Code: "intake.pulling"}, true, &job.Job.ID, false, nil
	}
	return message{}, false, nil, false, fmt.Errorf("intake schedule %s: unknown kind %q", d.name, d.kind)
}

// Ticker runs Tick every tick of intake.yaml until ctx ends (every node does; a
// schedule starts once, on the node that locks it first).
func (s *Service) Ticker(ctx context.Context) {
	t := time.NewTicker(time.Duration(s.Config.Tick))
	defer t.Stop()
	for {
		if _, err := s.Tick(ctx, time.Now()); err != nil && ctx.Err() == nil {
			s.Log.Error("intake schedules", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
