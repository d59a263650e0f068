package recon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"ledgerdesk/engine"
	"ledgerdesk/screens/tasks"
)

// The figures a controller could read wrong before levels were declared
// once (issue: reconciliation you can trust with money). Each test is named
// after what was wrong.

// bankReport is the settlements-vs-bank report of a period as
// "payout|amount|status number|variance" rows, by payout.
func (f *fixture) bankReport(from, to string) []string {
	f.t.Helper()
	rows, err := f.pool.Query(f.ctx, `select payout_id || '|' || settlement_amount || '|' || recon_status_number || '|' || coalesce(amount_variance::text, '-')
		from recon_settlement_bank_report($1, $2, null, null) order by payout_id`, from, to)
	if err != nil {
		f.t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			f.t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

func equalRows(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\n got  %q\n want %q", what, got, want)
	}
}

func TestPayoutSplitAcrossMonthsIsOneRowInItsLatestMonth(t *testing.T) {
	f := newFixture(t)
	f.tolerance("nuvei", 3, "0", 3, "")
	f.settlement("P-SPLIT", "c1", "Nuvei", "USD", "2026-01-30", "", "", "100.00")
	f.settlement("P-SPLIT", "c2", "Nuvei", "USD", "2026-02-02", "", "", "50.00")
	b := f.booking("150.00", "", "USD", "2026-02-03", "Nuvei", "")
	f.auto(Levels[2])
	if m := f.liveRight(Levels[2], b); m == nil || m.Status != "matched" {
		t.Fatalf("the booking should match the payout of 150: %+v", m)
	}
	equalRows(t, "January", f.bankReport("2026-01-01", "2026-01-31"))
	equalRows(t, "February", f.bankReport("2026-02-01", "2026-02-28"), "P-SPLIT|150.00|1|0.00")
	equalRows(t, "both months", f.bankReport("2026-01-01", "2026-02-28"), "P-SPLIT|150.00|1|0.00")
}

func TestLateSettlementChangesTheMatchedPayout(t *testing.T) {
	f := newFixture(t)
	f.tolerance("nuvei", 3, "1.00", 3, "")
	f.settlement("P-LATE", "c1", "Nuvei", "USD", "2026-03-02", "", "", "100.00")
	f.settlement("P-LATE", "c2", "Nuvei", "USD", "2026-03-02", "", "", "50.00")
	b := f.booking("150.00", "", "USD", "2026-03-03", "Nuvei", "")
	f.auto(Levels[2])
	equalRows(t, "before", f.bankReport("2026-03-01", "2026-03-31"), "P-LATE|150.00|1|0.00")

	// A settlement of the payout arrives after the match: the payout is
	// 220 against a booking of 150, outside the tolerance of 1.00.
	f.settlement("P-LATE", "c3", "Nuvei", "USD", "2026-03-04", "", "", "70.00")
	m := f.liveRight(Levels[2], b)
	if m == nil || m.Status != "changed" || m.AmountVariance == nil || *m.AmountVariance != "70.00" {
		t.Fatalf("the match should be changed since matched with a variance of 70.00: %+v", m)
	}
	equalRows(t, "after", f.bankReport("2026-03-01", "2026-03-31"), "P-LATE|220.00|2|70.00")

	// Within the tolerance again (a settlement of -69.50): partial, not changed.
	f.settlement("P-LATE", "c4", "Nuvei", "USD", "2026-03-04", "", "", "-69.50")
	if m := f.liveRight(Levels[2], b); m == nil || m.Status != "partial" || *m.AmountVariance != "0.50" {
		t.Fatalf("back inside the tolerance the match is partial: %+v", m)
	}
	// Its settlements deleted, the payout goes and its match ends.
	f.exec(`delete from settlement where payout_id = 'P-LATE'`)
	if n := f.id(`select count(*) from payout where payout_key = 'P-LATE'`); n != 0 {
		t.Errorf("the payout without settlements is still there")
	}
	if m := f.liveRight(Levels[2], b); m != nil {
		t.Errorf("the match of a payout that is gone should have ended: %+v", m)
	}
	var by string
	if err := f.pool.QueryRow(f.ctx, `select undone_by from recon_match where level = 3 and right_id = $1`, b).Scan(&by); err != nil || by != "system" {
		t.Errorf("the match should be ended by the system, got %q %v", by, err)
	}
}

func TestMatchFollowsAnEditedOrDeletedRecord(t *testing.T) {
	f := newFixture(t)
	f.tolerance("nuvei", 1, "0.50", 1, "")
	tk := f.ticket("1111111111111", "100.00", "USD", "2026-04-01")
	x := f.transaction("1111111111111", "Nuvei", "100.00", "USD", "2026-04-01")
	f.auto(Levels[0])
	f.exec(`update ticket set sale_amount = 100.30 where id = $1`, tk)
	if m := f.live(Levels[0], tk); m == nil || m.Status != "partial" || *m.AmountVariance != "0.30" {
		t.Fatalf("inside the tolerance after the edit: %+v", m)
	}
	f.exec(`update ticket set sale_amount = 120 where id = $1`, tk)
	if m := f.live(Levels[0], tk); m == nil || m.Status != "changed" || *m.AmountVariance != "20.00" {
		t.Fatalf("outside the tolerance after the edit: %+v", m)
	}
	// The day sums follow (the report compares with the documents).
	f.daySumsFresh("after an edit of a matched ticket")
	f.exec(`delete from card_transaction where id = $1`, x)
	if m := f.live(Levels[0], tk); m != nil {
		t.Fatalf("the match of a deleted transaction should have ended: %+v", m)
	}
	f.daySumsFresh("after a delete of a matched transaction")
}

func TestAdjustmentCountsOnceWhenSaleAndRefundShareTheTicketNumber(t *testing.T) {
	f := newFixture(t)
	sale := f.ticket("2222222222222", "100.00", "USD", "2026-05-04")
	f.ticket("2222222222222", "-100.00", "USD", "2026-05-04") // the refund
	x := f.transaction("2222222222222", "Nuvei", "90.00", "USD", "2026-05-04")
	task := f.id(`insert into task (task_name) values ('difference') returning id`)
	f.exec(`insert into task_ticket (task_id, ticket_id) values ($1, $2)`, task, sale)
	f.exec(`insert into task_transaction (task_id, transaction_id) values ($1, $2)`, task, x)
	svc := tasks.New(f.pool, nil)
	if _, err := svc.AddAdjustment(f.ctx, task, tasks.Adjustment{TicketID: sale, Amount: json.RawMessage(`"10.00"`), Date: "2026-05-04"}); err != nil {
		t.Fatal(err)
	}
	var ppa string
	if err := f.pool.QueryRow(f.ctx, `select ppa_total_amount::text from recon_ticket_transaction_report('2026-05-01', '2026-05-31', null, null, null)`).
		Scan(&ppa); err != nil {
		t.Fatal(err)
	}
	if ppa != "10.00" {
		t.Errorf("one adjustment of 10.00 counts once: transaction total %s", ppa)
	}
}

func TestWhyAnswersEveryLevelAndSide(t *testing.T) {
	f := newFixture(t)
	f.tolerance("nuvei", 1, "0", 0, "")
	f.tolerance("nuvei", 2, "0", 0, "")
	f.tolerance("nuvei", 3, "0", 0, "")
	tk := f.ticket("3333333333333", "10.00", "USD", "2026-06-01")
	x := f.transaction("3333333333333", "Nuvei", "12.00", "USD", "2026-06-01")
	s := f.settlement("P-WHY", "3333333333333", "Nuvei", "USD", "2026-06-02", "", "", "13.00")
	b := f.booking("14.00", "", "USD", "2026-06-03", "Nuvei", "")
	p := f.payoutID("P-WHY")
	ids := map[string]int64{"1/left": tk, "1/right": x, "2/left": x, "2/right": s, "3/left": p, "3/right": b}
	// each side's reference, by the side and level of the candidate: a
	// booking without an archive reference or number by its text
	refs := map[string]string{"left/1": "3333333333333", "right/1": "3333333333333", "left/2": "3333333333333", "right/2": "3333333333333",
		"left/3": "P-WHY", "right/3": "payout"}
	for _, l := range Levels {
		for _, side := range []string{"left", "right"} {
			key := string(rune('0'+l.N)) + "/" + side
			w, err := f.svc.WhyNot(f.ctx, l, side, ids[key])
			if err != nil {
				t.Errorf("why %s %s: %v", l.Slug, side, err)
				continue
			}
			var cands []map[string]any
			if err := json.Unmarshal(w.Candidates, &cands); err != nil || len(cands) != 1 {
				t.Errorf("why %s %s: one candidate expected, got %s (%v)", l.Slug, side, w.Candidates, err)
				continue
			}
			reasons, _ := cands[0]["reasons"].([]any)
			if len(reasons) == 0 || reasons[0] != "amount" {
				t.Errorf("why %s %s: the amount should be named, got %v", l.Slug, side, cands[0]["reasons"])
			}
			// the candidate by the reference people know it by
			if want := refs[other(side)+"/"+key[:1]]; cands[0]["ref"] != want {
				t.Errorf("why %s %s: the candidate's reference is %v, want %q", l.Slug, side, cands[0]["ref"], want)
			}
		}
	}
	// a booking's archive reference, else its number, else its text, else
	// its account; an empty one counts as none
	for _, tt := range []struct{ archive, number, text, want string }{
		{"ARC-1", "N-1", "payout", "ARC-1"}, {"", "N-1", "payout", "N-1"}, {"", "", "  ", "ACC-USD"}, {"", "", "NUVEI 0603", "NUVEI 0603"},
	} {
		if _, err := f.pool.Exec(f.ctx, `update bank_booking set bank_archive_reference = nullif($2, 'null'), number = $3, text = $4 where id = $1`,
			b, tt.archive, tt.number, tt.text); err != nil {
			t.Fatal(err)
		}
		var ref string
		if err := f.pool.QueryRow(f.ctx, `select ref from recon_side_bank where id = $1`, b).Scan(&ref); err != nil || ref != tt.want {
			t.Errorf("archive %q, number %q, text %q: reference %q (%v), want %q", tt.archive, tt.number, tt.text, ref, err, tt.want)
		}
	}
}

func TestForcedMatchNeedsAReasonAndSaysSo(t *testing.T) {
	f := newFixture(t)
	f.tolerance("nuvei", 1, "0", 0, "1")
	f.rate("EUR", "2026-07-01", "1.10")
	tk := f.ticket("4444444444444", "100.00", "EUR", "2026-07-01")
	x := f.transaction("4444444444444", "Nuvei", "130.00", "USD", "2026-07-01")
	_, err := f.svc.MatchByHand(f.ctx, Levels[0], MatchRequest{LeftID: tk, RightID: x})
	var e *engine.Error
	if !errors.As(err, &e) || e.Key != "recon.outsideCurrencyTolerance" {
		t.Fatalf("outside the currency tolerance: %v", err)
	}
	_, err = f.svc.MatchByHand(f.ctx, Levels[0], MatchRequest{LeftID: tk, RightID: x, Force: true})
	if !errors.As(err, &e) || e.Key != "recon.forceReasonRequired" || e.Field != "reason" {
		t.Fatalf("force without a reason: %v", err)
	}
	m, err := f.svc.MatchByHand(f.ctx, Levels[0], MatchRequest{LeftID: tk, RightID: x, Force: true, Reason: "card paid in USD at the counter"})
	if err != nil {
		t.Fatal(err)
	}
	if m.Rule != "forced" || m.Reason == nil || *m.Reason != "card paid in USD at the counter" {
		t.Errorf("a forced match says so: %+v", m)
	}
	var action string
	if err := f.pool.QueryRow(f.ctx, `select action from audit_log where entity = 'recon_match' and entity_id = $1`, fmt.Sprint(m.ID)).Scan(&action); err != nil ||
		action != "recon.match.forced" {
		t.Errorf("the audit row should say forced: %q %v", action, err)
	}
}

func TestCurrencyFilterListsTheDocumentsCurrencies(t *testing.T) {
	f := newFixture(t)
	f.ticket("5555555555555", "1.00", "EUR", "2026-08-01")
	f.settlement("P-SEK", "c", "Nuvei", "SEK", "2026-08-01", "", "", "1.00")
	raw, err := f.svc.Currencies(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	var list []struct{ Code string }
	if err := json.Unmarshal(raw, &list); err != nil {
		t.Fatal(err)
	}
	codes := map[string]bool{}
	for _, c := range list {
		codes[c.Code] = true
	}
	if !codes["EUR"] || !codes["SEK"] {
		t.Errorf("a EUR ticket and a SEK settlement: the filter offers %v", list)
	}
}

func TestRunFailureIsAMessageCodeNotDriverText(t *testing.T) {
	deadlock := &pgconn.PgError{Code: "40P01", Message: "deadlock detected"}
	if e := runFailure(7, deadlock); e.Key != "recon.runCollided" || strings.Contains(e.Message, "deadlock") {
		t.Errorf("a deadlock: %+v", e)
	}
	if e := runFailure(7, errors.New(`ERROR: column c.provider_key does not exist (SQLSTATE 42703)`)); e.Key != "recon.runFailed" ||
		strings.Contains(e.Message, "SQLSTATE") {
		t.Errorf("an unexpected failure: %+v", e)
	}
	f := newFixture(t)
	id := f.id(`insert into recon_run (level, created_by, status) values (1, 'rita', 'running') returning id`)
	f.svc.fail(context.Background(), id, deadlock)
	r, err := f.svc.GetRun(f.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != "failed" || r.ErrorCode != "recon.runCollided" || strings.Contains(r.Error, "SQLSTATE") || r.ErrorParams["runId"] == nil {
		t.Errorf("the stored run: %+v", r)
	}
}

// daySumsFresh compares the day sums the triggers keep with the same sums
// recomputed from the documents and the live matches (in a transaction
// that is rolled back).
func (f *fixture) daySumsFresh(step string) {
	f.t.Helper()
	tx, err := f.pool.Begin(f.ctx)
	if err != nil {
		f.t.Fatal(err)
	}
	defer tx.Rollback(f.ctx)
	read := func() string {
		var out string
		if err := tx.QueryRow(f.ctx, `select (select coalesce(string_agg(d::text, E'\n' order by d::text), '') from recon_ticket_day d) || E'\n--\n' ||
			(select coalesce(string_agg(d::text, E'\n' order by d::text), '') from recon_transaction_day d)`).Scan(&out); err != nil {
			f.t.Fatal(err)
		}
		return out
	}
	kept := read()
	if _, err := tx.Exec(f.ctx, `select recon_ticket_day_refresh(null), recon_transaction_day_refresh(null)`); err != nil {
		f.t.Fatal(err)
	}
	if fresh := read(); fresh != kept {
		f.t.Errorf("%s: the day sums kept differ from the documents:\n kept  %s\n fresh %s", step, kept, fresh)
	}
}

// TestEditDuringARunIsFollowed: a booking edited while a run of its level
// holds the level (its matches not yet committed) waits for the run, then
// re-evaluates the run's match; without the wait the match would keep the
// variance of the old amount (level 3 keeps no day sums whose locks would
// order the two anyway).
func TestEditDuringARunIsFollowed(t *testing.T) {
	f := newFixture(t)
	f.settlement("P-RUN", "c1", "Nuvei", "USD", "2026-09-01", "", "", "50.00")
	p := f.payoutID("P-RUN")
	b := f.booking("50.00", "", "USD", "2026-09-01", "Nuvei", "")
	run, err := f.pool.Begin(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer run.Rollback(f.ctx)
	if err := lockLevel(f.ctx, run, Levels[2], 0); err != nil {
		t.Fatal(err)
	}
	if _, err := run.Exec(f.ctx, `insert into recon_match (level, left_id, right_id, status, rule, amount_variance, date_lag_days, created_by)
		values (3, $1, $2, 'matched', 'exact', 0, 0, 'run')`, p, b); err != nil {
		t.Fatal(err)
	}
	edited := make(chan error, 1)
	go func() {
		_, err := f.pool.Exec(f.ctx, `update bank_booking set reco_amount_in_local_currency = 42 where id = $1`, b)
		edited <- err
	}()
	// Wait until the edit waits for a lock (the run's).
	for waiting := false; !waiting; {
		select {
		case err := <-edited:
			t.Fatalf("the edit did not wait for the run: %v", err)
		default:
		}
		if err := f.pool.QueryRow(f.ctx, `select exists (select 1 from pg_locks where not granted)`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
	}
	if err := run.Commit(f.ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-edited; err != nil {
		t.Fatal(err)
	}
	if m := f.liveRight(Levels[2], b); m == nil || m.Status != "changed" || *m.AmountVariance != "8.00" {
		t.Errorf("the run's match should follow the edit: %+v", m)
	}
}

// TestAbandonedRunsAreMarked: a run still running whose heartbeat stopped
// (its process was killed) is marked failed by the sweep
// (recon.runAbandonedRerun), and the level is queued again for the same user, so the work is
// finished (by whichever node's queue takes it); a run whose heartbeat is
// fresh is left alone; a second try that dies too is only marked.
func TestAbandonedRunsAreMarked(t *testing.T) {
	f := newFixture(t)
	f.ticket("1250000000001", "10.00", "EUR", "2026-10-05")
	f.transaction("1250000000001", "Nuvei", "10.00", "EUR", "2026-10-05")
	dead := f.id(`insert into recon_run (level, created_by, status, started_on, heartbeat_at) values (1, 'rita', 'running', now() - interval '5 minutes', now() - interval '5 minutes') returning id`)
	alive := f.id(`insert into recon_run (level, created_by, status, started_on, heartbeat_at) values (2, 'rita', 'running', now() - interval '5 minutes', now()) returning id`)
	n, err := f.svc.MarkAbandoned(context.Background())
	if err != nil || n != 1 {
		t.Fatalf("marked %d (%v), want 1", n, err)
	}
	var status, code string
	var rerun *int64
	if err := f.pool.QueryRow(context.Background(), `select status, coalesce(error_code, ''), (error_params->>'rerunId')::bigint from recon_run where id = $1`, dead).
		Scan(&status, &code, &rerun); err != nil {
		t.Fatal(err)
	}
	if status != "failed" || code != "recon.runAbandonedRerun" || rerun == nil {
		t.Fatalf("the dead run: %s %s, second try %v", status, code, rerun)
	}
	if err := f.pool.QueryRow(context.Background(), `select status from recon_run where id = $1`, alive).Scan(&status); err != nil || status != "running" {
		t.Errorf("the live run: %s %v", status, err)
	}
	// The second try runs by itself, as the user who started the first, and matches.
	r, err := f.svc.waitRun(f.ctx, *rerun, 30*time.Second)
	if err != nil || r.Status != "succeeded" || r.Level != Levels[0].Slug || r.CreatedBy != "rita" || r.Matched != 1 {
		t.Fatalf("the second try: %+v %v", r, err)
	}
	// A second try that dies too is marked, not tried a third time.
	f.exec(`update recon_run set status = 'running', finished_on = null, heartbeat_at = now() - interval '5 minutes' where id = $1`, *rerun)
	if n, err := f.svc.MarkAbandoned(context.Background()); err != nil || n != 1 {
		t.Fatalf("second sweep marked %d (%v), want 1", n, err)
	}
	if err := f.pool.QueryRow(context.Background(), `select coalesce(error_code, '') from recon_run where id = $1`, *rerun).Scan(&code); err != nil || code != "recon.runAbandoned" {
		t.Errorf("the dead second try: %q (%v), want recon.runAbandoned", code, err)
	}
	var queued int
	if err := f.pool.QueryRow(context.Background(), `select count(*) from recon_run where level = 1 and id > $1`, *rerun).Scan(&queued); err != nil || queued != 0 {
		t.Errorf("a dead second try was queued again: %d runs after it (%v)", queued, err)
	}
	// The level is free: the next run starts and finishes.
	f.auto(Levels[0])
}
