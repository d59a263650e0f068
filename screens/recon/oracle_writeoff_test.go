package recon

import (
	"context"
	"fmt"
	"math/big"

	"ledgerdesk/engine"
)

// The oracle's write-offs (DESIGN.md section 6, match groups; decided for
// write-offs where the issue is silent): records of one side of a level
// with no live match, accepted without a counter-record within the
// writer's limit (USD, the rate of the records' latest date, else the
// latest earlier one, rounded to cents).

// writers are users holding one role each: a limit that is never reached,
// one of 1.00 USD, and none.
func (o *oracleRun) writer(kind string) context.Context {
	limit := map[string]any{"ample": "1000000.00", "small": "1.00", "none": nil}[kind]
	o.writers++
	name := fmt.Sprintf("oracle-%s-%d-%d", kind, o.seed, o.writers)
	user := o.f.id(`insert into app_user (username, first_name, last_name, email, password_hash) values ($1, 'O', 'W', $1 || '@example.com', 'x') returning id`, name)
	role := o.f.id(`insert into role (role_name, writeoff_limit) values ($1, $2::numeric) returning id`, name, limit)
	o.f.exec(`insert into user_role (user_id, role_id) values ($1, $2)`, user, role)
	return engine.WithActor(context.Background(), &engine.Actor{UserID: user, Username: name})
}

// writeOff writes off one to three open records of a side of a level
// (mostly of one currency) through the service and models it: refused, in
// this order, when the writer's roles have no limit
// (recon.writeoffNotAllowed), when the records are not of one currency
// (recon.writeoffMixedCurrencies), when there is no USD rate
// (recon.writeoffNoRate), when their sum in USD is above the limit
// (recon.writeoffOverLimit); else a match of that side alone, rule
// writeoff, status matched, lag 0, its variance what was written off (the
// sum for the left side, minus the sum for the right).
func (o *oracleRun) writeOff() bool {
	level, isLeft := 1+o.r.IntN(3), o.r.IntN(2) == 0
	free := o.freeSides(level, isLeft)
	if len(free) == 0 {
		return false
	}
	o.r.Shuffle(len(free), func(i, j int) { free[i], free[j] = free[j], free[i] })
	n := 1 + o.r.IntN(min(3, len(free)))
	picked := free[:1]
	for _, s := range free[1:] {
		if len(picked) < n && (s.cur == picked[0].cur || o.r.IntN(5) == 0) {
			picked = append(picked, s)
		}
	}
	ids := sideIDs(picked)
	kind := []string{"ample", "ample", "ample", "small", "none"}[o.r.IntN(5)]
	sum := o.m.sumSide(level, isLeft, ids)
	want := ""
	var usd *big.Rat
	switch {
	case kind == "none":
		want = "recon.writeoffNotAllowed"
	case sum.cur == "":
		want = "recon.writeoffMixedCurrencies"
	default:
		rate := o.m.usdRate(sum.cur, sum.date)
		if rate == nil {
			want = "recon.writeoffNoRate"
			break
		}
		usd = roundCents(ratMul(ratAbs(sum.amount), rate))
		if kind == "small" && usd.Cmp(big.NewRat(1, 1)) > 0 {
			want = "recon.writeoffOverLimit"
		}
	}
	side := "left"
	if !isLeft {
		side = "right"
	}
	label := fmt.Sprintf("L%d %s %s", level, side, sum.label)
	o.step("write-off", "%s: %s written off by a writer with a limit %s (oracle: %s)", label, moneyText(sum.amount), kind, orText(want, "written off"))
	m, err := o.f.svc.WriteOff(o.writer(kind), Levels[level-1], side, ids, "oracle write-off")
	switch {
	case want != "" && errCode(err) != want:
		o.log.found(o, "write-off", []oDiff{{fmt.Sprintf("%s: the oracle refuses with %s; the product answered %v", label, want, err), causeWriteOff}})
		if err == nil {
			mt := &oMatch{level: level, status: m.Status, rule: m.Rule, id: m.ID, by: "write-off, refused by the oracle", ended: "user"}
			mt.lefts, mt.rights = m.LeftIDs, m.RightIDs
			o.m.add(mt)
			o.undo(mt)
		}
		return true
	case want != "":
		o.m.cover("write-offs refused ("+want+")", 1)
		return true
	case err != nil:
		o.log.found(o, "write-off", []oDiff{{fmt.Sprintf("%s: the oracle writes it off (%s USD); the product refused: %v", label, strOr(ratPtrText(usd)), err), causeWriteOff}})
		return true
	}
	variance := sum.amount
	mt := &oMatch{level: level, status: "matched", rule: "writeoff", id: m.ID, by: "write-off"}
	if isLeft {
		mt.lefts = ids
	} else {
		mt.rights, variance = ids, ratNeg(sum.amount)
	}
	mt.variance = variance
	o.m.add(mt)
	o.m.cover(fmt.Sprintf("write-offs, level %d %s", level, side), 1)
	o.m.cover(fmt.Sprintf("write-offs of %d records", len(ids)), 1)
	o.compare(true)
	return true
}

func orText(s, otherwise string) string {
	if s == "" {
		return otherwise
	}
	return s
}
