package recon

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
)

func ids(t *testing.T, raw json.RawMessage) []int64 {
	t.Helper()
	var recs []struct {
		ID int64 `json:"id"`
	}
	if err := json.Unmarshal(raw, &recs); err != nil {
		t.Fatal(err)
	}
	out := make([]int64, len(recs))
	for i, r := range recs {
		out[i] = r.ID
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

func links(c *Chain) string {
	var out []string
	for _, l := range c.Links {
		out = append(out, fmt.Sprintf("%s %d-%s %d %s", l.From.Kind, l.From.ID, l.To.Kind, l.To.ID, l.Status))
	}
	return strings.Join(out, "; ")
}

// TestChain walks a ticket down to its bank booking and a booking up to
// every ticket of its payout, with the links between them.
func TestChain(t *testing.T) {
	f := newFixture(t)
	for level := 1; level <= 3; level++ {
		f.tolerance("Nuvei", level, "1.00", 2, "")
	}
	t1 := f.ticket("9300000000001", "100.00", "SEK", "2026-10-05")
	x1 := f.transaction("9300000000001", "Nuvei", "100.00", "SEK", "2026-10-05")
	s1 := f.settlement("PO-7", "9300000000001", "Nuvei", "SEK", "2026-10-06", "100.00", "2.00", "98.00")
	t2 := f.ticket("9300000000002", "50.00", "SEK", "2026-10-05")
	x2 := f.transaction("9300000000002", "Nuvei", "50.40", "SEK", "2026-10-05")
	s2 := f.settlement("PO-7", "9300000000002", "Nuvei", "SEK", "2026-10-06", "50.40", "1.00", "49.40")
	b := f.booking("147.40", "", "SEK", "2026-10-07", "Nuvei", "")
	t3 := f.ticket("9300000000003", "70.00", "SEK", "2026-10-05")
	x3 := f.transaction("9300000000003", "Nuvei", "71.50", "SEK", "2026-10-08")
	for _, l := range Levels {
		f.auto(l)
	}
	p := f.payoutID("PO-7")

	down, err := f.svc.ChainOf(f.ctx, "ticket", t1)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("ticket %d-transaction %d matched; transaction %d-settlement %d matched; settlement %d-payout %d member; payout %d-bank %d matched",
		t1, x1, x1, s1, s1, p, p, b)
	if got := links(down); got != want {
		t.Errorf("chain of a ticket:\n got %s\nwant %s", got, want)
	}
	if got := ids(t, down.Settlements); len(got) != 1 || got[0] != s1 {
		t.Errorf("the chain of a ticket lists its own settlement only, got %v", got)
	}

	up, err := f.svc.ChainOf(f.ctx, "bank", b)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(t, up.Tickets); fmt.Sprint(got) != fmt.Sprint([]int64{t1, t2}) {
		t.Errorf("the chain of a booking reaches every ticket of its payout: %v", got)
	}
	if got := ids(t, up.Transactions); fmt.Sprint(got) != fmt.Sprint([]int64{x1, x2}) {
		t.Errorf("transactions %v", got)
	}
	if got := ids(t, up.Settlements); fmt.Sprint(got) != fmt.Sprint([]int64{s1, s2}) {
		t.Errorf("settlements %v", got)
	}
	if !strings.Contains(links(up), fmt.Sprintf("ticket %d-transaction %d partial", t2, x2)) {
		t.Errorf("the partial match is a link: %s", links(up))
	}

	// An unmatched ticket shows the transaction that shares its number, unmatched.
	alone, err := f.svc.ChainOf(f.ctx, "ticket", t3)
	if err != nil {
		t.Fatal(err)
	}
	if got := links(alone); got != fmt.Sprintf("ticket %d-transaction %d unmatched", t3, x3) {
		t.Errorf("chain of an unmatched ticket: %s", got)
	}

	// Why: 1.50 apart (0.50 past the tolerance) and 3 days (1 past).
	w, err := f.svc.WhyNot(f.ctx, Levels[0], "left", t3)
	if err != nil {
		t.Fatal(err)
	}
	var cands []struct {
		ID             int64    `json:"id"`
		Reasons        []string `json:"reasons"`
		AmountMissedBy *string  `json:"amountMissedBy"`
		DateMissedBy   *int     `json:"dateMissedBy"`
		KeyMatches     bool     `json:"keyMatches"`
	}
	if err := json.Unmarshal(fixNumbers(w.Candidates), &cands); err != nil {
		t.Fatal(err)
	}
	if w.Match != nil || len(cands) == 0 || cands[0].ID != x3 || !cands[0].KeyMatches || fmt.Sprint(cands[0].Reasons) != "[amount date]" ||
		deref(cands[0].AmountMissedBy) != "0.50" || cands[0].DateMissedBy == nil || *cands[0].DateMissedBy != 1 {
		t.Errorf("why: %s", w.Candidates)
	}
	// The other candidates in SEK nearby are matched elsewhere, and say so.
	for _, c := range cands[1:] {
		if c.KeyMatches || !strings.Contains(fmt.Sprint(c.Reasons), "matchedElsewhere") {
			t.Errorf("candidate %+v", c)
		}
	}
	if _, err := f.svc.ChainOf(f.ctx, "ticket", 99999); err == nil {
		t.Error("the chain of a missing ticket should be an error")
	}
}

// fixNumbers quotes JSON numbers so they decode into strings exactly.
func fixNumbers(raw json.RawMessage) []byte {
	var v any
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	dec.Decode(&v)
	var walk func(any) any
	walk = func(x any) any {
		switch y := x.(type) {
		case map[string]any:
			for k, e := range y {
				if n, ok := e.(json.Number); ok && k != "id" && k != "dateMissedBy" {
					y[k] = n.String()
				} else {
					y[k] = walk(e)
				}
			}
		case []any:
			for i, e := range y {
				y[i] = walk(e)
			}
		}
		return x
	}
	b, _ := json.Marshal(walk(v))
	return b
}
