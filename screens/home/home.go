// Package home computes the figures of the home screen (screen 1, GET
// /api/home): for one month, per reconciliation level the matched, partial
// and unmatched counts and USD amounts with the match rate, the daily trend
// of unmatched amounts and the oldest unmatched records; open tasks by
// status and assignee; the last imports; the last automatic run per level;
// and the month's bank totals. Each figure is computed only when the
// caller's screens permit it, in parallel, and the answer is cached for at
// most a minute per month and permission set.
package home

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"ledgerdesk/engine"
	"ledgerdesk/internal/screenids"
	"ledgerdesk/screens/recon"
)

// CacheFor is how long an answer is reused for the same month and screens.
const CacheFor = time.Minute

// maxCached bounds the cache (months times permission sets within a minute).
const maxCached = 1000

// Service computes and caches the home figures.
type Service struct {
	pool   *pgxpool.Pool
	levels []level
	// Imports lists the newest imports (imports.Service.Recent); nil leaves them out.
	Imports func(ctx context.Context, n int) (any, error)
	Now     func() time.Time
	// AgeBuckets are the last days of the open items' age buckets but the
	// last (recon.yaml ageing; recon.DefaultAgeBuckets when nil).
	AgeBuckets []int

	mu    sync.Mutex
	cache map[string]cached
}

type cached struct {
	at  time.Time
	res *Figures
}

// New returns the service reading from pool, with the figures of the
// reconciliation levels recon.yaml declares (their left sides).
func New(pool *pgxpool.Pool, levels []*recon.Level, imports func(ctx context.Context, n int) (any, error)) *Service {
	s := &Service{pool: pool, Imports: imports, Now: time.Now, cache: map[string]cached{}}
	for _, l := range levels {
		s.levels = append(s.levels, level{n: l.N, slug: l.Slug, left: fmt.Sprintf(
			`select id, date as d, currency as cur, amount, ref from %s where date between $1 and $2`, l.Left.Source)})
	}
	return s
}

// Figures is the answer of GET /api/home. A figure the caller's screens do
// not permit is null; a permitted one without data is empty.
type Figures struct {
	Month      string    `json:"month"` // YYYY-MM
	From       string    `json:"from"`  // first day
	To         string    `json:"to"`    // last day
	ComputedAt time.Time `json:"computedAt"`

	Levels          []*LevelFigures `json:"levels"`          // screen 13
	UnmatchedTrend  []TrendDay      `json:"unmatchedTrend"`  // screen 13
	OldestUnmatched []Unmatched     `json:"oldestUnmatched"` // screen 13
	LastRuns        []Run           `json:"lastRuns"`        // screen 13
	Ageing          *Ageing         `json:"ageing"`          // screen 13
	Tasks           *TaskFigures    `json:"tasks"`           // screen 14
	Imports         any             `json:"imports"`         // screen 2
	Bank            *BankFigures    `json:"bank"`            // screen 15
	// Alerts are the open alerts of the last days the user's screens permit
	// (screen 2: intake; 13: runs); nil when they permit none.
	Alerts []Alert `json:"alerts"`
	// Approvals are the four-eyes requests: those waiting for the user's
	// decision (screen 17) and the user's own, pending or decided lately.
	Approvals *ApprovalFigures `json:"approvals"`
}

// ApprovalFigures are Home's approvals card.
type ApprovalFigures struct {
	Waiting *int64      `json:"waiting"` // others' requests pending (screen 17; null without it)
	Mine    []MyRequest `json:"mine"`    // the user's own: pending, or decided in the last AlertDays
}

// MyRequest is one of the user's own requests and its outcome.
type MyRequest struct {
	ID             int64           `json:"id"`
	Action         string          `json:"action"`
	Status         string          `json:"status"`
	What           string          `json:"what"`
	WhatCode       string          `json:"whatCode"`
	WhatParams     json.RawMessage `json:"whatParams"`
	RequestedOn    time.Time       `json:"requestedOn"`
	DecidedBy      *string         `json:"decidedBy"`
	DecidedOn      *time.Time      `json:"decidedOn"`
	DecisionReason *string         `json:"decisionReason"`
}

// approvals reads the approvals card of user a (fresh: a decision is news).
func (s *Service) approvals(ctx context.Context, a *engine.Actor, now time.Time) (*ApprovalFigures, error) {
	out := &ApprovalFigures{}
	if a.Can(screenids.Approvals) {
		var n int64
		if err := s.pool.QueryRow(ctx, `select count(*) from approval where status = 'pending' and requested_by_id <> $1`, a.UserID).Scan(&n); err != nil {
			return nil, err
		}
		out.Waiting = &n
	}
	rows, err := s.pool.Query(ctx, `select id, action, status, coalesce(summary->>'text', ''), coalesce(summary->>'code', ''),
			coalesce(summary->'params', '{}'), requested_on, decided_by, decided_on, decision_reason
		from approval where requested_by_id = $1 and requested_on >= $2::timestamptz - interval '30 days' and (status = 'pending' or decided_on >= $2::timestamptz)
		order by requested_on desc, id desc limit 10`, a.UserID, now.Add(-AlertDays*24*time.Hour))
	if err != nil {
		return nil, err
	}
	out.Mine, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (m MyRequest, err error) {
		err = r.Scan(&m.ID, &m.Action, &m.Status, &m.What, &m.WhatCode, &m.WhatParams, &m.RequestedOn, &m.DecidedBy, &m.DecidedOn, &m.DecisionReason)
		return m, err
	})
	return out, err
}

// Amount is a count and its exact USD sum ("0.00" when there is none).
type Amount struct {
	Count  int64  `json:"count"`
	Amount string `json:"amount"`
}

// LevelFigures are one level's records of the month (its left side).
type LevelFigures struct {
	Level     int    `json:"level"`
	Slug      string `json:"slug"`
	Matched   Amount `json:"matched"`
	Partial   Amount `json:"partial"` // within tolerance but not equal, and marked for investigation
	Unmatched Amount `json:"unmatched"`
	// MatchRate is the matched share of the records in percent with one
	// decimal ("97.5"); null without records.
	MatchRate *string `json:"matchRate"`
	// NoRate counts records whose amount has no USD rate (left out of the amounts).
	NoRate int64 `json:"noRate"`
}

// TrendDay is the unmatched USD amount of each level's records of one
// day, in the levels' order.
type TrendDay struct {
	Date   string   `json:"date"`
	Levels []string `json:"levels"`
}

// Unmatched is one of the oldest unmatched records of a level in the month.
type Unmatched struct {
	Level     int     `json:"level"`
	ID        int64   `json:"id"`
	Date      string  `json:"date"`
	Reference string  `json:"reference"` // ticket number, client unique id or payout key
	Amount    string  `json:"amount"`    // in the record's currency
	Currency  *string `json:"currency"`
	AgeDays   int     `json:"ageDays"`
}

// Run is the last automatic reconcile run of a level.
type Run struct {
	Level          int        `json:"level"`
	RunID          int64      `json:"runId"`
	Status         string     `json:"status"`
	CreatedBy      string     `json:"createdBy"`
	CreatedOn      time.Time  `json:"createdOn"`
	FinishedOn     *time.Time `json:"finishedOn"`
	Matched        int        `json:"matched"`
	Partial        int        `json:"partial"`
	LeftUnmatched  int        `json:"leftUnmatched"`
	RightUnmatched int        `json:"rightUnmatched"`
	Error          *string    `json:"error"`
	// ErrorCode and ErrorParams say why a run failed in the reader's language.
	ErrorCode   *string        `json:"errorCode"`
	ErrorParams map[string]any `json:"errorParams"`
}

// TaskFigures are the open tasks (New and In Progress) now.
type TaskFigures struct {
	Open       int64          `json:"open"`
	ByStatus   []TaskCount    `json:"byStatus"`
	ByAssignee []AssigneeTask `json:"byAssignee"`
}

// TaskCount is the open tasks of one status (1 New, 2 In Progress).
type TaskCount struct {
	Status int   `json:"status"`
	Count  int64 `json:"count"`
}

// AssigneeTask is the open tasks of one assignee (null: nobody).
type AssigneeTask struct {
	UserID *int64 `json:"userId"`
	Name   string `json:"name"`
	Count  int64  `json:"count"`
}

// BankFigures are the month's processed bank bookings with the bank
// overview's default flags (distributed revenue Yes, affects balance Yes).
type BankFigures struct {
	In      string      `json:"in"`
	Out     string      `json:"out"`
	ByActor []BankActor `json:"byActor"`
}

// BankActor is one actor's in and out sums (actor null: bookings without one).
type BankActor struct {
	Actor *string `json:"actor"`
	In    string  `json:"in"`
	Out   string  `json:"out"`
}

// Alert is something that went wrong or did not come while nobody looked
// (screens/intake: alert table): kind runFailed, intakeFailed or fileMissing.
type Alert struct {
	ID            int64          `json:"id"`
	Kind          string         `json:"kind"`
	RaisedOn      time.Time      `json:"raisedOn"`
	Message       string         `json:"message"`
	MessageCode   string         `json:"messageCode"`
	MessageParams map[string]any `json:"messageParams"`
}

// AlertDays is how far back Home lists alerts not cleared; at most maxAlerts.
const (
	AlertDays = 7
	maxAlerts = 20
)

// alerts lists the open alerts of the screens given, newest first.
func (s *Service) alerts(ctx context.Context, screens []int, now time.Time) ([]Alert, error) {
	rows, err := s.pool.Query(ctx, `select id, kind, raised_on, message, message_code, coalesce(message_params, '{}') from alert
		where cleared_on is null and raised_on >= $1 and screen = any($2) order by raised_on desc, id desc limit $3`,
		now.Add(-AlertDays*24*time.Hour), screens, maxAlerts)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (a Alert, err error) {
		err = r.Scan(&a.ID, &a.Kind, &a.RaisedOn, &a.Message, &a.MessageCode, &a.MessageParams)
		return a, err
	})
}

// ParseMonth reads YYYY-MM; empty is the month of now.
func ParseMonth(s string, now time.Time) (time.Time, error) {
	if strings.TrimSpace(s) == "" {
		return time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC), nil
	}
	m, err := time.Parse("2006-01", strings.TrimSpace(s))
	if err != nil || m.Year() < 1900 || m.Year() > 9999 {
		return time.Time{}, engine.Invalid("month", "month must be a month as YYYY-MM, got %q.", s).With("home.badMonth", "value", s)
	}
	return m, nil
}

// Home returns the figures of month (its first day) the actor may see.
func (s *Service) Home(ctx context.Context, a *engine.Actor, month time.Time) (*Figures, error) {
	var screens []string
	for _, id := range []int{screenids.DataImport, screenids.Reconcile, screenids.Tasks, screenids.Reports} {
		if a.Can(id) {
			screens = append(screens, strconv.Itoa(id))
		}
	}
	key := month.Format("2006-01") + "|" + strings.Join(screens, ",")
	now := s.Now()
	s.mu.Lock()
	if c, ok := s.cache[key]; ok && now.Sub(c.at) < CacheFor {
		s.mu.Unlock()
		return s.withAlerts(ctx, a, c.res, now)
	}
	s.mu.Unlock()

	res, err := s.compute(ctx, a, month, now)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	for k, c := range s.cache { // forget what has expired
		if now.Sub(c.at) >= CacheFor {
			delete(s.cache, k)
		}
	}
	if len(s.cache) < maxCached {
		s.cache[key] = cached{at: now, res: res}
	}
	s.mu.Unlock()
	return s.withAlerts(ctx, a, res, now)
}

// withAlerts is f with the alerts the actor's screens permit and the
// approvals card, read now (never cached: both are news, and each read is
// an index range).
func (s *Service) withAlerts(ctx context.Context, a *engine.Actor, f *Figures, now time.Time) (*Figures, error) {
	out := *f
	approvals, err := s.approvals(ctx, a, now)
	if err != nil {
		return nil, fmt.Errorf("home: %w", engine.TranslatePG(err))
	}
	out.Approvals = approvals
	var screens []int
	for _, id := range []int{screenids.DataImport, screenids.Reconcile} {
		if a.Can(id) {
			screens = append(screens, id)
		}
	}
	if len(screens) == 0 {
		return &out, nil
	}
	alerts, err := s.alerts(ctx, screens, now)
	if err != nil {
		return nil, fmt.Errorf("home: %w", engine.TranslatePG(err))
	}
	out.Alerts = alerts
	return &out, nil
}

func (s *Service) compute(ctx context.Context, a *engine.Actor, month, now time.Time) (*Figures, error) {
	from, to := month, month.AddDate(0, 1, -1)
	f := &Figures{Month: month.Format("2006-01"), From: from.Format(time.DateOnly), To: to.Format(time.DateOnly), ComputedAt: now.UTC()}
	var parts []func(context.Context) error
	trend := make([]map[string]string, len(s.levels))
	oldest := make([][]Unmatched, len(s.levels))
	if a.Can(screenids.Reconcile) {
		f.Levels = make([]*LevelFigures, len(s.levels))
		for i, l := range s.levels {
			parts = append(parts, func(ctx context.Context) (err error) {
				f.Levels[i], trend[i], oldest[i], err = s.level(ctx, l, from, to, now)
				return err
			})
		}
		parts = append(parts, func(ctx context.Context) (err error) {
			f.LastRuns, err = s.lastRuns(ctx)
			return err
		})
		parts = append(parts, func(ctx context.Context) (err error) {
			f.Ageing, err = s.ageing(ctx, now)
			return err
		})
	}
	if a.Can(screenids.Tasks) {
		parts = append(parts, func(ctx context.Context) (err error) {
			f.Tasks, err = s.tasks(ctx)
			return err
		})
	}
	if a.Can(screenids.DataImport) && s.Imports != nil {
		parts = append(parts, func(ctx context.Context) (err error) {
			f.Imports, err = s.Imports(ctx, 5)
			return err
		})
	}
	if a.Can(screenids.Reports) {
		parts = append(parts, func(ctx context.Context) (err error) {
			f.Bank, err = s.bank(ctx, from, to)
			return err
		})
	}

	if err := parallel(ctx, parts); err != nil {
		return nil, fmt.Errorf("home: %w", engine.TranslatePG(err))
	}
	if a.Can(screenids.Reconcile) {
		f.UnmatchedTrend = trendDays(from, to, trend)
		f.OldestUnmatched = append([]Unmatched{}, slices.Concat(oldest...)...)
	}
	return f, nil
}

// parallel runs every part at once and returns the first error.
func parallel(ctx context.Context, parts []func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	errs := make([]error, len(parts))
	var wg sync.WaitGroup
	for i, p := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = p(ctx)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// level is one reconciliation level's left side as the home screen reads
// it: the records of a month with their date, currency, amount and a
// reference the user knows them by (from the level's canonical source).
type level struct {
	n    int
	slug string
	left string // select id, d, cur, amount, ref ... where d between $1 and $2
}

// level counts and sums the month's records by status and lists the
// oldest unmatched, in one statement. Amounts become USD per day and
// currency (the rate of the day, else the latest earlier one) after
// summing, so the rate is looked up a few hundred times, not per row. The
// live matches are read by a range of the live-match index (liveMatches).
func (s *Service) level(ctx context.Context, l level, from, to, now time.Time) (*LevelFigures, map[string]string, []Unmatched, error) {
	rows, err := s.pool.Query(ctx, `
		with l as materialized (`+l.left+`), `+liveMatches+`, j as materialized (
			select l.id, l.d, l.cur, l.amount, l.ref,
			       -- as the reports say: matched only when equal; a difference,
			       -- an investigation or a change since matching is partial
			       case when m.status is null then 'unmatched' when m.status = 'matched' and coalesce(m.amount_variance, 0) = 0 then 'matched'
			            else 'partial' end as status
			from l left join m on m.left_id = l.id
		), g as (
			select d, cur, status, count(*) as n, sum(amount) as amount from j group by 1, 2, 3
		), u as (
			select d, status, n, round(amount * usd_rate(cur, d), 2) as usd from g
		)
		select 0 as kind, d, status, sum(n)::bigint, coalesce(sum(usd), 0)::numeric(20, 2)::text,
		       coalesce(sum(n) filter (where usd is null), 0)::bigint, null::bigint, null::text, null::text
		from u group by d, status
		union all
		(select 1, d, status, null, amount::text, null, id, ref, cur from j where status = 'unmatched' order by d, id limit `+strconv.Itoa(oldestCount)+`)
		order by 1, 2, 7`, pgx.QueryExecModeExec, from, to, l.n)
	if err != nil {
		return nil, nil, nil, err
	}
	defer rows.Close()
	lf := &LevelFigures{Level: l.n, Slug: l.slug}
	sums := map[string]*decimalSum{"matched": {}, "partial": {}, "unmatched": {}}
	trend := map[string]string{}
	oldest := []Unmatched{}
	today := now.UTC().Truncate(24 * time.Hour)
	for rows.Next() {
		var kind int
		var d time.Time
		var status, amount string
		var n, noRate, id *int64
		var ref, cur *string
		if err := rows.Scan(&kind, &d, &status, &n, &amount, &noRate, &id, &ref, &cur); err != nil {
			return nil, nil, nil, err
		}
		day := d.Format(time.DateOnly)
		if kind == 1 {
			oldest = append(oldest, Unmatched{Level: l.n, ID: *id, Date: day, Reference: *ref, Amount: amount, Currency: cur,
				AgeDays: int(today.Sub(d).Hours() / 24)})
			continue
		}
		if err := sums[status].add(*n, amount); err != nil {
			return nil, nil, nil, err
		}
		lf.NoRate += *noRate
		if status == "unmatched" {
			trend[day] = amount
		}
	}
	if err := rows.Err(); err != nil {
		return nil, nil, nil, err
	}
	lf.Matched, lf.Partial, lf.Unmatched = sums["matched"].amount(), sums["partial"].amount(), sums["unmatched"].amount()
	if total := lf.Matched.Count + lf.Partial.Count + lf.Unmatched.Count; total > 0 {
		rate := percent(lf.Matched.Count, total)
		lf.MatchRate = &rate
	}
	return lf, trend, oldest, nil
}

// liveMatches are the live matches of level $3 whose left record is among
// l, read as one range of the live-match index between l's smallest and
// largest id: records arrive in files in date order, so a month's ids are
// close together. Probing the index once per record took twice as long,
// and a hash join read every match of the level. A group's further left
// records come with its status and variance (from their own live index).
const liveMatches = `m as (
	select left_id, status, amount_variance from recon_match
	where level = $3 and undone_on is null and left_id between (select min(id) from l) and (select max(id) from l)
	union all
	select g.record_id, h.status, h.amount_variance from recon_match_member g join recon_match h on h.id = g.match_id
	where g.level = $3 and g.side = 'left' and g.live and g.record_id between (select min(id) from l) and (select max(id) from l))`

// oldestCount is how many of the oldest unmatched records of a level are listed.
const oldestCount = 5

func (s *Service) lastRuns(ctx context.Context) ([]Run, error) {
	rows, err := s.pool.Query(ctx, `
		select distinct on (level) level, id, status, created_by, created_on, finished_on, matched, partial, left_unmatched, right_unmatched, error,
		       error_code, error_params
		from recon_run order by level, id desc`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Run{}
	for rows.Next() {
		var r Run
		if err := rows.Scan(&r.Level, &r.RunID, &r.Status, &r.CreatedBy, &r.CreatedOn, &r.FinishedOn, &r.Matched, &r.Partial,
			&r.LeftUnmatched, &r.RightUnmatched, &r.Error, &r.ErrorCode, &r.ErrorParams); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

func (s *Service) tasks(ctx context.Context) (*TaskFigures, error) {
	rows, err := s.pool.Query(ctx, `
		select t.is_status, t.assigned_to_id,
		       coalesce(nullif(trim(coalesce(u.first_name, '') || ' ' || coalesce(u.last_name, '')), ''), u.username, ''), count(*)
		from task t left join app_user u on u.id = t.assigned_to_id
		where t.is_status in (1, 2)
		group by 1, 2, 3`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	tf := &TaskFigures{ByStatus: []TaskCount{{Status: 1}, {Status: 2}}, ByAssignee: []AssigneeTask{}}
	byUser := map[int64]int{}
	for rows.Next() {
		var status int
		var user *int64
		var name string
		var n int64
		if err := rows.Scan(&status, &user, &name, &n); err != nil {
			return nil, err
		}
		tf.Open += n
		tf.ByStatus[status-1].Count += n
		key := int64(-1)
		if user != nil {
			key = *user
		}
		i, ok := byUser[key]
		if !ok {
			i = len(tf.ByAssignee)
			byUser[key] = i
			tf.ByAssignee = append(tf.ByAssignee, AssigneeTask{UserID: user, Name: name})
		}
		tf.ByAssignee[i].Count += n
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	// Most open tasks first; nobody's last among equals.
	slices.SortStableFunc(tf.ByAssignee, func(a, b AssigneeTask) int {
		if a.Count != b.Count {
			return int(b.Count - a.Count)
		}
		return strings.Compare(a.Name, b.Name)
	})
	return tf, nil
}

func (s *Service) bank(ctx context.Context, from, to time.Time) (*BankFigures, error) {
	rows, err := s.pool.Query(ctx, `
		select actor, coalesce(sum(in_usd) filter (where in_or_out = 'IN'), 0)::numeric(20, 2)::text, coalesce(sum(out_usd) filter (where in_or_out = 'OUT'), 0)::numeric(20, 2)::text
		from bank_booking
		where in_or_out in ('IN', 'OUT') and affects_balance = 'Yes' and dist_rvn_settle = 'Yes' and booked_date between $1 and $2
		group by actor order by actor nulls last`, pgx.QueryExecModeExec, from, to)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	bf := &BankFigures{ByActor: []BankActor{}}
	var in, out decimalSum
	for rows.Next() {
		var b BankActor
		if err := rows.Scan(&b.Actor, &b.In, &b.Out); err != nil {
			return nil, err
		}
		if err := in.add(0, b.In); err != nil {
			return nil, err
		}
		if err := out.add(0, b.Out); err != nil {
			return nil, err
		}
		bf.ByActor = append(bf.ByActor, b)
	}
	bf.In, bf.Out = in.amount().Amount, out.amount().Amount
	return bf, rows.Err()
}

// trendDays lays the unmatched amounts of each level out per day of the month.
func trendDays(from, to time.Time, levels []map[string]string) []TrendDay {
	out := []TrendDay{}
	for d := from; !d.After(to); d = d.AddDate(0, 0, 1) {
		day := TrendDay{Date: d.Format(time.DateOnly), Levels: make([]string, len(levels))}
		for i := range day.Levels {
			day.Levels[i] = "0.00"
			if i < len(levels) {
				if v, ok := levels[i][day.Date]; ok {
					day.Levels[i] = v
				}
			}
		}
		out = append(out, day)
	}
	return out
}
