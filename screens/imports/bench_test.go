package imports

import (
	"bytes"
	"context"
	"fmt"
	"testing"
)

// BenchmarkParseTransactionCSV parses 1,000,000 generated card-transaction
// rows in the default layout (about 95 MB, built in memory, never written
// to disk) and reports rows per second. DESIGN.md's import target is
// 100,000 rows/s end to end, loader included, so the parser should be well
// above that.
func BenchmarkParseTransactionCSV(b *testing.B) {
	const n = 1_000_000
	var buf bytes.Buffer
	buf.Grow(n * 100)
	buf.WriteString("ClientUniqueID,ProcessingDate,ProviderActor,AcquiringBank,PaymentMethod,Currency,TransactionAmount,TransactionType\n")
	methods := []string{"Visa", "Mastercard", "Amex"}
	currencies := []string{"SEK", "NOK", "DKK", "EUR", "USD"}
	for i := 0; i < n; i++ {
		fmt.Fprintf(&buf, "%013d,2026-%02d-%02d,Nuvei,Nuvei Acquiring,%s,%s,%d.%02d,Sale\n",
			1250000000000+i, 1+i%12, 1+i%28, methods[i%3], currencies[i%5], i%100000, i%100)
	}
	data := buf.Bytes()
	d, _ := DefaultDescriptor(Transaction, FormatCSV)
	lim := Limits{MaxBytes: int64(len(data)) + 1}
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rows := 0
		sum, err := Parse(context.Background(), d, "bench.csv", bytes.NewReader(data), lim, func(Row) error { rows++; return nil })
		if err != nil || rows != n || sum.ErrorCount != 0 {
			b.Fatalf("rows %d, err %v, errors %v", rows, err, sum.Errors)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
