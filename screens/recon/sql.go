package recon

import (
	"fmt"
	"strings"
)

// The SQL of a level, derived from its definition (recon.yaml). Sources,
// columns and key names come only from the validated definition, never
// from a client; values are bind parameters.

// liveSQL is "the record <alias>.id of side which has a live match at
// level": as the first record of its side in a match, or a further record
// of a group. (Two tests, not recon_match_live: each is an anti-join of its
// own where a run asks it of a million records.)
func liveSQL(l *Level, which, alias string) string {
	return "(" + strings.Join(liveTests(l, which, alias), " or ") + ")"
}

// openSQL is liveSQL negated, as two NOT EXISTS the planner turns into
// anti-joins.
func openSQL(l *Level, which, alias string) string {
	tests := liveTests(l, which, alias)
	return "not " + tests[0] + " and not " + tests[1]
}

// autoSQL is openSQL for an automatic run: the record is open, not one
// made by hand (a task's adjustment: it joins the group of the ticket it
// was made for, never a pair a run finds), and not dated in a month closed
// for the level (migration 00036 refuses manual writes there; a run leaves
// them alone instead of failing).
func autoSQL(l *Level, which, alias string) string {
	return openSQL(l, which, alias) + " and not " + alias + ".manual and " + inOpenPeriodSQL(l, alias)
}

// inOpenPeriodSQL is "the record <alias> is not dated in a month closed for
// level l": an anti-join against the few live closings.
func inOpenPeriodSQL(l *Level, alias string) string {
	return fmt.Sprintf(`not exists (select 1 from closed_period cp where cp.reopened_on is null
		and cp.month = date_trunc('month', %s.date::timestamp)::date and (cp.level is null or cp.level = %d))`, alias, l.N)
}

func liveTests(l *Level, which, alias string) []string {
	return []string{
		fmt.Sprintf(`exists (select 1 from recon_match m where m.level = %d and m.%s_id = %s.id and m.undone_on is null)`, l.N, which, alias),
		fmt.Sprintf(`exists (select 1 from recon_match_member g where g.level = %d and g.side = '%s' and g.record_id = %s.id and g.live)`, l.N, which, alias),
	}
}

// keyEqual is the level's key between the records a and b.
func keyEqual(l *Level, a, b string) string {
	parts := make([]string, len(l.Key))
	for i, k := range l.Key {
		parts[i] = fmt.Sprintf("%s.%s = %s.%s", a, k, b, k)
	}
	return strings.Join(parts, " and ")
}

// tolAlias is the alias (l or r) of the side whose provider's tolerances count.
func (l *Level) tolAlias() string {
	if l.Tolerance.Side == "left" {
		return "l"
	}
	return "r"
}

// carryColumns lists the level's carry columns as "<alias>.<column>" and
// their names.
func (l *Level) carryColumns() (exprs, names []string) {
	for _, c := range l.Carry {
		_, col, _ := strings.Cut(c, ".")
		exprs = append(exprs, c)
		names = append(names, col)
	}
	return exprs, names
}

// pairsSQL selects every pair of the level sharing its key with both
// records unmatched and dates at most $1 days apart: left_id, right_id,
// l_amount, r_amount, l_cur, r_cur, l_date, r_date, provider_key (the
// tolerance side's) and the carry columns. Window key joins on the key
// and checks the lag after; window day joins on the key and each day of
// the window (a key shared by thousands of records, like a provider and
// currency, would otherwise pair each with every other first).
func pairsSQL(l *Level) string {
	exprs, _ := l.carryColumns()
	carry := ""
	if len(exprs) > 0 {
		carry = ", " + strings.Join(exprs, ", ")
	}
	from := fmt.Sprintf(`from %s l join %s r on %s
		where abs(r.date - l.date) <= $1::int`, l.Left.Source, l.Right.Source, keyEqual(l, "l", "r"))
	if l.Window == "day" {
		from = fmt.Sprintf(`from (select l.*, l.date + w.lag as day from %s l cross join generate_series(-$1::int, $1::int) w(lag)
			      offset 0) l
		join %s r on r.date = l.day and %s
		where true`, l.Left.Source, l.Right.Source, keyEqual(l, "l", "r"))
	}
	return fmt.Sprintf(`
		select l.id as left_id, r.id as right_id, l.amount as l_amount, r.amount as r_amount,
		       l.currency as l_cur, r.currency as r_cur, l.date as l_date, r.date as r_date,
		       %s.provider_key as provider_key%s
		%s
		  and %s
		  and %s`, l.tolAlias(), carry, from, autoSQL(l, "left", "l"), autoSQL(l, "right", "r"))
}

// unmatchedSQL counts the records of side which that count as open and
// have no live match at the level.
func unmatchedSQL(l *Level, which string) string {
	return fmt.Sprintf(`select count(*) from %s s where s.counted and %s`, l.side(which).Source, openSQL(l, which, "s"))
}

// recordOfSQL reads one record of side which by id ($1) as matching
// compares it: amount, currency, date, provider key, ref, made by hand.
func recordOfSQL(l *Level, which string) string {
	return fmt.Sprintf(`select amount::text, currency, date, coalesce(provider_key, ''), coalesce(ref, ''), manual from %s where id = $1`, l.side(which).Source)
}

// filterSQL binds the dashboard's filter values once, typed, for sideSQL.
const filterSQL = `with filter as (select $1::date as from_date, $2::date as to_date, $3::text[] as currencies,
	$4::text[] as providers, $5::text as ticket)`

// openSetSQL selects the ids of the records of side which without a live
// match at level l dated within the filter f (migration 00044), without
// testing every record of the dates against the level's matches:
//   - the exception queue's rows of the side with no live match;
//   - the records of the side's unseen ranges (no run has taken them in)
//     that count, have no row and no live match;
//   - the records that do not count or were made by hand (never in the
//     queue) with no live match.
//
// The three are disjoint. It needs f in scope (a lateral subquery).
func openSetSQL(l *Level, which string) string {
	s := l.side(which)
	return fmt.Sprintf(`
		select o.record_id from recon_open_item o
		where o.level = %[1]d and o.side = '%[2]s' and o.match_id is null and o.date between f.from_date and f.to_date
		union all
		select distinct u_s.id from recon_unseen u join %[3]s u_s on u_s.id between u.lo and u.hi
		where u.level = %[1]d and u.side = '%[2]s' and u_s.date between f.from_date and f.to_date
		  and u_s.counted and not u_s.manual
		  and not exists (select 1 from recon_open_item o where o.level = %[1]d and o.side = '%[2]s' and o.record_id = u_s.id)
		  and %[4]s
		union all
		select h.id from %[3]s h
		where h.date between f.from_date and f.to_date and (not h.counted or h.manual) and %[5]s`,
		l.N, which, s.Source, openSQL(l, which, "u_s"), openSQL(l, which, "h"))
}

// candidatesOfSQL selects the unmatched records of side which within the
// filters, with the dialog's columns under their field names.
func candidatesOfSQL(l *Level, which string) string {
	s := l.side(which)
	cols := make([]string, len(s.Columns))
	for i, c := range s.Columns {
		cols[i] = fmt.Sprintf(`s.%s as %q`, c.Column, c.Field)
	}
	where := []string{`s.date between f.from_date and f.to_date`, `(f.currencies is null or s.currency = any (f.currencies))`}
	for _, flt := range l.Filters {
		switch {
		case flt == "provider":
			// a record without a provider (a ticket) shows under any
			where = append(where, `(f.providers is null or s.provider_key is null or s.provider_key = any (f.providers))`)
		case flt == "ticket" && s.TicketFilter:
			where = append(where, `(f.ticket is null or s.ref = f.ticket)`)
		}
	}
	// (with the values nearSQL ranks by, so it need not read each record again)
	return fmt.Sprintf(`select s.id as id__, s.ref as ref__, s.currency as currency__, s.amount as amount__, s.date as date__, %s
		from filter f cross join lateral (%s) open (id) join %s s on s.id = open.id where %s`,
		strings.Join(cols, ", "), openSetSQL(l, which), s.Source, strings.Join(where, " and "))
}

// whyPairsSQL selects, for one record ($1) of side which, the records of
// the other side worth explaining: those sharing its key, and those in its
// currency within days days. Each row is one pair with the left and right
// values, the tolerance side's provider, whether the key and the provider
// agree, and the candidate's own fields.
func whyPairsSQL(l *Level, which string, days int) string {
	me, them := l.side(which), l.side(other(which))
	lAlias, rAlias := "me", "o"
	if which == "right" {
		lAlias, rAlias = "o", "me"
	}
	tol := lAlias
	if l.Tolerance.Side == "right" {
		tol = rAlias
	}
	return fmt.Sprintf(`select o.id as cand_id, o.ref as cand_ref, o.amount as cand_amount, o.currency as cand_cur, o.date as cand_date, o.provider as cand_provider,
			%[1]s.amount as l_amount, %[2]s.amount as r_amount, %[1]s.currency as l_cur, %[2]s.currency as r_cur,
			%[1]s.date as l_date, %[2]s.date as r_date, %[3]s.provider_key as provider_key,
			coalesce(%[4]s, false) as key_match,
			(me.provider_key is null or o.provider_key is null or me.provider_key = o.provider_key) as provider_match,
			%[1]s.id as left_id, %[2]s.id as right_id
		from %[5]s me join %[6]s o on (%[4]s)
			or (o.currency = me.currency and o.date between me.date - %[7]d and me.date + %[7]d)
		where me.id = $1`, lAlias, rAlias, tol, keyEqual(l, "me", "o"), me.Source, them.Source, days)
}
