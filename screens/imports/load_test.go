package imports

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertype"

	"ledgerdesk/engine"
	"ledgerdesk/internal/pgtest"
)

// loader is the import service on a fresh database with an insert-only job
// queue: the tests run each job themselves with Run.
type loader struct {
	s    *Service
	pool *pgxpool.Pool
	ctx  context.Context
}

func newLoader(t *testing.T) *loader {
	t.Helper()
	pool := pgtest.New(t)
	layouts, err := LoadDescriptors(os.DirFS("../.."))
	if err != nil {
		t.Fatal(err)
	}
	s := NewService(pool, layouts, 0, slog.New(slog.NewTextHandler(io.Discard, nil)))
	q, err := river.NewClient(riverpgxv5.New(pool), &river.Config{})
	if err != nil {
		t.Fatal(err)
	}
	s.SetQueue(q)
	ctx := engine.WithActor(context.Background(), &engine.Actor{Username: "loader-test"})
	return &loader{s: s, pool: pool, ctx: ctx}
}

func (l *loader) file(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/files/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// load submits and runs one import, returning its final state.
func (l *loader) load(t *testing.T, kind Kind, name string, content []byte, layout string) *File {
	t.Helper()
	f, err := l.s.Submit(l.ctx, Upload{Kind: kind, FileName: name, Content: ContentOf(content), Layout: layout})
	if err != nil {
		t.Fatalf("submit %s: %v", name, err)
	}
	if f.Status != "queued" {
		t.Fatalf("submitted status %s", f.Status)
	}
	var jobs int
	if err := l.pool.QueryRow(context.Background(), `select count(*) from river_job where kind = 'import_file' and (args->>'importId')::bigint = $1`, f.ImportID).Scan(&jobs); err != nil {
		t.Fatal(err)
	}
	if jobs != 1 {
		t.Fatalf("%d jobs queued for import %d", jobs, f.ImportID)
	}
	if err := l.s.Run(l.ctx, f.ImportID); err != nil {
		t.Fatalf("run %s: %v", name, err)
	}
	got, err := l.s.Get(l.ctx, f.ImportID)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func (l *loader) count(t *testing.T, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := l.pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestLoadEveryKind(t *testing.T) {
	l := newLoader(t)
	tests := []struct {
		kind         Kind
		file, layout string
		table        string
		rows         int
	}{
		{Ticket, "ticket.csv", "", "ticket", 4},
		{Ticket, "ticket.xlsx", "", "ticket", 0}, // same rows as the CSV: all already present
		{Transaction, "transaction.csv", "", "card_transaction", 4},
		{Settlement, "settlement.csv", "", "settlement", 3},
		{Bank, "bank.csv", "", "bank_booking", 3},
		{Bank, "camt053.xml", "", "bank_booking", -1},
		{Bank, "mt940.sta", "", "bank_booking", -1},
		{Bank, "nordic-bank.csv", "nordic-bank-sek", "bank_booking", -1},
		{Bank, "uk-bank.csv", "uk-bank-gbp", "bank_booking", 4},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			before := l.count(t, "select count(*) from "+tt.table)
			f := l.load(t, tt.kind, tt.file, l.file(t, tt.file), tt.layout)
			if f.Status != "succeeded" || f.Error != nil {
				t.Fatalf("status %s error %v rowErrors %v", f.Status, deref(f.Error), f.RowErrors)
			}
			added := l.count(t, "select count(*) from "+tt.table) - before
			if added != f.RowsLoaded || (tt.rows >= 0 && added != tt.rows) || f.RowsLoaded+f.RowsOverlap != f.RowsRead {
				t.Errorf("read %d loaded %d overlap %d, table grew by %d (want %d)", f.RowsRead, f.RowsLoaded, f.RowsOverlap, added, tt.rows)
			}
			if tt.rows < 0 && added == 0 {
				t.Error("nothing loaded")
			}
			var status, desc string
			if err := l.pool.QueryRow(context.Background(), `select status, description from extraction_log where id = $1`, f.ExtractionLogID).Scan(&status, &desc); err != nil {
				t.Fatal(err)
			}
			if status != "Success" || !strings.Contains(desc, tt.file) {
				t.Errorf("extraction log %q %q", status, desc)
			}
			if l.count(t, `select count(*) from import_file_part where import_file_id = $1`, f.ImportID) != 0 {
				t.Error("the upload's content is kept after the import")
			}
		})
	}
}

func TestSameFileTwice(t *testing.T) {
	l := newLoader(t)
	content := l.file(t, "bank.csv")
	l.load(t, Bank, "bank.csv", content, "")
	_, err := l.s.Submit(l.ctx, Upload{Kind: Bank, FileName: "again.csv", Content: ContentOf(content)})
	if engine.ErrorCode(err) != engine.CodeConflict || !strings.Contains(err.Error(), "already imported") {
		t.Fatalf("second upload: %v", err)
	}
	// The refusal has a message code whose time parameter the UI shows in
	// the reader's format, and its extraction-log row keeps both codes.
	var e *engine.Error
	if !errors.As(err, &e) || e.Key != "import.duplicate" || e.Params["file"] != "bank.csv" {
		t.Fatalf("refusal code %q %v", e.Key, e.Params)
	}
	if _, perr := time.Parse(time.RFC3339, fmt.Sprint(e.Params["when"])); perr != nil {
		t.Errorf("when %v: %v", e.Params["when"], perr)
	}
	if n := l.count(t, `select count(*) from extraction_log where module = 'Bank' and status = 'Failed'
		and description = 'again.csv: refused at upload, nothing loaded' and description_code = 'log.refused'
		and description_params->>'file' = 'again.csv' and error_code = 'import.duplicate' and error_params->>'file' = 'bank.csv'`); n != 1 {
		t.Errorf("%d extraction-log rows for the refused duplicate, want 1", n)
	}
	if n := l.count(t, `select count(*) from extraction_log where module = 'Bank' and status = 'Success' and description_code = 'log.loaded'
		and (description_params->>'loaded')::int > 0 and description_params->>'file' = 'bank.csv'`); n != 1 {
		t.Errorf("%d coded extraction-log rows for the load, want 1", n)
	}
	// The same content as another kind is another import (and here the wrong kind).
	if _, err := l.s.Submit(l.ctx, Upload{Kind: Ticket, FileName: "bank.csv", Content: ContentOf(content)}); err != nil {
		t.Fatalf("as tickets: %v", err)
	}
}

func TestOverlapIsReportedNotDuplicated(t *testing.T) {
	l := newLoader(t)
	l.load(t, Bank, "bank.csv", l.file(t, "bank.csv"), "")
	// A later statement repeating the first booking (same archive reference) and adding one.
	later := "BankAccount,BookedDate,InterestDate,Text,AmountLocal,Currency,BankArchiveReference,Number,BookedBalanceLocalCurrency\n" +
		"SE4550000000058398257466,2026-11-02,2026-11-02,NUVEI LIMITED PAYOUT 778899,25000.00,SEK,ARCH-0001,1,125000.00\n" +
		"SE4550000000058398257466,2026-11-04,2026-11-04,Amex payout,900.00,SEK,ARCH-0004,4,\n"
	f := l.load(t, Bank, "later.csv", []byte(later), "")
	if f.Status != "succeeded" || f.RowsLoaded != 1 || f.RowsOverlap != 1 {
		t.Fatalf("loaded %d overlap %d (%s)", f.RowsLoaded, f.RowsOverlap, f.Status)
	}
	if n := l.count(t, `select count(*) from bank_booking where bank_archive_reference = 'ARCH-0001'`); n != 1 {
		t.Errorf("the repeated booking is stored %d times", n)
	}
	// Two equal lines of a bank export are two bookings (two equal card fees
	// of a day, one archive reference): both load. A line of an earlier file
	// is named with that file.
	twice := "BankAccount,BookedDate,InterestDate,Text,AmountLocal,Currency,BankArchiveReference,Number,BookedBalanceLocalCurrency\n" +
		"SE4550000000058398257466,2026-11-04,2026-11-04,Amex payout,900.00,SEK,ARCH-0004,4,\n" +
		"SE4550000000058398257466,2026-11-05,2026-11-05,Card fee,-10.00,SEK,ARCH-0005,5,\n" +
		"SE4550000000058398257466,2026-11-05,2026-11-05,Card fee,-10.00,SEK,ARCH-0005,5,\n"
	f = l.load(t, Bank, "twice.csv", []byte(twice), "")
	var description string
	if err := l.pool.QueryRow(context.Background(), `select description from extraction_log where id = $1`, *f.ExtractionLogID).Scan(&description); err != nil {
		t.Fatal(err)
	}
	want := "twice.csv: 3 rows read, 2 loaded, 1 already present from earlier files"
	if f.RowsLoaded != 2 || f.RowsOverlap != 1 || description != want {
		t.Errorf("loaded %d overlap %d, log %q\nwant %q", f.RowsLoaded, f.RowsOverlap, description, want)
	}
	if n := l.count(t, `select count(*) from bank_booking where bank_archive_reference = 'ARCH-0005'`); n != 2 {
		t.Errorf("the two equal card fees are stored %d times, want 2", n)
	}
	if len(f.RowNotes) != 1 || f.RowNotes[0].Line != 2 || !f.RowNotes[0].Skipped || f.RowNotes[0].Code != "import.skip.present" || f.RowNotes[0].Params["file"] != "later.csv" {
		t.Errorf("notes %+v, want line 2 present from later.csv", f.RowNotes)
	}
	// The same lines again, in an export that overlaps: nothing twice, every
	// line named.
	again := twice + "SE4550000000058398257466,2026-11-05,2026-11-05,Card fee,-10.00,SEK,ARCH-0005,5,\n"
	f = l.load(t, Bank, "again.csv", []byte(again), "")
	if f.RowsLoaded != 1 || f.RowsOverlap != 3 || f.NoteCount != 3 {
		t.Errorf("loaded %d overlap %d notes %d, want 1, 3, 3 (the third equal fee is new)", f.RowsLoaded, f.RowsOverlap, f.NoteCount)
	}
}

// A statement whose lines repeat a reference (NONREF on every line, one
// bank reference on several debits) loads every line; the same statement
// again, alone or inside a longer file, loads nothing twice.
func TestRepeatedReferencesAllLoad(t *testing.T) {
	l := newLoader(t)
	stmt := func(ref, number, open, close string, lines ...string) string {
		return ":20:" + ref + "\n:25:NL69INGB0123456789EUR\n:28C:" + number + "\n:60F:" + open + "\n" + strings.Join(lines, "\n") + "\n:62F:" + close + "\n-\n"
	}
	first := stmt("STARTUMS", "00001/1", "C261101EUR100,00", "C261101EUR82,00",
		":61:2611011101D5,00NTRFNONREF//R1\n:86:Fee", ":61:2611011101D5,00NTRFNONREF//R1\n:86:Fee",
		":61:2611011101D4,00NTRFNONREF//R1\n:86:Fee", ":61:2611011101D4,00NTRFNONREF//R1\n:86:Fee")
	f := l.load(t, Bank, "day1.sta", []byte(first), "")
	if f.Status != "succeeded" || f.RowsLoaded != 4 {
		t.Fatalf("%s: loaded %d of 4 (%v)", f.Status, f.RowsLoaded, deref(f.Error))
	}
	second := stmt("STARTUMS", "00002/1", "C261102EUR82,00", "C261102EUR3082,00", ":61:2611021102C3000,00NTRFNONREF//R1\n:86:")
	f = l.load(t, Bank, "days1-2.sta", []byte(first+second), "")
	if f.Status != "succeeded" || f.RowsLoaded != 1 || f.RowsOverlap != 4 || f.NoteCount != 4 {
		t.Fatalf("%s: loaded %d overlap %d notes %d, want 1, 4, 4 (%v)", f.Status, f.RowsLoaded, f.RowsOverlap, f.NoteCount, deref(f.Error))
	}
	if n := l.count(t, `select count(*) from bank_booking where bank_account = 'NL69INGB0123456789'`); n != 5 {
		t.Errorf("%d bookings of the account, want 5", n)
	}
	if n := l.count(t, `select count(*) from bank_booking where bank_account = 'NL69INGB0123456789' and text = ''`); n != 1 {
		t.Errorf("%d bookings with empty text, want 1 (the one with an empty :86:)", n)
	}
}

func TestBadFilesLoadNothing(t *testing.T) {
	l := newLoader(t)
	tests := []struct {
		name    string
		kind    Kind
		content []byte
		want    string
		layout  string
	}{
		{"ticket_bad.csv", Ticket, l.file(t, "ticket_bad.csv"), "invalid, so nothing was loaded", ""},
		{"transaction.csv", Ticket, l.file(t, "transaction.csv"), "transaction", ""},
		{"camt053_truncated.xml", Bank, l.file(t, "camt053_truncated.xml"), "camt053_truncated.xml", ""},
		{"header_only.csv", Ticket, l.file(t, "header_only.csv"), "no data rows", ""},
		{"nuvei-transactions.csv", Transaction, l.file(t, "nuvei-transactions.csv"), `line 5, column 3: ProcessingDate: "31.11.2026"`, "nuvei-transactions"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := l.count(t, `select (select count(*) from ticket) + (select count(*) from bank_booking)`)
			f := l.load(t, tt.kind, tt.name, tt.content, tt.layout)
			if f.Status != "failed" || f.Error == nil || !strings.Contains(*f.Error, tt.want) || f.RowsLoaded != 0 {
				t.Fatalf("status %s loaded %d error %q", f.Status, f.RowsLoaded, deref(f.Error))
			}
			if after := l.count(t, `select (select count(*) from ticket) + (select count(*) from bank_booking)`); after != before {
				t.Errorf("a failed file loaded %d rows", after-before)
			}
			var status string
			var errText *string
			if err := l.pool.QueryRow(context.Background(), `select status, error_description from extraction_log where id = $1`, f.ExtractionLogID).Scan(&status, &errText); err != nil {
				t.Fatal(err)
			}
			if status != "Failed" || errText == nil {
				t.Errorf("extraction log %q %v", status, errText)
			}
		})
	}
	f, _ := l.s.Recent(l.ctx, 10)
	if len(f) != 5 {
		t.Fatalf("recent %d", len(f))
	}
	bad, _ := l.s.Get(l.ctx, f[4].ImportID) // the first: ticket_bad.csv
	if len(bad.RowErrors) != 5 || bad.RowErrors[0].Line != 3 {
		t.Errorf("row errors %+v", bad.RowErrors)
	}
	for _, u := range []Upload{
		{Kind: "invoice", FileName: "x.csv", Content: ContentOf([]byte("a"))},
		{Kind: Bank, FileName: "empty.csv", Content: ContentOf(nil)},
		{Kind: Ticket, FileName: "camt053.xml", Content: ContentOf(l.file(t, "camt053.xml"))},
		{Kind: Bank, FileName: "bank.csv", Content: ContentOf(l.file(t, "bank.csv")), Layout: "nuvei-transactions"},
		{Kind: Bank, FileName: "bank.csv", Content: ContentOf(l.file(t, "bank.csv")), Layout: "no-such-layout"},
	} {
		logged := l.count(t, `select count(*) from extraction_log where status = 'Failed' and description like '%refused at upload%'`)
		_, err := l.s.Submit(l.ctx, u)
		if engine.ErrorCode(err) != engine.CodeInvalid {
			t.Errorf("%s as %s (%s): %v", u.FileName, u.Kind, u.Layout, err)
		}
		// A refusal is in the extraction log too, under the kind's module
		// (an unknown kind has none).
		want := 1
		if !u.Kind.Valid() {
			want = 0
		}
		var e *engine.Error
		errors.As(err, &e)
		if n := l.count(t, `select count(*) from extraction_log where status = 'Failed' and description = $1 || ': refused at upload, nothing loaded'
			and error_description = $2 and created_by = 'loader-test'`, u.FileName, e.Message); n != want || l.count(t,
			`select count(*) from extraction_log where status = 'Failed' and description like '%refused at upload%'`) != logged+want {
			t.Errorf("%s as %s: %d extraction-log rows for the refusal, want %d", u.FileName, u.Kind, n, want)
		}
	}
}

func TestBankProcessing(t *testing.T) {
	l := newLoader(t)
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := l.pool.Exec(context.Background(), sql, args...); err != nil {
			t.Fatal(err)
		}
	}
	exec(`insert into transaction_provider (trans, providers, priority, recon_mapping, distr_rvn_settle, affects_balance) values
		('Card', 'Nuvei', 1, 'NUVEI', 'Yes', 'Yes'), ('Card', 'Nuvei low', 9, 'NUVEI', 'No', 'No')`)
	exec(`insert into currency_exchange_rate (exchange_rate_on, code, currency, usd) values
		('2026-10-30', 'SEK', 'Swedish krona', 0.0950), ('2026-11-03', 'SEK', 'Swedish krona', 0.1000)`)
	l.load(t, Bank, "bank.csv", l.file(t, "bank.csv"), "")
	type row struct {
		actor, provider, inOut, distr *string
		rate, usd                     *float64
	}
	get := func(ref string) row {
		var r row
		if err := l.pool.QueryRow(context.Background(), `select actor, provider, in_or_out, dist_rvn_settle, exchange_rate::float8, amount_usd::float8
			from bank_booking where text ilike $1`, ref).Scan(&r.actor, &r.provider, &r.inOut, &r.distr, &r.rate, &r.usd); err != nil {
			t.Fatalf("booking %s: %v", ref, err)
		}
		return r
	}
	payout := get("NUVEI%")
	if deref(payout.actor) != "Card" || deref(payout.provider) != "Nuvei" || deref(payout.inOut) != "IN" || deref(payout.distr) != "Yes" {
		t.Errorf("actor mapping %v %v %v %v", deref(payout.actor), deref(payout.provider), deref(payout.inOut), deref(payout.distr))
	}
	if payout.rate == nil || *payout.rate != 0.095 || *payout.usd != 2375 { // booked 2 Nov: the rate of 30 Oct
		t.Errorf("rate %v usd %v", payout.rate, payout.usd)
	}
	catering := get("Stockholm%")
	if catering.actor != nil || deref(catering.inOut) != "OUT" || *catering.rate != 0.1 || *catering.usd != -340 {
		t.Errorf("unmapped booking: %+v", catering)
	}
	// The import processes as it inserts (migration 00028): the rest of the
	// processed record too, and the rows are as reprocessing makes them.
	snapshot := func() string {
		var s string
		if err := l.pool.QueryRow(context.Background(), `select string_agg(concat_ws('|', id, in_or_out, actor, recon_mapping, provider,
				dist_rvn_settle, distr_driver, affects_balance, reconcile_local_currency, reco_amount_in_local_currency,
				exchange_rate, amount_usd, in_usd, out_usd, status), E'\n' order by id) from bank_booking`).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	var sides string
	l.pool.QueryRow(context.Background(), `select string_agg(concat_ws('|', in_usd, out_usd, status, reconcile_local_currency, reco_amount_in_local_currency), ';' order by text)
		from bank_booking where text ilike 'NUVEI%' or text ilike 'Stockholm%'`).Scan(&sides)
	if sides != "2375.00|Processed|SEK|25000.00;-340.00|Processed|SEK|-3400.00" {
		t.Errorf("in/out USD, status, local figures: %q", sides)
	}
	imported := snapshot()
	if err := pgx.BeginFunc(context.Background(), l.pool, func(tx pgx.Tx) error { return ProcessBank(context.Background(), tx, nil) }); err != nil {
		t.Fatal(err)
	}
	if again := snapshot(); again != imported {
		t.Errorf("reprocessing changed what the import processed:\n%s\n---\n%s", imported, again)
	}

	// A manual rate survives reprocessing; the rest is recomputed.
	exec(`update bank_booking set exchange_rate = 0.2, amount_usd = 5000, exchange_rate_manual = true, amount_usd_manual = true, comments = 'checked' where text ilike 'NUVEI%'`)
	exec(`update currency_exchange_rate set usd = 0.0990 where exchange_rate_on = '2026-10-30'`)
	err := pgx.BeginFunc(context.Background(), l.pool, func(tx pgx.Tx) error { return ProcessBank(context.Background(), tx, nil) })
	if err != nil {
		t.Fatal(err)
	}
	if p := get("NUVEI%"); *p.rate != 0.2 || *p.usd != 5000 {
		t.Errorf("manual override lost: %v %v", *p.rate, *p.usd)
	}
	if a := get("Avgift%"); *a.rate != 0.099 {
		t.Errorf("reprocessing did not pick up the corrected rate: %v", *a.rate)
	}
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// A reprocess job that fails its last try leaves a Failed row in the
// extraction log (earlier tries only retry).
func TestReprocessFailureIsLogged(t *testing.T) {
	l := newLoader(t)
	w := &ReprocessWorker{Pool: l.pool, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	failed := func() int {
		return l.count(t, `select count(*) from extraction_log where module = 'Bank' and status = 'Failed'`)
	}
	stopped, cancel := context.WithCancel(context.Background())
	cancel() // the work cannot reach the database
	job := func(attempt int) *river.Job[ReprocessArgs] {
		return &river.Job[ReprocessArgs]{JobRow: &rivertype.JobRow{Attempt: attempt, MaxAttempts: 3}}
	}
	if err := w.Work(stopped, job(1)); err == nil {
		t.Fatal("work with a cancelled context succeeded")
	}
	if n := failed(); n != 0 {
		t.Fatalf("%d Failed rows after a first try that will be retried", n)
	}
	if err := w.Work(stopped, job(3)); err == nil {
		t.Fatal("work with a cancelled context succeeded")
	}
	if n := failed(); n != 1 {
		t.Fatalf("%d Failed rows after the last try, want 1", n)
	}
	if err := w.Work(context.Background(), job(1)); err != nil {
		t.Fatal(err)
	}
	var ok int
	if err := l.pool.QueryRow(context.Background(), `select count(*) from extraction_log where module = 'Bank' and status = 'Success'`).Scan(&ok); err != nil {
		t.Fatal(err)
	}
	if ok != 1 {
		t.Errorf("%d Success rows after a good run", ok)
	}
}

// An import whose job fails its last try is closed as failed, with its
// extraction-log row, and the same file can be uploaded again.
func TestImportGivenUpAfterLastTry(t *testing.T) {
	l := newLoader(t)
	content := l.file(t, "ticket.csv")
	f, err := l.s.Submit(l.ctx, Upload{Kind: Ticket, FileName: "ticket.csv", Content: ContentOf(content)})
	if err != nil {
		t.Fatal(err)
	}
	w := &ImportWorker{Service: l.s}
	stopped, cancel := context.WithCancel(context.Background())
	cancel() // the database "goes away" for the job
	job := func(attempt int) *river.Job[ImportArgs] {
		return &river.Job[ImportArgs]{JobRow: &rivertype.JobRow{Attempt: attempt, MaxAttempts: 3}, Args: ImportArgs{ImportID: f.ImportID}}
	}
	if err := w.Work(stopped, job(1)); err == nil {
		t.Fatal("the job succeeded without a database")
	}
	if got, _ := l.s.Get(l.ctx, f.ImportID); got.Status != "queued" {
		t.Fatalf("after a first failed try: %s, want queued for the retry", got.Status)
	}
	if err := w.Work(stopped, job(3)); err == nil {
		t.Fatal("the job succeeded without a database")
	}
	got, _ := l.s.Get(l.ctx, f.ImportID)
	if got.Status != "failed" || got.Error == nil || !strings.Contains(*got.Error, "could not be loaded after 3 tries") || got.ExtractionLogID == nil {
		t.Fatalf("after the last try: %+v (error %v)", got, deref(got.Error))
	}
	if n := l.count(t, `select count(*) from extraction_log where id = $1 and status = 'Failed' and module = 'Ticket'`, *got.ExtractionLogID); n != 1 {
		t.Errorf("extraction log row: %d", n)
	}
	if n := l.count(t, `select count(*) from import_file_part where import_file_id = $1`, f.ImportID); n != 0 {
		t.Errorf("%d parts of the upload kept after giving up", n)
	}
	again := l.load(t, Ticket, "ticket.csv", content, "")
	if again.Status != "succeeded" || again.RowsLoaded != 4 {
		t.Errorf("upload again: %+v", again)
	}
}

// Migration 00020 gives the bank bookings of CSV and XLSX files loaded
// before it the keys the loader builds now: its SQL and keyOf must agree,
// or an export overlapping old bookings would load them again.
func TestMigratedBankKeysAreTheLoadersKeys(t *testing.T) {
	l := newLoader(t)
	csv := "BankAccount,BookedDate,InterestDate,Text,AmountLocal,Currency,BankArchiveReference,Number,BookedBalanceLocalCurrency\n" +
		"SE4550000000058398257466,2026-11-05,,Card fee,-10,SEK,ARCH-0005,5,\n" +
		"SE4550000000058398257466,2026-11-05,,Card fee,-10,SEK,ARCH-0005,5,\n" +
		"SE4550000000058398257466,2026-11-06,2026-11-07,,12.3,SEK,,,99.5\n"
	f := l.load(t, Bank, "old.csv", []byte(csv), "")
	if f.RowsLoaded != 3 {
		t.Fatalf("loaded %d of 3", f.RowsLoaded)
	}
	want := l.keys(t)
	if _, err := l.pool.Exec(context.Background(), `update bank_booking set natural_key = 'old-' || id`); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile("../../migrations/00020_bank_statements.sql")
	if err != nil {
		t.Fatal(err)
	}
	up, _, _ := strings.Cut(string(raw), "-- +goose Down")
	start := strings.Index(up, "update bank_booking b set natural_key")
	if start < 0 {
		t.Fatal("the migration no longer rekeys bank bookings")
	}
	if _, err := l.pool.Exec(context.Background(), up[start:]); err != nil {
		t.Fatal(err)
	}
	if got := l.keys(t); !slices.Equal(got, want) {
		t.Errorf("migrated keys\n%q\nloader's keys\n%q", got, want)
	}
}

func (l *loader) keys(t *testing.T) []string {
	t.Helper()
	rows, err := l.pool.Query(context.Background(), `select natural_key from bank_booking order by id`)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

// TestRepeatedUploadWhileRunning (security round 3, hole 7): while an
// import of some content runs, the same content again is refused as being
// imported now; several at once give one import.
func TestRepeatedUploadWhileRunning(t *testing.T) {
	l := newLoader(t)
	content := l.file(t, "bank.csv")
	first, err := l.s.Submit(l.ctx, Upload{Kind: Bank, FileName: "bank.csv", Content: ContentOf(content)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.pool.Exec(l.ctx, `update import_file set status = 'running', started_on = now() where id = $1`, first.ImportID); err != nil {
		t.Fatal(err)
	}
	var e *engine.Error
	_, err = l.s.Submit(l.ctx, Upload{Kind: Bank, FileName: "again.csv", Content: ContentOf(content)})
	if !errors.As(err, &e) || e.Code != engine.CodeConflict || e.Key != "import.inProgress" {
		t.Fatalf("the same content while running: %v", err)
	}
	// Eight at once of new content: one is accepted.
	other := append(append([]byte{}, content...), []byte("SE4550000000058398257466,2026-11-09,2026-11-09,Other,1.00,SEK,X9,9,\n")...)
	results := make(chan error, 8)
	for i := 0; i < 8; i++ {
		go func() {
			_, err := l.s.Submit(l.ctx, Upload{Kind: Bank, FileName: "parallel.csv", Content: ContentOf(other)})
			results <- err
		}()
	}
	accepted := 0
	for i := 0; i < 8; i++ {
		if err := <-results; err == nil {
			accepted++
		} else if engine.ErrorCode(err) != engine.CodeConflict {
			t.Errorf("parallel upload: %v", err)
		}
	}
	if accepted != 1 {
		t.Errorf("%d of 8 parallel uploads accepted, want 1", accepted)
	}
}
