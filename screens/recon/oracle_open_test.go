package recon

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
)

// The exception queue against the oracle: recon_open_item holds exactly the
// open records of every level that the level has seen (a counted record not
// made by hand, taken in by a run of its level or ever in a match, with no
// live match, or whose live match is partial, changed or under
// investigation), each with its status and the figures the oracle gives it:
// amount, currency, date and the amount in USD at the rate of its date. It
// is compared after every step of the oracle's runs (compare), so every
// write the oracle makes - imports, edits, deletes, runs, manual groups,
// adjustments, write-offs, undo - is checked to keep the queue current.

// seeAll marks the records of a level's sides that count seen (a run of
// the level takes in the open items it leaves).
func (m *oModel) seeAll(level int) {
	m.seeRecords(level)
	counted := m.payoutProviders()
	left, right := m.sides(level)
	for i, side := range [][]*oSide{left, right} {
		for _, s := range side {
			if !s.manual && (level != 3 || i == 0 || counted[strings.ToLower(s.provider)]) {
				m.seen[oRecord{level, i == 0, s.id}] = true
			}
		}
	}
}

// seeMatch marks a new match's records seen (a match takes them in: a
// partial one shows, an undone one is open again).
func (m *oModel) seeMatch(mt *oMatch) {
	m.seeRecords(mt.level)
	for i, ids := range [][]int64{mt.lefts, mt.rights} {
		for _, id := range ids {
			m.seen[oRecord{mt.level, i == 0, id}] = true
		}
	}
}

func (m *oModel) seeRecords(int) {
	if m.seen == nil {
		m.seen = map[oRecord]bool{}
	}
}

// payoutProviders are the providers (lower case) that have payouts: their
// processed bookings count.
func (m *oModel) payoutProviders() map[string]bool {
	out := map[string]bool{}
	for _, p := range m.payouts() {
		out[strings.ToLower(p.provider)] = true
	}
	return out
}

// oOpen is one open item as both sides describe it.
type oOpen struct {
	status, amount, cur, date, usd string
}

func (o oOpen) String() string {
	return fmt.Sprintf("%s %s %s on %s (USD %s)", o.status, o.amount, o.cur, o.date, o.usd)
}

// openItems are the oracle's open items by record.
func (m *oModel) openItems() map[oRecord]oOpen {
	payoutProviders := m.payoutProviders()
	m.seeRecords(0)
	out := map[oRecord]oOpen{}
	for level := 1; level <= 3; level++ {
		liveLeft, liveRight := m.live(level)
		left, right := m.sides(level)
		for i, side := range [][]*oSide{left, right} {
			live := liveLeft
			if i == 1 {
				live = liveRight
			}
			for _, s := range side {
				r := oRecord{level, i == 0, s.id}
				if level == 3 && i == 1 && !payoutProviders[strings.ToLower(s.provider)] {
					// a booking that stops counting leaves the queue until a run takes it in again
					delete(m.seen, r)
					continue
				}
				if s.manual || !m.seen[r] {
					continue
				}
				status := "unmatched"
				if mt := live[s.id]; mt != nil {
					status = mt.status
				}
				if status == "matched" {
					continue
				}
				usd := "-"
				if rate := m.usdRate(s.cur, s.date); rate != nil && s.cur != "" {
					usd = moneyText(roundCents(ratMul(s.amount, rate)))
				}
				cur := s.cur
				if cur == "" {
					cur = "-"
				}
				out[oRecord{level, i == 0, s.id}] = oOpen{status: status, amount: moneyText(s.amount), cur: cur, date: s.date.String(), usd: usd}
			}
		}
	}
	return out
}

// openItemDiffs compares recon_open_item with the oracle record by record.
func (o *oracleRun) openItemDiffs() []oDiff {
	rows, err := o.f.pool.Query(o.f.ctx, `select level, side = 'left', record_id, status, coalesce(amount::text, 'null'), coalesce(currency, '-'), date::text,
		coalesce(amount_usd::text, '-') from recon_open_item`)
	if err != nil {
		o.f.t.Fatal(err)
	}
	got := map[oRecord]oOpen{}
	for rows.Next() {
		var r oRecord
		var g oOpen
		if err := rows.Scan(&r.level, &r.isLeft, &r.id, &g.status, &g.amount, &g.cur, &g.date, &g.usd); err != nil {
			o.f.t.Fatal(err)
		}
		if g.amount != "null" {
			g.amount = moneyText(ratOf(g.amount))
		}
		if g.usd != "-" {
			g.usd = moneyText(ratOf(g.usd))
		}
		if _, twice := got[r]; twice {
			o.f.t.Fatalf("seed %d: recon_open_item has two rows of %+v", o.seed, r)
		}
		got[r] = g
	}
	if err := rows.Err(); err != nil {
		o.f.t.Fatal(err)
	}
	want := o.m.openItems()
	recs := recordsOf(want, got)
	var diffs []oDiff
	for _, r := range recs {
		w, inW := want[r]
		g, inG := got[r]
		if inW == inG && w == g {
			continue
		}
		side := "right"
		if r.isLeft {
			side = "left"
		}
		wantText, gotText := "not open", "not open"
		if inW {
			wantText = w.String()
		}
		if inG {
			gotText = g.String()
		}
		diffs = append(diffs, oDiff{fmt.Sprintf("L%d %s record %s: oracle %s; product (recon_open_item) %s", r.level, side,
			o.label(r.level, r.isLeft, r.id), wantText, gotText), ""})
	}
	return diffs
}

// editRate changes the USD rate of a day, or adds one for a day that has
// none: the open items' amounts in USD follow.
func (o *oracleRun) editRate() bool {
	if len(o.m.rates) == 0 {
		return false
	}
	r := o.m.rates[o.r.IntN(len(o.m.rates))]
	if r.usd == nil {
		return false
	}
	usd := ratAdd(r.usd, big.NewRat(int64(1+o.r.IntN(50)), 1000))
	on := r.on
	if o.r.IntN(2) == 0 {
		on += oDay(1 + o.r.IntN(5))
		for _, x := range o.m.rates {
			if x.code == r.code && x.on == on {
				return false
			}
		}
		o.f.exec(`insert into currency_exchange_rate (exchange_rate_on, code, currency, usd) values ($1, $2, $2, $3::numeric)`,
			on.String(), r.code, usd.FloatString(8))
		o.m.rates = append(o.m.rates, &oRate{code: r.code, on: on, usd: usd})
		o.step("rate added", "%s on %s: %s", r.code, on, usd.FloatString(8))
	} else {
		o.f.exec(`update currency_exchange_rate set usd = $3::numeric where code = $1 and exchange_rate_on = $2`, r.code, on.String(), usd.FloatString(8))
		r.usd = usd
		o.step("rate edited", "%s on %s: %s", r.code, on, usd.FloatString(8))
	}
	o.compare(false)
	return true
}

// candidateDiffs compares the manual dialog's candidates of every level
// and side over all dates with the oracle's records that have no live
// match (migration 00044 finds them from the queue, the unseen ranges and
// the records the queue never holds, not by testing every record).
func (o *oracleRun) candidateDiffs() []oDiff {
	want, got := map[oRecord]bool{}, map[oRecord]bool{}
	for level := 1; level <= 3; level++ {
		l := o.f.svc.def.ByNumber(level)
		liveLeft, liveRight := o.m.live(level)
		left, right := o.m.sides(level)
		for i, side := range [][]*oSide{left, right} {
			live := liveLeft
			if i == 1 {
				live = liveRight
			}
			for _, s := range side {
				if live[s.id] == nil {
					want[oRecord{level, i == 0, s.id}] = true
				}
			}
		}
		c, err := o.f.svc.Candidates(o.f.ctx, l, CandidatesRequest{Filters: Filters{FromDate: "1990-01-01", ToDate: "2099-12-31"}})
		if err != nil {
			o.f.t.Fatalf("seed %d: candidates of %s: %v", o.seed, l.Slug, err)
		}
		for i, items := range []json.RawMessage{c.Item1, c.Item2} {
			var rows []struct {
				ID int64 `json:"id"`
			}
			if err := json.Unmarshal(items, &rows); err != nil {
				o.f.t.Fatal(err)
			}
			isLeft := (i == 0) == (l.Dialog == "left")
			for _, r := range rows {
				rec := oRecord{level, isLeft, r.ID}
				if got[rec] {
					o.f.t.Fatalf("seed %d: %s lists %+v twice among its candidates", o.seed, l.Slug, rec)
				}
				got[rec] = true
			}
		}
	}
	var diffs []oDiff
	for _, r := range recordsOf(want, got) {
		if want[r] == got[r] {
			continue
		}
		side := "right"
		if r.isLeft {
			side = "left"
		}
		text := "oracle: no live match, so a candidate; the dialog does not offer it"
		if got[r] {
			text = "oracle: matched or gone; the dialog offers it"
		}
		diffs = append(diffs, oDiff{fmt.Sprintf("L%d %s record %s: %s", r.level, side, o.label(r.level, r.isLeft, r.id), text), ""})
	}
	return diffs
}
