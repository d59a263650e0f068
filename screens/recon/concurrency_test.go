package recon

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"ledgerdesk/engine"
	"ledgerdesk/internal/pgtest"
)

// TestRunsOfAllLevelsTogether runs the three levels' automatic runs at the
// same time, round after round, while imports add documents and users match
// by hand, as production allows (queue recon has two workers; RunNow here
// lets all three levels overlap). No run may fail, a manual match may only
// be refused as busy after its bounded wait, no record may have two live
// matches at a level, and the day sums must equal a recomputation.
//
// RECON_CONCURRENCY_N records a level (default 5,000; the full check is
// 100,000) and RECON_CONCURRENCY_ROUNDS rounds (default 10).
func TestRunsOfAllLevelsTogether(t *testing.T) {
	n := envInt(t, "RECON_CONCURRENCY_N", 5000)
	rounds := envInt(t, "RECON_CONCURRENCY_ROUNDS", 10)
	const byHand = 3 // manual matches a level and round
	imported := max(n/20, 20)

	// A pool as large as production's (16): the runs, the imports and the
	// manual matches each hold a connection at once.
	_, dbURL := pgtest.NewWithURL(t)
	cfg, err := pgxpool.ParseConfig(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = 16
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	// The service's log is kept: a deadlock or serialization failure a
	// retry hid from the run's result would still show there.
	var logged lockedBuffer
	if err := testDefinition.Sync(context.Background(), pool); err != nil {
		t.Fatal(err)
	}
	svc := NewService(pool, testDefinition, slog.New(slog.NewTextHandler(&logged, nil)))
	ctx := engine.WithActor(context.Background(), &engine.Actor{Username: "rita"})
	f := &fixture{t: t, pool: pool, ctx: ctx, svc: svc}

	began := time.Now()
	overlapped, matchedByHand := 0, 0
	for _, p := range []string{"Nuvei", "Amex"} {
		f.tolerance(p, 1, map[string]string{"Nuvei": "1.00", "Amex": "0.50"}[p], 2, "")
		f.tolerance(p, 2, "1.00", 3, "")
		f.tolerance(p, 3, "5.00", 2, "")
	}
	f.importDocuments("seed", 1, n)
	f.manualPool(rounds * byHand)
	f.exec(`analyze`)
	t.Logf("%d records a level generated in %s", n, time.Since(began).Round(time.Millisecond))

	for round := 1; round <= rounds; round++ {
		start := time.Now()
		if round > 1 {
			// Undo a few matches (never made again automatically) and delete
			// a good share, which the runs make again.
			f.exec(`update recon_match set undone_on = now(), undone_by = 'test', undo_reason = 'concurrency test'
				where run_id is not null and undone_on is null and (id + $1) % 50 = 7`, round)
			// (a group's further records with it: the runs make groups too)
			f.exec(`delete from recon_match_member where match_id in (
				select id from recon_match where run_id is not null and undone_on is null and (id + $1) % 10 < 4)`, round)
			f.exec(`delete from recon_match where run_id is not null and undone_on is null and (id + $1) % 10 < 4`, round)
		}

		var lastRun int64
		if err := pool.QueryRow(ctx, `select coalesce(max(id), 0) from recon_run`).Scan(&lastRun); err != nil {
			t.Fatal(err)
		}
		together := time.Now()
		rctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
		startAll := make(chan struct{})
		var wg sync.WaitGroup
		var mu sync.Mutex
		var failures []string
		fail := func(format string, args ...any) {
			mu.Lock()
			failures = append(failures, fmt.Sprintf(format, args...))
			mu.Unlock()
		}
		busy := 0
		for _, l := range Levels {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-startAll
				r, err := svc.RunNow(rctx, l)
				if err != nil {
					fail("round %d: run of %s failed: %s", round, l.Slug, f.describe(err))
					return
				}
				if r.Status != "succeeded" || r.Error != "" {
					fail("round %d: run of %s: %+v", round, l.Slug, r)
				}
			}()
		}
		// An import of each kind of file, each in its own transaction.
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-startAll
			prefix := fmt.Sprintf("r%d-", round)
			from := n + (round-1)*imported + 1
			for _, kind := range []string{"ticket", "transaction", "settlement", "bank"} {
				if err := pgx.BeginFunc(rctx, pool, func(tx pgx.Tx) error {
					_, err := tx.Exec(rctx, documentSQL[kind], from, from+imported-1, prefix)
					return err
				}); err != nil {
					fail("round %d: import of %s failed: %s", round, kind, f.describe(err))
				}
			}
			// Edits of matched records while the runs go: the matches
			// follow them in the same transaction (and wait for the runs).
			for _, edit := range []string{
				`update ticket set sale_amount = sale_amount + 0.01 where id in (select left_id from recon_match where level = 1 and undone_on is null order by left_id desc limit 3)`,
				`update settlement set settlement_net = settlement_net - 0.01 where id in (select right_id from recon_match where level = 2 and undone_on is null order by right_id desc limit 3)`,
			} {
				if _, err := pool.Exec(rctx, edit); err != nil {
					fail("round %d: edit failed: %s", round, f.describe(err))
				}
			}
		}()
		// Users matching by hand at every level.
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-startAll
			for k := 0; k < byHand; k++ {
				j := (round-1)*byHand + k + 1
				for _, l := range Levels {
					req := MatchRequest{Reason: "agreed by phone"}
					switch l.N {
					case 1:
						req.LeftID, req.RightID = f.manualID(`select id from ticket where natural_key = $1`, fmt.Sprint("m1-t-", j)),
							f.manualID(`select id from card_transaction where natural_key = $1`, fmt.Sprint("m1-x-", j))
					case 2:
						req.LeftID, req.RightID = f.manualID(`select id from card_transaction where natural_key = $1`, fmt.Sprint("m2-x-", j)),
							f.manualID(`select id from settlement where natural_key = $1`, fmt.Sprint("m2-s-", j))
					case 3:
						req.LeftRef, req.RightID = fmt.Sprint("m3-", j),
							f.manualID(`select id from bank_booking where text = $1`, fmt.Sprint("manual m3-", j))
					}
					asked := time.Now()
					_, err := svc.MatchByHand(rctx, l, req)
					took := time.Since(asked)
					var e *engine.Error
					switch {
					case err == nil:
						mu.Lock()
						matchedByHand++
						mu.Unlock()
					case errors.As(err, &e) && e.Code == engine.CodeConflict && e.Key == "recon.levelBusy" && took < 15*time.Second:
						mu.Lock()
						busy++
						mu.Unlock()
					default:
						fail("round %d: manual match %d of %s failed after %s: %s", round, j, l.Slug, took.Round(time.Millisecond), f.describe(err))
					}
				}
			}
		}()
		close(startAll)
		wg.Wait()
		took, checked := time.Since(together), time.Now()
		cancel()
		for _, msg := range failures {
			t.Error(msg)
		}
		f.checkLiveMatchesUnique(round)
		f.checkDaySumsExact(fmt.Sprint("round ", round))
		if round == 1 {
			f.checkMostPair(n)
		}
		// Pairs of this round's runs that were under way at the same time.
		var pairs int
		if err := pool.QueryRow(ctx, `select count(*) from recon_run a join recon_run b on a.level < b.level
			where a.id > $1 and b.id > $1 and a.started_on < b.finished_on and b.started_on < a.finished_on`, lastRun).Scan(&pairs); err != nil {
			t.Fatal(err)
		}
		if pairs > 0 {
			overlapped++
		}
		t.Logf("round %d: undo and delete %s, together %s, checks %s; %d of 3 pairs of runs overlapped, %d manual matches refused as busy",
			round, together.Sub(start).Round(time.Millisecond), took.Round(time.Millisecond), time.Since(checked).Round(time.Millisecond), pairs, busy)
		if t.Failed() {
			break
		}
	}
	var bad int
	if err := pool.QueryRow(ctx, `select count(*) from recon_run where status <> 'succeeded' or error is not null`).Scan(&bad); err != nil {
		t.Fatal(err)
	}
	if bad > 0 {
		t.Errorf("%d runs did not succeed: %v", bad, f.rowsText(`select concat_ws(' ', id, level, status, error) from recon_run
			where status <> 'succeeded' or error is not null order by id`))
	}
	var manual int
	if err := pool.QueryRow(ctx, `select count(*) from recon_match where run_id is null and undone_on is null`).Scan(&manual); err != nil {
		t.Fatal(err)
	}
	if manual != matchedByHand {
		t.Errorf("%d manual matches made, %d live", matchedByHand, manual)
	}
	if overlapped == 0 && !t.Failed() {
		t.Errorf("in no round did two runs overlap: the test did not test concurrency")
	}
	if text := logged.String(); strings.Contains(text, "40P01") || strings.Contains(text, "40001") || strings.Contains(text, "deadlock") {
		t.Errorf("the service logged a deadlock or serialization failure:\n%s", text)
	}
	t.Logf("total %s", time.Since(began).Round(time.Millisecond))
	if os.Getenv("RECON_CONCURRENCY_LOG") != "" {
		t.Logf("service log:\n%s", logged.String())
	}
}

// lockedBuffer is a log the goroutines share.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func envInt(t *testing.T, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a positive number", name, v)
	}
	return n
}

// documentSQL generates documents $1 to $2 of each kind ($3 prefixes the
// payout ids and natural keys): most pair at every level, inside the
// tolerances, some exactly, some with a difference, some with two
// candidates, some with none. Document i: ticket 1000000000000+i on day
// i%60, USD or (every fourth) EUR, Nuvei or (every third) Amex; its
// transaction a day later every other time (none every tenth; a second one
// every fiftieth); a settlement a day after that (none for 8 and 9 of ten),
// in payouts of some 16 settlements of one day, provider and currency; a
// booking for nine payouts of ten, some 2.00 off.
var documentSQL = map[string]string{
	"ticket": `
		insert into ticket (ticket_number, trans_date, payment_type, country_code, currency, transaction_code, sale_amount, natural_key, import_file_id)
		select (1000000000000 + i)::text, date '2026-01-01' + i % 60, (array['CC', 'CA'])[1 + i % 2], (array['US', 'SE', 'NO'])[1 + i % 3],
		       case when i % 4 = 0 then 'EUR' else 'USD' end, 'TKTT', 10 + (i * 37 % 100000) / 100.0, $3 || 't-' || i, 1
		from generate_series($1::int, $2::int) i`,
	"transaction": `
		insert into card_transaction (client_unique_id, processing_date, provider_actor, acquiring_bank, payment_method, currency,
			transaction_amount, transaction_type, natural_key, import_file_id)
		select (1000000000000 + i)::text, date '2026-01-01' + i % 60 + i % 2, case when i % 3 = 0 then 'Amex' else 'Nuvei' end, 'Acq', 'Visa',
		       case when i % 4 = 0 then 'EUR' else 'USD' end,
		       10 + (i * 37 % 100000) / 100.0 + case when i % 7 = 0 then 0.30 else 0 end + 0.10 * d, 'Sale', $3 || 'x-' || i || '-' || d, 1
		from generate_series($1::int, $2::int) i cross join generate_series(0, 1) d
		where i % 10 <> 9 and (d = 0 or i % 50 = 1)`,
	"settlement": `
		insert into settlement (payout_id, client_unique_id, settlement_date, provider_actor, acquirer_bank, settlement_currency,
			gross_amount, fees, settlement_net, natural_key, import_file_id)
		select $3 || (i % 60) || '-' || (i / 1200), (1000000000000 + i)::text, date '2026-01-01' + i % 60 + i % 2 + 1, provider, 'Acq', cur,
		       g, round(g * 0.02, 2), g - round(g * 0.02, 2), $3 || 's-' || i, 1
		from (select i, case when i % 3 = 0 then 'Amex' else 'Nuvei' end as provider, case when i % 4 = 0 then 'EUR' else 'USD' end as cur,
		             10 + (i * 37 % 100000) / 100.0 + case when i % 7 = 0 then 0.30 else 0 end + case when i % 11 = 0 then 0.20 else 0 end as g
		      from generate_series($1::int, $2::int) i where i % 10 < 8) s`,
	"bank": `
		insert into bank_booking (bank_account, booked_date, amount_local, currency, text, provider, reco_amount_in_local_currency,
			status, in_or_out, natural_key)
		select 'ACC-' || currency, day + 1, amount, currency, 'payout ' || payout_id, provider, amount, 'Processed', 'IN', 'b-' || payout_id
		from (select payout_id, min(settlement_currency) as currency, min(provider_actor) as provider, max(settlement_date) as day,
		             sum(settlement_net) + case when abs(hashtext(payout_id)) % 5 = 0 then 2.00 else 0 end as amount
		      from settlement where payout_id like $3 || '%' and ($1::int, $2::int) is not null
		      group by payout_id having abs(hashtext(payout_id)) % 10 <> 1) p`,
}

// importDocuments adds documents from to to of every kind.
func (f *fixture) importDocuments(prefix string, from, to int) {
	f.t.Helper()
	for _, kind := range []string{"ticket", "transaction", "settlement", "bank"} {
		f.exec(documentSQL[kind], from, to, prefix+"-")
	}
}

// manualPool adds k pairs a level that only a user matches: outside every
// tolerance, on days no generated document has.
func (f *fixture) manualPool(k int) {
	f.t.Helper()
	f.exec(`insert into ticket (ticket_number, trans_date, payment_type, country_code, currency, transaction_code, sale_amount, natural_key, import_file_id)
		select (2000000000000 + j)::text, date '2026-06-10', 'CC', 'US', 'USD', 'TKTT', 500.00, 'm1-t-' || j, 1 from generate_series(1, $1::int) j`, k)
	f.exec(`insert into card_transaction (client_unique_id, processing_date, provider_actor, acquiring_bank, payment_method, currency,
			transaction_amount, transaction_type, natural_key, import_file_id)
		select (2000000000000 + j)::text, date '2026-06-10', 'Nuvei', 'Acq', 'Visa', 'USD', 550.00, 'Sale', 'm1-x-' || j, 1 from generate_series(1, $1::int) j
		union all
		select (3000000000000 + j)::text, date '2026-06-10', 'Nuvei', 'Acq', 'Visa', 'USD', 500.00, 'Sale', 'm2-x-' || j, 1 from generate_series(1, $1::int) j`, k)
	f.exec(`insert into settlement (payout_id, client_unique_id, settlement_date, provider_actor, acquirer_bank, settlement_currency,
			gross_amount, fees, settlement_net, natural_key, import_file_id)
		select 'm2-' || j, (3000000000000 + j)::text, date '2026-06-10', 'Nuvei', 'Acq', 'USD', 560.00, 0, 560.00, 'm2-s-' || j, 1
		from generate_series(1, $1::int) j
		union all
		select 'm3-' || j, null, date '2026-06-20', 'Nuvei', 'Acq', 'USD', 1000.00, 0, 1000.00, 'm3-s-' || j, 1 from generate_series(1, $1::int) j`, k)
	f.exec(`insert into bank_booking (bank_account, booked_date, amount_local, currency, text, provider, reco_amount_in_local_currency, status, in_or_out)
		select 'ACC-USD', date '2026-06-20', 1100.37, 'USD', 'manual m3-' || j, 'Nuvei', 1100.37, 'Processed', 'IN' from generate_series(1, $1::int) j`, k)
}

// manualID is f.id without t.Fatal, for goroutines: 0 when there is none
// (the match is then refused, and the test says so).
func (f *fixture) manualID(sql string, args ...any) int64 {
	var id int64
	f.pool.QueryRow(f.ctx, sql, args...).Scan(&id)
	return id
}

var relationOID = regexp.MustCompile(`relation (\d+) of database \d+`)

// describe is an error with what PostgreSQL said of it: for a deadlock, the
// processes and locks with relation names and the statement (its PL/pgSQL
// context) that waited.
func (f *fixture) describe(err error) string {
	var pg *pgconn.PgError
	if !errors.As(err, &pg) {
		return err.Error()
	}
	detail := relationOID.ReplaceAllStringFunc(pg.Detail, func(m string) string {
		oid := relationOID.FindStringSubmatch(m)[1]
		var name string
		if f.pool.QueryRow(context.Background(), `select $1::oid::regclass::text`, oid).Scan(&name) != nil {
			return m
		}
		return "relation " + name
	})
	return fmt.Sprintf("%v\n    detail: %s\n    where: %s", err, detail, pg.Where)
}

// checkLiveMatchesUnique: no record has two live matches at a level.
func (f *fixture) checkLiveMatchesUnique(round int) {
	f.t.Helper()
	var left, right int
	if err := f.pool.QueryRow(f.ctx, `select count(*) - count(distinct (level, left_id)), count(*) - count(distinct (level, right_id))
		from recon_match where undone_on is null`).Scan(&left, &right); err != nil {
		f.t.Fatal(err)
	}
	if left != 0 || right != 0 {
		f.t.Errorf("round %d: %d left and %d right records have more than one live match", round, left, right)
	}
}

// checkMostPair: most generated records found their partner.
func (f *fixture) checkMostPair(n int) {
	f.t.Helper()
	for _, c := range []struct {
		level int
		least int
	}{{1, n * 8 / 10}, {2, n * 7 / 10}, {3, n / 20 * 6 / 10}} {
		var live int
		if err := f.pool.QueryRow(f.ctx, `select count(*) from recon_match where level = $1 and undone_on is null`, c.level).Scan(&live); err != nil {
			f.t.Fatal(err)
		}
		if live < c.least {
			f.t.Errorf("level %d: %d live matches, want at least %d", c.level, live, c.least)
		}
	}
}

// checkDaySumsExact compares the day sums the triggers and runs kept with
// sums recomputed from the documents and live matches (in a transaction
// rolled back), and the payouts' sums with the settlements.
func (f *fixture) checkDaySumsExact(step string) {
	f.t.Helper()
	for _, table := range []string{"recon_ticket_day", "recon_transaction_day", "recon_payout_day"} {
		var diff []string
		err := pgx.BeginFunc(f.ctx, f.pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(f.ctx, `create temp table kept on commit drop as select * from `+table); err != nil {
				return err
			}
			refresh := `select ` + table + `_refresh(null)`
			if table == "recon_payout_day" {
				refresh = `delete from recon_payout_day;
					insert into recon_payout_day select settlement_date, payout_id, settlement_currency, provider_actor, count(*), sum(settlement_net)
					from settlement group by 1, 2, 3, 4`
			}
			if _, err := tx.Exec(f.ctx, refresh); err != nil {
				return err
			}
			var err error
			diff, err = txRowsText(f, tx, `
				(select 'kept  ' || k::text from (table kept except all table `+table+`) k order by 1 limit 5)
				union all
				(select 'fresh ' || d::text from (table `+table+` except all table kept) d order by 1 limit 5)`)
			if err != nil {
				return err
			}
			return errRollback
		})
		if err != errRollback {
			f.t.Fatalf("%s: %s: %v", step, table, err)
		}
		if len(diff) > 0 {
			f.t.Errorf("%s: %s differs from a recomputation (first rows each way):\n  %s", step, table, strings.Join(diff, "\n  "))
		}
	}
}
