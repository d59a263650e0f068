package recon

// An independent oracle of reconciliation (DESIGN.md section 6): the
// matching rules of the three levels and the three report grids written
// again in plain Go, and compared with the product record by record and row
// by row on generated data sets. It shares nothing with the production SQL
// but the tables: it writes documents, drives the product (RunNow,
// MatchByHand, Undo, plain writes to the documents), and reads back
// recon_match and the report functions. Money is exact (math/big.Rat).
//
// The oracle follows the rules as decided, also where the product does not
// yet (a payout belongs to the period of its latest settlement; an
// adjustment counts once, toward the ticket it was made for; a live match
// whose records change is re-evaluated, or ended by the system when a
// record goes; match groups, made by hand: one or more records of a side
// with one or more of the other, evaluated over their sums, counted by
// every report, undone and ended whole; oracle_groups_test.go drives them).
// A disagreement prints the seed, the data set and the first differing
// rows; ORACLE_SEED=n replays one seed, ORACLE_SEEDS=n runs seeds 1..n, and
// ORACLE_SEEDS=a-b seeds a..b.

import (
	"fmt"
	"maps"
	"math/big"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestMatchingRoundsEqualOneByOne is the property that the product's
// matching rounds (every pair that is the best of both its records, repeated)
// give the pairs that matching one candidate at a time in the documented
// order gives (least difference, then least date lag, then lowest id): the
// oracle matches one by one, on data sets with many ties and several
// candidates per record, at every level.
func TestMatchingRoundsEqualOneByOne(t *testing.T) {
	o := newOracle(t)
	for _, seed := range oracleSeeds(t, 40) {
		run := o.start(seed, 40)
		run.beforeRuns()
		run.runLevels("runs", false)
	}
	o.log.summary()
}

// TestOracleReports compares the live matches and the three report grids
// with the oracle after the runs, after match groups made by hand at every
// level, after each of a series of random changes to the documents and the
// matches (groups among them), and after running every level again.
func TestOracleReports(t *testing.T) {
	o := newOracle(t)
	for _, seed := range oracleSeeds(t, 30) {
		run := o.start(seed, 25)
		run.beforeRuns()
		run.runLevels("runs", true)
		for i := run.r.IntN(3); i > 0; i-- {
			run.adjustment()
		}
		for level := 1; level <= 3; level++ {
			run.manualGroup(level, "manual group")
		}
		for i := 1 + run.r.IntN(3); i > 0; i-- {
			run.writeOff()
		}
		for i := run.r.IntN(3); i > 0; i-- {
			run.manualGroup(1+run.r.IntN(3), "manual group")
		}
		run.groupChanges(3 + run.r.IntN(4))
		if seed%3 != 0 {
			run.changes(3 + run.r.IntN(6))
			run.runLevels("rerun after changes", true)
		} else {
			run.runLevels("rerun after group changes", true)
		}
	}
	o.log.summary()
}

// oracleSeeds is ORACLE_SEED alone, else seeds 1..ORACLE_SEEDS (default n),
// or from..to when ORACLE_SEEDS is "from-to" (seeds CI never runs).
func oracleSeeds(t *testing.T, n int) []uint64 {
	t.Helper()
	if s := os.Getenv("ORACLE_SEED"); s != "" {
		seed, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("ORACLE_SEED=%q: %v", s, err)
		}
		return []uint64{seed}
	}
	from, to := uint64(1), uint64(n)
	if s := os.Getenv("ORACLE_SEEDS"); s != "" {
		a, b, isRange := strings.Cut(s, "-")
		var err error
		if isRange {
			from, err = strconv.ParseUint(a, 10, 64)
			if err == nil {
				to, err = strconv.ParseUint(b, 10, 64)
			}
		} else {
			to, err = strconv.ParseUint(s, 10, 64)
		}
		if err != nil || from == 0 || to < from {
			t.Fatalf("ORACLE_SEEDS=%q: want a count n or a range from-to of seeds from 1", s)
		}
	}
	var seeds []uint64
	for seed := from; seed <= to; seed++ {
		seeds = append(seeds, seed)
	}
	return seeds
}

// ---------------------------------------------------------------------------
// Days and money.

// oDay is a calendar day, counted from 1970-01-01.
type oDay int

func dayOf(s string) oDay {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return oDay(t.Unix() / 86400)
}

func (d oDay) String() string { return time.Unix(int64(d)*86400, 0).UTC().Format(time.DateOnly) }

func dayLag(a, b oDay) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}

func ratOf(s string) *big.Rat {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		panic("not a number: " + s)
	}
	return r
}

func centsOf(c int64) *big.Rat              { return big.NewRat(c, 100) }
func ratAdd(a, b *big.Rat) *big.Rat         { return new(big.Rat).Add(a, b) }
func ratSub(a, b *big.Rat) *big.Rat         { return new(big.Rat).Sub(a, b) }
func ratMul(a, b *big.Rat) *big.Rat         { return new(big.Rat).Mul(a, b) }
func ratQuo(a, b *big.Rat) *big.Rat         { return new(big.Rat).Quo(a, b) }
func ratAbs(a *big.Rat) *big.Rat            { return new(big.Rat).Abs(a) }
func ratEq(a, b *big.Rat) bool              { return (a == nil) == (b == nil) && (a == nil || a.Cmp(b) == 0) }
func ratZero(a *big.Rat) bool               { return a == nil || a.Sign() == 0 }
func ratLE(a, b *big.Rat) bool              { return a.Cmp(b) <= 0 }
func ratNeg(a *big.Rat) *big.Rat            { return new(big.Rat).Neg(a) }
func ratHundred(a *big.Rat) *big.Rat        { return ratMul(a, big.NewRat(100, 1)) }
func ptrTo[T any](v T) *T                   { return &v }
func pickOf[T any](r *rand.Rand, xs ...T) T { return xs[r.IntN(len(xs))] }

// ratOr is a, or b when a is null.
func ratOr(a, b *big.Rat) *big.Rat {
	if a != nil {
		return a
	}
	return b
}

// ratPtrText is an amount as text, nil for null.
func ratPtrText(a *big.Rat) *string {
	if a == nil {
		return nil
	}
	return ptrTo(moneyText(a))
}

func strOr(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// roundCents rounds to two decimals half away from zero, as PostgreSQL's
// round(numeric, 2) does.
func roundCents(x *big.Rat) *big.Rat {
	n := new(big.Int).Mul(x.Num(), big.NewInt(100))
	q, m := new(big.Int).QuoRem(n, x.Denom(), new(big.Int))
	if new(big.Int).Mul(new(big.Int).Abs(m), big.NewInt(2)).Cmp(x.Denom()) >= 0 {
		q.Add(q, big.NewInt(int64(n.Sign())))
	}
	return new(big.Rat).SetFrac(q, big.NewInt(100))
}

// TestOracleRoundCents checks the oracle's rounding against PostgreSQL's
// round(numeric, 2): half away from zero, on exact values.
func TestOracleRoundCents(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"1.005", "1.01"}, {"-1.005", "-1.01"}, {"1.0049999", "1.00"}, {"2.675", "2.68"}, {"-0.004", "0.00"},
		{"1/3", "0.33"}, {"-2/3", "-0.67"}, {"12.3450000001", "12.35"}, {"100", "100.00"},
	} {
		if got := roundCents(ratOf(c.in)).FloatString(2); got != c.want {
			t.Errorf("roundCents(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}

// moneyText writes an amount with two decimals when it has at most two, else
// exactly (so an amount that is not whole cents shows as such).
func moneyText(a *big.Rat) string {
	if a == nil {
		return "null"
	}
	if new(big.Rat).Mul(a, big.NewRat(100, 1)).IsInt() {
		return a.FloatString(2)
	}
	return a.RatString()
}

// ---------------------------------------------------------------------------
// The model: the documents, the reference data and the matches as the
// oracle holds them.

type oTicket struct {
	id               int64
	number           string
	date             oDay
	cur              string
	payType, country string // "" is null
	amount           *big.Rat
}

type oTxn struct {
	id        int64
	client    string
	date      oDay
	provider  string
	cur       string
	amount    *big.Rat
	adjust    bool  // a task's manual adjustment
	task      int64 // its task
	forTicket int64 // the ticket it was made for
}

type oSettlement struct {
	id          int64
	payout      string
	client      string // "" is null
	date        oDay
	provider    string
	cur         string
	gross, fees *big.Rat // nil is null
	net         *big.Rat
}

type oBooking struct {
	id            int64
	account       string
	date          oDay
	cur           string
	provider      string  // "" is null
	manual        *string // manual_provider: null, '' or a provider
	amountLocal   *big.Rat
	reco, charges *big.Rat // nil is null
	status        string
}

type oRate struct {
	code string
	on   oDay
	usd  *big.Rat // nil: a row without a USD rate
}

type oTolerance struct {
	id               int64
	level            int
	name             string
	actor            *string
	amount, currency *big.Rat // nil is null
	days             *int
}

// oMatch is a match of a level: one or more records of its left side with
// one or more of its right side (DESIGN.md section 6, match groups). The
// first record of each side is the product's left_id and right_id (the
// first id of the request, for a group made by hand); a pair is a group of
// one and one.
type oMatch struct {
	level         int
	lefts, rights []int64 // its records, the first first
	status, rule  string
	variance      *big.Rat
	lag           int
	id            int64  // the product's id of the pair's live match, once seen
	by            string // "auto", "hand", "undone row"
	ended         string // "" live, else "user" or "system"
	reevaluated   bool   // its records changed after it was made
	// views are its records as the level compares them (amount, currency,
	// date) when it was made or last re-evaluated
	views map[oRecord]string
}

func newMatch(level int, left, right int64) *oMatch {
	return &oMatch{level: level, lefts: []int64{left}, rights: []int64{right}}
}

// add makes a match, remembering its records as they are.
func (m *oModel) add(mt *oMatch) {
	mt.views = m.views(mt)
	m.matches = append(m.matches, mt)
	m.seeMatch(mt)
}

// views are a match's records as its level compares them: amount,
// currency and date ("" for one that is gone).
func (m *oModel) views(mt *oMatch) map[oRecord]string {
	out := map[oRecord]string{}
	for i, ids := range [][]int64{mt.lefts, mt.rights} {
		for _, id := range ids {
			if s := m.side(mt.level, i == 0, id); s != nil {
				out[oRecord{mt.level, i == 0, id}] = moneyText(s.amount) + " " + s.cur + " " + s.date.String()
			}
		}
	}
	return out
}

// left and right are the first record of each side.
// left and right are the match's first record of each side (0: none, the
// other side of a write-off).
func (mt *oMatch) left() int64  { return first(mt.lefts) }
func (mt *oMatch) right() int64 { return first(mt.rights) }

func first(ids []int64) int64 {
	if len(ids) == 0 {
		return 0
	}
	return ids[0]
}

// further are the records of a side after its first.
func further(ids []int64) []int64 {
	if len(ids) < 2 {
		return nil
	}
	return ids[1:]
}

// group tells whether it holds more than one record of a side.
func (mt *oMatch) group() bool { return len(mt.lefts) > 1 || len(mt.rights) > 1 }

// holds tells whether the record id of a side is one of its records.
func (mt *oMatch) holds(isLeft bool, id int64) bool {
	if isLeft {
		return slices.Contains(mt.lefts, id)
	}
	return slices.Contains(mt.rights, id)
}

// share is what a left record of the match carries of its variance in the
// reports: the first left record all of it, a further one none (decided
// for match groups).
func (mt *oMatch) share(leftID int64) *big.Rat {
	if leftID == mt.left() {
		return mt.variance
	}
	return new(big.Rat)
}

// exact: status matched and no variance; every record of a group is exact
// only when its group is.
func (mt *oMatch) exact() bool { return mt.status == "matched" && ratZero(mt.variance) }

type oModel struct {
	tickets     []*oTicket
	txns        []*oTxn
	settlements []*oSettlement
	bookings    []*oBooking
	rates       []*oRate
	// seen are the records a run of their level has taken in (the
	// exception queue lists only those, and records ever in a match)
	seen        map[oRecord]bool
	tolerances  []*oTolerance
	matches     []*oMatch
	payoutIDs   map[string]int64 // payout_key -> payout.id, as the product numbered them
	steps       []string
	covered     map[string]int  // cases met, over every seed
	coveredOnce map[string]bool // cases met by the reports, counted once a seed
}

// cover counts a case the seeds met (printed at the end, so a change to the
// generator that stops making one shows).
func (m *oModel) cover(what string, n int) {
	if m.covered != nil && n > 0 {
		m.covered[what] += n
	}
}

// coverOnce counts a case the reports meet, once a seed for each of what
// it is about (the reports are computed at every comparison).
func (m *oModel) coverOnce(what, about string) {
	if m.coveredOnce == nil {
		m.coveredOnce = map[string]bool{}
	}
	if !m.coveredOnce[what+" "+about] {
		m.coveredOnce[what+" "+about] = true
		m.cover(what, 1)
	}
}

// oPayout is a payout (DESIGN.md section 6, level 3): the settlements of one
// payout_id, their provider, their currency ("" when they disagree), the
// sum of their settlement_net and their latest settlement_date.
type oPayout struct {
	key      string
	provider string
	cur      string
	curs     []string
	total    *big.Rat
	latest   oDay
	count    int
}

func (m *oModel) payouts() []*oPayout {
	by := map[string]*oPayout{}
	var out []*oPayout
	for _, s := range m.settlements {
		p := by[s.payout]
		if p == nil {
			p = &oPayout{key: s.payout, provider: s.provider, total: new(big.Rat), latest: s.date}
			by[s.payout] = p
			out = append(out, p)
		}
		if s.provider != p.provider {
			panic("the generator gives a payout one provider")
		}
		if !slices.Contains(p.curs, s.cur) {
			p.curs = append(p.curs, s.cur)
		}
		p.total = ratAdd(p.total, s.net)
		p.latest = max(p.latest, s.date)
		p.count++
	}
	for _, p := range out {
		sort.Strings(p.curs)
		if len(p.curs) == 1 {
			p.cur = p.curs[0]
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key < out[j].key })
	return out
}

// usdRate is the USD value of one unit of cur on d (DESIGN.md section 6: the
// rate of that date, else the latest earlier one), nil when there is none;
// USD is 1.
func (m *oModel) usdRate(cur string, d oDay) *big.Rat {
	if cur == "USD" {
		return big.NewRat(1, 1)
	}
	var best *oRate
	for _, r := range m.rates {
		if r.code == cur && r.usd != nil && r.on <= d && (best == nil || r.on > best.on) {
			best = r
		}
	}
	if best == nil {
		return nil
	}
	return best.usd
}

// oTol is the tolerance a pair is judged by.
type oTol struct {
	amount   *big.Rat
	days     int
	currency *big.Rat // nil: different currencies never match
}

// toleranceOf is the tolerance of a level for a provider (DESIGN.md section
// 6): the config_setting row of transaction_type = level whose provider (its
// provider actor, else its provider name; case does not matter) is the
// provider, the first by id; no row is zero tolerance and no currency
// matching, and an empty threshold is zero.
func (m *oModel) toleranceOf(level int, provider string) oTol {
	var best *oTolerance
	for _, t := range m.tolerances {
		who := t.name
		if t.actor != nil && *t.actor != "" {
			who = *t.actor
		}
		if t.level == level && strings.EqualFold(who, provider) && (best == nil || t.id < best.id) {
			best = t
		}
	}
	tol := oTol{amount: new(big.Rat)}
	if best == nil {
		return tol
	}
	if best.amount != nil {
		tol.amount = best.amount
	}
	if best.days != nil {
		tol.days = *best.days
	}
	tol.currency = best.currency
	return tol
}

// oSide is a record as a level compares it: its id, the key that pairs it,
// the provider whose tolerance counts, amount, currency ("" for a payout in
// several currencies) and date.
type oSide struct {
	id       int64
	label    string
	key      string // "": pairs with nothing
	provider string
	amount   *big.Rat
	cur      string
	date     oDay
	// manual: made by hand (a task's adjustment): automatic runs never
	// pair it and its date is not compared (DESIGN.md section 6, match
	// groups: an adjustment is dated when it was booked).
	manual bool
}

// level1Sides: tickets against card transactions on ticket_number =
// client_unique_id; sale_amount against transaction_amount, trans_date
// against processing_date; the tolerance of the transaction's provider. A
// task's manual adjustment is a record made by hand on the right side: no
// run pairs it; it joins the group of the ticket it was made for.
func (m *oModel) level1Sides() (left, right []*oSide) {
	for _, t := range m.tickets {
		left = append(left, &oSide{id: t.id, label: fmt.Sprint("t", t.id), key: t.number, amount: t.amount, cur: t.cur, date: t.date})
	}
	for _, x := range m.txns {
		right = append(right, &oSide{id: x.id, label: fmt.Sprint("x", x.id), key: x.client, provider: x.provider, amount: x.amount, cur: x.cur,
			date: x.date, manual: x.adjust})
	}
	return left, right
}

// pairable are the records of a level's sides that runs pair and the
// oracle's steps pick for pairs and groups: not those made by hand.
func (m *oModel) pairable(level int) (left, right []*oSide) {
	all := func(ss []*oSide) []*oSide {
		return slices.DeleteFunc(ss, func(s *oSide) bool { return s.manual })
	}
	left, right = m.sides(level)
	return all(left), all(right)
}

// level2Sides: card transactions against settlements on client_unique_id
// and provider actor (case does not matter); transaction_amount against the
// gross amount (gross_amount, else settlement_net + fees), processing_date
// against settlement_date; the tolerance of the settlement's provider
// (DESIGN.md section 6, level 2).
func (m *oModel) level2Sides() (left, right []*oSide) {
	for _, x := range m.txns {
		if !x.adjust {
			left = append(left, &oSide{id: x.id, label: fmt.Sprint("x", x.id), key: x.client + "|" + strings.ToLower(x.provider),
				provider: x.provider, amount: x.amount, cur: x.cur, date: x.date})
		}
	}
	for _, s := range m.settlements {
		key := ""
		if s.client != "" {
			key = s.client + "|" + strings.ToLower(s.provider)
		}
		right = append(right, &oSide{id: s.id, label: fmt.Sprint("s", s.id), key: key, provider: s.provider,
			amount: settlementGross(s), cur: s.cur, date: s.date})
	}
	return left, right
}

func settlementGross(s *oSettlement) *big.Rat {
	if s.gross != nil {
		return s.gross
	}
	return ratAdd(s.net, ratOr(s.fees, new(big.Rat)))
}

// level3Sides: payouts against processed bank bookings of the payout's
// provider (the booking's manual provider, else its provider; case does not
// matter) in its currency; the payout's total against the booking's amount
// in local currency (reco amount, else amount_local) plus its bank charges,
// the latest settlement date against booked_date; the tolerance of the
// payout's provider. A payout in several currencies never matches
// (DESIGN.md section 6, level 3).
func (m *oModel) level3Sides() (left, right []*oSide) {
	for _, p := range m.payouts() {
		key := ""
		if p.cur != "" {
			key = strings.ToLower(p.provider) + "|" + p.cur
		}
		id := m.payoutIDs[p.key]
		left = append(left, &oSide{id: id, label: fmt.Sprintf("%s#%d", p.key, id), key: key, provider: p.provider,
			amount: p.total, cur: p.cur, date: p.latest})
	}
	for _, b := range m.bookings {
		if b.status != "Processed" {
			continue
		}
		provider := b.provider
		if b.manual != nil && *b.manual != "" {
			provider = *b.manual
		}
		key := ""
		if provider != "" {
			key = strings.ToLower(provider) + "|" + b.cur
		}
		right = append(right, &oSide{id: b.id, label: fmt.Sprint("b", b.id), key: key, provider: provider,
			amount: bookingAmount(b), cur: b.cur, date: b.date})
	}
	return left, right
}

func bookingReco(b *oBooking) *big.Rat { return ratOr(b.reco, b.amountLocal) }

func bookingAmount(b *oBooking) *big.Rat {
	return ratAdd(bookingReco(b), ratOr(b.charges, new(big.Rat)))
}

func (m *oModel) sides(level int) (left, right []*oSide) {
	switch level {
	case 1:
		return m.level1Sides()
	case 2:
		return m.level2Sides()
	}
	return m.level3Sides()
}

// side is the record of a level's side by id, nil when it is gone.
func (m *oModel) side(level int, isLeft bool, id int64) *oSide {
	left, right := m.sides(level)
	if !isLeft {
		left = right
	}
	for _, s := range left {
		if s.id == id && id != 0 {
			return s
		}
	}
	return nil
}

// oEval is one pair judged by the rules of DESIGN.md section 6.
type oEval struct {
	same   bool // one currency
	inside bool // inside every tolerance
	// currencyOK: one currency, or two whose USD difference lies inside the
	// currency tolerance (a manual match refused otherwise: it needs force).
	currencyOK bool
	diff       *big.Rat // what pairs are ranked by
	variance   *big.Rat // left minus right in the left currency; nil when unknown
	lag        int
	rule       string
	status     string
}

// evaluate is the one pair evaluation (DESIGN.md section 6) that automatic
// matching, manual matching and re-evaluation share: dates at most the
// date threshold apart; one currency: |left - right| <= amount threshold;
// two currencies: both USD rates known, a currency threshold, a left
// amount that is not zero and |l*lrate - r*rrate| * 100 <= threshold *
// |l*lrate|. Ranked by the difference (|l - r|, across currencies
// |l*lrate - r*rrate|); variance left - right (across currencies
// round(l - r*rrate/lrate, 2)); matched when one currency and equal
// amounts, else partial; rule exact (equal, lag 0), date (equal, lag > 0),
// amount (one currency, different), fx (two currencies).
func (m *oModel) evaluate(level int, l, r *oSide) oEval {
	provider := r.provider
	if level == 3 {
		provider = l.provider
	}
	tol := m.toleranceOf(level, provider)
	ld, rd := l.date, r.date
	if l.manual {
		ld = rd
	}
	if r.manual {
		rd = ld
	}
	e := oEval{lag: dayLag(ld, rd), rule: "fx", status: "partial"}
	dateOK := e.lag <= tol.days
	switch {
	case l.cur == "" || r.cur == "": // a payout in several currencies
	case l.cur == r.cur:
		e.same, e.currencyOK = true, true
		e.variance = ratSub(l.amount, r.amount)
		e.diff = ratAbs(e.variance)
		e.inside = dateOK && ratLE(e.diff, tol.amount)
		switch {
		case e.variance.Sign() != 0:
			e.rule = "amount"
		case e.lag == 0:
			e.rule, e.status = "exact", "matched"
		default:
			e.rule, e.status = "date", "matched"
		}
	default:
		lr, rr := m.usdRate(l.cur, ld), m.usdRate(r.cur, rd)
		if lr == nil || rr == nil {
			break
		}
		lUSD, rUSD := ratMul(l.amount, lr), ratMul(r.amount, rr)
		e.diff = ratAbs(ratSub(lUSD, rUSD))
		e.variance = roundCents(ratSub(l.amount, ratQuo(rUSD, lr)))
		e.currencyOK = tol.currency != nil && l.amount.Sign() != 0 &&
			ratLE(ratHundred(e.diff), ratMul(tol.currency, ratAbs(lUSD)))
		e.inside = dateOK && e.currencyOK
	}
	return e
}

type oPair struct {
	level       int
	left, right int64
}

// pair is the match's first records: for a group, the pair an undo makes
// one automatic runs do not make again.
func (mt *oMatch) pair() oPair { return oPair{mt.level, mt.left(), mt.right()} }

// live is the live match of each record of a level, by side: every record
// of a group has its group (a record has at most one live match per level).
func (m *oModel) live(level int) (left, right map[int64]*oMatch) {
	left, right = map[int64]*oMatch{}, map[int64]*oMatch{}
	for _, mt := range m.matches {
		if mt.level == level && mt.ended == "" {
			for _, id := range mt.lefts {
				left[id] = mt
			}
			for _, id := range mt.rights {
				right[id] = mt
			}
		}
	}
	return left, right
}

// sumSide is records of one side of a level taken together, as a group is
// evaluated (decided for match groups): the sum of their amounts, their
// currency when they share one ("" when they do not), the latest date of
// those not made by hand (manual when all are), and the key and provider
// of the first of them (the first id of the request), whose tolerance
// counts when it is the tolerance side. Nil when one of them is gone.
func (m *oModel) sumSide(level int, isLeft bool, ids []int64) *oSide {
	var out *oSide
	for _, id := range ids {
		s := m.side(level, isLeft, id)
		switch {
		case s == nil:
			return nil
		case out == nil:
			c := *s
			out = &c
		default:
			out.label += "+" + s.label
			out.amount = ratAdd(out.amount, s.amount)
			switch {
			case s.manual:
			case out.manual:
				out.date, out.manual = s.date, false
			default:
				out.date = max(out.date, s.date)
			}
			if s.cur != out.cur {
				out.cur = ""
			}
		}
	}
	return out
}

// evaluateGroup is the evaluation of a match's records (DESIGN.md section
// 6, match groups): the one pair evaluation over the sums of each side; a
// pair's is its own. Nil sides when a record is gone.
func (m *oModel) evaluateGroup(level int, lefts, rights []int64) (l, r *oSide, e oEval) {
	l, r = m.sumSide(level, true, lefts), m.sumSide(level, false, rights)
	if l == nil || r == nil {
		return nil, nil, oEval{}
	}
	return l, r, m.evaluate(level, l, r)
}

// oneCurrency tells whether every record of a live match is in one currency.
func (m *oModel) oneCurrency(mt *oMatch) bool {
	l, r, _ := m.evaluateGroup(mt.level, mt.lefts, mt.rights)
	return l != nil && l.cur != "" && l.cur == r.cur
}

// groupRefusal is why a group made by hand is refused without force, as
// decided: a side whose records are in several currencies
// (recon.groupMixedCurrencies); two currencies that cannot be compared
// within the currency tolerance (the refusals of a pair: no USD rate, no
// currency tolerance, outside it); otherwise sums outside the level's
// tolerances of amount or date (recon.groupOutsideTolerance). "" when it is
// inside every tolerance.
func (m *oModel) groupRefusal(level int, l, r *oSide, e oEval) string {
	provider := r.provider
	if level == 3 {
		provider = l.provider
	}
	switch {
	case l.cur == "" || r.cur == "":
		return "recon.groupMixedCurrencies"
	case !e.same && e.variance == nil:
		return "recon.noRate"
	case !e.same && m.toleranceOf(level, provider).currency == nil:
		return "recon.noCurrencyTolerance"
	case !e.currencyOK:
		return "recon.outsideCurrencyTolerance"
	case !e.inside:
		return "recon.groupOutsideTolerance"
	}
	return ""
}

// autoMatch is automatic reconciliation of a level (DESIGN.md section 6),
// one pair at a time: the candidate pairs (one key, both records without a
// live match at the level, as the first or a further record of a group;
// not a pair whose match was undone, for a group its first records; inside
// the tolerances) in order of least difference, then least date lag, then
// lowest id (of the left record for a right record, of the right record
// for a left one: the order (difference, lag, left id, right id) is both),
// each taken when neither of its records is taken yet.
func (m *oModel) autoMatch(level int) {
	left, right := m.pairable(level)
	liveL, liveR := m.live(level)
	undone := map[oPair]*oMatch{}
	endedGroup := map[oRecord]*oMatch{} // the records of ended groups
	for _, mt := range m.matches {
		if mt.ended != "" {
			undone[mt.pair()] = mt
		}
		if mt.ended != "" && mt.group() && mt.level == level {
			for _, id := range mt.lefts {
				endedGroup[oRecord{level, true, id}] = mt
			}
			for _, id := range mt.rights {
				endedGroup[oRecord{level, false, id}] = mt
			}
		}
	}
	type cand struct {
		l, r *oSide
		e    oEval
	}
	var cands []cand
	perLeft, perRight := map[int64]int{}, map[int64]int{}
	for _, r := range right {
		if mt := liveR[r.id]; mt != nil && mt.group() {
			m.cover("records of live groups a run left alone", 1)
		}
	}
	for _, l := range left {
		if mt := liveL[l.id]; mt != nil && mt.group() {
			m.cover("records of live groups a run left alone", 1)
		}
		if l.key == "" || liveL[l.id] != nil {
			continue
		}
		for _, r := range right {
			if r.key != l.key || liveR[r.id] != nil {
				continue
			}
			e := m.evaluate(level, l, r)
			switch {
			case undone[oPair{level, l.id, r.id}] != nil:
				m.cover("undone pairs not made again", boolCount(e.inside))
				m.cover("undone pairs not made again: the first records of a group", boolCount(e.inside && undone[oPair{level, l.id, r.id}].group()))
			case e.inside:
				cands = append(cands, cand{l, r, e})
				perLeft[l.id]++
				perRight[r.id]++
			case !e.same && e.variance == nil:
				m.cover("pairs across currencies without a rate", 1)
			}
		}
	}
	for _, n := range perLeft {
		m.cover("records with several candidates", boolCount(n > 1))
	}
	for _, n := range perRight {
		m.cover("records with several candidates", boolCount(n > 1))
	}
	sort.Slice(cands, func(i, j int) bool {
		a, b := cands[i], cands[j]
		if c := a.e.diff.Cmp(b.e.diff); c != 0 {
			return c < 0
		}
		if a.e.lag != b.e.lag {
			return a.e.lag < b.e.lag
		}
		if a.l.id != b.l.id {
			return a.l.id < b.l.id
		}
		return a.r.id < b.r.id
	})
	taken := map[[2]int64]bool{}
	for _, c := range cands {
		if taken[[2]int64{0, c.l.id}] || taken[[2]int64{1, c.r.id}] {
			continue
		}
		taken[[2]int64{0, c.l.id}], taken[[2]int64{1, c.r.id}] = true, true
		for _, d := range cands {
			if d != c && (d.l == c.l || d.r == c.r) && d.e.diff.Cmp(c.e.diff) == 0 && d.e.lag == c.e.lag {
				m.cover("matches chosen by id over an equal candidate", 1)
				break
			}
		}
		m.cover("automatic matches across currencies", boolCount(c.e.rule == "fx"))
		if g := endedGroup[oRecord{level, true, c.l.id}]; g != nil && g == endedGroup[oRecord{level, false, c.r.id}] {
			m.cover("automatic matches of two records of an ended group (not its first pair)", 1)
		}
		m.cover("automatic matches, level "+strconv.Itoa(level), 1)
		mt := newMatch(level, c.l.id, c.r.id)
		mt.status, mt.rule, mt.variance, mt.lag, mt.by = c.e.status, c.e.rule, c.e.variance, c.e.lag, "auto"
		m.add(mt)
	}
	m.autoSplits(level)
}

// touch re-evaluates the live matches of a record that was written
// (DESIGN.md section 6: "a live match whose members change is
// re-evaluated", decided: in the writing transaction, when a record's
// amount, date or currency as its level compares them changed; a write
// that leaves them, as a payout keeps them when it loses a settlement of
// 0.00 dated before its latest, changes nothing): variance and lag from
// the current records, of a group over its sums (whichever of its records
// changed); an investigation stays one; otherwise inside the tolerances it
// is matched (one currency, equal amounts) or partial, outside them it is
// changed. A match one of whose records is gone (deleted, a payout without
// settlements, a booking no longer processed) is ended by the system, a
// group whole.
func (m *oModel) touch(level int, isLeft bool, id int64) {
	for _, mt := range m.matches {
		if mt.ended != "" || mt.level != level || !mt.holds(isLeft, id) {
			continue
		}
		if mt.rule == "writeoff" {
			m.touchWriteOff(mt)
			continue
		}
		l, _, e := m.evaluateGroup(level, mt.lefts, mt.rights)
		if l == nil {
			mt.ended = "system"
			m.cover("matches ended by the system", 1)
			if mt.group() {
				m.cover("groups ended by the system", 1)
			}
			continue
		}
		views := m.views(mt)
		if maps.Equal(views, mt.views) {
			m.cover("matches of a record written but not changed (not re-evaluated)", 1)
			continue
		}
		mt.views = views
		mt.variance, mt.lag, mt.reevaluated = e.variance, e.lag, true
		switch {
		case mt.status == "investigation":
		case e.inside && e.status == "matched":
			mt.status = "matched"
		case e.inside:
			mt.status = "partial"
		default:
			mt.status = "changed"
		}
		m.cover("matches re-evaluated, now "+mt.status, 1)
		if mt.group() {
			m.cover("groups re-evaluated, now "+mt.status, 1)
		}
	}
}

// touchWriteOff follows a change of a written-off record (decided for
// write-offs): a record gone ends it (by the system); else it stays, matched
// while its records sum to what was written off (its variance, left minus
// right), changed when they do not; what was written off stays.
func (m *oModel) touchWriteOff(mt *oMatch) {
	ids, isLeft := mt.lefts, true
	if len(ids) == 0 {
		ids, isLeft = mt.rights, false
	}
	s := m.sumSide(mt.level, isLeft, ids)
	if s == nil {
		mt.ended = "system"
		m.cover("write-offs ended by the system", 1)
		return
	}
	views := m.views(mt)
	if maps.Equal(views, mt.views) {
		return
	}
	mt.views, mt.reevaluated = views, true
	written := mt.variance
	if !isLeft {
		written = ratNeg(written)
	}
	mt.status = "changed"
	if ratEq(s.amount, written) {
		mt.status = "matched"
	}
	m.cover("write-offs re-checked, now "+mt.status, 1)
}

func boolCount(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (m *oModel) touchPayout(key string) {
	if id := m.payoutIDs[key]; id != 0 {
		m.touch(3, true, id)
	}
}

// ---------------------------------------------------------------------------
// The reports (spec 03 section 3.2, DESIGN.md section 6 "Report rows"), from
// the documents and the oracle's live matches. Amounts of a matched pair
// are in the left record's currency: the right amount itself when the
// currencies agree, else the left amount less the variance.

type oCol struct {
	name string
	num  bool
}

type oReportDef struct {
	name   string
	call   string // the function with its filter arguments, $1 and $2 the dates
	key    string // the column rows are keyed by
	cols   []oCol
	oracle func(m *oModel, from, to oDay) map[string][]*string
}

func cols(spec string) []oCol {
	var out []oCol
	for _, c := range strings.Fields(spec) {
		name, num := strings.CutSuffix(c, "#")
		out = append(out, oCol{name, num})
	}
	return out
}

var oracleReports = []oReportDef{
	{"L1 report", "recon_ticket_transaction_report($1::date, $2::date, null, null, null)", "row_key",
		cols(`row_key ticket_date sales_currency payment_type country_code sra_ticket_count# ppa_transaction_count# sra_total_amount#
			ppa_total_amount# count_variance# amount_variance# reconciliation_status reconcile_status_number#`),
		(*oModel).ticketTransactionReport},
	{"L2 report", "recon_transaction_settlement_report($1::date, $2::date, null, null, null)", "row_key",
		cols(`row_key trans_date trans_currency transaction_amount# provider_actor settle_total_amount# settlement_currency total_fees#
			amount_after_fees# settlement_amount# variance# exchange_currency_amount# exchange_cost# recon_status`),
		(*oModel).transactionSettlementReport},
	{"L3 report", "recon_settlement_bank_report($1::date, $2::date, null, null)", "payout_id",
		cols(`payout_id settlement_date settlement_amount# settlement_currency provider_actor booked_date bank_account
			reco_amount_in_local_currency# charges# currency amount_variance# recon_status recon_status_number# bank_id# match_id#`),
		(*oModel).settlementBankReport},
}

var oracleMonths = [][2]oDay{
	{dayOf("2026-09-01"), dayOf("2026-09-30")},
	{dayOf("2026-10-01"), dayOf("2026-10-31")},
}

func textOf(s string) *string { return &s }
func countText(n int) *string { return ptrTo(strconv.Itoa(n)) }
func sortedJoin(set map[string]bool) string {
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return strings.Join(keys, ", ")
}

// matchedAmount is what a left record of a live match counts as matched in
// the reports, in its own currency: its amount less its share of the
// match's variance (for a pair of one currency the right amount; decided
// for groups: the first left record carries the group's variance, a
// further one none, so a further record counts its own amount); a variance
// that is not known (no rate, several currencies) counts as none.
func (m *oModel) matchedAmount(mt *oMatch, leftID int64) *big.Rat {
	return ratSub(m.side(mt.level, true, leftID).amount, ratOr(mt.share(leftID), new(big.Rat)))
}

// ticketTransactionReport: level 1 rows, grouped by ticket date, currency,
// payment type and country (DESIGN.md section 6 "Report rows"): ticket
// count and sum (SRA); the tickets matched (a live match that is not an
// investigation; every ticket of a group) and what each counts as matched
// (matchedAmount: the group's variance on its first ticket) plus the
// manual adjustments made for the group's tickets that are in no match
// group (PPA), each once, toward the ticket it was made for; count and amount variances;
// status 1 unmatched (no ticket of the group matched), 3 matched (every
// ticket matched and no amount variance; a match changed since it was made
// counts as a difference, never as matched), else 2 partial.
func (m *oModel) ticketTransactionReport(from, to oDay) map[string][]*string {
	type group struct {
		date                  oDay
		cur, payType, country string
		tickets, matched      int
		sra, ppa              *big.Rat
		changed               bool
	}
	liveL, liveR := m.live(1)
	adjusted := map[int64]*big.Rat{}
	for _, x := range m.txns {
		if x.adjust && liveR[x.id] == nil { // (in a group, its group's sums have it)
			adjusted[x.forTicket] = ratAdd(ratOr(adjusted[x.forTicket], new(big.Rat)), x.amount)
		}
	}
	groups := map[string]*group{}
	for _, t := range m.tickets {
		if t.date < from || t.date > to {
			continue
		}
		key := strings.Join([]string{t.date.String(), t.cur, t.payType, t.country}, "|")
		g := groups[key]
		if g == nil {
			g = &group{date: t.date, cur: t.cur, payType: t.payType, country: t.country, sra: new(big.Rat), ppa: new(big.Rat)}
			groups[key] = g
		}
		g.tickets++
		g.sra = ratAdd(g.sra, t.amount)
		if mt := liveL[t.id]; mt != nil && mt.status != "investigation" {
			g.matched++
			g.ppa = ratAdd(g.ppa, m.matchedAmount(mt, t.id))
			g.changed = g.changed || mt.status == "changed"
			if t.id != mt.left() {
				m.coverOnce("L1 report rows with a further ticket of a group", fmt.Sprint(key, mt.pair()))
			}
		}
		if a := adjusted[t.id]; a != nil {
			g.ppa = ratAdd(g.ppa, a)
		}
	}
	out := map[string][]*string{}
	for key, g := range groups {
		variance := ratSub(g.sra, g.ppa)
		status, n := "Partial", 2
		switch {
		case g.matched == 0:
			status, n = "Unmatched", 1
		case g.matched == g.tickets && variance.Sign() == 0 && !g.changed:
			status, n = "Matched", 3
		}
		out[key] = []*string{textOf(key), textOf(g.date.String()), textOf(g.cur), textOf(g.payType), textOf(g.country),
			countText(g.tickets), countText(g.matched), ratPtrText(g.sra), ratPtrText(g.ppa), countText(g.tickets - g.matched),
			ratPtrText(variance), textOf(status), countText(n)}
	}
	return out
}

// transactionSettlementReport: level 2 rows, grouped by transaction date,
// currency and provider actor (DESIGN.md section 6 "Report rows"), of the
// card transactions (not the tasks' adjustments): their sum; of the
// settlements matched to them (a live match that is not an investigation)
// the gross, the currencies, the fees (null when none is known), the net
// and what they settle in the transaction currency; Variance null when no
// settlement matched, 0 when every transaction matched exactly, else the
// transactions' sum less what was settled; the transactions settled in
// another currency and their variances (exchange amount and cost); status
// Unmatched, Matched (all exact) or Partial.
//
// A group (decided): every transaction of it counts as matched, with what
// matchedAmount says; every settlement of it adds its gross, fees and net
// to the row of the group's first transaction (the row of a further
// transaction alone has none of them: gross, fees and net null, as fees are
// when none is known); every transaction of it is settled in the currency
// of the group's first settlement; it is exact only when the group is.
func (m *oModel) transactionSettlementReport(from, to oDay) map[string][]*string {
	type group struct {
		date                                          oDay
		cur, provider                                 string
		n, matched, settlementsN, feesN, fxN, fxCostN int
		amount, gross, fees, net, settled             *big.Rat
		fxAmount, fxCost                              *big.Rat
		curs                                          map[string]bool
		allExact                                      bool
	}
	liveL, _ := m.live(2)
	settlements := map[int64]*oSettlement{}
	for _, s := range m.settlements {
		settlements[s.id] = s
	}
	groups := map[string]*group{}
	for _, x := range m.txns {
		if x.adjust || x.date < from || x.date > to {
			continue
		}
		key := strings.Join([]string{x.date.String(), x.cur, x.provider}, "|")
		g := groups[key]
		if g == nil {
			z := func() *big.Rat { return new(big.Rat) }
			g = &group{date: x.date, cur: x.cur, provider: x.provider, amount: z(), gross: z(), fees: z(), net: z(), settled: z(),
				fxAmount: z(), fxCost: z(), curs: map[string]bool{}, allExact: true}
			groups[key] = g
		}
		g.n++
		g.amount = ratAdd(g.amount, x.amount)
		mt := liveL[x.id]
		if mt == nil || mt.status == "investigation" {
			g.allExact = false
			continue
		}
		g.matched++
		if x.id == mt.left() {
			for _, id := range mt.rights {
				s := settlements[id]
				g.settlementsN++
				g.gross = ratAdd(g.gross, settlementGross(s))
				if s.fees != nil {
					g.fees, g.feesN = ratAdd(g.fees, s.fees), g.feesN+1
				}
				g.net = ratAdd(g.net, s.net)
			}
		} else {
			m.coverOnce("L2 report rows with a further transaction of a group", fmt.Sprint(key, mt.pair()))
		}
		// (a write-off has no settlement: in the transaction's own currency)
		cur := x.cur
		if first := settlements[mt.right()]; first != nil {
			cur = first.cur
		}
		g.curs[cur] = true
		g.settled = ratAdd(g.settled, m.matchedAmount(mt, x.id))
		if cur != x.cur {
			g.fxAmount, g.fxN = ratAdd(g.fxAmount, x.amount), g.fxN+1
			if share := mt.share(x.id); share != nil {
				g.fxCost, g.fxCostN = ratAdd(g.fxCost, share), g.fxCostN+1
			}
		}
		g.allExact = g.allExact && mt.exact()
	}
	out := map[string][]*string{}
	for key, g := range groups {
		row := []*string{textOf(key), textOf(g.date.String()), textOf(g.cur), ratPtrText(g.amount), textOf(g.provider)}
		if g.matched == 0 {
			row = append(row, nil, nil, nil, nil, nil, nil, nil, nil, textOf("Unmatched"))
			out[key] = row
			continue
		}
		variance, status := ratSub(g.amount, g.settled), "Partial"
		if g.allExact {
			variance, status = new(big.Rat), "Matched"
		}
		row = append(row, nil, textOf(sortedJoin(g.curs)), nil, nil, ratPtrText(g.settled), ratPtrText(variance), nil, nil, textOf(status))
		if g.settlementsN > 0 {
			row[5], row[8] = ratPtrText(g.gross), ratPtrText(g.net)
		} else {
			m.coverOnce("L2 report rows of further transactions of a group alone (no settlement)", key)
		}
		if g.feesN > 0 {
			row[7] = ratPtrText(g.fees)
		}
		if g.fxN > 0 {
			row[11] = ratPtrText(g.fxAmount)
		}
		if g.fxCostN > 0 {
			row[12] = ratPtrText(g.fxCost)
		}
		out[key] = row
	}
	return out
}

// settlementBankReport: level 3, a row per payout with its booking
// (DESIGN.md section 6 "Report rows"; decided: a payout belongs to the
// period of its latest settlement date, with the total of all its
// settlements, and its booking counts once): the payout's latest date,
// total, currencies and provider; the booking of its live match (booked
// date, account, reco amount in local currency, charges, currency), the
// match's variance; status 1 matched (status matched, no variance), 2
// partial (any other live match), 3 unmatched. A group (decided): each of
// its payouts is a row of its own, with the group's first booking and the
// group's status, the group's variance on its first payout's row and 0.00
// on the others.
func (m *oModel) settlementBankReport(from, to oDay) map[string][]*string {
	liveL, _ := m.live(3)
	bookings := map[int64]*oBooking{}
	for _, b := range m.bookings {
		bookings[b.id] = b
	}
	out := map[string][]*string{}
	for _, p := range m.payouts() {
		if p.latest < from || p.latest > to {
			continue
		}
		row := []*string{textOf(p.key), textOf(p.latest.String()), ratPtrText(p.total), textOf(strings.Join(p.curs, ", ")), textOf(p.provider)}
		mt := liveL[m.payoutIDs[p.key]]
		if mt == nil || m.payoutIDs[p.key] == 0 {
			out[p.key] = append(row, nil, nil, nil, nil, nil, nil, textOf("Unmatched"), countText(3), nil, nil)
			continue
		}
		b := bookings[mt.right()] // (none: written off)
		status, n := "Partial", 2
		if mt.exact() {
			status, n = "Matched", 1
		}
		if m.payoutIDs[p.key] != mt.left() {
			m.coverOnce("L3 report rows of a further payout of a group", p.key)
		}
		matchID := textOf("unknown (the product has no live match of this pair)")
		if mt.id != 0 {
			matchID = countText(int(mt.id))
		}
		if b == nil {
			out[p.key] = append(row, nil, nil, nil, nil, nil, ratPtrText(mt.share(m.payoutIDs[p.key])), textOf(status), countText(n), nil, matchID)
			continue
		}
		out[p.key] = append(row, textOf(b.date.String()), textOf(b.account), ratPtrText(bookingReco(b)), ratPtrText(b.charges),
			textOf(b.cur), ratPtrText(mt.share(m.payoutIDs[p.key])), textOf(status), countText(n), countText(int(b.id)), matchID)
	}
	return out
}

// ---------------------------------------------------------------------------
// Generated data sets: a few providers and currencies, dates around the end
// of September 2026, keys shared by several records, amounts often equal
// or converted at the day's rates (ties in difference and lag), refunds
// under their sale's ticket number, tolerance rows for some providers and
// levels (sometimes two for one provider, or one named after a provider but
// for another actor), rates missing for some currencies or days.

var (
	oracleProviders  = []string{"Nuvei", "Adyen", "Amex"}
	oracleCurrencies = []string{"USD", "USD", "USD", "EUR", "EUR", "EUR", "GBP", "GBP", "SEK"}
	oracleStart      = dayOf("2026-09-24")
)

const oracleSpan = 14

type oGen struct {
	r       *rand.Rand
	m       *oModel
	payouts map[string][]*oGenPayout
	n       int
	// daily are the payout keys of a provider's days, of which one booking
	// pays some (settlements, bookings)
	daily [][]string
}

type oGenPayout struct{ key, provider, cur string }

func generate(seed uint64, maxSide int) *oModel {
	g := &oGen{r: rand.New(rand.NewPCG(seed, 0x5eed)), m: &oModel{payoutIDs: map[string]int64{}}, payouts: map[string][]*oGenPayout{}}
	g.rates()
	g.tolerances()
	g.tickets(5 + g.r.IntN(maxSide-4))
	g.transactions()
	g.settlements()
	g.bookings()
	return g.m
}

func (g *oGen) day() oDay { return oracleStart + oDay(g.r.IntN(oracleSpan)) }

// variant spells a provider in another case now and then.
func (g *oGen) variant(p string) string {
	return pickOf(g.r, p, p, strings.ToUpper(p), strings.ToLower(p))
}

func (g *oGen) amount() *big.Rat {
	if g.r.IntN(5) < 3 {
		return ratOf(pickOf(g.r, "100.00", "100.00", "50.00", "20.00", "250.00", "99.99", "-100.00", "-50.00", "0.00", "1234.56"))
	}
	return centsOf(int64(g.r.IntN(60000) - 5000))
}

func (g *oGen) delta() *big.Rat {
	if g.r.IntN(2) == 0 {
		return new(big.Rat)
	}
	return centsOf(pickOf[int64](g.r, 1, -1, 40, -40, 100, -100, 300, -300, 550, int64(g.r.IntN(2000)-1000)))
}

// convert is an amount at the rates of two days, unchanged when a rate is
// missing.
func (g *oGen) convert(a *big.Rat, from string, fromDay oDay, to string, toDay oDay) *big.Rat {
	return g.m.convert(a, from, fromDay, to, toDay)
}

func (m *oModel) convert(a *big.Rat, from string, fromDay oDay, to string, toDay oDay) *big.Rat {
	lr, rr := m.usdRate(from, fromDay), m.usdRate(to, toDay)
	if from == to || lr == nil || rr == nil {
		return a
	}
	return roundCents(ratQuo(ratMul(a, lr), rr))
}

func (g *oGen) rates() {
	seen := map[string]bool{}
	add := func(code string, on oDay, usd string) {
		if seen[code+on.String()] {
			return
		}
		seen[code+on.String()] = true
		r := &oRate{code: code, on: on}
		if usd != "" {
			r.usd = ratOf(usd)
		}
		g.m.rates = append(g.m.rates, r)
	}
	values := map[string][]string{"EUR": {"1.1000", "1.1250", "1.2000"}, "GBP": {"1.2500", "1.3000", "1.2800"}, "SEK": {"0.0950", "0.1000"}}
	for _, code := range []string{"EUR", "GBP", "SEK"} {
		vs := values[code]
		switch g.r.IntN(5) {
		case 0: // none: amounts in it never compare with another currency
		case 1: // from the middle of the period: earlier records have none
			add(code, oracleStart+oDay(3+g.r.IntN(8)), pickOf(g.r, vs...))
		default: // from before the period, changing during it
			add(code, oracleStart-5, vs[0])
			for i := g.r.IntN(3); i > 0; i-- {
				add(code, g.day(), pickOf(g.r, vs...))
			}
		}
		if g.r.IntN(5) == 0 {
			add(code, g.day(), "") // a day without a USD rate: the earlier one holds
		}
	}
	if g.r.IntN(5) == 0 {
		add("USD", oracleStart, "1.0000")
	}
}

func (g *oGen) tolerances() {
	seen := map[string]bool{}
	var rows []*oTolerance
	add := func(level int, name string, actor *string) {
		k := fmt.Sprint(strings.ToLower(name), level, strings.ToLower(strOr(actor)))
		if seen[k] {
			return
		}
		seen[k] = true
		t := &oTolerance{level: level, name: name, actor: actor}
		if a := pickOf(g.r, "", "0.00", "0.50", "1.00", "1.00", "5.00"); a != "" {
			t.amount = ratOf(a)
		}
		if d := g.r.IntN(5) - 1; d >= 0 {
			t.days = &d
		}
		if c := pickOf(g.r, "", "", "0.00", "1.00", "2.50", "5.00"); c != "" {
			t.currency = ratOf(c)
		}
		rows = append(rows, t)
	}
	place := func(p string) (string, *string) {
		switch g.r.IntN(4) {
		case 0:
			return p, ptrTo(g.variant(p))
		case 1:
			return p, nil
		case 2:
			return g.variant(p), ptrTo("")
		}
		return p + " Ltd", ptrTo(g.variant(p))
	}
	for _, p := range oracleProviders {
		for level := 1; level <= 3; level++ {
			if g.r.IntN(6) == 0 {
				continue // no row: zero tolerance
			}
			for i := 1 + g.r.IntN(5)/4; i > 0; i-- { // sometimes two rows: the first by id counts
				name, actor := place(p)
				add(level, name, actor)
			}
			if g.r.IntN(6) == 0 {
				add(level, p, ptrTo("Acq-"+p)) // named after p, for another actor
			}
		}
	}
	g.r.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
	g.m.tolerances = rows
}

func (g *oGen) tickets(n int) {
	pool := 1 + n*2/3
	for i := 0; i < n; i++ {
		g.m.tickets = append(g.m.tickets, &oTicket{number: fmt.Sprintf("91000000000%02d", g.r.IntN(pool)), date: g.day(),
			cur: pickOf(g.r, oracleCurrencies...), payType: pickOf(g.r, "CC", "CC", "CA", ""), country: pickOf(g.r, "US", "US", "SE", ""),
			amount: g.amount()})
	}
	for i := g.r.IntN(4); i > 0; i-- { // a refund under its sale's ticket number
		t := *g.m.tickets[g.r.IntN(len(g.m.tickets))]
		t.amount, t.date = ratNeg(t.amount), t.date+oDay(g.r.IntN(3))
		g.m.tickets = append(g.m.tickets, &t)
	}
}

func (g *oGen) transactions() {
	n := len(g.m.tickets)*(70+g.r.IntN(60))/100 + 1
	for i := 0; i < n; i++ {
		x := &oTxn{provider: pickOf(g.r, oracleProviders...)}
		switch {
		case len(g.m.txns) > 0 && g.r.IntN(6) == 0: // a twin: a tie for its ticket
			*x = *g.m.txns[g.r.IntN(len(g.m.txns))]
			x.date += oDay(g.r.IntN(3) - 1)
		case g.r.IntN(8) == 0: // no ticket of its own
			x.client, x.date, x.cur, x.amount = pickOf(g.r, "C1", "C2", fmt.Sprintf("91000000000%02d", 90+g.r.IntN(5))), g.day(),
				pickOf(g.r, oracleCurrencies...), g.amount()
		case g.r.IntN(10) == 0: // a ticket paid by two card payments (an automatic split)
			t := g.m.tickets[g.r.IntN(len(g.m.tickets))]
			part := roundCents(ratMul(t.amount, big.NewRat(int64(30+g.r.IntN(40)), 100)))
			first := &oTxn{provider: x.provider, client: t.number, date: t.date + oDay(g.r.IntN(3)), cur: t.cur, amount: part}
			g.m.txns = append(g.m.txns, first)
			x.client, x.date, x.cur, x.amount = t.number, t.date+oDay(g.r.IntN(3)), t.cur, ratAdd(ratSub(t.amount, part), g.delta())
		default:
			t := g.m.tickets[g.r.IntN(len(g.m.tickets))]
			x.client, x.date, x.cur = t.number, t.date+oDay(g.r.IntN(7)-3), t.cur
			if g.r.IntN(5) == 0 {
				x.cur = pickOf(g.r, oracleCurrencies...)
			}
			x.amount = ratAdd(g.convert(t.amount, t.cur, t.date, x.cur, x.date), g.delta())
		}
		g.m.txns = append(g.m.txns, x)
	}
}

// payoutFor is a payout of a provider, new or one it already has; a payout
// keeps one spelling of its provider.
func (g *oGen) payoutFor(provider string) *oGenPayout {
	ps := g.payouts[provider]
	if len(ps) > 0 && g.r.IntN(5) < 3 {
		return ps[g.r.IntN(len(ps))]
	}
	g.n++
	p := &oGenPayout{key: fmt.Sprint("PO-", g.n), provider: g.variant(provider), cur: pickOf(g.r, "USD", "EUR", "EUR", "GBP")}
	g.payouts[provider] = append(ps, p)
	return p
}

func (g *oGen) settlement(p *oGenPayout, client string, date oDay, gross *big.Rat) *oSettlement {
	s := &oSettlement{payout: p.key, client: client, date: date, provider: p.provider, cur: p.cur}
	if g.r.IntN(20) == 0 {
		s.cur = pickOf(g.r, oracleCurrencies...) // a payout in two currencies never matches
	}
	if f := pickOf(g.r, "", "0.00", "1.50", "2.00", "x"); f == "x" {
		s.fees = centsOf(int64(g.r.IntN(500)))
	} else if f != "" {
		s.fees = ratOf(f)
	}
	s.net = ratSub(gross, ratOr(s.fees, new(big.Rat)))
	if g.r.IntN(10) >= 3 {
		s.gross = gross
	}
	return s
}

func (g *oGen) settlements() {
	for _, x := range slices.Clone(g.m.txns) {
		if g.r.IntN(4) == 0 {
			continue
		}
		for i := 1 + g.r.IntN(7)/6; i > 0; i-- {
			p := g.payoutFor(x.provider)
			date := x.date + oDay(g.r.IntN(5))
			if g.r.IntN(8) == 0 {
				date = x.date - 1
			}
			client := x.client
			if g.r.IntN(20) == 0 {
				client = ""
			}
			gross := ratAdd(g.convert(x.amount, x.cur, x.date, p.cur, date), g.delta())
			if g.r.IntN(10) == 0 { // settled in two parts (an automatic split)
				part := roundCents(ratMul(gross, big.NewRat(int64(30+g.r.IntN(40)), 100)))
				g.m.settlements = append(g.m.settlements, g.settlement(g.payoutFor(x.provider), client, date+oDay(g.r.IntN(2)), part))
				gross = ratSub(gross, part)
			}
			g.m.settlements = append(g.m.settlements, g.settlement(p, client, date, gross))
		}
	}
	for i := g.r.IntN(3); i > 0; i-- {
		p := g.payoutFor(pickOf(g.r, oracleProviders...))
		g.m.settlements = append(g.m.settlements, g.settlement(p, pickOf(g.r, "C9", ""), g.day(), g.amount()))
	}
	// a provider paying every day: three or four payouts of one currency on
	// days in a row (now and then two alike: a tie), some of which one
	// booking pays (bookings)
	for i := 1 + g.r.IntN(2); i > 0; i-- {
		provider, cur, day := pickOf(g.r, oracleProviders...), pickOf(g.r, "USD", "EUR", "GBP"), g.day()
		var keys []string
		var first *big.Rat
		for d := range 3 + g.r.IntN(2) {
			g.n++
			p := &oGenPayout{key: fmt.Sprint("PO-", g.n), provider: g.variant(provider), cur: cur}
			amount := g.amount()
			if d == 0 {
				first = amount
			} else if d == 2 && g.r.IntN(4) == 0 {
				amount = first
			}
			s := g.settlement(p, pickOf(g.r, "C9", ""), day+oDay(d), amount)
			s.cur = cur
			g.m.settlements = append(g.m.settlements, s)
			keys = append(keys, p.key)
		}
		g.daily = append(g.daily, keys)
	}
}

func (g *oGen) bookings() {
	daily := map[string]bool{}
	for _, keys := range g.daily {
		for _, k := range keys {
			daily[k] = true
		}
	}
	for _, p := range g.m.payouts() {
		if g.r.IntN(5) == 0 || daily[p.key] {
			continue
		}
		for i := 1 + g.r.IntN(6)/5; i > 0; i-- { // sometimes two alike: a tie
			cur := p.curs[0]
			if g.r.IntN(10) == 0 {
				cur = pickOf(g.r, oracleCurrencies...)
			}
			b := &oBooking{account: "ACC-" + cur, date: p.latest + oDay(g.r.IntN(4)), cur: cur, status: "Processed"}
			if g.r.IntN(6) == 0 {
				b.date = p.latest - 1
			}
			if c := pickOf(g.r, "", "0.00", "2.00", "5.50"); c != "" {
				b.charges = ratOf(c)
			}
			amount := ratSub(ratAdd(p.total, g.delta()), ratOr(b.charges, new(big.Rat)))
			switch g.r.IntN(4) {
			case 0:
				b.provider = g.variant(p.provider)
			case 1:
				b.provider, b.manual = pickOf(g.r, "", "Unmapped"), ptrTo(g.variant(p.provider))
			case 2:
				b.provider, b.manual = g.variant(p.provider), ptrTo("")
			default:
				b.provider, b.manual = pickOf(g.r, oracleProviders...), ptrTo(g.variant(p.provider))
			}
			switch g.r.IntN(10) {
			case 0, 1:
				b.amountLocal = amount // no reco amount: amount_local counts
			case 2:
				b.reco, b.amountLocal = amount, ratAdd(amount, centsOf(1000)) // the reco amount counts, not amount_local
			default:
				b.reco, b.amountLocal = amount, amount
			}
			if g.r.IntN(10) == 0 {
				b.status = "Unprocessed"
			}
			g.m.bookings = append(g.m.bookings, b)
		}
	}
	for i := g.r.IntN(3); i > 0; i-- {
		cur := pickOf(g.r, oracleCurrencies...)
		g.m.bookings = append(g.m.bookings, &oBooking{account: "ACC-" + cur, date: g.day(), cur: cur, provider: g.variant(pickOf(g.r, oracleProviders...)),
			amountLocal: g.amount(), status: "Processed"})
	}
	// a booking paying two payouts of a provider and currency (an automatic split)
	ps := g.m.payouts()
	for i := g.r.IntN(3); i > 0 && len(ps) > 1; i-- {
		a, b := ps[g.r.IntN(len(ps))], ps[g.r.IntN(len(ps))]
		if a == b || len(a.curs) != 1 || len(b.curs) != 1 || a.curs[0] != b.curs[0] || !strings.EqualFold(a.provider, b.provider) {
			continue
		}
		total := ratAdd(ratAdd(a.total, b.total), g.delta())
		g.m.bookings = append(g.m.bookings, &oBooking{account: "ACC-" + a.curs[0], date: max(a.latest, b.latest) + oDay(g.r.IntN(2)),
			cur: a.curs[0], provider: g.variant(a.provider), reco: total, amountLocal: total, status: "Processed"})
	}
	// a booking paying some of a provider's daily payouts (the split's
	// subset search, beside the payouts it leaves)
	for _, keys := range g.daily {
		var days []*oPayout
		for _, p := range ps {
			if slices.Contains(keys, p.key) {
				days = append(days, p)
			}
		}
		shuffled := slices.Clone(days)
		g.r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		pays := func(paid []*oPayout) {
			total, latest := g.delta(), paid[0].latest
			for _, p := range paid {
				total, latest = ratAdd(total, p.total), max(latest, p.latest)
			}
			g.m.bookings = append(g.m.bookings, &oBooking{account: "ACC-" + paid[0].curs[0], date: latest + oDay(g.r.IntN(2)),
				cur: paid[0].curs[0], provider: g.variant(paid[0].provider), reco: total, amountLocal: total, status: "Processed"})
		}
		pays(shuffled[:2+g.r.IntN(2)])
		if len(shuffled) == 4 && g.r.IntN(3) == 0 { // a second booking paying one of them again: two subsets hold it
			pays([]*oPayout{shuffled[0], shuffled[3]})
		}
	}
}

// ---------------------------------------------------------------------------
// Driving the product: one database for every seed, the documents written
// in bulk, the product's runs, manual matches and undo, and its answers
// read back.

type oracle struct {
	f                *fixture
	log              *oracleLog
	adjustedTicketID bool // card_transaction.adjusted_ticket_id exists
}

func newOracle(t *testing.T) *oracle {
	f := newFixture(t)
	var has bool
	if err := f.pool.QueryRow(f.ctx, `select exists (select 1 from information_schema.columns
		where table_schema = current_schema() and table_name = 'card_transaction' and column_name = 'adjusted_ticket_id')`).Scan(&has); err != nil {
		t.Fatal(err)
	}
	o := &oracle{f: f, adjustedTicketID: has, log: &oracleLog{t: t, single: os.Getenv("ORACLE_SEED") != "",
		failed: map[uint64]bool{}, printed: map[uint64]bool{}, causes: map[string]*oracleCause{}, covered: map[string]int{}}}
	t.Cleanup(func() {
		if !t.Failed() {
			t.Logf("oracle: %d seeds agree (adjusted_ticket_id column present: %v)", o.log.seeds, has)
		}
	})
	return o
}

// oracleRun is one seed: its data set, the random changes and what was found.
type oracleRun struct {
	*oracle
	seed uint64
	r    *rand.Rand
	m    *oModel
	kind string                     // the kind of the step being checked
	prev map[string]map[string]bool // check -> the differences it last found
	keys int
	// writers counts the users made to write off (writer)
	writers int
}

// oracleTables are the documents, the matches and the reference data,
// emptied between seeds in this order (matches first, so their delete
// trigger moves few sums; a group's further records before its match,
// which they reference), each identity starting again at 1 so a seed
// replayed alone has the ids it had. DELETE, not TRUNCATE: truncating
// these twelve tables took 0.6 s a seed here (new files for every table and
// index), deleting a seed's few hundred rows 60 ms; the statement triggers
// keep the day sums (recon_ticket_day, recon_transaction_day,
// recon_payout_day) either way, and start checks they are empty.
var oracleTables = []string{"recon_match_member", "recon_match", "task_transaction", "task_ticket", "card_transaction", "task", "ticket", "settlement",
	"bank_booking", "recon_run", "payout", "config_setting", "currency_exchange_rate"}

func (o *oracle) start(seed uint64, maxSide int) *oracleRun {
	o.log.seeds++
	for _, table := range oracleTables {
		o.f.exec(`delete from ` + table)
		if !strings.HasPrefix(table, "task_") && table != "recon_match_member" { // (no identity)
			o.f.exec(`select setval(pg_get_serial_sequence($1, 'id'), 1, false)`, table)
		}
	}
	var left int
	if err := o.f.pool.QueryRow(o.f.ctx, `select (select count(*) from recon_ticket_day) + (select count(*) from recon_transaction_day)
		+ (select count(*) from recon_payout_day)`).Scan(&left); err != nil || left != 0 {
		o.f.t.Fatalf("the day sums keep %d rows with no documents (%v)", left, err)
	}
	if err := o.f.pool.QueryRow(o.f.ctx, `select count(*) from recon_open_item`).Scan(&left); err != nil || left != 0 {
		o.f.t.Fatalf("the exception queue keeps %d open items with no documents (%v)", left, err)
	}
	run := &oracleRun{oracle: o, seed: seed, r: rand.New(rand.NewPCG(seed, 0xc4a9)), m: generate(seed, maxSide), prev: map[string]map[string]bool{}}
	run.m.covered = o.log.covered
	run.load()
	return run
}

func (o *oracleRun) nextKey(prefix string) string {
	o.keys++
	return fmt.Sprint(prefix, o.keys)
}

func (o *oracleRun) step(kind, format string, args ...any) {
	o.kind = kind
	o.m.steps = append(o.m.steps, fmt.Sprintf(format, args...))
	if o.log.single { // a replay tells every step
		o.log.t.Logf("seed %d: %s", o.seed, o.m.steps[len(o.m.steps)-1])
	}
}

// insertAll inserts rows through unnest of text arrays in their order and
// returns their ids in that order (identity values follow the order of
// insertion).
func (o *oracleRun) insertAll(sql string, arrays ...any) []int64 {
	rows, err := o.f.pool.Query(o.f.ctx, sql, arrays...)
	if err != nil {
		o.f.t.Fatalf("%s: %v", sql, err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		o.f.t.Fatalf("%s: %v", sql, err)
	}
	slices.Sort(ids)
	return ids
}

func (o *oracleRun) load() {
	m := o.m
	for _, r := range m.rates {
		var usd *string
		if r.usd != nil {
			usd = ptrTo(r.usd.FloatString(8)) // numeric(20, 8)
		}
		o.f.exec(`insert into currency_exchange_rate (exchange_rate_on, code, currency, usd) values ($1, $2, $2, $3::numeric)`,
			r.on.String(), r.code, usd)
	}
	for _, t := range m.tolerances {
		var days *int
		if t.days != nil {
			days = t.days
		}
		t.id = o.f.id(`insert into config_setting (provider_name, transaction_type, provider_actor, amount_threshold, date_threshold, currency_threshold)
			values ($1, $2, $3, $4::numeric, $5, $6::numeric) returning id`, t.name, t.level, t.actor, ratPtrText(t.amount), days, ratPtrText(t.currency))
	}
	var a [7][]*string
	for _, t := range m.tickets {
		for i, v := range []string{t.number, t.date.String(), t.payType, t.country, t.cur, moneyText(t.amount), o.nextKey("t")} {
			a[i] = append(a[i], ptrTo(v))
		}
	}
	for i, id := range o.insertAll(`insert into ticket (ticket_number, trans_date, payment_type, country_code, currency, transaction_code,
			sale_amount, natural_key, import_file_id)
		select n, d::date, nullif(pt, ''), nullif(cc, ''), c, 'TKTT', a::numeric, k, 1
		from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[]) with ordinality u(n, d, pt, cc, c, a, k, o)
		order by o returning id`, a[0], a[1], a[2], a[3], a[4], a[5], a[6]) {
		m.tickets[i].id = id
	}
	a = [7][]*string{}
	for _, x := range m.txns {
		for i, v := range []string{x.client, x.date.String(), x.provider, x.cur, moneyText(x.amount), o.nextKey("x")} {
			a[i] = append(a[i], ptrTo(v))
		}
	}
	for i, id := range o.insertAll(`insert into card_transaction (client_unique_id, processing_date, provider_actor, acquiring_bank, payment_method,
			currency, transaction_amount, transaction_type, natural_key, import_file_id)
		select c, d::date, p, 'Acq', 'Visa', cur, a::numeric, 'Sale', k, 1
		from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) with ordinality u(c, d, p, cur, a, k, o)
		order by o returning id`, a[0], a[1], a[2], a[3], a[4], a[5]) {
		m.txns[i].id = id
	}
	for i, id := range o.insertSettlements(m.settlements) {
		m.settlements[i].id = id
	}
	var b [10][]*string
	for _, k := range m.bookings {
		for i, v := range []*string{&k.account, ptrTo(k.date.String()), ptrTo(moneyText(k.amountLocal)), &k.cur, ratPtrText(k.charges),
			&k.provider, k.manual, ratPtrText(k.reco), &k.status, ptrTo(o.nextKey("b"))} {
			b[i] = append(b[i], v)
		}
	}
	for i, id := range o.insertAll(`insert into bank_booking (bank_account, booked_date, amount_local, currency, text, bank_charges_in_local,
			provider, manual_provider, reco_amount_in_local_currency, status, in_or_out, natural_key)
		select acc, d::date, a::numeric, cur, 'payout', ch::numeric, nullif(p, ''), mp, r::numeric, st, 'IN', k
		from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[])
			with ordinality u(acc, d, a, cur, ch, p, mp, r, st, k, o)
		order by o returning id`, b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9]) {
		m.bookings[i].id = id
	}
	o.step("load", "loaded the data set")
}

func (o *oracleRun) insertSettlements(ss []*oSettlement) []int64 {
	var a [9][]*string
	for _, s := range ss {
		for i, v := range []*string{&s.payout, &s.client, ptrTo(s.date.String()), &s.provider, &s.cur, ratPtrText(s.gross), ratPtrText(s.fees),
			ptrTo(moneyText(s.net)), ptrTo(o.nextKey("s"))} {
			a[i] = append(a[i], v)
		}
	}
	return o.insertAll(`insert into settlement (payout_id, client_unique_id, settlement_date, provider_actor, acquirer_bank, settlement_currency,
			gross_amount, fees, settlement_net, natural_key, import_file_id)
		select po, nullif(c, ''), d::date, p, 'Acq', cur, g::numeric, fe::numeric, n::numeric, k, 1
		from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[])
			with ordinality u(po, c, d, p, cur, g, fe, n, k, o)
		order by o returning id`, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8])
}

// addAdjustment records a task's manual adjustment made for one ticket (spec
// 03 section 3.5; DESIGN.md section 6: it counts once, toward that ticket).
// Adjustments are written here only: card_transaction is gaining
// adjusted_ticket_id, the ticket an adjustment was made for, and it is set
// when the column is there.
func (o *oracleRun) addAdjustment(t *oTicket, amount *big.Rat, on oDay) *oTxn {
	task := o.f.id(`insert into task (task_name) values ($1) returning id`, "balance "+t.number)
	x := &oTxn{client: t.number, date: on, provider: "Manual adjustment", cur: t.cur, amount: amount, adjust: true, task: task, forTicket: t.id}
	column, value, args := "", "", []any{t.number, on.String(), t.cur, moneyText(amount), task}
	if o.adjustedTicketID {
		column, value, args = ", adjusted_ticket_id", ", $6", append(args, t.id)
	}
	x.id = o.f.id(`insert into card_transaction (client_unique_id, processing_date, provider_actor, currency, transaction_amount,
		is_manual_adjust, task_id, remarks`+column+`) values ($1, $2, 'Manual adjustment', $3, $4::numeric, true, $5, 'oracle'`+value+`) returning id`, args...)
	o.f.exec(`insert into task_ticket (task_id, ticket_id) values ($1, $2)`, task, t.id)
	o.f.exec(`insert into task_transaction (task_id, transaction_id) values ($1, $2)`, task, x.id)
	o.m.txns = append(o.m.txns, x)
	return x
}

// readPayouts learns the ids the product gave the payouts.
func (o *oracleRun) readPayouts() {
	rows, err := o.f.pool.Query(o.f.ctx, `select payout_key, id from payout`)
	if err != nil {
		o.f.t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var key string
		var id int64
		if err := rows.Scan(&key, &id); err != nil {
			o.f.t.Fatal(err)
		}
		o.m.payoutIDs[key] = id
	}
}

// oProductMatch is a recon_match row with its group's further records
// (recon_match_member, in id order).
type oProductMatch struct {
	id                  int64
	level               int
	left, right         int64
	moreLeft, moreRight []int64
	status              string
	rule                string
	variance            *string
	lag                 *int
	undoneBy            *string
}

func (p *oProductMatch) pair() oPair { return oPair{p.level, p.left, p.right} }

// holds tells whether the record id of a side is one of the match's.
func (p *oProductMatch) holds(isLeft bool, id int64) bool {
	if isLeft {
		return p.left == id || slices.Contains(p.moreLeft, id)
	}
	return p.right == id || slices.Contains(p.moreRight, id)
}

func (o *oracleRun) productMatches(live bool) []*oProductMatch {
	rows, err := o.f.pool.Query(o.f.ctx, `select id, level, coalesce(left_id, 0), coalesce(right_id, 0), status, rule, amount_variance::text, date_lag_days, undone_by,
			array(select mm.record_id from recon_match_member mm where mm.match_id = m.id and mm.side = 'left' order by mm.record_id),
			array(select mm.record_id from recon_match_member mm where mm.match_id = m.id and mm.side = 'right' order by mm.record_id)
		from recon_match m where (undone_on is null) = $1 order by level, left_id, right_id, id`, live)
	if err != nil {
		o.f.t.Fatal(err)
	}
	defer rows.Close()
	var out []*oProductMatch
	for rows.Next() {
		var p oProductMatch
		if err := rows.Scan(&p.id, &p.level, &p.left, &p.right, &p.status, &p.rule, &p.variance, &p.lag, &p.undoneBy,
			&p.moreLeft, &p.moreRight); err != nil {
			o.f.t.Fatal(err)
		}
		out = append(out, &p)
	}
	return out
}

// productLive is the ids of the records with a live match at a level in the
// product, by side: every record of a live group.
func (o *oracleRun) productLive(level int) (left, right map[int64]bool) {
	left, right = map[int64]bool{}, map[int64]bool{}
	for _, p := range o.productMatches(true) {
		if p.level == level {
			left[p.left], right[p.right] = p.left != 0, p.right != 0
			for _, id := range p.moreLeft {
				left[id] = true
			}
			for _, id := range p.moreRight {
				right[id] = true
			}
		}
	}
	return left, right
}

// pickPair picks a pair of a level whose records have no live match in the
// oracle nor in the product: of one key when keyed (and there is one), any
// otherwise; accept filters the pairs. Nil when there is none.
func (o *oracleRun) pickPair(level int, keyed bool, accept func(l, r *oSide) bool) (*oSide, *oSide) {
	left, right := o.m.pairable(level)
	liveL, liveR := o.m.live(level)
	prodL, prodR := o.productLive(level)
	var pairs [][2]*oSide
	for _, l := range left {
		for _, r := range right {
			if liveL[l.id] == nil && liveR[r.id] == nil && !prodL[l.id] && !prodR[r.id] && (!keyed || l.key != "" && l.key == r.key) && accept(l, r) {
				pairs = append(pairs, [2]*oSide{l, r})
			}
		}
	}
	if len(pairs) == 0 {
		if keyed {
			return o.pickPair(level, false, accept)
		}
		return nil, nil
	}
	p := pairs[o.r.IntN(len(pairs))]
	return p[0], p[1]
}

// byHand matches a pair through the service (forced, so pairs across
// currencies are taken), and the oracle adds what it must be: matched by
// hand (rule manual; forced when the currencies could not be compared
// within the currency tolerance, DESIGN.md section 4) or an investigation,
// with the variance and lag of the pair evaluation. Now and then a pair of
// one currency is asked as lists of one record each, without force: a
// one-and-one match keeps a pair's rules (decided for match groups), so no
// force is needed whatever its amount and date differences.
func (o *oracleRun) byHand(level int, l, r *oSide, investigate bool) *oMatch {
	req := MatchRequest{LeftID: l.id, RightID: r.id, Investigate: investigate, Force: true, Reason: "oracle"}
	if level < 3 && l.cur != "" && l.cur == r.cur && o.r.IntN(4) == 0 {
		req = MatchRequest{LeftIDs: []int64{l.id}, RightIDs: []int64{r.id}, Investigate: investigate}
		o.m.cover("pairs asked as lists of one, without force", 1)
		o.m.cover("pairs asked as lists of one, without force, outside the tolerances", boolCount(!o.m.evaluate(level, l, r).inside))
	}
	if level == 3 {
		req.LeftID, req.LeftRef = 0, strings.Split(l.label, "#")[0]
	}
	pm, err := o.f.svc.MatchByHand(o.f.ctx, Levels[level-1], req)
	if level == 3 {
		o.readPayouts()
		l = o.m.side(3, true, o.m.payoutIDs[req.LeftRef])
	}
	if err != nil {
		o.log.found(o, "manual match", []oDiff{{fmt.Sprintf("L%d %s-%s: the product refused a manual match of two records without a match: %v",
			level, l.label, r.label, err), ""}})
		return nil
	}
	e := o.m.evaluate(level, l, r)
	mt := newMatch(level, l.id, r.id)
	mt.status, mt.rule, mt.variance, mt.lag, mt.id, mt.by = "matched", "manual", e.variance, e.lag, pm.ID, "hand"
	if !e.currencyOK {
		mt.rule = "forced"
	}
	if investigate {
		mt.status, mt.rule = "investigation", "investigation"
	}
	o.m.cover("manual matches ("+mt.status+")", 1)
	o.m.add(mt)
	return mt
}

func (o *oracleRun) undo(mt *oMatch) {
	if _, err := o.f.svc.Undo(o.f.ctx, Levels[mt.level-1], mt.id, "oracle: wrong pair"); err != nil {
		o.f.t.Fatalf("seed %d: undo match %d: %v", o.seed, mt.id, err)
	}
	mt.ended = "user"
}

// beforeRuns makes, before the first runs, pairs a user undid (written as
// undone rows at levels 1 and 2, and matched and undone through the
// service at every level), which automatic runs must never make again, and
// live manual matches, investigations and match groups, whose records runs
// leave alone.
func (o *oracleRun) beforeRuns() {
	anyPair := func(l, r *oSide) bool { return true }
	for level := 1; level <= 2; level++ {
		for i := o.r.IntN(3); i > 0; i-- {
			l, r := o.pickPair(level, true, anyPair)
			if l == nil {
				break
			}
			o.f.exec(`insert into recon_match (level, left_id, right_id, status, rule, created_by, undone_by, undone_on, undo_reason)
				values ($1, $2, $3, 'matched', 'manual', 'rita', 'rita', now(), 'oracle: wrong pair')`, level, l.id, r.id)
			mt := newMatch(level, l.id, r.id)
			mt.status, mt.rule, mt.by, mt.ended = "matched", "manual", "undone row", "user"
			o.m.add(mt)
			o.step("before runs", "L%d %s-%s: an undone match written", level, l.label, r.label)
		}
	}
	for level := 1; level <= 3; level++ {
		if o.r.IntN(2) == 0 {
			if l, r := o.pickPair(level, true, anyPair); l != nil {
				if mt := o.byHand(level, l, r, false); mt != nil {
					o.undo(mt)
					o.step("before runs", "L%d %s-%s: matched by hand and undone", level, l.label, r.label)
				}
			}
		}
		if o.r.IntN(2) == 0 {
			o.manualMatch(level, "before runs")
		}
		if o.r.IntN(3) == 0 {
			o.manualGroup(level, "before runs")
		}
	}
}

// manualMatch matches an unmatched pair by hand (an investigation now and
// then at levels 1 and 2): of one currency, or of two with both rates
// known; a payout in one currency.
func (o *oracleRun) manualMatch(level int, kind string) bool {
	l, r := o.pickPair(level, o.r.IntN(10) < 7, func(l, r *oSide) bool {
		return l.cur != "" && r.cur != "" && o.m.evaluate(level, l, r).variance != nil
	})
	if l == nil {
		return false
	}
	investigate := level < 3 && o.r.IntN(10) < 3
	if mt := o.byHand(level, l, r, investigate); mt != nil {
		o.step(kind, "L%d %s-%s: %s by hand", level, l.label, r.label, mt.status)
		if kind != "before runs" {
			o.compare(true)
		}
	}
	return true
}

// runLevels runs automatic reconciliation of every level in the product and
// in the oracle, and compares.
func (o *oracleRun) runLevels(kind string, reports bool) {
	o.step(kind, "%s: automatic reconcile of levels 1, 2, 3", kind)
	// A third of the runs find another writer at the exception queue: their
	// ends cannot take its lock, and merge their rows (ON CONFLICT) instead
	// of inserting them plainly (recon_open_after_run).
	beside := o.r.IntN(3) == 0
	o.m.cover("runs beside a writer at the queue", boolCount(beside))
	var writer pgx.Tx
	if beside {
		var err error
		if writer, err = o.f.pool.Begin(o.f.ctx); err != nil {
			o.f.t.Fatal(err)
		}
		if _, err := writer.Exec(o.f.ctx, `lock table recon_open_item in row exclusive mode`); err != nil {
			o.f.t.Fatal(err)
		}
	}
	for _, l := range Levels {
		if _, err := o.f.svc.RunNow(o.f.ctx, l); err != nil {
			o.f.t.Fatalf("seed %d: run %s: %v", o.seed, l.Slug, err)
		}
	}
	if writer != nil {
		if err := writer.Rollback(o.f.ctx); err != nil {
			o.f.t.Fatal(err)
		}
	}
	o.readPayouts()
	for level := 1; level <= 3; level++ {
		o.m.autoMatch(level)
		o.m.seeAll(level)
	}
	for _, p := range o.m.payouts() {
		months := map[string]bool{}
		for _, s := range o.m.settlements {
			if s.payout == p.key {
				months[s.date.String()[:7]] = true
			}
		}
		o.m.cover("payouts over two months", boolCount(len(months) > 1))
		o.m.cover("payouts in two currencies", boolCount(p.cur == ""))
	}
	o.compare(reports)
}

// ---------------------------------------------------------------------------
// Changes after the runs, each followed by a comparison.

func (o *oracleRun) changes(n int) {
	ops := []func() bool{o.lateSettlement, o.editSettlement, o.editTicket, o.editTransaction, o.deleteTransaction, o.deleteSettlement,
		o.undoMatch, func() bool { return o.manualMatch(1+o.r.IntN(3), "manual match") }, o.adjustment,
		// match groups (oracle_groups_test.go)
		func() bool { return o.manualGroup(1+o.r.IntN(3), "manual group") }, o.undoGroup, o.editGroupMember, o.deleteGroupMember,
		// the exception queue's amounts in USD (oracle_open_test.go)
		o.editRate}
	for i := 0; i < n; i++ {
		for try := 0; try < 20 && !ops[o.r.IntN(len(ops))](); try++ {
		}
	}
}

// nonZeroDelta is an amount change.
func (o *oracleRun) nonZeroDelta() *big.Rat {
	return centsOf(pickOf[int64](o.r, 1, -1, 50, -50, 100, -250, 1000, int64(1+o.r.IntN(3000))))
}

// preferMatched picks from matched when there are some (mostly), else from all.
func preferMatched[T any](r *rand.Rand, all []T, matched func(T) bool) (T, bool) {
	var some []T
	for _, x := range all {
		if matched(x) {
			some = append(some, x)
		}
	}
	if len(some) == 0 || r.IntN(5) == 0 {
		some = all
	}
	var zero T
	if len(some) == 0 {
		return zero, false
	}
	return some[r.IntN(len(some))], true
}

// lateSettlement adds a settlement to a payout (mostly a matched one), dated
// on or after its latest one, perhaps in the next month.
func (o *oracleRun) lateSettlement() bool {
	liveL, _ := o.m.live(3)
	p, ok := preferMatched(o.r, o.m.payouts(), func(p *oPayout) bool { return liveL[o.m.payoutIDs[p.key]] != nil })
	if !ok {
		return false
	}
	s := &oSettlement{payout: p.key, client: pickOf(o.r, "", o.m.tickets[0].number), date: p.latest + oDay(o.r.IntN(7)), provider: p.provider,
		cur: p.curs[0], net: centsOf(int64(100 + o.r.IntN(20000)))}
	if o.r.IntN(2) == 0 {
		s.fees = ratOf("1.00")
	}
	if o.r.IntN(2) == 0 {
		s.gross = ratAdd(s.net, ratOr(s.fees, new(big.Rat)))
	}
	s.id = o.insertSettlements([]*oSettlement{s})[0]
	o.m.settlements = append(o.m.settlements, s)
	o.step("late settlement", "late settlement s%d of %s on %s, net %s", s.id, p.key, s.date, moneyText(s.net))
	o.m.touchPayout(p.key)
	o.compare(true)
	return true
}

func (o *oracleRun) editSettlement() bool {
	liveL3, _ := o.m.live(3)
	_, liveR2 := o.m.live(2)
	s, ok := preferMatched(o.r, o.m.settlements, func(s *oSettlement) bool {
		return liveR2[s.id] != nil || liveL3[o.m.payoutIDs[s.payout]] != nil
	})
	if !ok {
		return false
	}
	d := o.nonZeroDelta()
	o.f.exec(`update settlement set settlement_net = settlement_net + $2::numeric, gross_amount = gross_amount + $2::numeric where id = $1`, s.id, moneyText(d))
	s.net = ratAdd(s.net, d)
	if s.gross != nil {
		s.gross = ratAdd(s.gross, d)
	}
	o.step("settlement amount edited", "s%d of %s: net and gross %+s", s.id, s.payout, moneyText(d))
	o.m.touch(2, false, s.id)
	o.m.touchPayout(s.payout)
	o.compare(true)
	return true
}

func (o *oracleRun) editTicket() bool {
	liveL, _ := o.m.live(1)
	t, ok := preferMatched(o.r, o.m.tickets, func(t *oTicket) bool { return liveL[t.id] != nil })
	if !ok {
		return false
	}
	d := o.nonZeroDelta()
	if mt := liveL[t.id]; mt != nil && o.m.oneCurrency(mt) && !ratZero(mt.variance) && o.r.IntN(3) == 0 {
		d = ratNeg(mt.variance) // the amounts agree now
	}
	o.f.exec(`update ticket set sale_amount = sale_amount + $2::numeric where id = $1`, t.id, moneyText(d))
	t.amount = ratAdd(t.amount, d)
	o.step("ticket amount edited", "t%d: sale_amount %+s", t.id, moneyText(d))
	o.m.touch(1, true, t.id)
	o.compare(true)
	return true
}

func (o *oracleRun) transactions() []*oTxn {
	var out []*oTxn
	for _, x := range o.m.txns {
		if !x.adjust {
			out = append(out, x)
		}
	}
	return out
}

func (o *oracleRun) editTransaction() bool {
	_, liveR1 := o.m.live(1)
	liveL2, _ := o.m.live(2)
	x, ok := preferMatched(o.r, o.transactions(), func(x *oTxn) bool { return liveR1[x.id] != nil || liveL2[x.id] != nil })
	if !ok {
		return false
	}
	d := o.nonZeroDelta()
	if mt := liveR1[x.id]; mt != nil && o.m.oneCurrency(mt) && !ratZero(mt.variance) && o.r.IntN(3) == 0 {
		d = mt.variance // the amounts agree now
	}
	o.f.exec(`update card_transaction set transaction_amount = transaction_amount + $2::numeric where id = $1`, x.id, moneyText(d))
	x.amount = ratAdd(x.amount, d)
	o.step("transaction amount edited", "x%d: transaction_amount %+s", x.id, moneyText(d))
	o.m.touch(1, false, x.id)
	o.m.touch(2, true, x.id)
	o.compare(true)
	return true
}

func (o *oracleRun) deleteTransaction() bool {
	_, liveR1 := o.m.live(1)
	liveL2, _ := o.m.live(2)
	x, ok := preferMatched(o.r, o.transactions(), func(x *oTxn) bool { return liveR1[x.id] != nil || liveL2[x.id] != nil })
	if !ok {
		return false
	}
	o.f.exec(`delete from card_transaction where id = $1`, x.id)
	o.m.txns = slices.DeleteFunc(o.m.txns, func(y *oTxn) bool { return y == x })
	o.step("transaction deleted", "x%d deleted", x.id)
	o.m.touch(1, false, x.id)
	o.m.touch(2, true, x.id)
	o.compare(true)
	return true
}

func (o *oracleRun) deleteSettlement() bool {
	liveL3, _ := o.m.live(3)
	_, liveR2 := o.m.live(2)
	s, ok := preferMatched(o.r, o.m.settlements, func(s *oSettlement) bool {
		return liveR2[s.id] != nil || liveL3[o.m.payoutIDs[s.payout]] != nil
	})
	if !ok {
		return false
	}
	o.f.exec(`delete from settlement where id = $1`, s.id)
	o.m.settlements = slices.DeleteFunc(o.m.settlements, func(y *oSettlement) bool { return y == s })
	o.step("settlement deleted", "s%d of %s deleted", s.id, s.payout)
	o.m.touch(2, false, s.id)
	o.m.touchPayout(s.payout)
	o.compare(true)
	return true
}

func (o *oracleRun) undoMatch() bool {
	var live []*oMatch
	for _, mt := range o.m.matches {
		if mt.ended == "" && mt.id != 0 {
			live = append(live, mt)
		}
	}
	if len(live) == 0 {
		return false
	}
	mt := live[o.r.IntN(len(live))]
	o.undo(mt)
	o.step("match undone", "%s undone through the service", o.matchLabel(mt))
	o.compare(true)
	return true
}

// adjustment makes a task's manual adjustment for a ticket with a
// difference (no match, or one with a variance), mostly one that shares its
// number with another ticket (a sale and its refund): the balance, or
// another amount.
func (o *oracleRun) adjustment() bool {
	liveL, _ := o.m.live(1)
	shared := map[string]int{}
	for _, t := range o.m.tickets {
		shared[t.number]++
	}
	var open, openShared []*oTicket
	for _, t := range o.m.tickets {
		if mt := liveL[t.id]; mt == nil || mt.status == "investigation" || !ratZero(mt.variance) {
			open = append(open, t)
			if shared[t.number] > 1 {
				openShared = append(openShared, t)
			}
		}
	}
	if len(openShared) > 0 && o.r.IntN(10) < 7 {
		open = openShared
	}
	if len(open) == 0 {
		return false
	}
	t := open[o.r.IntN(len(open))]
	amount := t.amount
	if mt := liveL[t.id]; mt != nil && mt.status != "investigation" {
		amount = ratSub(amount, o.m.matchedAmount(mt, t.id))
	}
	for _, x := range o.m.txns {
		if x.adjust && x.forTicket == t.id {
			amount = ratSub(amount, x.amount)
		}
	}
	if amount.Sign() == 0 || o.r.IntN(2) == 0 {
		amount = o.nonZeroDelta()
	}
	x := o.addAdjustment(t, amount, t.date+oDay(o.r.IntN(40)))
	o.m.cover("adjustments for a ticket sharing its number", boolCount(shared[t.number] > 1))
	o.step("adjustment", "x%d: adjustment of %s for t%d (%s, %d tickets of that number)", x.id, moneyText(amount), t.id, t.number, shared[t.number])
	o.closeByAdjustment(t, x)
	o.compare(true)
	return true
}

// closeByAdjustment has the product close ticket t with its adjustments,
// as the task service does in the transaction that made x, and models it
// (decided for match groups): the ticket's adjustments in no live group
// join the ticket's live group, or make one with the task's open card
// transactions of its number (the oracle's tasks link none), and close
// the ticket when the group's sums then agree: in one currency within the
// amount tolerance of the provider of the group's first card transaction
// (none: equal), across currencies within its currency tolerance; the
// adjustments' dates are not compared. The group's rule is then
// adjustment, its status matched when no difference is left, else
// partial; otherwise nothing changes.
func (o *oracleRun) closeByAdjustment(t *oTicket, x *oTxn) {
	liveL, liveR := o.m.live(1)
	var adjustments []int64
	for _, a := range o.m.txns {
		if a.adjust && a.forTicket == t.id && liveR[a.id] == nil {
			adjustments = append(adjustments, a.id)
		}
	}
	slices.Sort(adjustments)
	mt := liveL[t.id]
	lefts, rights := []int64{t.id}, []int64{}
	if mt != nil {
		lefts, rights = slices.Clone(mt.lefts), slices.Clone(mt.rights)
	}
	rights = append(rights, adjustments...)
	_, r, e := o.m.evaluateGroup(1, lefts, rights)
	closes := e.variance != nil && e.currencyOK && (!e.same || ratLE(ratAbs(e.variance), o.m.toleranceOf(1, r.provider).amount))
	tx, err := o.f.pool.Begin(o.f.ctx)
	if err != nil {
		o.f.t.Fatal(err)
	}
	c, err := o.f.svc.CloseByAdjustment(o.f.ctx, tx, t.id, x.task, "oracle adjustment")
	if err == nil {
		err = tx.Commit(o.f.ctx)
	} else {
		_ = tx.Rollback(o.f.ctx)
	}
	label := fmt.Sprintf("x%d for t%d (group %v / %v)", x.id, t.id, lefts, rights)
	switch {
	case err != nil:
		o.log.found(o, "adjustment", []oDiff{{fmt.Sprintf("%s: the product could not close the ticket: %v", label, err), causeClosing}})
		return
	case c.Closed != closes:
		o.log.found(o, "adjustment", []oDiff{{fmt.Sprintf("%s: the oracle says it closes the ticket: %v (difference %s); the product: %v (difference %s)",
			label, closes, strOr(ratPtrText(e.variance)), c.Closed, strOr(c.Difference)), causeClosing}})
		if !c.Closed {
			return
		}
		// the product's group is the one to follow from here
	case !closes:
		o.m.cover("adjustments that leave their ticket open", 1)
		return
	}
	status := "partial"
	if ratZero(e.variance) {
		status = "matched"
	}
	o.m.cover("adjustments that close their ticket, "+status, 1)
	if mt != nil {
		o.m.cover("adjustments joining a live group, rule "+mt.rule, 1)
		mt.rights, mt.rule, mt.status, mt.variance, mt.lag = rights, "adjustment", status, e.variance, e.lag
		mt.views = o.m.views(mt)
	} else {
		mt = &oMatch{level: 1, lefts: lefts, rights: rights, status: status, rule: "adjustment", variance: e.variance, lag: e.lag,
			id: c.Match.ID, by: "adjustment"}
		o.m.add(mt)
	}
	o.step("adjustment closes", "%s: %s by adjustment, variance %s", label, status, strOr(ratPtrText(e.variance)))
}

// ---------------------------------------------------------------------------
// Comparing.

// compare compares the live matches, the matches the system ended and (with
// reports) the three reports for each month with the oracle. A check
// reports only differences it did not report at the last comparison.
func (o *oracleRun) compare(reports bool) {
	o.check("live matches", o.matchDiffs())
	o.check("live matches record by record", o.recordDiffs())
	o.check("ended matches", o.endedDiffs())
	o.check("open items", o.openItemDiffs())
	o.check("manual dialog candidates", o.candidateDiffs())
	o.learnMatchIDs()
	if !reports {
		return
	}
	for _, rep := range oracleReports {
		var diffs []oDiff
		for _, month := range oracleMonths {
			diffs = append(diffs, o.reportDiffs(rep, month[0], month[1])...)
		}
		o.check(rep.name, diffs)
	}
}

// oDiff is one difference, with what the oracle knows of its likely cause:
// the decided rules it touches (see hints), "" when none.
type oDiff struct{ text, cause string }

func (o *oracleRun) check(name string, diffs []oDiff) {
	seen := o.prev[name]
	o.prev[name] = map[string]bool{}
	var fresh []oDiff
	for _, d := range diffs {
		o.prev[name][d.text] = true
		if !seen[d.text] {
			fresh = append(fresh, d)
		}
	}
	if len(fresh) > 0 {
		o.log.found(o, name, fresh)
	}
}

func (o *oracleRun) label(level int, isLeft bool, id int64) string {
	if level == 3 && isLeft {
		for k, v := range o.m.payoutIDs {
			if v == id {
				return fmt.Sprintf("%s#%d", k, id)
			}
		}
	}
	prefixes := [4][2]string{1: {"t", "x"}, 2: {"x", "s"}, 3: {"payout#", "b"}} // left, right
	side := 1
	if isLeft {
		side = 0
	}
	return fmt.Sprintf("%s%d", prefixes[level][side], id)
}

func (o *oracleRun) pairLabel(p oPair) string {
	return fmt.Sprintf("L%d %s-%s", p.level, o.label(p.level, true, p.left), o.label(p.level, false, p.right))
}

// groupLabel names records of each side of a level, "L1 t3+t5-x7", the
// first of each side first.
func (o *oracleRun) groupLabel(level int, lefts, rights []int64) string {
	names := func(isLeft bool, ids []int64) string {
		var out []string
		for _, id := range ids {
			out = append(out, o.label(level, isLeft, id))
		}
		return strings.Join(out, "+")
	}
	return fmt.Sprintf("L%d %s-%s", level, names(true, lefts), names(false, rights))
}

func (o *oracleRun) matchLabel(mt *oMatch) string { return o.groupLabel(mt.level, mt.lefts, mt.rights) }

func (o *oracleRun) productLabel(p *oProductMatch) string {
	return o.groupLabel(p.level, append([]int64{p.left}, p.moreLeft...), append([]int64{p.right}, p.moreRight...))
}

func (mt *oMatch) describe() string {
	s := fmt.Sprintf("%s/%s variance %s lag %d", mt.status, mt.rule, moneyText(mt.variance), mt.lag)
	if mt.reevaluated {
		s = fmt.Sprintf("%s variance %s lag %d (re-evaluated after a change)", mt.status, moneyText(mt.variance), mt.lag)
	}
	return s
}

func (p *oProductMatch) describe() string {
	v, lag := "null", "null"
	if p.variance != nil {
		v = *p.variance
	}
	if p.lag != nil {
		lag = strconv.Itoa(*p.lag)
	}
	return fmt.Sprintf("%s/%s variance %s lag %s", p.status, p.rule, v, lag)
}

// matchDiffs compares the live matches: the same pairs (of a group, its
// first records), each with the same further records, status, rule (not
// compared once re-evaluated), variance and lag.
func (o *oracleRun) matchDiffs() []oDiff {
	want := map[oPair]*oMatch{}
	for _, mt := range o.m.matches {
		if mt.ended == "" {
			want[mt.pair()] = mt
		}
	}
	got := map[oPair]*oProductMatch{}
	for _, p := range o.productMatches(true) {
		got[oPair{p.level, p.left, p.right}] = p
	}
	var pairs []oPair
	for p := range want {
		pairs = append(pairs, p)
	}
	for p := range got {
		if want[p] == nil {
			pairs = append(pairs, p)
		}
	}
	sort.Slice(pairs, func(i, j int) bool {
		a, b := pairs[i], pairs[j]
		return a.level < b.level || a.level == b.level && (a.left < b.left || a.left == b.left && a.right < b.right)
	})
	var diffs []oDiff
	for _, p := range pairs {
		w, g := want[p], got[p]
		switch {
		case g == nil:
			diffs = append(diffs, oDiff{fmt.Sprintf("%s: oracle %s; the product has no live match of the pair", o.matchLabel(w), w.describe()),
				o.pairCause(p, w)})
		case w == nil:
			diffs = append(diffs, oDiff{fmt.Sprintf("%s: product %s; the oracle has no live match of the pair", o.productLabel(g), g.describe()),
				o.pairCause(p, w)})
		default:
			var gv *big.Rat
			if g.variance != nil {
				gv = ratOf(*g.variance)
			}
			if g.status != w.status || (!w.reevaluated && g.rule != w.rule) || !ratEq(gv, w.variance) || g.lag == nil || *g.lag != w.lag {
				diffs = append(diffs, oDiff{fmt.Sprintf("%s: product %s, oracle %s", o.matchLabel(w), g.describe(), w.describe()), o.pairCause(p, w)})
			}
			if wl, wr := sorted(further(w.lefts)), sorted(further(w.rights)); !slices.Equal(wl, g.moreLeft) || !slices.Equal(wr, g.moreRight) {
				diffs = append(diffs, oDiff{fmt.Sprintf("%s: the product's match of these first records holds %s", o.matchLabel(w), o.productLabel(g)),
					o.pairCause(p, w)})
			}
		}
	}
	return diffs
}

func sorted(ids []int64) []int64 {
	out := slices.Clone(ids)
	slices.Sort(out)
	return out
}

// oRecord is a record of a side of a level.
type oRecord struct {
	level  int
	isLeft bool
	id     int64
}

// recordsOf are the records either side holds, by level, left first, id.
func recordsOf[W, G any](want map[oRecord]W, got map[oRecord]G) []oRecord {
	var recs []oRecord
	for r := range want {
		recs = append(recs, r)
	}
	for r := range got {
		if _, ok := want[r]; !ok {
			recs = append(recs, r)
		}
	}
	sort.Slice(recs, func(i, j int) bool {
		a, b := recs[i], recs[j]
		return a.level < b.level || a.level == b.level && (a.isLeft && !b.isLeft || a.isLeft == b.isLeft && a.id < b.id)
	})
	return recs
}

// recordDiffs compares the live matches record by record, as every reader
// of the product sees them (recon_match_live: a row per record of every
// live match): each record of a live group of the oracle is live in the
// product in the match of the same first records, and each record the
// product holds in a group is in that match in the oracle. (A pair's
// records show in matchDiffs.)
func (o *oracleRun) recordDiffs() []oDiff {
	rows, err := o.f.pool.Query(o.f.ctx, `select level, side = 'left', record_id, coalesce(left_id, 0), coalesce(right_id, 0), exists (select 1 from recon_match_member mm where mm.match_id = v.id)
		from recon_match_live v`)
	if err != nil {
		o.f.t.Fatal(err)
	}
	got, gotGroup := map[oRecord]oPair{}, map[oRecord]bool{}
	for rows.Next() {
		var r oRecord
		var p oPair
		var group bool
		if err := rows.Scan(&r.level, &r.isLeft, &r.id, &p.left, &p.right, &group); err != nil {
			o.f.t.Fatal(err)
		}
		p.level = r.level
		if _, twice := got[r]; twice {
			o.f.t.Fatalf("seed %d: recon_match_live has two rows of %+v", o.seed, r)
		}
		got[r], gotGroup[r] = p, group
	}
	if err := rows.Err(); err != nil {
		o.f.t.Fatal(err)
	}
	want, wantMatch := map[oRecord]oPair{}, map[oRecord]*oMatch{}
	for _, mt := range o.m.matches {
		if mt.ended != "" {
			continue
		}
		for i, ids := range [][]int64{mt.lefts, mt.rights} {
			for _, id := range ids {
				r := oRecord{mt.level, i == 0, id}
				want[r], wantMatch[r] = mt.pair(), mt
			}
		}
	}
	recs := recordsOf(want, got)
	var diffs []oDiff
	for _, r := range recs {
		w, inW := want[r]
		g, inG := got[r]
		mt := wantMatch[r]
		if (mt == nil || !mt.group()) && !gotGroup[r] || inW && inG && w == g {
			continue
		}
		side := "right"
		if r.isLeft {
			side = "left"
		}
		wantText, gotText := "no live match", "no live match"
		if inW {
			wantText = "in " + o.matchLabel(mt)
		}
		if inG {
			gotText = "in the match of " + o.pairLabel(g)
		}
		diffs = append(diffs, oDiff{fmt.Sprintf("L%d %s record %s: oracle %s; product (recon_match_live) %s", r.level, side,
			o.label(r.level, r.isLeft, r.id), wantText, gotText), causeGroup})
	}
	return diffs
}

// endedDiffs checks that a match the oracle ended for a record that went is
// ended by the system in the product (undone_by 'system'), not deleted nor
// ended as someone else (one still live shows among the live matches), and
// that no further record of an ended group is still marked live (it would
// keep the record from being matched again).
func (o *oracleRun) endedDiffs() []oDiff {
	ended := map[oPair][]*oProductMatch{}
	for _, p := range o.productMatches(false) {
		ended[oPair{p.level, p.left, p.right}] = append(ended[oPair{p.level, p.left, p.right}], p)
	}
	live := map[oPair]bool{}
	for _, p := range o.productMatches(true) {
		live[oPair{p.level, p.left, p.right}] = true
	}
	var diffs []oDiff
	for _, mt := range o.m.matches {
		if mt.ended != "system" || live[mt.pair()] {
			continue
		}
		var by []string
		for _, p := range ended[mt.pair()] {
			by = append(by, strOr(p.undoneBy))
		}
		switch {
		case slices.Contains(by, "system"):
		case len(by) == 0:
			diffs = append(diffs, oDiff{fmt.Sprintf("%s: its record went, so the system ends it (undone_by 'system'); the product has no row of the pair",
				o.pairLabel(mt.pair())), causeEnded})
		default:
			diffs = append(diffs, oDiff{fmt.Sprintf("%s: its record went, so the system ends it (undone_by 'system'); the product has it undone by %s",
				o.pairLabel(mt.pair()), strings.Join(by, ", ")), causeEnded})
		}
	}
	rows, err := o.f.pool.Query(o.f.ctx, `select m.id, array_agg(mm.record_id order by mm.record_id)
		from recon_match m join recon_match_member mm on mm.match_id = m.id
		where m.undone_on is not null and mm.live group by m.id order by m.id`)
	if err != nil {
		o.f.t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var stale []int64
		if err := rows.Scan(&id, &stale); err != nil {
			o.f.t.Fatal(err)
		}
		diffs = append(diffs, oDiff{fmt.Sprintf("match %d is undone, but its further records %v are still marked live in recon_match_member", id, stale),
			causeGroup})
	}
	if err := rows.Err(); err != nil {
		o.f.t.Fatal(err)
	}
	return diffs
}

// learnMatchIDs takes the product's id of each live pair the oracle has.
func (o *oracleRun) learnMatchIDs() {
	ids := map[oPair]int64{}
	for _, p := range o.productMatches(true) {
		ids[oPair{p.level, p.left, p.right}] = p.id
	}
	for _, mt := range o.m.matches {
		if mt.ended == "" {
			mt.id = ids[mt.pair()]
		}
	}
}

func (o *oracleRun) productReport(rep oReportDef, from, to oDay) map[string][]*string {
	names := make([]string, len(rep.cols))
	for i, c := range rep.cols {
		names[i] = c.name + "::text"
	}
	rows, err := o.f.pool.Query(o.f.ctx, `select `+strings.Join(names, ", ")+` from `+rep.call, from.String(), to.String())
	if err != nil {
		o.f.t.Fatalf("%s: %v", rep.call, err)
	}
	defer rows.Close()
	out := map[string][]*string{}
	key := slices.IndexFunc(rep.cols, func(c oCol) bool { return c.name == rep.key })
	for rows.Next() {
		row := make([]*string, len(rep.cols))
		dest := make([]any, len(row))
		for i := range row {
			dest[i] = &row[i]
		}
		if err := rows.Scan(dest...); err != nil {
			o.f.t.Fatal(err)
		}
		k := strOr(row[key])
		if out[k] != nil {
			k += " (again)"
		}
		out[k] = row
	}
	if err := rows.Err(); err != nil {
		o.f.t.Fatalf("%s: %v", rep.call, err)
	}
	return out
}

func sameCell(c oCol, a, b *string) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if c.num {
		x, okx := new(big.Rat).SetString(*a)
		y, oky := new(big.Rat).SetString(*b)
		if okx && oky {
			return x.Cmp(y) == 0
		}
	}
	return *a == *b
}

func rowText(row []*string) string {
	if row == nil {
		return "(no row)"
	}
	parts := make([]string, len(row))
	for i, v := range row {
		parts[i] = "null"
		if v != nil {
			parts[i] = *v
		}
	}
	return strings.Join(parts, " | ")
}

// The likely causes of a difference: the decided rules (see the file's
// comment) that the records behind it touch.
const (
	causeAdjustment = "an adjustment made for another ticket of the same number (decided: it counts once, toward its own ticket)"
	causeReevaluate = "a match whose records changed after it was made (decided: re-evaluated in the writing transaction)"
	causeEnded      = "a match whose record went (decided: ended by the system)"
	causeHeld       = "a record the product still holds in a match whose other record went (follows from: ended by the system)"
	causePeriod     = "a payout with settlements in another month (decided: it belongs to the month of its latest settlement, with all of them)"
	causeExact      = "every ticket of the group matched exactly, but an adjustment leaves an amount variance (DESIGN.md section 6: 3 matched = all matched, variance 0)"
	causeClosing    = "an adjustment closing its ticket (decided: it joins the ticket's group, or makes one, rule adjustment, when the sums then agree; its date is not compared)"
	causeWriteOff   = "a write-off (decided: records of one side closed without a counter-record within the writer's limit in USD; its variance what was written off)"
	causeGroup      = "a match group (decided: evaluated over its sums; every record counts as matched, its first left record carrying its variance, further ones none; it ends whole)"
	causeGroupAlone = "a level-2 row whose matched transactions are all further transactions of groups (not decided: the oracle shows gross and net null there, as the sums of no settlement, as fees are when none is known)"
)

func joinCauses(set map[string]bool) string {
	var out []string
	for _, c := range []string{causePeriod, causeAdjustment, causeExact, causeGroupAlone, causeGroup, causeReevaluate, causeEnded, causeHeld} {
		if set[c] {
			out = append(out, c)
		}
	}
	return strings.Join(out, "; ")
}

// matchCauses adds the causes the matches of a record at a level touch: a
// group, one re-evaluated, one ended by the system, or one the product
// keeps live although the oracle ended it.
func (o *oracleRun) matchCauses(set map[string]bool, level int, isLeft bool, id int64, prod []*oProductMatch) {
	held := func(isLeft bool, id int64) {
		for _, p := range prod {
			if p.level == level && p.holds(isLeft, id) {
				if len(p.moreLeft)+len(p.moreRight) > 0 {
					set[causeGroup] = true
				}
				for _, mt := range o.m.matches {
					if mt.pair() == p.pair() && mt.ended == "system" {
						set[causeHeld] = true
					}
				}
			}
		}
	}
	held(isLeft, id)
	for _, mt := range o.m.matches {
		if mt.level != level || !mt.holds(isLeft, id) {
			continue
		}
		if mt.group() {
			set[causeGroup] = true
		}
		switch {
		case mt.ended == "" && mt.reevaluated:
			set[causeReevaluate] = true
		case mt.ended == "system":
			set[causeEnded] = true
		case mt.ended == "": // its other records may be held elsewhere
			others := mt.rights
			if !isLeft {
				others = mt.lefts
			}
			for _, other := range others {
				held(!isLeft, other)
			}
		}
	}
}

// heldAtRerun adds causeHeld when a rerun met a level where the product
// still holds records in matches the oracle ended: a record held there
// takes another's candidate, which takes another's, and so on.
func (o *oracleRun) heldAtRerun(set map[string]bool, level int, prod []*oProductMatch) {
	if !strings.HasPrefix(o.kind, "rerun") {
		return
	}
	for _, p := range prod {
		for _, mt := range o.m.matches {
			if p.level == level && mt.pair() == p.pair() && mt.ended == "system" {
				set[causeHeld] = true
			}
		}
	}
}

// pairCause is the likely cause of a difference in the live match of a pair.
func (o *oracleRun) pairCause(p oPair, w *oMatch) string {
	set := map[string]bool{}
	prod := o.productMatches(true)
	o.matchCauses(set, p.level, true, p.left, prod)
	o.matchCauses(set, p.level, false, p.right, prod)
	o.heldAtRerun(set, p.level, prod)
	if w != nil && w.reevaluated {
		set = map[string]bool{causeReevaluate: true, causeGroup: w.group()}
	}
	return joinCauses(set)
}

// rowCause is the likely cause of a difference in a report row: what the
// records of its group (level 1 and 2) or its payout (level 3) touch.
func (o *oracleRun) rowCause(rep oReportDef, from, to oDay, key string) string {
	set := map[string]bool{}
	prod := o.productMatches(true)
	parts := strings.Split(key, "|")
	switch rep.name {
	case "L1 report":
		adjustedFor := map[int64]bool{}
		for _, x := range o.m.txns {
			if x.adjust {
				adjustedFor[x.forTicket] = true
			}
		}
		liveL, _ := o.m.live(1)
		allExact, adjusted := true, false
		for _, t := range o.m.tickets {
			if strings.Join([]string{t.date.String(), t.cur, t.payType, t.country}, "|") != key {
				continue
			}
			mt := liveL[t.id]
			allExact = allExact && mt != nil && mt.status == "matched" && ratZero(mt.variance)
			adjusted = adjusted || adjustedFor[t.id]
			for _, u := range o.m.tickets {
				if u != t && u.number == t.number && adjustedFor[u.id] {
					set[causeAdjustment] = true
				}
			}
			o.matchCauses(set, 1, true, t.id, prod)
		}
		if allExact && adjusted {
			set[causeExact] = true
		}
		o.heldAtRerun(set, 1, prod)
	case "L2 report":
		liveL, _ := o.m.live(2)
		matched, further := 0, 0
		for _, x := range o.m.txns {
			if !x.adjust && strings.Join([]string{x.date.String(), x.cur, x.provider}, "|") == key {
				o.matchCauses(set, 2, true, x.id, prod)
				if mt := liveL[x.id]; mt != nil && mt.status != "investigation" {
					matched++
					further += boolCount(x.id != mt.left())
				}
			}
		}
		set[causeGroupAlone] = matched > 0 && further == matched
		o.heldAtRerun(set, 2, prod)
	case "L3 report":
		for _, s := range o.m.settlements {
			if s.payout == parts[0] && (s.date < from || s.date > to) {
				set[causePeriod] = true
			}
		}
		if id := o.m.payoutIDs[parts[0]]; id != 0 {
			o.matchCauses(set, 3, true, id, prod)
		}
		o.heldAtRerun(set, 3, prod)
	}
	return joinCauses(set)
}

// reportDiffs compares a report for a date range with the oracle, row by
// row and column by column (amounts as numbers).
func (o *oracleRun) reportDiffs(rep oReportDef, from, to oDay) []oDiff {
	got, want := o.productReport(rep, from, to), rep.oracle(o.m, from, to)
	var keys []string
	for k := range want {
		keys = append(keys, k)
	}
	for k := range got {
		if want[k] == nil {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var diffs []oDiff
	for _, k := range keys {
		g, w := got[k], want[k]
		var cols []string
		for i, c := range rep.cols {
			if g == nil || w == nil || !sameCell(c, g[i], w[i]) {
				cols = append(cols, c.name)
			}
		}
		if g == nil || w == nil {
			cols = []string{"the row"}
		}
		if len(cols) > 0 {
			diffs = append(diffs, oDiff{fmt.Sprintf("%s %s..%s, row %s differs in %s:\n      product %s\n      oracle  %s",
				rep.name, from, to, k, strings.Join(cols, ", "), rowText(g), rowText(w)), o.rowCause(rep, from, to, k)})
		}
	}
	return diffs
}

// ---------------------------------------------------------------------------
// What was found: a seed's first disagreement with its data set (the first
// few seeds), later ones with their differences, and a summary by step and
// check.

type oracleLog struct {
	t       *testing.T
	single  bool
	seeds   int
	full    int
	short   int
	failed  map[uint64]bool
	printed map[uint64]bool
	causes  map[string]*oracleCause
	covered map[string]int
}

type oracleCause struct {
	n       int
	seeds   []uint64
	example string
}

func (l *oracleLog) found(o *oracleRun, check string, found []oDiff) {
	l.t.Helper()
	var diffs []string
	for _, d := range found {
		cause := d.cause
		if cause == "" {
			cause = "no decided rule explains it"
		}
		name := check + ": " + cause
		c := l.causes[name]
		if c == nil {
			c = &oracleCause{example: fmt.Sprintf("seed %d, after %q: %s", o.seed, o.m.steps[len(o.m.steps)-1], d.text)}
			l.causes[name] = c
		}
		c.n++
		if len(c.seeds) < 12 && !slices.Contains(c.seeds, o.seed) {
			c.seeds = append(c.seeds, o.seed)
		}
		diffs = append(diffs, d.text+"\n      (likely cause: "+cause+")")
	}
	first := !l.failed[o.seed]
	l.failed[o.seed] = true
	shown := diffs
	if len(shown) > 8 {
		shown = append(slices.Clone(shown[:8]), fmt.Sprintf("... and %d more", len(diffs)-8))
	}
	step := o.m.steps[len(o.m.steps)-1]
	switch {
	case first && (l.single || l.full < 3):
		l.full++
		l.printed[o.seed] = true
		l.t.Errorf("seed %d, after %q: %s differ from the oracle:\n  %s\n\ndata set (replay with ORACLE_SEED=%d):\n%s",
			o.seed, step, check, strings.Join(shown, "\n  "), o.seed, o.m.dump())
	case l.printed[o.seed]:
		l.t.Errorf("seed %d, after %q: %s differ:\n  %s", o.seed, step, check, strings.Join(shown, "\n  "))
	case l.short < 40:
		l.short++
		l.t.Errorf("seed %d, after %q: %s: %d differences, first %s (replay with ORACLE_SEED=%d)", o.seed, step, check, len(diffs),
			strings.SplitN(diffs[0], "\n", 2)[0], o.seed)
	default:
		l.t.Fail()
	}
}

func (l *oracleLog) summary() {
	l.t.Helper()
	var cases []string
	for what, n := range l.covered {
		cases = append(cases, fmt.Sprintf("%s %d", what, n))
	}
	sort.Strings(cases)
	l.t.Logf("oracle: %d seeds; cases met: %s", l.seeds, strings.Join(cases, ", "))
	if len(l.causes) == 0 {
		return
	}
	names := make([]string, 0, len(l.causes))
	for n := range l.causes {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return l.causes[names[i]].n > l.causes[names[j]].n })
	var b strings.Builder
	fmt.Fprintf(&b, "oracle: %d of %d seeds disagree; differences by check and likely cause (a difference reported once per seed while it stays):\n",
		len(l.failed), l.seeds)
	for _, n := range names {
		c := l.causes[n]
		fmt.Fprintf(&b, "  %s\n      %d differences, seeds %v\n      e.g. %s\n", n, c.n, c.seeds, strings.ReplaceAll(c.example, "\n", "\n      "))
	}
	l.t.Log(b.String())
}

// dump is the data set in a readable form, with the oracle's matches and
// the steps so far.
func (m *oModel) dump() string {
	var b strings.Builder
	nullable := func(s string) string {
		if s == "" {
			return "-"
		}
		return s
	}
	b.WriteString("tickets (id, number, date, currency, payment type, country, sale amount):\n")
	for _, t := range m.tickets {
		fmt.Fprintf(&b, "  t%-3d %s %s %s %-2s %-2s %10s\n", t.id, t.number, t.date, t.cur, nullable(t.payType), nullable(t.country), moneyText(t.amount))
	}
	b.WriteString("card transactions (id, client id, date, provider, currency, amount):\n")
	for _, x := range m.txns {
		fmt.Fprintf(&b, "  x%-3d %-13s %s %-9s %s %10s", x.id, x.client, x.date, x.provider, x.cur, moneyText(x.amount))
		if x.adjust {
			fmt.Fprintf(&b, "  adjustment of task %d for t%d", x.task, x.forTicket)
		}
		b.WriteString("\n")
	}
	b.WriteString("settlements (id, payout, client id, date, provider, currency, gross, fees, net):\n")
	for _, s := range m.settlements {
		fmt.Fprintf(&b, "  s%-3d %-6s %-13s %s %-6s %s %10s %6s %10s\n", s.id, s.payout, nullable(s.client), s.date, s.provider, s.cur,
			moneyText(s.gross), moneyText(s.fees), moneyText(s.net))
	}
	b.WriteString("payouts (key#id, provider, currencies, total net, latest date, settlements):\n")
	for _, p := range m.payouts() {
		fmt.Fprintf(&b, "  %s#%d %s %s %s %s %d\n", p.key, m.payoutIDs[p.key], p.provider, strings.Join(p.curs, ","), moneyText(p.total), p.latest, p.count)
	}
	b.WriteString("bank bookings (id, date, currency, provider, manual provider, amount_local, reco amount, charges, status):\n")
	for _, k := range m.bookings {
		manual := "null"
		if k.manual != nil {
			manual = "'" + *k.manual + "'"
		}
		fmt.Fprintf(&b, "  b%-3d %s %s %-8s %-8s %10s %10s %5s %s\n", k.id, k.date, k.cur, nullable(k.provider), manual, moneyText(k.amountLocal),
			moneyText(k.reco), moneyText(k.charges), k.status)
	}
	b.WriteString("USD rates:")
	for _, r := range m.rates {
		fmt.Fprintf(&b, " %s %s %s;", r.code, r.on, moneyTextRate(r.usd))
	}
	b.WriteString("\ntolerances (id, level, provider name, provider actor, amount, days, currency %):\n")
	for _, t := range m.tolerances {
		actor, days := "null", "null"
		if t.actor != nil {
			actor = "'" + *t.actor + "'"
		}
		if t.days != nil {
			days = strconv.Itoa(*t.days)
		}
		fmt.Fprintf(&b, "  #%d L%d %s %s %s %s %s\n", t.id, t.level, t.name, actor, moneyText(t.amount), days, moneyText(t.currency))
	}
	b.WriteString("the oracle's matches (a group's records joined by +, the first first):\n")
	for _, mt := range m.matches {
		state := "live"
		if mt.ended != "" {
			state = "ended by " + mt.ended
		}
		ids := func(ids []int64) string {
			var out []string
			for _, id := range ids {
				out = append(out, strconv.FormatInt(id, 10))
			}
			return strings.Join(out, "+")
		}
		fmt.Fprintf(&b, "  L%d %s-%s %s (%s, %s)\n", mt.level, ids(mt.lefts), ids(mt.rights), mt.describe(), mt.by, state)
	}
	b.WriteString("steps:\n")
	for _, s := range m.steps {
		fmt.Fprintf(&b, "  %s\n", s)
	}
	return b.String()
}

func moneyTextRate(r *big.Rat) string {
	if r == nil {
		return "null"
	}
	return r.FloatString(4)
}
