package bench

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

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
func Import(ctx context.Context, dbURL string, cfg server.Config, rows int, out io.Writer) error {
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
	importer := imports.NewService(pool, nil, int64(len(file))+1, slog.New(slog.NewTextHandler(out, nil)))
	actx := engine.WithActor(ctx, &engine.Actor{Username: "bench"})
	start = time.Now()
	res, err := importer.ImportNow(actx, imports.Upload{Kind: imports.Transaction, FileName: "bench-transactions.csv", Content: imports.ContentOf(file)})
	took := time.Since(start)
	if err != nil {
		return err
	}
	if res.Status != "succeeded" || res.RowsLoaded != rows {
		return fmt.Errorf("bench import: %s, %d of %d rows loaded (%v)", res.Status, res.RowsLoaded, rows, res.Error)
	}
	perSec := func(d time.Duration) string { return fmt.Sprintf("%.0f rows/s", float64(rows)/d.Seconds()) }
	table(out, []string{"run", "time", "speed", "vs COPY"}, [][]string{
		{"bare COPY into a bare table", floor.Round(time.Millisecond).String(), perSec(floor), "1.00x"},
		{"bare COPY into a copy of card_transaction (its key and indexes)", indexed.Round(time.Millisecond).String(), perSec(indexed), ratio(indexed, floor)},
		{"import (parse, check, stage, move, log)", took.Round(time.Millisecond).String(), perSec(took), ratio(took, floor)},
	})
	fmt.Fprintln(out, "\ntargets (DESIGN.md 7): at least 100,000 rows/s; at most 2x the bare COPY.")
	return nil
}
