package imports

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"testing"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// transactionsCSV is a transaction file of n distinct rows, about 80 bytes
// each, and the sum of their amounts; bad > 0 makes that row's amount
// unreadable.
func transactionsCSV(first, n, bad int) ([]byte, string) {
	var b bytes.Buffer
	b.WriteString("ClientUniqueID,ProcessingDate,ProviderActor,AcquiringBank,PaymentMethod,Currency,TransactionAmount,TransactionType\n")
	cents := 0
	for i := 1; i <= n; i++ {
		amount := 100 + i%9000
		cents += amount * 100
		fmt.Fprintf(&b, "C%012d,2026-11-%02d,Nuvei,Nuvei Acquiring,Visa,SEK,%d.00,Sale\n", first+i, 1+i%28, amount)
		if i == bad {
			b.Truncate(b.Len() - len(".00,Sale\n"))
			b.WriteString(".0x,Sale\n")
		}
	}
	return b.Bytes(), strconv.Itoa(cents/100) + ".00"
}

// TestHole3UploadStreamedInParts: a file of several MiB is stored in parts
// of partBytes that hold it exactly, the job reads it back as one stream
// and loads every row, and the parts are deleted when the import is over,
// loaded or failed.
func TestHole3UploadStreamedInParts(t *testing.T) {
	l := newLoader(t)
	w := &ImportWorker{Service: l.s}
	job := func(id int64) *river.Job[ImportArgs] {
		return &river.Job[ImportArgs]{JobRow: &rivertype.JobRow{Attempt: 1, MaxAttempts: 3}, Args: ImportArgs{ImportID: id}}
	}
	parts := func(id int64) int {
		return l.count(t, `select count(*) from import_file_part where import_file_id = $1`, id)
	}
	const rows = 80_000
	content, total := transactionsCSV(0, rows, 0)
	if len(content) < 5*partBytes {
		t.Fatalf("the test file is %d bytes, want several MiB", len(content))
	}
	f, err := l.s.Submit(l.ctx, Upload{Kind: Transaction, FileName: "many.csv", Content: ContentOf(content)})
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(content)
	var hash, stored string
	var size int64
	var full int
	if err := l.pool.QueryRow(l.ctx, `select f.sha256, f.size_bytes, count(*) filter (where length(p.data) = $2),
			encode(sha256(string_agg(p.data, ''::bytea order by p.seq)), 'hex')
		from import_file f join import_file_part p on p.import_file_id = f.id where f.id = $1 group by f.id`,
		f.ImportID, partBytes).Scan(&hash, &size, &full, &stored); err != nil {
		t.Fatal(err)
	}
	n := parts(f.ImportID)
	if want := hex.EncodeToString(sum[:]); hash != want || stored != want || size != int64(len(content)) ||
		n != (len(content)+partBytes-1)/partBytes || full != n-1 {
		t.Fatalf("stored %d bytes in %d parts (%d full), hash %s, content hash %s; want %d bytes, hash %s", size, n, full, hash, stored, len(content), want)
	}

	if err := w.Work(l.ctx, job(f.ImportID)); err != nil {
		t.Fatal(err)
	}
	got, _ := l.s.Get(l.ctx, f.ImportID)
	if got.Status != "succeeded" || got.RowsRead != rows || got.RowsLoaded != rows {
		t.Fatalf("import %+v (error %v)", got, deref(got.Error))
	}
	var count int
	var amounts, first, last string
	if err := l.pool.QueryRow(l.ctx, `select count(*), sum(transaction_amount)::text, min(client_unique_id), max(client_unique_id)
		from card_transaction where import_file_id = $1`, f.ImportID).Scan(&count, &amounts, &first, &last); err != nil {
		t.Fatal(err)
	}
	if count != rows || amounts != total || first != "C000000000001" || last != fmt.Sprintf("C%012d", rows) {
		t.Errorf("loaded %d rows, amounts %s, clients %s to %s; want %d rows, amounts %s", count, amounts, first, last, rows, total)
	}
	if n := parts(f.ImportID); n != 0 {
		t.Errorf("%d parts kept after the import", n)
	}

	// A bad row in the last part fails the file, and its parts go too.
	bad, _ := transactionsCSV(rows, rows, rows)
	f, err = l.s.Submit(l.ctx, Upload{Kind: Transaction, FileName: "bad-end.csv", Content: ContentOf(bad)})
	if err != nil {
		t.Fatal(err)
	}
	if n := parts(f.ImportID); n < 5 {
		t.Fatalf("%d parts stored", n)
	}
	if err := w.Work(l.ctx, job(f.ImportID)); err != nil {
		t.Fatal(err)
	}
	got, _ = l.s.Get(l.ctx, f.ImportID)
	if got.Status != "failed" || len(got.RowErrors) != 1 || got.RowErrors[0].Line != rows+1 || got.RowsRead != rows {
		t.Errorf("import %+v (error %v)", got, deref(got.Error))
	}
	if n := parts(f.ImportID); n != 0 {
		t.Errorf("%d parts kept after a failed import", n)
	}
}
