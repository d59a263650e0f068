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

// Import measures loading card-transaction rows from CSV through the whole
// import path (parse, validate, COPY into staging, move, extraction log)
// against a bare COPY of the same file into a table without constraints.
func Import(ctx context.Context, dbURL string, rows int, out io.Writer) error {
	pool, _, err := Open(ctx, dbURL, out)
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

	// The product: the same file through the import service.
	// A clean target each run: deleted rows and rolled-back loads leave dead
	// tuples and bloated indexes that would slow the next load down.
	if _, err := pool.Exec(ctx, `truncate card_transaction; delete from import_file where kind = 'transaction'`); err != nil {
		return err
	}
	if _, err := pool.Exec(ctx, `vacuum analyze card_transaction`); err != nil {
		return err
	}
	importer := imports.NewService(pool, nil, int64(len(file))+1, slog.New(slog.NewTextHandler(out, nil)))
	actx := engine.WithActor(ctx, &engine.Actor{Username: "bench"})
	start = time.Now()
	res, err := importer.ImportNow(actx, imports.Upload{Kind: imports.Transaction, FileName: "bench-transactions.csv", Content: file})
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
		{"import (parse, check, stage, move, log)", took.Round(time.Millisecond).String(), perSec(took), ratio(took, floor)},
	})
	fmt.Fprintln(out, "\ntargets (DESIGN.md 7): at least 100,000 rows/s; at most 2x the bare COPY.")
	return nil
}
