package recon

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestReportDaySumsFollowEveryWrite checks the day sums the first two
// reports read (migration 00016) against the reports as first written
// (migration 00014: every record's match looked up at every page), which
// serve as the reference here (and the bank report against its reference,
// which grouped the settlements at every page), after each kind of write: imports, automatic
// and manual matches, investigation, undo, a task's adjustment, edits and
// deletes of the documents, deleted and truncated matches. It also checks
// that the sums kept by the triggers equal the sums recomputed from scratch.
func TestReportDaySumsFollowEveryWrite(t *testing.T) {
	f := newFixture(t)
	f.referenceReports()
	l1, l2 := Levels[0], Levels[1]
	f.tolerance("Nuvei", 1, "1.00", 2, "")
	f.tolerance("Amex", 1, "0.50", 1, "")
	f.tolerance("Nuvei", 2, "1.00", 3, "2.0")
	f.tolerance("Amex", 2, "0", 3, "")
	f.rate("EUR", "2025-03-01", "1.10")
	f.rate("USD", "2025-03-01", "1")

	// Tickets over three days in two currencies, payment types and
	// countries (one with neither); transactions of two providers, exact,
	// off by cents, late, missing; settlements exact, with fees, without a
	// gross, in another currency.
	type doc struct{ number, amount, cur, date, pt, cc string }
	tickets := []doc{
		{"1000000000001", "100.00", "USD", "2025-03-02", "CC", "US"},
		{"1000000000002", "200.00", "USD", "2025-03-02", "CC", "US"},
		{"1000000000003", "300.00", "EUR", "2025-03-02", "CA", "SE"},
		{"1000000000004", "400.00", "EUR", "2025-03-03", "", ""},
		{"1000000000005", "-50.00", "USD", "2025-03-03", "CC", "US"},
		{"1000000000006", "60.00", "USD", "2025-03-04", "CC", "NO"},
		{"1000000000007", "70.00", "EUR", "2025-03-04", "CA", "SE"},
		{"1000000000008", "80.00", "USD", "2025-03-04", "CC", "US"},
	}
	ids := map[string]int64{}
	for _, d := range tickets {
		ids[d.number] = f.id(`insert into ticket (ticket_number, trans_date, payment_type, country_code, currency, transaction_code, sale_amount, natural_key, import_file_id)
			values ($1, $2, nullif($3, ''), nullif($4, ''), $5, 'TKTT', $6, $7, 1) returning id`, d.number, d.date, d.pt, d.cc, d.cur, d.amount, f.key())
	}
	f.checkDaySums("tickets only")

	x1 := f.transaction("1000000000001", "Nuvei", "100.00", "USD", "2025-03-02")
	f.transaction("1000000000002", "Nuvei", "200.40", "USD", "2025-03-03")
	x3 := f.transaction("1000000000003", "Amex", "300.00", "EUR", "2025-03-02")
	x4 := f.transaction("1000000000004", "Nuvei", "400.00", "EUR", "2025-03-03")
	f.transaction("1000000000005", "Amex", "-50.00", "USD", "2025-03-03")
	x6 := f.transaction("1000000000006", "Nuvei", "65.00", "USD", "2025-03-04") // outside the tolerance
	f.transaction("1000000000008", "Amex", "80.00", "USD", "2025-03-09")        // too late
	f.settlement("P1", "1000000000001", "Nuvei", "USD", "2025-03-04", "100.00", "2.50", "97.50")
	f.settlement("P1", "1000000000002", "Nuvei", "USD", "2025-03-04", "", "5.00", "195.40")
	s3 := f.settlement("P2", "1000000000003", "Amex", "EUR", "2025-03-04", "300.00", "", "300.00")
	f.settlement("P3", "1000000000004", "Nuvei", "USD", "2025-03-05", "440.00", "4.00", "436.00") // settled in USD
	f.checkDaySums("documents")

	f.booking("292.90", "", "USD", "2025-03-05", "Nuvei", "")
	f.booking("300.00", "", "EUR", "2025-03-05", "Amex", "")
	f.auto(l1)
	f.auto(l2)
	f.auto(Levels[2])
	f.checkDaySums("automatic runs")

	byHand, err := f.svc.MatchByHand(f.ctx, l1, MatchRequest{LeftID: ids["1000000000006"], RightID: x6, Reason: "agreed with the airline"})
	if err != nil {
		t.Fatal(err)
	}
	f.checkDaySums("manual match with a difference")

	x7 := f.transaction("1000000000007", "Nuvei", "70.00", "EUR", "2025-03-04")
	if _, err := f.svc.MatchByHand(f.ctx, l1, MatchRequest{LeftID: ids["1000000000007"], RightID: x7, Investigate: true, Reason: "odd"}); err != nil {
		t.Fatal(err)
	}
	f.checkDaySums("investigation")

	if _, err := f.svc.Undo(f.ctx, l1, byHand.ID, "wrong pair"); err != nil {
		t.Fatal(err)
	}
	if m := f.liveRight(l2, s3); m != nil {
		if _, err := f.svc.Undo(f.ctx, l2, m.ID, "wrong pair"); err != nil {
			t.Fatal(err)
		}
	}
	f.checkDaySums("undo")

	task := f.id(`insert into task (task_name) values ('refund difference') returning id`)
	adj := f.id(`insert into card_transaction (client_unique_id, processing_date, provider_actor, currency, transaction_amount, is_manual_adjust, task_id,
		adjusted_ticket_id) values ('1000000000002', '2025-03-05', 'Nuvei', 'USD', '-0.40', true, $1,
		(select min(id) from ticket where ticket_number = '1000000000002')) returning id`, task)
	f.checkDaySums("task adjustment")
	f.exec(`delete from card_transaction where id = $1`, adj)
	f.checkDaySums("adjustment deleted")

	f.exec(`update card_transaction set provider_actor = 'Amex' where id = $1`, x1)
	f.exec(`update settlement set fees = 3.00 where payout_id = 'P1'`)
	f.exec(`update ticket set sale_amount = 310.00, trans_date = '2025-03-03' where id = $1`, ids["1000000000003"])
	f.checkDaySums("documents edited")

	f.exec(`delete from recon_match where level = 1 and right_id = $1`, x4)
	f.exec(`delete from card_transaction where id = $1`, x3)
	f.exec(`delete from settlement where payout_id = 'P3'`)
	f.checkDaySums("documents and matches deleted")

	f.ticket("1000000000009", "90.00", "USD", "2025-03-04")
	f.transaction("1000000000009", "Nuvei", "90.00", "USD", "2025-03-04")
	f.settlement("P4", "1000000000009", "Nuvei", "USD", "2025-03-06", "90.00", "1.00", "89.00")
	f.booking("89.00", "", "USD", "2025-03-07", "Nuvei", "")
	f.auto(l1)
	f.auto(l2)
	f.auto(Levels[2])
	f.checkDaySums("a second import and run")

	f.exec(`truncate recon_match, recon_match_member`)
	f.checkDaySums("matches truncated")
	f.exec(`truncate ticket, card_transaction, settlement cascade`)
	f.checkDaySums("documents truncated")
}

// referenceReports creates the report functions of migration 00014 under
// the names reference_*, to compare the day sums' reports with.
func (f *fixture) referenceReports() {
	f.t.Helper()
	raw, err := os.ReadFile("../../migrations/00014_recon_reports.sql")
	if err != nil {
		f.t.Fatal(err)
	}
	up := strings.SplitN(string(raw), "-- +goose Down", 2)[0]
	for _, name := range []string{"recon_ticket_transaction_report", "recon_transaction_settlement_report", "recon_settlement_bank_report"} {
		m := regexp.MustCompile(`(?s)create function ` + name + `\(.*?\$\$;`).FindString(up)
		if m == "" {
			f.t.Fatalf("%s not found in migration 00014", name)
		}
		f.exec(strings.Replace(m, "create function "+name, "create function reference_"+name, 1))
	}
}

// checkDaySums compares each report with its reference under several
// filters, and the kept sums with sums recomputed from the documents.
func (f *fixture) checkDaySums(step string) {
	f.t.Helper()
	filters := []struct {
		name string
		args []any
	}{
		{"all", []any{"2025-01-01", "2025-12-31", nil, nil, nil}},
		{"one day", []any{"2025-03-03", "2025-03-03", nil, nil, nil}},
		{"EUR", []any{"2025-01-01", "2025-12-31", []string{"EUR"}, nil, nil}},
		{"provider nuvei", []any{"2025-01-01", "2025-12-31", nil, []string{"nuvei"}, nil}},
		{"provider AMEX", []any{"2025-01-01", "2025-12-31", nil, []string{"AMEX"}, nil}},
		{"ticket", []any{"2025-01-01", "2025-12-31", nil, nil, "1000000000002"}},
	}
	for _, report := range []string{"recon_ticket_transaction_report", "recon_transaction_settlement_report"} {
		for _, flt := range filters {
			f.compareReport(step, report, flt.name, `($1, $2, $3, $4, $5)`, flt.args)
		}
	}
	for _, flt := range filters[:len(filters)-1] { // the bank report takes no ticket number
		f.compareReport(step, "recon_settlement_bank_report", flt.name, `($1, $2, $3, $4)`, flt.args[:4])
	}
	payouts := f.rowsText(`select d::text from recon_payout_day d order by 1`)
	fresh := f.rowsText(`select d::text from (select settlement_date, payout_id, settlement_currency, provider_actor, count(*), sum(settlement_net)
		from settlement group by 1, 2, 3, 4) d order by 1`)
	if strings.Join(payouts, "\n") != strings.Join(fresh, "\n") {
		f.t.Errorf("%s: recon_payout_day kept by the triggers differs from the settlements:\n kept  %s\n fresh %s", step,
			strings.Join(payouts, "\n       "), strings.Join(fresh, "\n       "))
	}
	for _, table := range []string{"recon_ticket_day", "recon_transaction_day"} {
		var kept, fresh []string
		err := pgx.BeginFunc(f.ctx, f.pool, func(tx pgx.Tx) error {
			var err error
			if kept, err = txRowsText(f, tx, `select d::text from `+table+` d order by 1`); err != nil {
				return err
			}
			if _, err := tx.Exec(f.ctx, `select `+table+`_refresh(null)`); err != nil {
				return err
			}
			if fresh, err = txRowsText(f, tx, `select d::text from `+table+` d order by 1`); err != nil {
				return err
			}
			return errRollback
		})
		if err != errRollback {
			f.t.Fatal(err)
		}
		if strings.Join(kept, "\n") != strings.Join(fresh, "\n") {
			f.t.Errorf("%s: %s kept by the triggers differs from a recomputation:\n kept  %s\n fresh %s", step, table,
				strings.Join(kept, "\n       "), strings.Join(fresh, "\n       "))
		}
	}
}

// compareReport compares a report with its reference for one filter.
func (f *fixture) compareReport(step, report, filter, params string, args []any) {
	f.t.Helper()
	got := f.rowsText(`select t::text from `+report+params+` t order by 1`, args...)
	want := f.rowsText(`select t::text from reference_`+report+params+` t order by 1`, args...)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		f.t.Errorf("%s: %s, %s:\n got %s\nwant %s", step, report, filter, strings.Join(got, "\n     "), strings.Join(want, "\n     "))
	}
}

type rollback struct{}

func (rollback) Error() string { return "rollback" }

var errRollback error = rollback{}

func (f *fixture) rowsText(sql string, args ...any) []string {
	f.t.Helper()
	rows, err := f.pool.Query(f.ctx, sql, args...)
	if err != nil {
		f.t.Fatalf("%s: %v", sql, err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		f.t.Fatalf("%s: %v", sql, err)
	}
	return out
}

func txRowsText(f *fixture, tx pgx.Tx, sql string) ([]string, error) {
	rows, err := tx.Query(f.ctx, sql)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}
