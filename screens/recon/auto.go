package recon

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"ledgerdesk/engine"
	"ledgerdesk/internal/liveness"
)

// Queue is the job queue auto runs take (DESIGN.md section 6).
const Queue = "recon"

// Run is one automatic reconciliation of a level and what it did.
type Run struct {
	ID             int64      `json:"runId"`
	Level          string     `json:"level"`
	Status         string     `json:"status"` // queued, running, succeeded, failed
	Matched        int        `json:"matched"`
	Partial        int        `json:"partial"`
	Unmatched      int        `json:"unmatched"` // left records without a match after the run
	LeftUnmatched  int        `json:"leftUnmatched"`
	RightUnmatched int        `json:"rightUnmatched"`
	Seconds        float64    `json:"seconds"`
	CreatedBy      string     `json:"createdBy"`
	CreatedOn      time.Time  `json:"createdOn"`
	StartedOn      *time.Time `json:"startedOn"`
	FinishedOn     *time.Time `json:"finishedOn"`
	Error          string     `json:"error,omitempty"`
	// ErrorCode and ErrorParams are the message of a failed run, for the
	// UI to show in the reader's language (Error is its English text).
	ErrorCode   string         `json:"errorCode,omitempty"`
	ErrorParams map[string]any `json:"errorParams,omitempty"`
	jobID       *int64
}

// Done reports whether the run has finished, well or not.
func (r *Run) Done() bool { return r.Status == "succeeded" || r.Status == "failed" }

const runColumns = `id, level, status, matched, partial, left_unmatched, right_unmatched, created_by, created_on,
	started_on, finished_on, coalesce(error, ''), coalesce(error_code, ''), error_params, job_id`

func (s *Service) scanRun(row pgx.Row) (*Run, error) {
	var r Run
	var level int
	if err := row.Scan(&r.ID, &level, &r.Status, &r.Matched, &r.Partial, &r.LeftUnmatched, &r.RightUnmatched, &r.CreatedBy,
		&r.CreatedOn, &r.StartedOn, &r.FinishedOn, &r.Error, &r.ErrorCode, &r.ErrorParams, &r.jobID); err != nil {
		return nil, err
	}
	r.Level = s.def.slugOf(level)
	r.Unmatched = r.LeftUnmatched
	if r.StartedOn != nil && r.FinishedOn != nil {
		r.Seconds = float64(r.FinishedOn.Sub(*r.StartedOn).Milliseconds()) / 1000
	}
	return &r, nil
}

// GetRun returns one run.
func (s *Service) GetRun(ctx context.Context, id int64) (*Run, error) {
	r, err := s.scanRun(s.pool.QueryRow(ctx, `select `+runColumns+` from recon_run where id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, engine.NotFound("No reconciliation run %d.", id).With("recon.runNotFound", "runId", id)
	}
	return r, err
}

// Runs lists the latest runs of a level (all levels when l is nil), newest first.
func (s *Service) Runs(ctx context.Context, l *Level, limit int) ([]*Run, error) {
	var level *int
	if l != nil {
		level = &l.N
	}
	rows, err := s.pool.Query(ctx, `select `+runColumns+` from recon_run where $1::int is null or level = $1
		order by id desc limit $2`, level, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*Run{}
	for rows.Next() {
		r, err := s.scanRun(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// AutoArgs is the job that runs automatic reconciliation of a level once.
type AutoArgs struct {
	RunID int64  `json:"runId"`
	Level int    `json:"level"`
	Actor string `json:"actor"`
}

// Kind names the job for the queue.
func (AutoArgs) Kind() string { return "recon_auto" }

// InsertOpts: one try on queue recon. A failed run is recorded as failed and
// the user starts another; a retry would hold the level's lock meanwhile.
func (AutoArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{Queue: Queue, MaxAttempts: 1} }

// AutoWorker runs auto-reconcile jobs.
type AutoWorker struct {
	river.WorkerDefaults[AutoArgs]
	Service *Service
}

// Work runs the level; a failure is written to the run.
func (w *AutoWorker) Work(ctx context.Context, job *river.Job[AutoArgs]) error {
	ctx = engine.WithActor(ctx, &engine.Actor{Username: job.Args.Actor})
	l := w.Service.def.ByNumber(job.Args.Level)
	var err error
	if l == nil {
		err = fmt.Errorf("level %d is no longer declared in %s", job.Args.Level, File)
	} else {
		err = w.Service.execute(ctx, job.Args.RunID, l)
	}
	if err != nil {
		w.Service.fail(ctx, job.Args.RunID, err)
	}
	return err
}

// fail records a failed run with a message code: a collision with other
// writes that outlasted the retries, or an unexpected problem (its detail
// goes to the log, never to the run or a client).
func (s *Service) fail(ctx context.Context, runID int64, err error) {
	s.log.Error("auto reconcile failed", "run", runID, "err", err)
	e := runFailure(runID, err)
	if _, ferr := s.pool.Exec(context.WithoutCancel(ctx), `update recon_run set status = 'failed', finished_on = now(), error = $2,
		error_code = $3, error_params = $4 where id = $1 and status in ('queued', 'running')`, runID, e.Message, e.Key, e.Params); ferr != nil {
		s.log.Error("auto reconcile: recording the failure", "run", runID, "err", ferr)
	}
}

// runFailure is what a failed run says: its typed error when it has one,
// else a message code for a collision or an unexpected problem.
func runFailure(runID int64, err error) *engine.Error {
	var e *engine.Error
	if errors.As(err, &e) && e.Key != "" && e.Code != engine.CodeInternal {
		return e
	}
	if retryable(err) {
		return engine.Conflict("The run met other writes to the same records and stopped; nothing was changed. Start it again.").
			With("recon.runCollided", "runId", runID)
	}
	return engine.Internal(err).With("recon.runFailed", "runId", runID)
}

// retryable reports a deadlock or serialization failure: the transaction
// changed nothing and may be run again.
func retryable(err error) bool {
	var pg *pgconn.PgError
	return errors.As(err, &pg) && (pg.Code == "40P01" || pg.Code == "40001")
}

// Timeout bounds a run: a million records per side take well under a minute.
func (w *AutoWorker) Timeout(*river.Job[AutoArgs]) time.Duration { return 20 * time.Minute }

// Auto queues an automatic reconciliation of level l and waits for it up to
// s.Wait. A run of the same level already queued or running is a conflict
// naming it. The answer is the run, finished or (after the wait) still going.
func (s *Service) Auto(ctx context.Context, l *Level) (*Run, error) {
	if s.queue == nil {
		return nil, engine.Unavailable("The job queue is not running; automatic reconciliation cannot start.").With("recon.noQueue")
	}
	actor := engine.ActorFrom(ctx).Username
	var runID int64
	for try := 0; ; try++ {
		err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) (err error) {
			runID, err = s.queueRun(ctx, tx, l, actor)
			return err
		})
		var pg *pgconn.PgError
		if errors.As(err, &pg) && pg.Code == "23505" && try == 0 {
			active, aerr := s.activeRun(ctx, l)
			if aerr != nil {
				return nil, aerr
			}
			if active == nil {
				continue // it finished meanwhile
			}
			if stale, serr := s.abandoned(ctx, active); serr != nil || !stale {
				if serr != nil {
					return nil, serr
				}
				return nil, engine.Conflict("An automatic reconcile of %s is already %s (run %d, started by %s at %s). Wait for it to finish.",
					l.Slug, active.Status, active.ID, active.CreatedBy, active.CreatedOn.UTC().Format("2006-01-02 15:04 UTC")).
					With("recon.runActive", "level", l.Slug, "runId", active.ID, "status", active.Status, "by", active.CreatedBy, "at", active.CreatedOn)
			}
			continue // the stale run was closed: try again
		}
		if err != nil {
			return nil, fmt.Errorf("auto reconcile %s: %w", l.Slug, err)
		}
		break
	}
	return s.waitRun(ctx, runID, s.Wait)
}

// queueRun records a run of l and queues its job in tx. A run of l already
// queued or running makes the insert fail (unique violation 23505), which
// aborts tx.
func (s *Service) queueRun(ctx context.Context, tx pgx.Tx, l *Level, actor string) (int64, error) {
	var runID int64
	if err := tx.QueryRow(ctx, `insert into recon_run (level, created_by) values ($1, $2) returning id`, l.N, actor).Scan(&runID); err != nil {
		return 0, err
	}
	job, err := s.queue.InsertTx(ctx, tx, AutoArgs{RunID: runID, Level: l.N, Actor: actor}, nil)
	if err != nil {
		return 0, err
	}
	if _, err := tx.Exec(ctx, `update recon_run set job_id = $2 where id = $1`, runID, job.Job.ID); err != nil {
		return 0, err
	}
	return runID, engine.Audit(ctx, tx, engine.AuditEntry{Action: "recon.auto", Entity: "recon_run", EntityID: fmt.Sprint(runID),
		After: map[string]any{"level": l.Slug}})
}

// QueueTx queues an automatic run of the level slug within tx, for work
// that starts by itself (a schedule). It answers the run's id, or 0 and the
// active run's id when one of the level is queued or running already
// (nothing is written then: the insert runs under a savepoint of tx).
func (s *Service) QueueTx(ctx context.Context, tx pgx.Tx, slug, actor string) (runID, activeID int64, err error) {
	l, err := s.def.Level(slug)
	if err != nil {
		return 0, 0, err
	}
	if s.queue == nil {
		return 0, 0, errors.New("the job queue is not running")
	}
	sp, err := tx.Begin(ctx)
	if err != nil {
		return 0, 0, err
	}
	runID, err = s.queueRun(ctx, sp, l, actor)
	var pg *pgconn.PgError
	if errors.As(err, &pg) && pg.Code == "23505" {
		if rerr := sp.Rollback(ctx); rerr != nil {
			return 0, 0, rerr
		}
		err = tx.QueryRow(ctx, `select id from recon_run where level = $1 and status in ('queued', 'running')`, l.N).Scan(&activeID)
		if errors.Is(err, pgx.ErrNoRows) {
			err = nil // it finished meanwhile: the next look starts one
		}
		return 0, activeID, err
	}
	if err != nil {
		sp.Rollback(ctx)
		return 0, 0, err
	}
	return runID, 0, sp.Commit(ctx)
}

func (s *Service) activeRun(ctx context.Context, l *Level) (*Run, error) {
	r, err := s.scanRun(s.pool.QueryRow(ctx, `select `+runColumns+` from recon_run where level = $1 and status in ('queued', 'running')`, l.N))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	return r, err
}

// abandoned closes a run whose job is no longer alive (the process running
// it died and the queue gave the job up), so it does not block its level
// for ever; it reports whether it did.
func (s *Service) abandoned(ctx context.Context, r *Run) (bool, error) {
	if r.jobID == nil {
		return false, nil
	}
	job, err := s.queue.JobGet(ctx, *r.jobID)
	gone := errors.Is(err, river.ErrNotFound)
	if err != nil && !gone {
		return false, err
	}
	if !gone && job.State != rivertype.JobStateDiscarded && job.State != rivertype.JobStateCancelled && job.State != rivertype.JobStateCompleted {
		return false, nil
	}
	tag, err := s.pool.Exec(ctx, `update recon_run set status = 'failed', finished_on = now(),
		error = 'The run stopped without finishing (its process ended).', error_code = 'recon.runAbandoned', error_params = $2
		where id = $1 and status in ('queued', 'running')`, r.ID, map[string]any{"runId": r.ID})
	return tag.RowsAffected() == 1, err
}

// MarkAbandoned marks each run still running whose heartbeat stopped more
// than liveness.StaleAfter ago: its process ended, and the run's one
// transaction with it, so none of its matches were made. It fails at once,
// and the node that noticed queues the level
// again in the same transaction (for the same user), so the work is
// finished by whichever node's queue takes it: once, since a run that was
// itself such a second try is only marked (a run that ends its process
// every time must not take node after node down). The abandoned run says
// which it is: recon.runAbandonedRerun naming its second try (rerunId), or
// recon.runAbandoned. It returns how many it marked.
func (s *Service) MarkAbandoned(ctx context.Context) (int, error) {
	n := 0
	// (the second try is queued by the system, on the user's behalf: the
	// audit row says so; the run itself is the user's)
	ctx = engine.WithActor(ctx, &engine.Actor{Username: "system", Language: "en"})
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `update recon_run r set status = 'failed', finished_on = now(),
			error = 'The run stopped without finishing (its process ended).', error_code = 'recon.runAbandoned', error_params = jsonb_build_object('runId', id)
			where status = 'running' and coalesce(heartbeat_at, started_on, created_on) < now() - $1::interval
			returning id, level, created_by,
			          exists (select 1 from recon_run a where a.error_code = 'recon.runAbandonedRerun' and a.error_params->>'rerunId' = r.id::text)`,
			liveness.StaleAfter.String())
		if err != nil {
			return err
		}
		type marked struct {
			id      int64
			level   int
			actor   string
			isRerun bool
		}
		var runs []marked
		for rows.Next() {
			var m marked
			if err := rows.Scan(&m.id, &m.level, &m.actor, &m.isRerun); err != nil {
				return err
			}
			runs = append(runs, m)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		n = len(runs)
		for _, m := range runs {
			l := s.def.ByNumber(m.level)
			if m.isRerun || l == nil || s.queue == nil {
				continue
			}
			rerun, _, err := s.QueueTx(ctx, tx, l.Slug, m.actor)
			if err != nil {
				return err
			}
			if rerun == 0 {
				continue // a run of the level is queued already
			}
			if _, err := tx.Exec(ctx, `update recon_run set error_code = 'recon.runAbandonedRerun',
				error = format('The run stopped without finishing (its process ended); run %s does it again.', $2::bigint),
				error_params = error_params || jsonb_build_object('rerunId', $2::bigint) where id = $1`, m.id, rerun); err != nil {
				return err
			}
			s.log.Info("auto reconcile abandoned: queued again", "run", m.id, "rerun", rerun, "recon", l.Slug)
		}
		return nil
	})
	return n, err
}

// waitRun polls a run until it is done or wait has passed.
func (s *Service) waitRun(ctx context.Context, id int64, wait time.Duration) (*Run, error) {
	deadline := time.Now().Add(wait)
	for delay := 20 * time.Millisecond; ; delay = min(delay*2, 250*time.Millisecond) {
		r, err := s.GetRun(ctx, id)
		if err != nil || r.Done() || time.Now().After(deadline) {
			return r, err
		}
		select {
		case <-ctx.Done():
			return r, nil // the run goes on; the caller sees it running
		case <-time.After(delay):
		}
	}
}

// candidatesSQL turns a level's key pairs into the pairs inside its
// tolerances (DESIGN.md section 6), evaluated by recon_pair_eval: the rule
// each meets, the status it gets, the variance (left minus right, in the
// left record's currency), the date lag and the difference pairs are
// ranked by (in USD across currencies); each pair keeps its records'
// amounts, currencies, left date, provider and the level's carry columns,
// for the day sums (weight 1: a record of its own, see
// recon_day_apply_run). A pair whose match a user undid is left out:
// undoing says the pair is wrong. $1 is the level's widest date threshold, $2 the
// level, $3 its tolerance type. Formatted with the level's pairs and its
// carry columns (as ", p.name").
const candidatesSQL = `
	create temp table recon_cand on commit drop as
	select p.left_id, p.right_id, e.variance, e.lag, e.rank_diff, e.rule, e.status,
	       p.l_amount, p.r_amount, p.l_cur, p.r_cur, p.l_date, p.provider_key%[2]s, 1 as weight
	from (%[1]s) p
	left join recon_tolerance tol on tol.level = $3 and tol.provider_key = p.provider_key
	cross join lateral recon_pair_eval(p.l_amount, p.r_amount, p.l_cur, p.r_cur, p.l_date, p.r_date,
	                                   tol.amount_threshold, tol.date_threshold, tol.currency_threshold) e
	where abs(p.r_date - p.l_date) <= coalesce(tol.date_threshold, 0) and e.inside
	  -- a pair a user undid is not matched again automatically
	  and not exists (select 1 from recon_match u where u.level = $2 and u.left_id = p.left_id and u.right_id = p.right_id
	                  and u.undone_on is not null)`

// candidates is candidatesSQL for level l.
func candidates(l *Level) string {
	_, names := l.carryColumns()
	var carry strings.Builder
	for _, c := range names {
		carry.WriteString(", p." + c)
	}
	return fmt.Sprintf(candidatesSQL, pairsSQL(l), carry.String())
}

// insertMatchSQL writes the chosen pairs of recon_cand as matches of run
// $2 by $3 at level $1.
const insertMatchSQL = `
	insert into recon_match (level, left_id, right_id, status, rule, amount_variance, date_lag_days, run_id, created_by)
	select $1, c.left_id, c.right_id, c.status, c.rule, c.variance, c.lag, $2, $3
	from %s c`

// splitSQL leaves in recon_cand the pairs whose records have no other
// candidate - nearly all of them - to be matched at once with no ranking to
// do, and moves the rest (records with several candidates) to recon_rest
// for the rounds. (Grouping by sorting: the candidates come nearly in id
// order, and hashing a million groups took twice as long.)
var splitSQL = []string{
	`set local enable_hashagg = off`,
	`create temp table recon_multi_left on commit drop as select left_id from recon_cand group by left_id having count(*) > 1`,
	`create temp table recon_multi_right on commit drop as select right_id from recon_cand group by right_id having count(*) > 1`,
	`set local enable_hashagg to default`,
	`create temp table recon_rest on commit drop as select c.* from recon_cand c
		where c.left_id in (select left_id from recon_multi_left) or c.right_id in (select right_id from recon_multi_right)`,
	`delete from recon_cand c
		where c.left_id in (select left_id from recon_multi_left) or c.right_id in (select right_id from recon_multi_right)`,
}

// singlesSQL matches the single candidates left in recon_cand.
var singlesSQL = fmt.Sprintf(insertMatchSQL, `recon_cand`) + ` order by c.left_id`

// roundSQL matches, in one statement, every remaining candidate pair that
// is the best of both its records (least difference, then least lag, then
// lowest id) and drops the candidates of the records it matched. Repeated
// until it matches nothing, it gives what matching pairs in that order one
// by one would, without a loop over rows.
var roundSQL = `
	with ins as (` + fmt.Sprintf(insertMatchSQL, `(
		select r.* from (
			select c.*, row_number() over (partition by c.left_id order by c.rank_diff, c.lag, c.right_id) as rl,
			            row_number() over (partition by c.right_id order by c.rank_diff, c.lag, c.left_id) as rr
			from recon_rest c) r
		where r.rl = 1 and r.rr = 1)`) + `
		order by c.left_id
		returning left_id, right_id, status
	), gone as (
		delete from recon_rest c where c.left_id in (select left_id from ins) or c.right_id in (select right_id from ins)
	)
	select count(*) filter (where status = 'matched'), count(*) filter (where status = 'partial'), count(*) from ins`

// lockLevel serialises the writers of a level's matches: an automatic run
// and manual matches wait for one another (a run holds it for seconds), so a
// run's candidates stay unmatched until it writes them. A manual match
// waits at most a few seconds, then is told why.
func lockLevel(ctx context.Context, tx pgx.Tx, l *Level, wait time.Duration) error {
	if wait > 0 {
		if _, err := tx.Exec(ctx, `select set_config('lock_timeout', $1, true)`, fmt.Sprint(wait.Milliseconds())); err != nil {
			return err
		}
	}
	_, err := tx.Exec(ctx, `select pg_advisory_xact_lock(hashtext('recon.level'), $1)`, l.N)
	var pg *pgconn.PgError
	if errors.As(err, &pg) && pg.Code == "55P03" {
		return engine.Conflict("An automatic reconcile of %s is writing its matches; try again in a moment.", l.Name).
			With("recon.levelBusy", "level", l.Slug)
	}
	if err == nil && wait > 0 {
		_, err = tx.Exec(ctx, `select set_config('lock_timeout', '0', true)`)
	}
	return err
}

// runAttempts bounds how often a run's transaction is tried when it meets
// a deadlock or a serialization failure (it changed nothing then).
const runAttempts = 3

// execute runs automatic reconciliation of level l for run runID in one
// transaction: exact and inside-tolerance pairs matched, records already
// matched (by hand or an earlier run) left alone, the counts stored. A
// transaction that collides with other writes is tried again.
func (s *Service) execute(ctx context.Context, runID int64, l *Level) error {
	tag, err := s.pool.Exec(ctx, `update recon_run set status = 'running', started_on = now() where id = $1 and status = 'queued'`, runID)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("run %d is not queued", runID)
	}
	defer liveness.Beat(s.pool, liveness.ReconRuns, runID, s.log)() // alive while it runs (see MarkAbandoned)
	for attempt := 1; ; attempt++ {
		err = s.executeOnce(ctx, runID, l)
		if err == nil || !retryable(err) || attempt == runAttempts {
			return err
		}
		s.log.Warn("auto reconcile: collided with other writes, trying again", "run", runID, "attempt", attempt, "err", err)
	}
}

func (s *Service) executeOnce(ctx context.Context, runID int64, l *Level) error {
	actor := engine.ActorFrom(ctx).Username
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// Hashing a million candidates wants more than the default memory.
		if _, err := tx.Exec(ctx, `select set_config('work_mem', '256MB', true)`); err != nil {
			return err
		}
		if err := lockLevel(ctx, tx, l, 0); err != nil {
			return err
		}
		// The records no run of the level has taken in: the ranges
		// committed by now, whose records every later read of the run
		// sees (migration 00044). Ranges written meanwhile wait for the
		// next run.
		var unseen []int64
		if err := tx.QueryRow(ctx, `select coalesce(array_agg(id), '{}') from recon_unseen where level = $1`, l.N).Scan(&unseen); err != nil {
			return err
		}
		took := steps{last: time.Now()}
		m, err := match(ctx, tx, l, runID, actor, &took)
		if err != nil {
			return err
		}
		// A run can add a million matches, or the first few thousand of a
		// level: the plans of its own end, and the reports', need to know at
		// once (autovacuum would wait for a tenth of the table to change).
		// A sample of 3,000 rows, not 30,000, tells how many matches each
		// level and status has at a tenth of the cost; autovacuum's fuller
		// analyze follows. (And of its groups' further records: planned as
		// the empty table they were, the dialog's candidates nested a loop
		// over tens of thousands of them, 9 s instead of 0.3 s; a run's end
		// that takes the matches for the empty table they were compares
		// every record with every match.)
		if _, err = tx.Exec(ctx, `set local default_statistics_target = 10`); err != nil {
			return err
		}
		if _, err = tx.Exec(ctx, `analyze recon_match, recon_match_member; set local default_statistics_target to default`); err != nil {
			return err
		}
		took.done("analyze")
		// The exception queue: what the run matched partly, and the open
		// records of the unseen ranges, which then go (migrations 00031,
		// 00041, 00044).
		if _, err := tx.Exec(ctx, `select recon_open_after_run($1, $2, $3)`, l.N, runID, unseen); err != nil {
			return err
		}
		took.done("openItems")
		left := m.leftUnmatched - m.matched - m.partial - m.leftExtra
		right := m.rightUnmatched - m.matched - m.partial - m.rightExtra
		if _, err := tx.Exec(ctx, `update recon_run set status = 'succeeded', finished_on = clock_timestamp(), matched = $2, partial = $3,
			left_unmatched = $4, right_unmatched = $5 where id = $1`, runID, m.matched, m.partial, left, right); err != nil {
			return err
		}
		took.done("finish")
		s.log.Info("auto reconcile", append([]any{"run", runID, "recon", l.Slug, "matched", m.matched, "partial", m.partial,
			"leftUnmatched", left, "rightUnmatched", right}, took.times...)...)
		return nil
	})
}

// matchCounts is what a run matched, and the records of each side without
// a match just before it wrote its matches.
// leftExtra and rightExtra are the records a group took beyond its first
// pair (automatic splits).
type matchCounts struct{ matched, partial, leftUnmatched, rightUnmatched, leftExtra, rightExtra int }

// steps times the steps of a run, for its log line: name, duration, ...
type steps struct {
	last  time.Time
	times []any
}

func (s *steps) done(name string) {
	now := time.Now()
	if !s.last.IsZero() {
		s.times = append(s.times, name, now.Sub(s.last).Round(time.Millisecond))
	}
	s.last = now
}

// match pairs the unmatched records of level l inside tolerance, in tx.
func match(ctx context.Context, tx pgx.Tx, l *Level, runID int64, actor string, took *steps) (matchCounts, error) {
	var c matchCounts
	var maxLag int
	if err := tx.QueryRow(ctx, `select coalesce(max(date_threshold), 0) from recon_tolerance where level = $1`, l.toleranceType()).Scan(&maxLag); err != nil {
		return c, err
	}
	// Hash joins only for a level paired by key (the evaluation is a
	// lateral subquery all the same): on a level's first run the statistics
	// say it has no matches, and the planner then probed the matches table
	// once per pair for the records without one (1M pairs: 11 s instead of
	// 5 s), or sorted both sides for merge joins, guessing a few thousand
	// pairs. Hashed, the pairs are found by two workers and the leader
	// together (recon_pair_eval is parallel safe, migration 00022). A level
	// paired per day joins each day by its index (0.1 s; 0.9 s hashed).
	if l.Window == "key" {
		if _, err := tx.Exec(ctx, `set local enable_nestloop = off; set local enable_mergejoin = off`); err != nil {
			return c, err
		}
	}
	if _, err := tx.Exec(ctx, candidates(l), maxLag, l.N, l.toleranceType()); err != nil {
		return c, fmt.Errorf("candidates: %w", err)
	}
	took.done("candidates")
	// The records without a match are counted now, while the level's
	// matches are old and their index answers alone (after the insert it
	// would look each new match up in the table); the run's unmatched are
	// these less what it matches. Each match takes one of each side, no one
	// else matches at this level while the run holds it, and every candidate
	// was already there for this count, which reads later than the
	// candidates did: so a record imported meanwhile counts as unmatched,
	// and nothing counts twice.
	if err := tx.QueryRow(ctx, unmatchedSQL(l, "left")).Scan(&c.leftUnmatched); err != nil {
		return c, err
	}
	if err := tx.QueryRow(ctx, unmatchedSQL(l, "right")).Scan(&c.rightUnmatched); err != nil {
		return c, err
	}
	// (Hashed as well: on a level's first run, with its matches' table
	// taken for empty, a nested loop scanned that table once per record,
	// 1M records 1.3 s instead of 0.3 s.)
	if _, err := tx.Exec(ctx, `set local enable_nestloop to default; set local enable_mergejoin to default`); err != nil {
		return c, err
	}
	took.done("count")
	for _, sql := range splitSQL {
		if _, err := tx.Exec(ctx, sql); err != nil {
			return c, fmt.Errorf("single candidates: %w", err)
		}
	}
	// (The million single candidates are read whole, the plans need no
	// statistics of them; the rounds join the rest to itself.)
	if _, err := tx.Exec(ctx, `analyze recon_rest`); err != nil {
		return c, err
	}
	took.done("split")
	if err := matchSingles(ctx, tx, l, runID, actor, &c, took); err != nil {
		return c, fmt.Errorf("single candidates: %w", err)
	}
	for {
		var matched, partial, n int
		if err := tx.QueryRow(ctx, roundSQL, l.N, runID, actor).Scan(&matched, &partial, &n); err != nil {
			return c, fmt.Errorf("match round: %w", err)
		}
		c.matched += matched
		c.partial += partial
		if n == 0 {
			took.done("rounds")
			break
		}
	}
	if err := matchSplits(ctx, tx, l, runID, actor, maxLag, &c, took); err != nil {
		return c, err
	}
	took.done("splitMembers")
	return c, nil
}

// matchSingles matches the single candidates and adds them to the level's
// day sums from the candidates themselves (the match trigger would join
// them back to their records, which cost a third of a run).
func matchSingles(ctx context.Context, tx pgx.Tx, l *Level, runID int64, actor string, c *matchCounts, took *steps) error {
	if l.AfterRun != "" {
		if _, err := tx.Exec(ctx, `select set_config('ledgerdesk.recon_day_applied', 'on', true)`); err != nil {
			return err
		}
	}
	if _, err := tx.Exec(ctx, singlesSQL, l.N, runID, actor); err != nil {
		return err
	}
	if err := tx.QueryRow(ctx, `select count(*) filter (where status = 'matched'), count(*) filter (where status = 'partial') from recon_cand`).
		Scan(&c.matched, &c.partial); err != nil {
		return err
	}
	took.done("insert")
	if l.AfterRun == "" {
		return nil
	}
	if _, err := tx.Exec(ctx, `select set_config('ledgerdesk.recon_day_applied', 'off', true)`); err != nil {
		return err
	}
	err := afterRun(ctx, tx, l)
	took.done("daySums")
	return err
}

// afterRun adds the run's facts (recon_cand) to the level's report sums by
// its afterRun function, with the facts grouped by hashing: unanalyzed, the
// candidates look few, and the planner sorted a million of them into a few
// thousand days (1M facts: 1.5 s, hashed 0.9 s).
func afterRun(ctx context.Context, tx pgx.Tx, l *Level) error {
	for _, sql := range []string{`set local enable_sort = off`, fmt.Sprintf(`select %s($1)`, l.AfterRun), `set local enable_sort to default`} {
		var args []any
		if strings.Contains(sql, "$1") {
			args = []any{l.N}
		}
		if _, err := tx.Exec(ctx, sql, args...); err != nil {
			return err
		}
	}
	return nil
}

// RunNow runs automatic reconciliation of level l in this process, without
// the job queue, and returns the finished run (the benchmark uses it; the
// API queues runs).
func (s *Service) RunNow(ctx context.Context, l *Level) (*Run, error) {
	var id int64
	if err := s.pool.QueryRow(ctx, `insert into recon_run (level, created_by) values ($1, $2) returning id`,
		l.N, engine.ActorFrom(ctx).Username).Scan(&id); err != nil {
		return nil, fmt.Errorf("auto reconcile %s: %w", l.Slug, err)
	}
	if err := s.execute(ctx, id, l); err != nil {
		s.fail(ctx, id, err)
		return nil, err
	}
	return s.GetRun(ctx, id)
}
