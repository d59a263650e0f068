package bench

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"ledgerdesk/engine"
	"ledgerdesk/screens/imports"
	"ledgerdesk/server"
)

// transactionsCSV builds n card-transaction rows in the default layout.
func transactionsCSV(n int) []byte {
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	w.WriteString("ClientUniqueID,ProcessingDate,ProviderActor,AcquiringBank,PaymentMethod,Currency,TransactionAmount,TransactionType\n")
	providers := []string{"Nuvei", "Amex", "USARC"}
	currencies := []string{"USD", "EUR", "SEK", "NOK", "DKK", "GBP"}
	day := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < n; i++ {
		fmt.Fprintf(w, "%013d,%s,%s,Acquirer %d,Visa,%s,%d.%02d,Sale\n", 1250000000000+int64(i), day.AddDate(0, 0, i%300).Format("2006-01-02"),
			providers[i%3], i%7, currencies[i%6], 10+(i*7919)%250000, i%100)
	}
	w.Flush()
	return buf.Bytes()
}

// withNaturalKeys appends each row's natural key (as the importer builds it)
// and an import file id to the CSV rows made by transactionsCSV.
func withNaturalKeys(file []byte) []byte {
	var out bytes.Buffer
	out.Grow(len(file) * 2)
	lines := bytes.Split(bytes.TrimSuffix(file, []byte("\n")), []byte("\n"))
	out.Write(lines[0])
	out.WriteString(",NaturalKey,ImportFileId\n")
	for _, l := range lines[1:] {
		f := bytes.Split(l, []byte(","))
		// provider | client id | type | date | amount, as imports.keyOf joins them
		fmt.Fprintf(&out, "%s,%s|%s|%s|%s|%s,0\n", l, f[2], f[0], f[7], f[1], f[6])
	}
	return out.Bytes()
}

// Import measures loading card-transaction rows from CSV through the whole
// import path (parse, validate, COPY into staging, move, extraction log)
// against a bare COPY of the same file into a table without constraints.
func Import(ctx context.Context, dbURL string, cfg server.Config, rows int, out io.Writer, md *engine.Metadata) error {
	pool, _, err := Open(ctx, dbURL, cfg, out)
	if err != nil {
		return err
	}
	defer pool.Close()
	file := transactionsCSV(rows)
	fmt.Fprintf(out, "\nimport of %d card-transaction rows from CSV (%d MB)\n\n", rows, len(file)>>20)

	// Floor: COPY the same bytes into a bare table.
	if _, err := pool.Exec(ctx, `drop table if exists bench_bare_transaction;
		create table bench_bare_transaction (client_unique_id text, processing_date date, provider_actor text, acquiring_bank text,
			payment_method text, currency text, transaction_amount numeric(20,2), transaction_type text)`); err != nil {
		return err
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return err
	}
	start := time.Now()
	_, err = conn.Conn().PgConn().CopyFrom(ctx, bytes.NewReader(file), "copy bench_bare_transaction from stdin with (format csv, header true)")
	conn.Release()
	if err != nil {
		return fmt.Errorf("bare copy: %w", err)
	}
	floor := time.Since(start)

	// For scale: COPY of the same rows, with their natural keys, into a
	// copy of card_transaction with its keys, indexes and defaults: what
	// the database itself spends on a load, before any parsing.
	if _, err := pool.Exec(ctx, `drop table if exists bench_indexed_transaction;
		create table bench_indexed_transaction (like card_transaction including all)`); err != nil {
		return err
	}
	keyed := withNaturalKeys(file)
	conn, err = pool.Acquire(ctx)
	if err != nil {
		return err
	}
	start = time.Now()
	_, err = conn.Conn().PgConn().CopyFrom(ctx, bytes.NewReader(keyed), `copy bench_indexed_transaction (client_unique_id, processing_date,
		provider_actor, acquiring_bank, payment_method, currency, transaction_amount, transaction_type, natural_key, import_file_id)
		from stdin with (format csv, header true)`)
	conn.Release()
	if err != nil {
		return fmt.Errorf("indexed copy: %w", err)
	}
	indexed := time.Since(start)
	pool.Exec(ctx, `drop table bench_indexed_transaction`)

	// The product: the same file through the import service.
	// A clean target each run: deleted rows and rolled-back loads leave dead
	// tuples and bloated indexes that would slow the next load down.
	if _, err := pool.Exec(ctx, `truncate card_transaction cascade; delete from import_file where kind = 'transaction'`); err != nil {
		return err
	}
	if _, err := pool.Exec(ctx, `vacuum analyze card_transaction`); err != nil {
		return err
	}
	// The indexes the server builds for the large views (the exception
	// queue's among them: each imported transaction is an open item at two
	// levels), as serve has them.
	if err := engine.EnsureIndexes(ctx, pool, md, slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		return err
	}
	importer := imports.NewService(pool, nil, int64(len(file))+1, slog.New(slog.NewTextHandler(out, nil)))
	actx := engine.WithActor(ctx, &engine.Actor{Username: "bench"})
	stopProfile := func() {}
	if path := os.Getenv("BENCH_CPUPROFILE"); path != "" { // where the import's own time goes
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		pprof.StartCPUProfile(f)
		stopProfile = func() { pprof.StopCPUProfile(); f.Close() }
	}
	start = time.Now()
	res, err := importer.ImportNow(actx, imports.Upload{Kind: imports.Transaction, FileName: "bench-transactions.csv", Content: imports.ContentOf(file)})
	took := time.Since(start)
	stopProfile()
	if err != nil {
		return err
	}
	if res.Status != "succeeded" || res.RowsLoaded != rows {
		return fmt.Errorf("bench import: %s, %d of %d rows loaded (%v)", res.Status, res.RowsLoaded, rows, res.Error)
	}
	perSec := func(d time.Duration) string { return fmt.Sprintf("%.0f rows/s", float64(rows)/d.Seconds()) }
	table(out, []string{"run", "time", "speed", "vs bare COPY", "vs the indexed COPY"}, [][]string{
		{"bare COPY into a bare table", floor.Round(time.Millisecond).String(), perSec(floor), "1.00x", ""},
		{"bare COPY into a copy of card_transaction (its key and indexes)", indexed.Round(time.Millisecond).String(), perSec(indexed),
			ratio(indexed, floor), "1.00x"},
		{"import (parse, check, COPY, derived figures, log)", took.Round(time.Millisecond).String(), perSec(took), ratio(took, floor),
			ratio(took, indexed)},
	})
	fmt.Fprintln(out, "\ntargets (DESIGN.md 7): at least 100,000 rows/s; at most 1.3x the COPY of the same file into a copy of the table with its keys and indexes.")
	f := Figure{Bench: "import", Case: fmt.Sprintf("CSV, %s card transactions", thousands(int64(rows))), Time: took,
		Throughput: perSecond(rows, took), Unit: "rows/s", FloorRatio: ratioOf(took, indexed),
		Floor: "a COPY of the same file into a copy of card_transaction with its keys and indexes", Target: ">= 100,000 rows/s, <= 1.3x the floor",
		Note: ratio(took, floor) + " a bare COPY into a table without keys or indexes"}
	f.Met = allMet(met(f.Throughput >= 100_000), atMost(f.FloorRatio, 1.3))
	record(ctx, f)
	return importStatements(actx, pool, imports.NewService(pool, nil, 0, slog.New(slog.NewTextHandler(out, nil))), rows, took, out, md)
}

// statementBookings is how many bookings each bank statement file of the
// benchmark holds.
const statementBookings = 100_000

// importStatements loads a 100,000-booking MT940 and camt.053 file through
// the import service (parse, identity, stage, move, processing, statement
// chain) and shows their speed beside the CSV import's: with the indexes
// the server builds for the large bank-final view (engine.EnsureIndexes)
// and without them, which is what those indexes cost each import.
func importStatements(ctx context.Context, pool *pgxpool.Pool, importer *imports.Service, csvRows int, csvTook time.Duration, out io.Writer, md *engine.Metadata) error {
	fmt.Fprintf(out, "\nimport of %d bank bookings, as one MT940 and one camt.053 file\n\n", statementBookings)
	perSec := func(n int, d time.Duration) string { return fmt.Sprintf("%.0f rows/s", float64(n)/d.Seconds()) }
	lines := [][]string{{"card transactions, CSV", "", csvTook.Round(time.Millisecond).String(), perSec(csvRows, csvTook), "", ""}}
	discard := slog.New(slog.NewTextHandler(io.Discard, nil))
	gridIndexes := func(on bool) (int, error) {
		if on {
			if err := engine.EnsureIndexes(ctx, pool, md, discard); err != nil {
				return 0, err
			}
		} else {
			rows, err := pool.Query(ctx, `select name from grid_index where table_name = 'bank_booking'`)
			if err != nil {
				return 0, err
			}
			names, err := pgx.CollectRows(rows, pgx.RowTo[string])
			if err != nil {
				return 0, err
			}
			for _, n := range names {
				if _, err := pool.Exec(ctx, "drop index if exists "+pgx.Identifier{n}.Sanitize()); err != nil {
					return 0, err
				}
			}
		}
		var n int
		err := pool.QueryRow(ctx, `select count(*) from pg_index where indrelid = 'bank_booking'::regclass`).Scan(&n)
		return n, err
	}
	for _, f := range []struct {
		name, label string
		content     []byte
	}{
		{"bench-statements.sta", "bank bookings, MT940", mt940Statements(statementBookings)},
		{"bench-statements.xml", "bank bookings, camt.053", camtStatements(statementBookings)},
	} {
		var with time.Duration
		for _, on := range []bool{false, true} {
			if _, err := pool.Exec(ctx, `truncate bank_booking, bank_statement cascade; delete from import_file where kind = 'bank'`); err != nil {
				return err
			}
			indexes, err := gridIndexes(on)
			if err != nil {
				return err
			}
			if _, err := pool.Exec(ctx, `vacuum analyze bank_booking`); err != nil {
				return err
			}
			start := time.Now()
			res, err := importer.ImportNow(ctx, imports.Upload{Kind: imports.Bank, FileName: f.name, Content: imports.ContentOf(f.content)})
			took := time.Since(start)
			if err != nil {
				return err
			}
			if res.Status != "succeeded" || res.RowsLoaded != statementBookings {
				return fmt.Errorf("bench import %s: %s, %d of %d bookings loaded (%v)", f.name, res.Status, res.RowsLoaded, statementBookings, res.Error)
			}
			what, cost := "schema indexes only", ""
			if on {
				what, cost = "with the grid indexes", ratio(took, with)
			}
			fig := Figure{Bench: "import", Case: fmt.Sprintf("%s, %s bookings, %s", strings.TrimPrefix(f.label, "bank bookings, "),
				thousands(statementBookings), what), Time: took, Throughput: perSecond(statementBookings, took), Unit: "rows/s"}
			if on { // against the same file before the grid indexes
				fig.FloorRatio, fig.Floor = ratioOf(took, with), "bank statements: the same file with the schema's indexes only"
			}
			record(ctx, fig)
			with = took
			lines = append(lines, []string{f.label, what, took.Round(time.Millisecond).String(), perSec(statementBookings, took), strconv.Itoa(indexes), cost})
		}
	}
	table(out, []string{"file", "bank_booking indexes", "time", "speed", "indexes", "cost of the grid indexes"}, lines)
	return nil
}

// mt940Statements builds n bookings as daily MT940 statements of 1,000
// lines, whose balances add up.
func mt940Statements(n int) []byte {
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	day := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	balance := int64(0)
	for i := 0; i < n; {
		d := day.Format("060102")
		fmt.Fprintf(w, "{1:F01NDEASESSAXXX0000000000}{2:O940}{4:\n:20:STMT%s\n:25:SE4550000000058398257466\n:28C:%05d/1\n:60F:%s\n", d, i/1000+1, mtBalance(d, balance))
		for j := 0; j < 1000 && i < n; j, i = j+1, i+1 {
			cents := int64(100 + (i*7919)%500000)
			mark := "C"
			if i%3 == 0 {
				mark, cents = "D", -cents
			}
			balance += cents
			fmt.Fprintf(w, ":61:%s%s%s%d,%02dNTRFNONREF//B%d\n:86:NUVEI LIMITED PAYOUT %d SETTLEMENT\n", d, d[2:], mark, abs(cents)/100, abs(cents)%100, i, i)
		}
		fmt.Fprintf(w, ":62F:%s\n-}\n", mtBalance(d, balance))
		day = day.AddDate(0, 0, 1)
	}
	w.Flush()
	return buf.Bytes()
}

func mtBalance(yymmdd string, cents int64) string {
	mark := "C"
	if cents < 0 {
		mark = "D"
	}
	return fmt.Sprintf("%s%sSEK%d,%02d", mark, yymmdd, abs(cents)/100, abs(cents)%100)
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

// camtStatements builds n bookings as one camt.053 message of daily
// statements of 1,000 entries, whose balances add up.
func camtStatements(n int) []byte {
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	w.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><GrpHdr><MsgId>BENCH</MsgId><CreDtTm>2026-01-01T00:00:00</CreDtTm></GrpHdr>` + "\n")
	day := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	balance := int64(0)
	amount := func(cents int64) string { return fmt.Sprintf("%d.%02d", abs(cents)/100, abs(cents)%100) }
	indicator := func(cents int64) string {
		if cents < 0 {
			return "DBIT"
		}
		return "CRDT"
	}
	for i := 0; i < n; {
		d := day.Format("2006-01-02")
		fmt.Fprintf(w, `<Stmt><Id>STMT-%s</Id><ElctrncSeqNb>%d</ElctrncSeqNb><Acct><Id><IBAN>SE4550000000058398257466</IBAN></Id></Acct>`+
			`<Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="SEK">%s</Amt><CdtDbtInd>%s</CdtDbtInd><Dt><Dt>%s</Dt></Dt></Bal>`+"\n",
			d, i/1000+1, amount(balance), indicator(balance), d)
		var entries bytes.Buffer

		for j := 0; j < 1000 && i < n; j, i = j+1, i+1 {
			cents := int64(100 + (i*7919)%500000)
			if i%3 == 0 {
				cents = -cents
			}
			balance += cents
			fmt.Fprintf(&entries, `<Ntry><Amt Ccy="SEK">%s</Amt><CdtDbtInd>%s</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>%s</Dt></BookgDt><ValDt><Dt>%s</Dt></ValDt>`+
				`<AcctSvcrRef>B%d</AcctSvcrRef><NtryDtls><TxDtls><RmtInf><Ustrd>NUVEI LIMITED PAYOUT %d</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>`+"\n",
				amount(cents), indicator(cents), d, d, i, i)
		}
		fmt.Fprintf(w, `<Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="SEK">%s</Amt><CdtDbtInd>%s</CdtDbtInd><Dt><Dt>%s</Dt></Dt></Bal>`+"\n",
			amount(balance), indicator(balance), d)
		w.Write(entries.Bytes())
		w.WriteString("</Stmt>\n")
		day = day.AddDate(0, 0, 1)
	}
	w.WriteString("</BkToCstmrStmt></Document>\n")
	w.Flush()
	return buf.Bytes()
}
