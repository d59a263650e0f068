package demo

import (
	"context"
	"io"
	"log/slog"
	"os"
	"reflect"
	"testing"
	"time"

	"ledgerdesk/engine"
	"ledgerdesk/internal/pgtest"
	"ledgerdesk/screens/imports"
)

func TestGenerateIsDeterministic(t *testing.T) {
	a, b := Generate(Options{Seed: 7}), Generate(Options{Seed: 7})
	if !reflect.DeepEqual(a, b) {
		t.Fatal("the same seed gave different data")
	}
	if c := Generate(Options{Seed: 8}); reflect.DeepEqual(a.Tickets, c.Tickets) {
		t.Fatal("another seed gave the same tickets")
	}
	for _, kind := range []string{"refunds", "ticket without transaction", "amount difference inside tolerance", "amount difference outside tolerance",
		"date lag inside tolerance", "date lag outside tolerance", "transaction without settlement", "payout missing in the bank", "bank charges", "settled in another currency (FX)"} {
		if a.Mix[kind] == 0 {
			t.Errorf("the mix has no %q", kind)
		}
	}
	// Internal consistency: every settlement's net is its gross less fees,
	// every payout booking is the sum of its settlements' nets.
	nets := map[string]int64{}
	for _, s := range a.Settlements {
		if s.Net != s.Gross-s.Fees {
			t.Fatalf("settlement %s: %d != %d - %d", s.ClientID, s.Net, s.Gross, s.Fees)
		}
		nets[s.PayoutID] += s.Net
	}
	for _, b := range a.Bookings {
		if b.Cents > 0 {
			var id string
			for pid := range nets {
				if len(b.Text) > len(pid) && b.Text[len(b.Text)-len(pid):] == pid {
					id = pid
				}
			}
			if id == "" || nets[id] != b.Cents {
				t.Fatalf("booking %q of %d matches no payout total", b.Text, b.Cents)
			}
		}
	}
}

// The demo files go through the real import path and every row arrives.
func TestLoadThroughImports(t *testing.T) {
	pool := pgtest.New(t)
	set := Generate(Options{Seed: 3, Days: 10})
	files, err := WriteFiles(set, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	layouts, err := imports.LoadDescriptors(os.DirFS("../.."))
	if err != nil {
		t.Fatal(err)
	}
	importer := imports.NewService(pool, layouts, 0, slog.New(slog.NewTextHandler(io.Discard, nil)))
	ctx := engine.WithActor(context.Background(), &engine.Actor{Username: "demo"})
	results, err := Load(ctx, pool, set, files, importer)
	if err != nil {
		t.Fatal(err)
	}
	formats := map[string]bool{}
	for _, r := range results {
		if r.Status != "succeeded" || r.RowsLoaded == 0 {
			t.Errorf("%s: %s, %d loaded, error %v, rows %v", r.FileName, r.Status, r.RowsLoaded, r.Error, r.RowErrors)
		}
		formats[r.Format] = true
	}
	for _, f := range []string{"csv", "xlsx", "camt053", "mt940"} {
		if !formats[f] {
			t.Errorf("no %s file in the demo", f)
		}
	}
	for table, want := range map[string]int{"ticket": len(set.Tickets), "card_transaction": len(set.Transactions),
		"settlement": len(set.Settlements), "bank_booking": len(set.Bookings)} {
		var n int
		if err := pool.QueryRow(context.Background(), "select count(*) from "+table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != want {
			t.Errorf("%s: %d rows, want %d", table, n, want)
		}
	}
	var mapped, usd int
	if err := pool.QueryRow(context.Background(), `select count(actor), count(amount_usd) from bank_booking`).Scan(&mapped, &usd); err != nil {
		t.Fatal(err)
	}
	if mapped != len(set.Bookings) || usd != len(set.Bookings) {
		t.Errorf("processing: %d of %d bookings mapped to an actor, %d with USD amounts", mapped, len(set.Bookings), usd)
	}
	// The bank overview shows what it can do: an actor column per provider, and the bank's charges
	// (first user, second round, item 15: every provider was the one actor "Card").
	var actors int
	if err := pool.QueryRow(context.Background(), `select count(distinct actor) from bank_booking`).Scan(&actors); err != nil {
		t.Fatal(err)
	}
	if actors != len(Providers)+1 {
		t.Errorf("%d actors in the bookings, want one per provider and Bank", actors)
	}
	// Loading again adds nothing: the reference data is idempotent, the files are refused as duplicates.
	if _, err := Load(ctx, pool, set, files, importer); engine.ErrorCode(err) != engine.CodeConflict {
		t.Errorf("second load: %v", err)
	}
}

// Nothing in the default data set is dated after today: no sale, payout,
// settlement, booking, bank charge or rate.
func TestNothingAfterToday(t *testing.T) {
	today := time.Now().UTC().Truncate(24 * time.Hour)
	s := Generate(Options{})
	var last time.Time
	see := func(d time.Time) {
		if d.After(last) {
			last = d
		}
	}
	for _, x := range s.Tickets {
		see(x.Date)
	}
	for _, x := range s.Transactions {
		see(x.Date)
	}
	for _, x := range s.Settlements {
		see(x.Date)
	}
	for _, x := range s.Bookings {
		see(x.Booked)
		see(x.Value)
	}
	see(s.Options.End()) // the last rate
	if last.After(today) {
		t.Errorf("the demo data runs to %s, after today %s", last.Format("2006-01-02"), today.Format("2006-01-02"))
	}
	if last.Before(today.AddDate(0, 0, -3)) {
		t.Errorf("the demo data ends %s, long before today", last.Format("2006-01-02"))
	}
}
