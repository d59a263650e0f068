package recon

// The oracle's match groups (DESIGN.md section 6, "Match groups", and the
// rules as decided): the steps that make groups by hand at every level
// through MatchByHand with LeftIDs and RightIDs, and the later changes that
// touch them (undo of a group, edits of its records, deletes). The model of
// a group is in oracle_test.go: sumSide, evaluateGroup and groupRefusal
// (its evaluation), touch (its re-evaluation, its end), and the reports.
//
// A group step takes records of one side that have no live match, in the
// data set, and either writes records of the other side whose sums agree
// with theirs or differ on purpose (equal, on the edge of the amount or
// date tolerance, a cent or a day beyond it, far apart, in another
// currency at the day's rates, a side in two currencies), or takes the
// other side's records from the data set too (mostly of one key; their
// sums seldom agree). It asks for the group with or without force, now and
// then as an investigation, and the oracle says whether it must be refused
// (with which code) or made (with which status, rule, variance and lag).

import (
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strconv"
	"strings"
)

// groupShapes are the numbers of records of each side a group step takes:
// two tickets of one card payment, a transaction settled in two
// settlements, a booking paying two payouts, and n:m.
var groupShapes = [][2]int{{2, 1}, {2, 1}, {1, 2}, {1, 2}, {3, 1}, {1, 3}, {2, 2}, {2, 3}}

// freeSides are the records of a side of a level with no live match in the
// oracle nor in the product.
func (o *oracleRun) freeSides(level int, isLeft bool) []*oSide {
	left, right := o.m.pairable(level)
	liveL, liveR := o.m.live(level)
	prodL, prodR := o.productLive(level)
	all, live, prod := left, liveL, prodL
	if !isLeft {
		all, live, prod = right, liveR, prodR
	}
	var out []*oSide
	for _, s := range all {
		if s.id != 0 && live[s.id] == nil && !prod[s.id] {
			out = append(out, s)
		}
	}
	return out
}

// pickSides picks n records of a side that have no live match: of the key
// given when it has enough, else of one currency, else any. Nil when there
// are not n.
func (o *oracleRun) pickSides(level int, isLeft bool, n int, key string) []*oSide {
	free := o.freeSides(level, isLeft)
	o.r.Shuffle(len(free), func(i, j int) { free[i], free[j] = free[j], free[i] })
	if key != "" {
		var same []*oSide
		for _, s := range free {
			if s.key == key {
				same = append(same, s)
			}
		}
		if len(same) >= n {
			return same[:n]
		}
	}
	byCur := map[string][]*oSide{}
	var curs []string
	for _, s := range free {
		if s.cur != "" {
			if byCur[s.cur] == nil {
				curs = append(curs, s.cur)
			}
			byCur[s.cur] = append(byCur[s.cur], s)
		}
	}
	o.r.Shuffle(len(curs), func(i, j int) { curs[i], curs[j] = curs[j], curs[i] })
	for _, c := range curs {
		if len(byCur[c]) >= n {
			return byCur[c][:n]
		}
	}
	if len(free) >= n {
		return free[:n]
	}
	return nil
}

func sideIDs(ss []*oSide) []int64 {
	ids := make([]int64, len(ss))
	for i, s := range ss {
		ids[i] = s.id
	}
	return ids
}

// splitAmount is total in n parts of whole cents, each about an n-th.
func (o *oracleRun) splitAmount(total *big.Rat, n int) []*big.Rat {
	parts := make([]*big.Rat, n)
	rest := total
	for i := 0; i < n-1; i++ {
		share := roundCents(ratMul(total, big.NewRat(int64(60+o.r.IntN(80)), int64(100*n))))
		parts[i], rest = share, ratSub(rest, share)
	}
	parts[n-1] = rest
	return parts
}

// manualGroup makes a match group by hand at a level (see the file's
// comment) and compares; false when the data set has too few free records.
func (o *oracleRun) manualGroup(level int, kind string) bool {
	if level == 3 {
		o.readPayouts()
	}
	shape := pickOf(o.r, groupShapes...)
	var lefts, rights []int64
	var what string
	if o.r.IntN(4) == 0 {
		lefts, rights, what = o.foundGroup(level, shape)
	}
	if lefts == nil {
		lefts, rights, what = o.madeGroup(level, shape)
	}
	if lefts == nil {
		return false
	}
	if o.r.IntN(4) == 0 { // the first of a side is the first id of the request, not the lowest
		o.r.Shuffle(len(lefts), func(i, j int) { lefts[i], lefts[j] = lefts[j], lefts[i] })
		o.r.Shuffle(len(rights), func(i, j int) { rights[i], rights[j] = rights[j], rights[i] })
	}
	l, r, e := o.m.evaluateGroup(level, lefts, rights)
	refusal := o.m.groupRefusal(level, l, r, e)
	force := o.r.IntN(5) == 0 // (force on a group inside the tolerances: no refusal to override, rule manual)
	if refusal != "" {
		force = o.r.IntN(2) == 0
	}
	investigate := level < 3 && o.r.IntN(10) == 0
	o.groupByHand(level, lefts, rights, force, investigate, kind, what)
	if kind != "before runs" {
		o.compare(true)
	}
	return true
}

// foundGroup takes a group's records of both sides from the data set's
// free records: the left ones, then right ones sharing the first left
// record's key when there are enough.
func (o *oracleRun) foundGroup(level int, shape [2]int) (lefts, rights []int64, what string) {
	ls := o.pickSides(level, true, shape[0], "")
	if ls == nil {
		return nil, nil, ""
	}
	rs := o.pickSides(level, false, shape[1], ls[0].key)
	if rs == nil {
		return nil, nil, ""
	}
	return sideIDs(ls), sideIDs(rs), "records found in the data set"
}

// madeGroup takes the records of one side of a group from the data set's
// free records (of one currency when it can) and writes the other side's,
// whose sums are the first side's sum in their currency at the day's rates
// give or take a chosen difference, the latest of them dated a chosen lag
// from the first side's latest date. Now and then, when both sides have as
// many records, each written record mirrors a found one (its key, amount
// and date, the difference on the last one): every pair of the group is
// then a candidate of automatic runs, which must leave the group alone and,
// once it is undone, not make its first pair again.
func (o *oracleRun) madeGroup(level int, shape [2]int) (lefts, rights []int64, what string) {
	foundLeft := o.r.IntN(2) == 0
	if level == 3 && o.r.IntN(3) > 0 {
		foundLeft = true // mostly bookings written for payouts there are
	}
	n, k := shape[1], shape[0] // found, written
	if foundLeft {
		n, k = shape[0], shape[1]
	}
	found := o.pickSides(level, foundLeft, n, "")
	if found == nil {
		return nil, nil, ""
	}
	sum := o.m.sumSide(level, foundLeft, sideIDs(found))
	if sum.cur == "" {
		return nil, nil, "" // found in two currencies: found groups cover them
	}
	pairwise := n == k && o.r.IntN(2) == 0
	// the provider whose tolerances count: the first record's of the
	// tolerance side (the right one at levels 1 and 2, the payout at 3);
	// written there, mostly the found record's
	provider := found[0].provider
	if foundLeft == (level != 3) && (provider == "" || !pairwise && o.r.IntN(4) == 0) {
		provider = pickOf(o.r, oracleProviders...)
	}
	tol := o.m.toleranceOf(level, provider)
	cur := sum.cur
	var notes []string
	if pairwise {
		notes = append(notes, "each the mirror of a found record")
	}
	if o.r.IntN(6) == 0 {
		cur = pickOf(o.r, oracleCurrencies...)
	}
	if cur != sum.cur {
		notes = append(notes, "in "+cur+" at the day's rates")
	}
	lag, lagNote := 0, "same day"
	switch o.r.IntN(8) {
	case 0, 1:
		lag, lagNote = tol.days, "on the date tolerance"
	case 2:
		lag, lagNote = tol.days+1, "a day beyond the date tolerance"
	case 3:
		lag, lagNote = o.r.IntN(4), "a random lag"
	}
	if o.r.IntN(3) == 0 {
		lag = -lag
	}
	notes = append(notes, lagNote)
	offset, offsetNote := new(big.Rat), "equal sums"
	switch o.r.IntN(8) {
	case 0, 1:
		offset, offsetNote = tol.amount, "sums on the amount tolerance"
	case 2:
		offset, offsetNote = ratAdd(tol.amount, centsOf(1)), "sums a cent beyond the amount tolerance"
	case 3:
		offset, offsetNote = o.nonZeroDelta(), "sums far apart"
	}
	if o.r.IntN(2) == 0 {
		offset = ratNeg(offset)
	}
	notes = append(notes, offsetNote)
	anchors, dates := make([]*oSide, k), make([]oDay, k)
	var amounts []*big.Rat
	if pairwise {
		for i, f := range found {
			anchors[i], dates[i] = f, f.date+oDay(lag)
			amounts = append(amounts, o.m.convert(f.amount, f.cur, f.date, cur, dates[i]))
		}
		amounts[k-1] = ratAdd(amounts[k-1], offset)
	} else {
		day := sum.date + oDay(lag)
		amounts = o.splitAmount(ratAdd(o.m.convert(sum.amount, sum.cur, sum.date, cur, day), offset), k)
		for i := range anchors {
			anchors[i], dates[i] = found[0], day
			if i < k-1 {
				dates[i] = day - oDay(o.r.IntN(3))
			}
		}
	}
	curs := slices.Repeat([]string{cur}, k)
	if k > 1 && o.r.IntN(6) == 0 {
		curs[k-1] = pickOf(o.r, slices.DeleteFunc(slices.Clone(oracleCurrencies), func(c string) bool { return c == cur })...)
		notes = append(notes, "the written side in "+cur+" and "+curs[k-1])
	}
	written := o.writeSide(level, !foundLeft, anchors, provider, curs, dates, amounts)
	if foundLeft {
		return sideIDs(found), written, "right records written for them: " + strings.Join(notes, ", ")
	}
	return written, sideIDs(found), "left records written for them: " + strings.Join(notes, ", ")
}

// writeSide writes records of a side of a level for a group, each for the
// found record of the other side anchors[i] (its key and provider, so it
// looks like what it pays), in currency curs[i] on dates[i] with amounts[i]
// (what the level compares); the first record of the tolerance side has
// the provider given (a further transaction at level 1 another one now and
// then). It returns their ids.
func (o *oracleRun) writeSide(level int, isLeft bool, anchors []*oSide, provider string, curs []string, dates []oDay, amounts []*big.Rat) []int64 {
	client := func(i int) string {
		if c := strings.Split(anchors[i].key, "|")[0]; c != "" {
			return c
		}
		return "C7"
	}
	providerOf := func(i int) string {
		if i == 0 || anchors[i].provider == "" {
			return provider
		}
		return anchors[i].provider
	}
	var ids []int64
	switch {
	case level == 1 && isLeft:
		for i := range amounts {
			number := client(i)
			if len(number) != 13 || strings.Trim(number, "0123456789") != "" { // (a ticket number has 13 digits)
				number = fmt.Sprintf("91000000000%02d", 95+o.r.IntN(5))
			}
			ids = append(ids, o.writeTicket(number, curs[i], dates[i], amounts[i]).id)
		}
	case level == 1:
		for i := range amounts {
			p := provider
			if i > 0 && o.r.IntN(3) == 0 {
				p = pickOf(o.r, oracleProviders...) // the tolerance is the first transaction's provider's
			}
			ids = append(ids, o.writeTransaction(client(i), o.variantOf(p), curs[i], dates[i], amounts[i]).id)
		}
	case level == 2 && isLeft:
		for i := range amounts {
			p := anchors[i].provider
			ids = append(ids, o.writeTransaction(client(i), o.variantOf(p), curs[i], dates[i], amounts[i]).id)
		}
	case level == 2:
		var ss []*oSettlement
		payout, spelled := o.nextKey("PO-G"), ""
		for i := range amounts {
			p := providerOf(i)
			if i > 0 && (p != spelled || o.r.IntN(2) == 0) {
				payout = o.nextKey("PO-G") // settled in two payouts (a payout has one provider, spelled one way)
			}
			spelled = p
			s := &oSettlement{payout: payout, client: client(i), date: dates[i], provider: p, cur: curs[i]}
			o.setSettlementAmount(s, amounts[i])
			ss = append(ss, s)
		}
		ids = o.writeSettlements(ss)
	case isLeft: // payouts, of one settlement each
		var ss []*oSettlement
		for i := range amounts {
			s := &oSettlement{payout: o.nextKey("PO-G"), client: pickOf(o.r, "", "C9"), date: dates[i], provider: providerOf(i), cur: curs[i]}
			s.fees = pickOf(o.r, nil, ratOf("1.00"))
			s.net = amounts[i]
			if o.r.IntN(2) == 0 {
				s.gross = ratAdd(s.net, ratOr(s.fees, new(big.Rat)))
			}
			ss = append(ss, s)
		}
		o.writeSettlements(ss)
		for _, s := range ss {
			ids = append(ids, o.m.payoutIDs[s.payout])
		}
	default:
		for i := range amounts {
			ids = append(ids, o.writeBooking(anchors[i].provider, curs[i], dates[i], amounts[i]).id)
		}
	}
	return ids
}

// variantOf spells a provider in another case now and then.
func (o *oracleRun) variantOf(p string) string {
	return pickOf(o.r, p, p, strings.ToUpper(p), strings.ToLower(p))
}

// setSettlementAmount gives a settlement the gross amount level 2
// compares: fees or none, the net the gross less them, the gross column
// filled or not.
func (o *oracleRun) setSettlementAmount(s *oSettlement, gross *big.Rat) {
	s.fees = pickOf(o.r, nil, ratOf("0.00"), ratOf("1.50"), centsOf(int64(o.r.IntN(300))))
	s.net = ratSub(gross, ratOr(s.fees, new(big.Rat)))
	s.gross = nil
	if o.r.IntN(3) > 0 {
		s.gross = gross
	}
}

func (o *oracleRun) writeTicket(number, cur string, on oDay, amount *big.Rat) *oTicket {
	t := &oTicket{number: number, date: on, cur: cur, payType: pickOf(o.r, "CC", "CA", ""), country: pickOf(o.r, "US", "SE", ""), amount: amount}
	t.id = o.f.id(`insert into ticket (ticket_number, trans_date, payment_type, country_code, currency, transaction_code, sale_amount, natural_key, import_file_id)
		values ($1, $2, nullif($3, ''), nullif($4, ''), $5, 'TKTT', $6::numeric, $7, 1) returning id`,
		t.number, t.date.String(), t.payType, t.country, t.cur, moneyText(t.amount), o.nextKey("t"))
	o.m.tickets = append(o.m.tickets, t)
	return t
}

func (o *oracleRun) writeTransaction(client, provider, cur string, on oDay, amount *big.Rat) *oTxn {
	x := &oTxn{client: client, date: on, provider: provider, cur: cur, amount: amount}
	x.id = o.f.id(`insert into card_transaction (client_unique_id, processing_date, provider_actor, acquiring_bank, payment_method,
			currency, transaction_amount, transaction_type, natural_key, import_file_id)
		values ($1, $2, $3, 'Acq', 'Visa', $4, $5::numeric, 'Sale', $6, 1) returning id`,
		x.client, x.date.String(), x.provider, x.cur, moneyText(x.amount), o.nextKey("x"))
	o.m.txns = append(o.m.txns, x)
	return x
}

// writeSettlements writes settlements of payouts of their own (no live
// match is touched) and learns the payouts' ids.
func (o *oracleRun) writeSettlements(ss []*oSettlement) []int64 {
	ids := o.insertSettlements(ss)
	for i, s := range ss {
		s.id = ids[i]
		o.m.settlements = append(o.m.settlements, s)
	}
	o.readPayouts()
	return ids
}

// writeBooking writes a processed booking of a provider whose amount in
// local currency plus its charges is amount.
func (o *oracleRun) writeBooking(provider, cur string, on oDay, amount *big.Rat) *oBooking {
	b := &oBooking{account: "ACC-" + cur, date: on, cur: cur, provider: o.variantOf(provider), status: "Processed"}
	if provider == "" {
		b.provider = pickOf(o.r, oracleProviders...)
	}
	b.charges = pickOf(o.r, nil, ratOf("0.00"), ratOf("2.00"))
	b.reco = ratSub(amount, ratOr(b.charges, new(big.Rat)))
	b.amountLocal = b.reco
	b.id = o.f.id(`insert into bank_booking (bank_account, booked_date, amount_local, currency, text, bank_charges_in_local,
			provider, manual_provider, reco_amount_in_local_currency, status, in_or_out, natural_key)
		values ($1, $2, $3::numeric, $4, 'payout', $5::numeric, $6, null, $7::numeric, $8, 'IN', $9) returning id`,
		b.account, b.date.String(), moneyText(b.amountLocal), b.cur, ratPtrText(b.charges), b.provider, moneyText(b.reco), b.status, o.nextKey("b"))
	o.m.bookings = append(o.m.bookings, b)
	return b
}

// groupByHand asks the product for a match group and adds to the oracle
// what it must be (decided for match groups): refused without force when
// groupRefusal says so, with that code, and no match made; otherwise made,
// status matched with rule forced when force overrode a refusal, else
// manual (an investigation: status and rule investigation), with the
// variance and lag of the group's evaluation.
func (o *oracleRun) groupByHand(level int, lefts, rights []int64, force, investigate bool, kind, what string) *oMatch {
	l, r, e := o.m.evaluateGroup(level, lefts, rights)
	refusal := o.m.groupRefusal(level, l, r, e)
	req := MatchRequest{LeftIDs: slices.Clone(lefts), RightIDs: slices.Clone(rights), Force: force, Investigate: investigate}
	asked := "asked for"
	if force {
		req.Reason = "oracle: accepted by hand"
		asked = "asked for with force"
	}
	if investigate {
		asked += " as an investigation"
	}
	label := o.groupLabel(level, lefts, rights)
	o.step(kind, "%s: group %s (%s; oracle: %s)", label, asked, what, refusalText(refusal))
	pm, err := o.f.svc.MatchByHand(o.f.ctx, Levels[level-1], req)
	shape := fmt.Sprintf("%d:%d", len(lefts), len(rights))
	if refusal != "" && !force {
		o.m.cover("groups refused without force ("+refusal+")", 1)
		switch {
		case err == nil:
			o.log.found(o, "manual group", []oDiff{{fmt.Sprintf("%s: the oracle refuses the group without force (%s); the product made match %d %s/%s variance %s",
				label, refusal, pm.ID, pm.Status, pm.Rule, strOr(pm.AmountVariance)), causeGroup}})
			// undone, so the product and the oracle go on alike (an
			// undone group's first pair is not made again by runs)
			mt := &oMatch{level: level, lefts: lefts, rights: rights, status: pm.Status, rule: pm.Rule, id: pm.ID, by: "hand, refused by the oracle", ended: "user"}
			o.m.add(mt)
			o.undo(mt)
		case errCode(err) != refusal:
			o.log.found(o, "manual group", []oDiff{{fmt.Sprintf("%s: the oracle refuses the group without force with %s; the product refused it with %q: %v",
				label, refusal, errCode(err), err), causeGroup}})
		}
		return nil
	}
	if err != nil {
		o.log.found(o, "manual group", []oDiff{{fmt.Sprintf("%s: the oracle makes the group (%s, force %v); the product refused it: %v",
			label, refusalText(refusal), force, err), causeGroup}})
		return nil
	}
	mt := &oMatch{level: level, lefts: lefts, rights: rights, status: "matched", rule: "manual", variance: e.variance, lag: e.lag, id: pm.ID, by: "hand"}
	switch {
	case investigate:
		mt.status, mt.rule = "investigation", "investigation"
	case refusal != "":
		mt.rule = "forced"
	}
	o.m.add(mt)
	if !slices.Equal(pm.LeftIDs, lefts) || !slices.Equal(pm.RightIDs, rights) {
		o.log.found(o, "manual group", []oDiff{{fmt.Sprintf("%s: the product's answer names the records %v and %v, not those asked for, first first",
			label, pm.LeftIDs, pm.RightIDs), causeGroup}})
	}
	o.m.cover(fmt.Sprintf("groups made by hand, level %d", level), 1)
	o.m.cover("groups made by hand, "+shape, 1)
	o.m.cover("groups made by hand, rule "+mt.rule, 1)
	switch {
	case force && refusal == "":
		o.m.cover("groups asked with force but inside the tolerances (rule manual)", 1)
	case refusal != "":
		o.m.cover("groups forced over a refusal ("+refusal+")", 1)
	}
	o.m.cover("groups made across currencies", boolCount(l.cur != r.cur && l.cur != "" && r.cur != ""))
	o.m.cover("groups made with variance 0", boolCount(e.variance != nil && e.variance.Sign() == 0))
	if tol := o.m.toleranceOf(level, r.provider); level < 3 && e.same && e.inside && e.diff.Sign() != 0 && e.diff.Cmp(tol.amount) == 0 {
		o.m.cover("groups inside on the edge of the amount tolerance", 1)
	}
	o.m.cover("groups whose first record is not the lowest id", boolCount(lefts[0] != slices.Min(lefts) || rights[0] != slices.Min(rights)))
	tolSide, isLeft := rights, false
	if level == 3 {
		tolSide, isLeft = lefts, true
	}
	providers := map[string]bool{}
	for _, id := range tolSide {
		providers[strings.ToLower(o.m.side(level, isLeft, id).provider)] = true
	}
	o.m.cover("groups whose tolerance side has records of several providers", boolCount(len(providers) > 1))
	return mt
}

func refusalText(refusal string) string {
	if refusal == "" {
		return "inside the tolerances"
	}
	return "refused without force: " + refusal
}

// groupChanges makes n changes of the live groups (undo, edits and
// deletes of their records) or new groups.
func (o *oracleRun) groupChanges(n int) {
	ops := []func() bool{o.undoGroup, o.editGroupMember, o.editGroupMember, o.deleteGroupMember, o.deleteGroupMember,
		func() bool { return o.manualGroup(1+o.r.IntN(3), "manual group") }}
	for i := 0; i < n; i++ {
		for try := 0; try < 20 && !ops[o.r.IntN(len(ops))](); try++ {
		}
	}
}

// liveGroups are the oracle's live groups the product named, of a level
// (0: any).
func (o *oracleRun) liveGroups(level int) []*oMatch {
	var out []*oMatch
	for _, mt := range o.m.matches {
		if mt.ended == "" && mt.group() && mt.id != 0 && (level == 0 || mt.level == level) {
			out = append(out, mt)
		}
	}
	return out
}

// undoGroup undoes a live group by its match id (decided: the whole group
// ends, its records are free again; its first pair is not made again by
// runs), and now and then matches one of its further records by hand
// again, as a pair.
func (o *oracleRun) undoGroup() bool {
	groups := o.liveGroups(0)
	if len(groups) == 0 {
		return false
	}
	mt := groups[o.r.IntN(len(groups))]
	o.undo(mt)
	o.step("group undone", "%s (match %d) undone through the service", o.matchLabel(mt), mt.id)
	o.m.cover("groups undone", 1)
	o.compare(true)
	if o.r.IntN(2) == 0 {
		isLeft := len(mt.lefts) > 1
		ids := further(mt.rights)
		if isLeft {
			ids = further(mt.lefts)
		}
		freed := o.m.side(mt.level, isLeft, pickOf(o.r, ids...))
		if freed == nil {
			return true
		}
		other := o.pickSides(mt.level, !isLeft, 1, freed.key)
		if other == nil {
			return true
		}
		l, r := freed, other[0]
		if !isLeft {
			l, r = r, l
		}
		if l.cur == "" || r.cur == "" || o.m.evaluate(mt.level, l, r).variance == nil {
			return true // (as manualMatch: pairs it can compare)
		}
		if pair := o.byHand(mt.level, l, r, false); pair != nil {
			o.step("group undone", "L%d %s-%s: a further record of the undone group matched again by hand", mt.level, l.label, r.label)
			o.m.cover("further records of undone groups matched again", 1)
			o.compare(true)
		}
	}
	return true
}

// groupMember picks a record of a live group (any of its records, first or
// further) at a level (0: any): its group, side and id.
func (o *oracleRun) groupMember(level int) (*oMatch, bool, int64) {
	groups := o.liveGroups(level)
	if len(groups) == 0 {
		return nil, false, 0
	}
	mt := groups[o.r.IntN(len(groups))]
	isLeft := o.r.IntN(2) == 0
	if len(mt.lefts) == 0 || len(mt.rights) == 0 { // a write-off: its one side
		isLeft = len(mt.lefts) > 0
	}
	ids := mt.rights
	if isLeft {
		ids = mt.lefts
	}
	return mt, isLeft, pickOf(o.r, ids...)
}

// coverMember counts a changed record of a group as its group's first of a
// side or a further one.
func (o *oracleRun) coverMember(mt *oMatch, isLeft bool, id int64) {
	first := mt.right()
	if isLeft {
		first = mt.left()
	}
	o.m.cover("group records changed: the first of a side", boolCount(id == first))
	o.m.cover("group records changed: a further one", boolCount(id != first))
}

// editGroupMember changes a record of a live group: its amount (now and
// then by what makes the group's sums agree), its date or its currency,
// and the oracle re-evaluates every match of the record (touch: a group
// over its sums).
func (o *oracleRun) editGroupMember() bool {
	mt, isLeft, id := o.groupMember(0)
	if mt == nil {
		return false
	}
	o.coverMember(mt, isLeft, id)
	what := pickOf(o.r, "amount", "amount", "amount", "date", "currency")
	d := o.nonZeroDelta()
	if what == "amount" && o.m.oneCurrency(mt) && !ratZero(mt.variance) && o.r.IntN(2) == 0 {
		d = mt.variance // a right record up by the variance, a left one down: the sums agree
		if isLeft {
			d = ratNeg(d)
		}
		o.m.cover("group records edited so the sums agree", 1)
	}
	shift := oDay(pickOf(o.r, -2, -1, 1, 2))
	// another currency than the record's (an edit that changes nothing is
	// no change)
	newCur := func(cur string) string {
		return pickOf(o.r, slices.DeleteFunc([]string{"USD", "EUR", "GBP", "SEK"}, func(c string) bool { return c == cur })...)
	}
	o.m.cover("group records edited: "+what, 1)
	switch {
	case mt.level == 1 && isLeft:
		t := o.ticketOf(id)
		switch what {
		case "amount":
			o.f.exec(`update ticket set sale_amount = sale_amount + $2::numeric where id = $1`, t.id, moneyText(d))
			t.amount = ratAdd(t.amount, d)
		case "date":
			o.f.exec(`update ticket set trans_date = trans_date + $2::int where id = $1`, t.id, int(shift))
			t.date += shift
		default:
			t.cur = newCur(t.cur)
			o.f.exec(`update ticket set currency = $2 where id = $1`, t.id, t.cur)
		}
		o.step("group record edited", "%s: t%d's %s edited", o.matchLabel(mt), t.id, what)
		o.m.touch(1, true, t.id)
	case mt.level == 1 || mt.level == 2 && isLeft:
		x := o.txnOf(id)
		switch what {
		case "amount":
			o.f.exec(`update card_transaction set transaction_amount = transaction_amount + $2::numeric where id = $1`, x.id, moneyText(d))
			x.amount = ratAdd(x.amount, d)
		case "date":
			o.f.exec(`update card_transaction set processing_date = processing_date + $2::int where id = $1`, x.id, int(shift))
			x.date += shift
		default:
			x.cur = newCur(x.cur)
			o.f.exec(`update card_transaction set currency = $2 where id = $1`, x.id, x.cur)
		}
		o.step("group record edited", "%s: x%d's %s edited", o.matchLabel(mt), x.id, what)
		o.m.touch(1, false, x.id)
		o.m.touch(2, true, x.id)
	case mt.level == 2 || isLeft: // a settlement, of the group or of the group's payout
		var s *oSettlement
		if mt.level == 3 { // id is the payout's: one of its settlements
			s = pickOf(o.r, o.settlementsOf(id)...)
		} else {
			s = o.settlementOf(id)
		}
		switch what {
		case "amount":
			o.f.exec(`update settlement set settlement_net = settlement_net + $2::numeric, gross_amount = gross_amount + $2::numeric where id = $1`,
				s.id, moneyText(d))
			s.net = ratAdd(s.net, d)
			if s.gross != nil {
				s.gross = ratAdd(s.gross, d)
			}
		case "date":
			o.f.exec(`update settlement set settlement_date = settlement_date + $2::int where id = $1`, s.id, int(shift))
			s.date += shift
		default:
			s.cur = newCur(s.cur)
			o.f.exec(`update settlement set settlement_currency = $2 where id = $1`, s.id, s.cur)
		}
		o.step("group record edited", "%s: s%d (of %s)'s %s edited", o.matchLabel(mt), s.id, s.payout, what)
		o.m.touch(2, false, s.id)
		o.m.touchPayout(s.payout)
	default: // a booking: its amount
		b := o.bookingOf(id)
		if b.reco != nil {
			o.f.exec(`update bank_booking set reco_amount_in_local_currency = reco_amount_in_local_currency + $2::numeric where id = $1`, b.id, moneyText(d))
			b.reco = ratAdd(b.reco, d)
		} else {
			o.f.exec(`update bank_booking set amount_local = amount_local + $2::numeric where id = $1`, b.id, moneyText(d))
			b.amountLocal = ratAdd(b.amountLocal, d)
		}
		o.step("group record edited", "%s: b%d's amount %+s", o.matchLabel(mt), b.id, moneyText(d))
		o.m.touch(3, false, b.id)
	}
	o.compare(true)
	return true
}

// deleteGroupMember deletes a record of a live group, or takes it out of
// its source (a booking no longer processed); the oracle ends every match
// of the record whose record is gone, a group whole (decided: by the
// system), and re-evaluates those it only changed (a payout that lost one
// of its settlements).
func (o *oracleRun) deleteGroupMember() bool {
	mt, isLeft, id := o.groupMember(0)
	if mt == nil {
		return false
	}
	switch {
	case mt.level == 1 && isLeft:
		t := o.ticketOf(id)
		for _, x := range o.m.txns {
			if x.adjust && x.forTicket == t.id {
				return false // (its adjustment's task holds it)
			}
		}
		o.f.exec(`delete from ticket where id = $1`, t.id)
		o.m.tickets = slices.DeleteFunc(o.m.tickets, func(u *oTicket) bool { return u == t })
		o.step("group record deleted", "%s: t%d deleted", o.matchLabel(mt), t.id)
		o.m.touch(1, true, t.id)
	case mt.level == 1 || mt.level == 2 && isLeft:
		x := o.txnOf(id)
		o.f.exec(`delete from card_transaction where id = $1`, x.id)
		o.m.txns = slices.DeleteFunc(o.m.txns, func(y *oTxn) bool { return y == x })
		o.step("group record deleted", "%s: x%d deleted", o.matchLabel(mt), x.id)
		o.m.touch(1, false, x.id)
		o.m.touch(2, true, x.id)
	case mt.level == 2 || isLeft:
		var s *oSettlement
		if mt.level == 3 { // id is the payout's: one of its settlements
			s = pickOf(o.r, o.settlementsOf(id)...)
		} else {
			s = o.settlementOf(id)
		}
		o.f.exec(`delete from settlement where id = $1`, s.id)
		o.m.settlements = slices.DeleteFunc(o.m.settlements, func(y *oSettlement) bool { return y == s })
		o.step("group record deleted", "%s: s%d of %s deleted", o.matchLabel(mt), s.id, s.payout)
		o.m.touch(2, false, s.id)
		o.m.touchPayout(s.payout)
	default:
		b := o.bookingOf(id)
		if o.r.IntN(3) > 0 {
			o.f.exec(`update bank_booking set status = 'Unprocessed' where id = $1`, b.id)
			b.status = "Unprocessed"
			o.step("group record deleted", "%s: b%d no longer processed (it leaves reconciliation)", o.matchLabel(mt), b.id)
			o.m.cover("group bookings no longer processed", 1)
		} else {
			o.f.exec(`delete from bank_booking where id = $1`, b.id)
			o.m.bookings = slices.DeleteFunc(o.m.bookings, func(y *oBooking) bool { return y == b })
			o.step("group record deleted", "%s: b%d deleted", o.matchLabel(mt), b.id)
		}
		o.m.touch(3, false, b.id)
	}
	o.coverMember(mt, isLeft, id)
	o.m.cover(fmt.Sprintf("group records deleted, level %d", mt.level), 1)
	o.compare(true)
	return true
}

func (o *oracleRun) ticketOf(id int64) *oTicket {
	for _, t := range o.m.tickets {
		if t.id == id {
			return t
		}
	}
	panic(fmt.Sprint("no ticket ", id))
}

func (o *oracleRun) txnOf(id int64) *oTxn {
	for _, x := range o.m.txns {
		if x.id == id {
			return x
		}
	}
	panic(fmt.Sprint("no card transaction ", id))
}

func (o *oracleRun) settlementOf(id int64) *oSettlement {
	for _, s := range o.m.settlements {
		if s.id == id {
			return s
		}
	}
	panic(fmt.Sprint("no settlement ", id))
}

// settlementsOf are the settlements of a payout, by the payout's id.
func (o *oracleRun) settlementsOf(payoutID int64) []*oSettlement {
	var out []*oSettlement
	for _, s := range o.m.settlements {
		if o.m.payoutIDs[s.payout] == payoutID {
			out = append(out, s)
		}
	}
	return out
}

func (o *oracleRun) bookingOf(id int64) *oBooking {
	for _, b := range o.m.bookings {
		if b.id == id {
			return b
		}
	}
	panic(fmt.Sprint("no bank booking ", id))
}

// autoSplits is what an automatic run matches after its one-to-one rounds
// where the level declares splits (recon.yaml): an unmatched record of the
// anchor side with the 2 to max unmatched records of the other side
// sharing its key whose dates lie within the level's widest date
// tolerance of its own, when none of those records is wanted by another
// such anchor, and their sum (one group evaluation) is inside the
// tolerances; not a group whose first pair a user undid. A level that
// searches subsets (splits.search) is autoSubsets'.
func (m *oModel) autoSplits(level int) {
	def := testDefinition.Levels[level-1]
	if def.Splits == nil {
		return
	}
	anchorLeft := def.Splits.Anchor == "left"
	window := m.widestDays(level)
	left, right := m.pairable(level)
	liveL, liveR := m.live(level)
	anchors, others, liveA, liveO := left, right, liveL, liveR
	if !anchorLeft {
		anchors, others, liveA, liveO = right, left, liveR, liveL
	}
	pairs := map[int64][]*oSide{} // anchor id -> its unmatched key-mates in the window
	for _, a := range anchors {
		if a.key == "" || liveA[a.id] != nil {
			continue
		}
		for _, o := range others {
			if o.key == a.key && liveO[o.id] == nil && dayLag(a.date, o.date) <= window {
				pairs[a.id] = append(pairs[a.id], o)
			}
		}
	}
	if def.Splits.Search > 0 {
		m.autoSubsets(level, pairs, anchorLeft)
		return
	}
	sized := map[int64]bool{}
	wanted := map[int64]int{}
	for id, os := range pairs {
		if len(os) >= 2 && len(os) <= def.Splits.Max {
			sized[id] = true
			for _, o := range os {
				wanted[o.id]++
			}
		}
	}
	undone := m.undonePairs()
	for _, id := range slices.Sorted(maps.Keys(sized)) {
		os := pairs[id]
		contested := false
		for _, o := range os {
			contested = contested || wanted[o.id] > 1
		}
		if contested {
			m.cover("split groups left to the user (a record two anchors want)", 1)
			continue
		}
		group := sideIDs(os)
		slices.Sort(group)
		lefts, rights := []int64{id}, group
		if !anchorLeft {
			lefts, rights = group, []int64{id}
		}
		_, _, e := m.evaluateGroup(level, lefts, rights)
		if !e.inside {
			continue
		}
		if undone[oPair{level, lefts[0], rights[0]}] {
			m.cover("split groups not made again (their first pair undone)", 1)
			continue
		}
		mt := &oMatch{level: level, lefts: lefts, rights: rights, status: e.status, rule: e.rule, variance: e.variance, lag: e.lag, by: "auto"}
		m.add(mt)
		m.cover("automatic split groups, level "+strconv.Itoa(level), 1)
	}
}

// autoSubsets is the bounded subset search of a level's splits: an anchor
// with 2 to search key-mates (pairs) takes, of its subsets of 2 to max of
// them, the one whose sum (a group evaluation) equals its amount exactly,
// else the one inside the tolerances, and none when two fit as well. A
// record two anchors' chosen subsets hold leaves both to the user; a group
// whose first pair a user undid is not made again.
func (m *oModel) autoSubsets(level int, pairs map[int64][]*oSide, anchorLeft bool) {
	def := testDefinition.Levels[level-1]
	group := func(anchor int64, os []*oSide) (lefts, rights []int64) {
		ids := sideIDs(os)
		slices.Sort(ids)
		if anchorLeft {
			return []int64{anchor}, ids
		}
		return ids, []int64{anchor}
	}
	chosen := map[int64][]*oSide{}
	for anchor, mates := range pairs {
		if len(mates) < 2 || len(mates) > def.Splits.Search {
			continue
		}
		var exact, inside [][]*oSide
		for _, sub := range subsets(mates, def.Splits.Max) {
			lefts, rights := group(anchor, sub)
			if _, _, e := m.evaluateGroup(level, lefts, rights); e.inside {
				inside = append(inside, sub)
				if e.diff.Sign() == 0 {
					exact = append(exact, sub)
				}
			}
		}
		switch {
		case len(exact) == 1:
			chosen[anchor] = exact[0]
		case len(exact) == 0 && len(inside) == 1:
			chosen[anchor] = inside[0]
		case len(inside) > 1:
			m.cover("split subsets left to the user (two fit as well)", 1)
		}
	}
	held := map[int64]int{}
	for _, sub := range chosen {
		for _, o := range sub {
			held[o.id]++
		}
	}
	undone := m.undonePairs()
	for _, anchor := range slices.Sorted(maps.Keys(chosen)) {
		sub := chosen[anchor]
		if slices.ContainsFunc(sub, func(o *oSide) bool { return held[o.id] > 1 }) {
			m.cover("split subsets left to the user (a record two anchors' subsets hold)", 1)
			continue
		}
		lefts, rights := group(anchor, sub)
		_, _, e := m.evaluateGroup(level, lefts, rights)
		if undone[oPair{level, lefts[0], rights[0]}] {
			m.cover("split groups not made again (their first pair undone)", 1)
			continue
		}
		m.add(&oMatch{level: level, lefts: lefts, rights: rights, status: e.status, rule: e.rule, variance: e.variance, lag: e.lag, by: "auto"})
		m.cover("automatic split subsets, level "+strconv.Itoa(level), 1)
		if len(sub) < len(pairs[anchor]) {
			m.cover("automatic split subsets that leave key-mates out, level "+strconv.Itoa(level), 1)
		}
	}
}

// undonePairs are the first pairs of the matches a user undid (a run does
// not make them again).
func (m *oModel) undonePairs() map[oPair]bool {
	undone := map[oPair]bool{}
	for _, mt := range m.matches {
		if mt.ended != "" {
			undone[mt.pair()] = true
		}
	}
	return undone
}

// subsets are the subsets of 2 to most of xs, each once, in xs's order.
func subsets(xs []*oSide, most int) [][]*oSide {
	var out [][]*oSide
	var grow func(from int, sub []*oSide)
	grow = func(from int, sub []*oSide) {
		if len(sub) >= 2 {
			out = append(out, slices.Clone(sub))
		}
		if len(sub) == most {
			return
		}
		for i := from; i < len(xs); i++ {
			grow(i+1, append(sub, xs[i]))
		}
	}
	grow(0, nil)
	return out
}

// widestDays is the widest date tolerance of a level over its providers'
// rows (the first row of each provider counts), as a run bounds its search.
func (m *oModel) widestDays(level int) int {
	widest := 0
	for _, t := range m.tolerances {
		if t.level != level {
			continue
		}
		who := t.name
		if t.actor != nil && *t.actor != "" {
			who = *t.actor
		}
		if tol := m.toleranceOf(level, who); tol.days > widest {
			widest = tol.days
		}
	}
	return widest
}
