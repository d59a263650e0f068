package home

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"ledgerdesk/engine"
	"ledgerdesk/internal/pgtest"
	"ledgerdesk/screens/recon"
)

// record is a left record of a level as the test made it.
type record struct {
	level    int
	id       int64
	date     time.Time
	cur      string
	cents    int64
	ref      string
	status   string // matched, partial, investigation, unmatched (also: a match that was undone)
	inMonth  bool
	undoneTo string // an undone match left behind
}

var usdPerUnit = map[string]int64{"USD": 1, "EUR": 2} // SEK has no rate

func must(t *testing.T, pool *pgxpool.Pool, sql string, args ...any) int64 {
	t.Helper()
	var id int64
	if err := pool.QueryRow(context.Background(), sql+" returning id", args...).Scan(&id); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return id
}

// seed makes records of all three levels in February, March and April 2026
// with matches of every kind, and returns them.
func seed(t *testing.T, pool *pgxpool.Pool) []record {
	r := rand.New(rand.NewPCG(1, 2))
	var out []record
	statuses := []string{"matched", "partial", "investigation", "unmatched", "undone"}
	curs := []string{"USD", "EUR", "SEK"}
	for i := 0; i < 240; i++ {
		level := 1 + i%3
		month := []int{2, 3, 3, 3, 4}[r.IntN(5)]
		d := time.Date(2026, time.Month(month), 1+r.IntN(28), 0, 0, 0, 0, time.UTC)
		rec := record{level: level, date: d, cur: curs[r.IntN(3)], cents: r.Int64N(500_000) + 1, status: statuses[r.IntN(5)], inMonth: month == 3}
		amount := fmt.Sprintf("%d.%02d", rec.cents/100, rec.cents%100)
		switch level {
		case 1:
			rec.ref = fmt.Sprintf("%013d", 1_000_000+i)
			rec.id = must(t, pool, `insert into ticket (ticket_number, trans_date, currency, sale_amount, natural_key, import_file_id)
				values ($1, $2, $3, $4::numeric, $5, 0)`, rec.ref, d, rec.cur, amount, "t"+rec.ref)
		case 2:
			rec.ref = fmt.Sprintf("C%d", i)
			rec.id = must(t, pool, `insert into card_transaction (client_unique_id, processing_date, provider_actor, currency, transaction_amount, natural_key, import_file_id)
				values ($1, $2, 'nuvei', $3, $4::numeric, $5, 0)`, rec.ref, d, rec.cur, amount, "x"+rec.ref)
		case 3:
			rec.ref = fmt.Sprintf("P%d", i)
			rec.id = must(t, pool, `insert into payout (payout_key, provider_actor, currency, total_net, latest_date, settlement_count)
				values ($1, 'nuvei', $2, $3::numeric, $4, 1)`, rec.ref, rec.cur, amount, d)
		}
		switch rec.status {
		case "undone":
			must(t, pool, `insert into recon_match (level, left_id, right_id, status, rule, created_by, undone_by, undone_on, undo_reason)
				values ($1, $2, $3, 'matched', 'manual', 'test', 'test', now(), 'wrong pair')`, level, rec.id, 900_000+i)
			rec.status = "unmatched"
		case "unmatched":
		default:
			rule := map[string]string{"matched": "exact", "partial": "amount", "investigation": "investigation"}[rec.status]
			must(t, pool, `insert into recon_match (level, left_id, right_id, status, rule, created_by) values ($1, $2, $3, $4, $5, 'test')`,
				level, rec.id, 900_000+i, rec.status, rule)
		}
		out = append(out, rec)
	}
	return out
}

func TestHomeFiguresAgainstTheData(t *testing.T) {
	pool := pgtest.New(t)
	ctx := context.Background()
	for _, q := range []string{
		`insert into currency_exchange_rate (exchange_rate_on, code, currency, usd) values ('2026-01-01', 'EUR', 'Euro', 2)`,
		`insert into app_user (username, first_name, last_name, email, password_hash) values ('annl', 'Ann', 'Lee', 'ann@example.com', 'x'), ('bobe', 'Bo', 'Berg', 'bo@example.com', 'x')`,
	} {
		if _, err := pool.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	recs := seed(t, pool)
	var ann, bo int64
	pool.QueryRow(ctx, `select id from app_user where username = 'annl'`).Scan(&ann)
	pool.QueryRow(ctx, `select id from app_user where username = 'bobe'`).Scan(&bo)
	for _, task := range []struct {
		status int
		user   *int64
	}{{1, &ann}, {1, &ann}, {2, &ann}, {2, &bo}, {3, &bo}, {1, nil}, {3, nil}} {
		must(t, pool, `insert into task (task_name, assigned_to_id, is_status) values ('t', $1, $2)`, task.user, task.status)
	}
	must(t, pool, `insert into recon_run (level, status, created_by, matched) values (1, 'succeeded', 'a', 1)`)
	last := must(t, pool, `insert into recon_run (level, status, created_by, matched, partial) values (1, 'succeeded', 'b', 7, 2)`)
	must(t, pool, `insert into bank_booking (bank_account, booked_date, in_or_out, amount_local, currency, actor, dist_rvn_settle, affects_balance, in_usd, out_usd)
		values ('A', '2026-03-05', 'IN', 1, 'USD', 'Card', 'Yes', 'Yes', 10.50, null), ('A', '2026-03-06', 'OUT', -1, 'USD', 'Card', 'Yes', 'Yes', null, -2.25),
		       ('A', '2026-03-07', 'IN', 1, 'USD', null, 'Yes', 'Yes', 1.00, null), ('A', '2026-04-01', 'IN', 1, 'USD', 'Card', 'Yes', 'Yes', 99, null),
		       ('A', '2026-03-08', 'IN', 1, 'USD', 'Card', 'No', 'Yes', 50, null)`)

	now := time.Date(2026, 4, 10, 9, 0, 0, 0, time.UTC)
	s := New(pool, testLevels(t), func(context.Context, int) (any, error) { return []string{"an import"}, nil })
	s.Now = func() time.Time { return now }
	everything := &engine.Actor{Screens: map[int]bool{1: true, 2: true, 13: true, 14: true, 15: true}}
	f, err := s.Home(ctx, everything, time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}

	// The expected figures, from the records.
	type sums struct{ n, cents, noRate int64 }
	want := map[int]map[string]*sums{}
	trend := map[string][3]int64{}
	for _, r := range recs {
		if !r.inMonth {
			continue
		}
		status := map[string]string{"investigation": "partial"}[r.status]
		if status == "" {
			status = r.status
		}
		if want[r.level] == nil {
			want[r.level] = map[string]*sums{"matched": {}, "partial": {}, "unmatched": {}}
		}
		w := want[r.level][status]
		w.n++
		rate, ok := usdPerUnit[r.cur]
		if !ok {
			w.noRate++
			continue
		}
		w.cents += r.cents * rate
		if status == "unmatched" {
			day := trend[r.date.Format(time.DateOnly)]
			day[r.level-1] += r.cents * rate
			trend[r.date.Format(time.DateOnly)] = day
		}
	}
	money := func(c int64) string { return fmt.Sprintf("%d.%02d", c/100, c%100) }
	for _, lf := range f.Levels {
		w := want[lf.Level]
		for status, got := range map[string]Amount{"matched": lf.Matched, "partial": lf.Partial, "unmatched": lf.Unmatched} {
			if got.Count != w[status].n || got.Amount != money(w[status].cents) {
				t.Errorf("level %d %s: %+v, want %d %s", lf.Level, status, got, w[status].n, money(w[status].cents))
			}
		}
		if noRate := w["matched"].noRate + w["partial"].noRate + w["unmatched"].noRate; lf.NoRate != noRate {
			t.Errorf("level %d: noRate %d, want %d", lf.Level, lf.NoRate, noRate)
		}
		total := w["matched"].n + w["partial"].n + w["unmatched"].n
		if rate := percent(w["matched"].n, total); lf.MatchRate == nil || *lf.MatchRate != rate {
			t.Errorf("level %d: match rate %v, want %s", lf.Level, lf.MatchRate, rate)
		}
	}
	if len(f.UnmatchedTrend) != 31 || f.UnmatchedTrend[0].Date != "2026-03-01" {
		t.Fatalf("trend: %d days from %v", len(f.UnmatchedTrend), f.UnmatchedTrend[0])
	}
	for _, d := range f.UnmatchedTrend {
		for i, v := range d.Levels {
			if w := money(trend[d.Date][i]); v != w {
				t.Errorf("trend %s level %d: %s, want %s", d.Date, i+1, v, w)
			}
		}
	}
	// Oldest unmatched: per level the earliest of the month, at most five, oldest first.
	for level := 1; level <= 3; level++ {
		var got []Unmatched
		for _, u := range f.OldestUnmatched {
			if u.Level == level {
				got = append(got, u)
			}
		}
		var earliest time.Time
		count := 0
		for _, r := range recs {
			if r.level == level && r.inMonth && r.status == "unmatched" {
				count++
				if earliest.IsZero() || r.date.Before(earliest) {
					earliest = r.date
				}
			}
		}
		if len(got) != min(count, 5) || (count > 0 && got[0].Date != earliest.Format(time.DateOnly)) {
			t.Errorf("level %d oldest: %+v (of %d, earliest %s)", level, got, count, earliest.Format(time.DateOnly))
		}
		for i := 1; i < len(got); i++ {
			if got[i].Date < got[i-1].Date {
				t.Errorf("level %d oldest not in date order: %+v", level, got)
			}
		}
		if len(got) > 0 && got[0].AgeDays != int(now.Truncate(24*time.Hour).Sub(earliest).Hours()/24) {
			t.Errorf("age %d", got[0].AgeDays)
		}
	}
	if len(f.LastRuns) != 1 || f.LastRuns[0].RunID != last || f.LastRuns[0].Matched != 7 {
		t.Errorf("last runs %+v", f.LastRuns)
	}
	tk := f.Tasks
	if tk.Open != 5 || tk.ByStatus[0].Count != 3 || tk.ByStatus[1].Count != 2 {
		t.Errorf("tasks %+v", tk)
	}
	if len(tk.ByAssignee) != 3 || tk.ByAssignee[0].Name != "Ann Lee" || tk.ByAssignee[0].Count != 3 || tk.ByAssignee[1].Count != 1 {
		t.Errorf("by assignee %+v", tk.ByAssignee)
	}
	if b := f.Bank; b.In != "11.50" || b.Out != "-2.25" || len(b.ByActor) != 2 || b.ByActor[0].In != "10.50" || b.ByActor[1].Actor != nil {
		t.Errorf("bank %+v", b)
	}
	if f.Imports == nil {
		t.Error("imports missing")
	}
}

// TestHomeFollowsScreens: each figure only with its screen, and the cache
// per permission set.
func TestHomeFollowsScreens(t *testing.T) {
	pool := pgtest.New(t)
	ctx := context.Background()
	now := time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)
	s := New(pool, testLevels(t), func(context.Context, int) (any, error) { return []string{}, nil })
	s.Now = func() time.Time { return now }
	march, _ := ParseMonth("", now)
	homeOnly, err := s.Home(ctx, &engine.Actor{Screens: map[int]bool{1: true}}, march)
	if err != nil {
		t.Fatal(err)
	}
	if homeOnly.Levels != nil || homeOnly.Tasks != nil || homeOnly.Imports != nil || homeOnly.Bank != nil || homeOnly.LastRuns != nil {
		t.Errorf("home only sees figures: %+v", homeOnly)
	}
	tasks, _ := s.Home(ctx, &engine.Actor{Screens: map[int]bool{1: true, 14: true}}, march)
	if tasks.Tasks == nil || tasks.Levels != nil {
		t.Errorf("tasks only: %+v", tasks)
	}
	// Cached for a minute: a new task shows after it.
	must(t, pool, `insert into task (task_name, is_status) values ('x', 1)`)
	again, _ := s.Home(ctx, &engine.Actor{Screens: map[int]bool{1: true, 14: true}}, march)
	if again.Tasks.Open != 0 {
		t.Errorf("not cached: %d open", again.Tasks.Open)
	}
	now = now.Add(CacheFor)
	later, _ := s.Home(ctx, &engine.Actor{Screens: map[int]bool{1: true, 14: true}}, march)
	if later.Tasks.Open != 1 {
		t.Errorf("cached past a minute: %d open", later.Tasks.Open)
	}
	// Alerts by the screen they belong to: intake (2), runs (13); cleared
	// ones and those older than AlertDays are not listed.
	must(t, pool, `insert into alert (key, kind, screen, message, message_code, raised_on, cleared_on) values
		('import:1', 'intakeFailed', 2, 'a', 'alert.importFailed', '2026-03-10 08:00Z', null),
		('run:1', 'runFailed', 13, 'b', 'alert.runFailed', '2026-03-10 07:00Z', null),
		('run:0', 'runFailed', 13, 'c', 'alert.runFailed', '2026-03-10 06:00Z', now()),
		('import:0', 'intakeFailed', 2, 'd', 'alert.importFailed', '2026-03-01 08:00Z', null)`)
	keys := func(screens ...int) string {
		a := &engine.Actor{Screens: map[int]bool{1: true}}
		for _, id := range screens {
			a.Screens[id] = true
		}
		f, err := s.Home(ctx, a, march)
		if err != nil {
			t.Fatal(err)
		}
		if f.Alerts == nil {
			return "none"
		}
		var out []string
		for _, al := range f.Alerts {
			out = append(out, al.Message)
		}
		return strings.Join(out, ",")
	}
	if got := keys(); got != "none" {
		t.Errorf("home only sees alerts %s", got)
	}
	if got := keys(2); got != "a" {
		t.Errorf("data import sees alerts %s, want a", got)
	}
	if got := keys(2, 13); got != "a,b" {
		t.Errorf("both see alerts %s, want a,b", got)
	}
	// Alerts are read afresh: one raised now shows while the figures are cached.
	must(t, pool, `insert into alert (key, kind, screen, message, message_code, raised_on) values ('import:2', 'intakeFailed', 2, 'e', 'alert.importFailed', '2026-03-10 08:30Z')`)
	if got := keys(2); got != "e,a" {
		t.Errorf("data import sees alerts %s after a new one, want e,a", got)
	}
	for _, bad := range []string{"2026-13", "March", "2026-3-1", "0000-01"} {
		if _, err := ParseMonth(bad, now); engine.ErrorCode(err) != engine.CodeInvalid {
			t.Errorf("month %q: %v", bad, err)
		}
	}
}

// testLevels are the product's reconciliation levels (recon.yaml).
func testLevels(t *testing.T) []*recon.Level {
	t.Helper()
	return testDefinition(t).Levels
}

func testDefinition(t *testing.T) *recon.Definition {
	t.Helper()
	d, err := recon.Load(os.DirFS("../.."))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestHomeFiguresAreTheReportsFigures reconciles a month whose records
// straddle its ends (a payout with a settlement of the month before, a late
// settlement after its match, an amount edited after matching) and
// compares Home's counts with the reports' rows of the same month.
func TestHomeFiguresAreTheReportsFigures(t *testing.T) {
	pool := pgtest.New(t)
	ctx := engine.WithActor(context.Background(), &engine.Actor{Username: "rita"})
	def := testDefinition(t)
	if err := def.Sync(ctx, pool); err != nil {
		t.Fatal(err)
	}
	r := recon.NewService(pool, def, slog.New(slog.NewTextHandler(io.Discard, nil)))
	for _, q := range []string{
		`insert into config_setting (provider_name, transaction_type, provider_actor, amount_threshold, date_threshold) values ('Nuvei', 1, 'Nuvei', 1, 1)`,
		`insert into config_setting (provider_name, transaction_type, provider_actor, amount_threshold, date_threshold) values ('Nuvei', 2, 'Nuvei', 1, 2)`,
		`insert into config_setting (provider_name, transaction_type, provider_actor, amount_threshold, date_threshold) values ('Nuvei', 3, 'Nuvei', 1, 3)`,
	} {
		must(t, pool, q)
	}
	rng := rand.New(rand.NewPCG(7, 21))
	for i := range 60 {
		day := time.Date(2026, 2, 25, 0, 0, 0, 0, time.UTC).AddDate(0, 0, rng.IntN(40)) // late February to early April
		number := fmt.Sprintf("90%011d", i)
		cents := 1000 + rng.IntN(50000)
		must(t, pool, `insert into ticket (ticket_number, trans_date, payment_type, country_code, currency, transaction_code, sale_amount, natural_key, import_file_id)
			values ($1, $2, 'CC', 'US', 'USD', 'TKTT', $3::numeric / 100, $1, 1)`, number, day, cents)
		if i%7 == 3 {
			continue // no transaction
		}
		off := []int{0, 0, 0, 50, 400}[rng.IntN(5)] // exact, a little off, beyond the tolerance
		must(t, pool, `insert into card_transaction (client_unique_id, processing_date, provider_actor, currency, transaction_amount, natural_key, import_file_id)
			values ($1, $2, 'Nuvei', 'USD', $3::numeric / 100, $1, 1)`, number, day.AddDate(0, 0, rng.IntN(2)), cents+off)
		if i%5 == 4 {
			continue // not settled
		}
		payout := fmt.Sprintf("P-%d", i%9)
		must(t, pool, `insert into settlement (payout_id, client_unique_id, settlement_date, provider_actor, settlement_currency, settlement_net, fees, natural_key, import_file_id)
			values ($1, $2, $3, 'Nuvei', 'USD', $4::numeric / 100 - 1, 1, $2, 1)`, payout, number, day.AddDate(0, 0, 1), cents+off)
	}
	if _, err := pool.Exec(ctx, `insert into bank_booking (bank_account, booked_date, amount_local, currency, text, provider, reco_amount_in_local_currency, status, in_or_out)
		select 'ACC', latest_date + 1, total_net, 'USD', 'payout', 'Nuvei', total_net, 'Processed', 'IN' from payout where payout_key <> 'P-8'`); err != nil {
		t.Fatal(err)
	}
	for _, l := range def.Levels {
		if _, err := r.RunNow(ctx, l); err != nil {
			t.Fatal(err)
		}
	}
	// After matching: a late settlement, and a ticket's amount edited.
	must(t, pool, `insert into settlement (payout_id, client_unique_id, settlement_date, provider_actor, settlement_currency, settlement_net, natural_key, import_file_id)
		select payout_key, 'late', latest_date, 'Nuvei', 'USD', 70, 'late', 1 from payout
		where latest_date between '2026-03-01' and '2026-03-31' order by payout_key limit 1`)
	must(t, pool, `update ticket set sale_amount = sale_amount + 25 where id = (select min(id) from ticket where trans_date between '2026-03-01' and '2026-03-31')`)

	h := New(pool, def.Levels, nil)
	month := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	f, err := h.Home(ctx, &engine.Actor{Screens: map[int]bool{13: true}}, month)
	if err != nil {
		t.Fatal(err)
	}
	count := func(sql string) int64 {
		var n int64
		if err := pool.QueryRow(ctx, sql).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	l1, l3 := f.Levels[0], f.Levels[2]
	// Level 1: the report's ticket and matched-ticket counts, and its exact
	// (status 3) groups hold only Home's matched tickets.
	tickets := count(`select coalesce(sum(sra_ticket_count), 0) from recon_ticket_transaction_report('2026-03-01', '2026-03-31', null, null, null)`)
	matched := count(`select coalesce(sum(ppa_transaction_count), 0) from recon_ticket_transaction_report('2026-03-01', '2026-03-31', null, null, null)`)
	if total := l1.Matched.Count + l1.Partial.Count + l1.Unmatched.Count; total != tickets || l1.Matched.Count+l1.Partial.Count != matched {
		t.Errorf("level 1: Home %+v, the report %d tickets of which %d matched", l1, tickets, matched)
	}
	// Level 3: a row per payout of the month, by status.
	for status, got := range map[int]int64{1: l3.Matched.Count, 2: l3.Partial.Count, 3: l3.Unmatched.Count} {
		want := count(fmt.Sprintf(`select count(*) from recon_settlement_bank_report('2026-03-01', '2026-03-31', null, null) where recon_status_number = %d`, status))
		if got != want {
			t.Errorf("level 3 status %d: Home %d, the report %d", status, got, want)
		}
	}
	if l3.Partial.Count == 0 || l3.Matched.Count == 0 {
		t.Errorf("the data should give matched and changed payouts in March: %+v", l3)
	}
}
