package recon

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
)

// splitsSQL finds, after a run's one-to-one rounds, the groups its level's
// splits allow (recon.yaml): an unmatched anchor record with two to Max
// unmatched records of the other side sharing its key (recon_split_pairs),
// whose sum holds within the tolerances against the anchor (one
// evaluation, recon_pair_eval, over the sums: the other side's latest
// date, one currency). Which key-mates make the group is the groups CTE's
// (allOrNoneSQL or subsetsSQL), ending in s: the anchor, the group's sum,
// latest date, currency and records. Deterministic and conservative; a
// group whose first pair a user undid is not made again. $1 is the level,
// $2 its tolerance type, $3 Max. Every record's values come from
// recon_split_pairs, read once from the sides (splitRecord). Formatted with
// the group's anchor and first other record as a and f (from s), the
// pair's other record as o (from c), the group's first left and right ids, the tolerance side's
// alias, the pair's amounts, currencies and dates, the group's first pair
// as a run's candidates name it (l_amount ... l_date and the carry
// columns), and the groups CTE.
const splitsSQL = `
	create temp table recon_split on commit drop as
	with recursive %[9]s
	select s.anchor_id, s.others, %[3]s as left_id, %[4]s as right_id,
	       e.variance, e.lag, e.rank_diff, e.rule, e.status, %[7]s, %[5]s.provider_key%[8]s
	from s %[1]s
	left join recon_tolerance tol on tol.level = $2 and tol.provider_key = %[5]s.provider_key
	cross join lateral recon_pair_eval(%[6]s, tol.amount_threshold, tol.date_threshold, tol.currency_threshold) e
	where e.inside
	  and not exists (select 1 from recon_match u where u.level = $1 and u.left_id = %[3]s and u.right_id = %[4]s and u.undone_on is not null)`

// allOrNoneSQL: an anchor with 2 to Max key-mates takes all of them, when
// none of them is a key-mate of another such anchor (a record two anchors
// want is left to the user, and so are both anchors).
const allOrNoneSQL = `n as (
		select anchor_id from recon_split_pairs group by anchor_id having count(*) between 2 and $3
	), wanted as (
		select c.other_id from recon_split_pairs c join n using (anchor_id) group by c.other_id having count(*) > 1
	), ok as (
		select n.anchor_id from n
		where not exists (select 1 from recon_split_pairs c join wanted w using (other_id) where c.anchor_id = n.anchor_id)
	), s as (
		select c.anchor_id, sum(o.amount) as amount, max(o.date) as date, array_agg(o.id order by o.id) as others,
		       case when count(distinct o.currency) = 1 and count(o.currency) = count(*) then min(o.currency) end as currency
		from recon_split_pairs c join ok using (anchor_id) %[2]s
		group by c.anchor_id
	)`

// subsetsSQL: the bounded subset search (recon.yaml splits.search). An
// anchor with 2 to search key-mates takes the one subset of 2 to Max of
// them whose sum is exactly its amount, else the one subset whose sum is
// inside the tolerances; when two subsets fit as well, which records the
// anchor pays is the user's to say. A record two anchors' chosen subsets
// hold is left to the user, and so are both anchors. The subsets are
// built in id order (each once), with their running sum, latest date and
// one currency (null when mixed). Formatted as splitsSQL; search is %[10]d.
const subsetsSQL = `n as (
		select anchor_id from recon_split_pairs group by anchor_id having count(*) between 2 and %[10]d
	), mates as (
		select c.anchor_id, o.id, o.amount, o.date, o.currency, row_number() over (partition by c.anchor_id order by o.id) as k
		from recon_split_pairs c join n using (anchor_id) %[2]s
	), sub (anchor_id, k, others, amount, date, currency, mixed) as (
		select anchor_id, k, array[id], amount::numeric, date, currency, currency is null from mates
		union all
		select u.anchor_id, m.k, u.others || m.id, u.amount + m.amount, greatest(u.date, m.date), u.currency,
		       u.mixed or m.currency is distinct from u.currency
		from sub u join mates m on m.anchor_id = u.anchor_id and m.k > u.k
		where cardinality(u.others) < $3
	), fit as (
		select s.anchor_id, s.others, s.amount, s.date, s.currency, e.rank_diff = 0 as exact
		from (select anchor_id, others, amount, date, case when not mixed then currency end as currency
		      from sub where cardinality(others) >= 2) s
		%[1]s
		left join recon_tolerance tol on tol.level = $2 and tol.provider_key = %[5]s.provider_key
		cross join lateral recon_pair_eval(%[6]s, tol.amount_threshold, tol.date_threshold, tol.currency_threshold) e
		where e.inside
	), chosen as (
		select f.* from fit f
		join (select anchor_id, count(*) filter (where exact) as exact, count(*) as inside from fit group by anchor_id) c using (anchor_id)
		where (c.exact = 1 and f.exact) or (c.exact = 0 and c.inside = 1)
	), contested as (
		select x from chosen cross join unnest(others) x group by x having count(*) > 1
	), s as (
		select c.anchor_id, c.amount, c.date, c.others, c.currency from chosen c
		where not exists (select 1 from unnest(c.others) x join contested using (x))
	)`

// splitPairsSQL is the first step of splitsSQL: every unmatched anchor
// record and unmatched record of the other side sharing its key within the
// widest date window ($1), with the values of both the search and the
// report sums read (pairValues), so that no later step reads the records
// again (at a million records, 280,000 lookups: 1.2 s). A table of its own,
// analyzed: guessed, its size made the planner nest loops over it (at a
// million records, minutes).
const splitPairsSQL = `
	create temp table recon_split_pairs on commit drop as
	select a.id as anchor_id, o.id as other_id%[4]s
	from %[1]s
	where abs(o.date - a.date) <= $1::int and %[2]s and %[3]s`

// splitColumns are the columns a split search reads of a record of the
// anchor's side (anchor) or the other's: id, amount, currency, date and
// provider, and the level's carry columns carryOf names by that alias
// (l. ones by the anchor's a, the rest by the others' f and o).
func splitColumns(l *Level, anchor bool) []string {
	cols := []string{"id", "amount", "currency", "date", "provider_key"}
	for _, c := range l.Carry {
		prefix, col, _ := strings.Cut(c, ".")
		if (prefix == "l") == anchor && !slices.Contains(cols, col) {
			cols = append(cols, col)
		}
	}
	return cols
}

// pairValues are a split pair's values as recon_split_pairs keeps them,
// a_ the anchor's (a) and o_ the other record's (o): ", a.amount as
// a_amount, ...".
func pairValues(l *Level) string {
	var b strings.Builder
	for _, side := range []struct {
		alias  string
		anchor bool
	}{{"a", true}, {"o", false}} {
		for _, c := range splitColumns(l, side.anchor)[1:] {
			fmt.Fprintf(&b, ", %[1]s.%[2]s as %[1]s_%[2]s", side.alias, c)
		}
	}
	return b.String()
}

// splitRecord is a record of the split pairs' row p as alias: the anchor
// (its a_ values) or the other record (o_), by the columns' own names.
// (A projection the planner folds into the query, not a read.)
func splitRecord(l *Level, p, alias string, anchor bool) string {
	id, prefix := p+".other_id", "o_"
	if anchor {
		id, prefix = p+".anchor_id", "a_"
	}
	fields := []string{id + " as id"}
	for _, c := range splitColumns(l, anchor)[1:] {
		fields = append(fields, fmt.Sprintf("%s.%s%s as %s", p, prefix, c, c))
	}
	return fmt.Sprintf("cross join lateral (select %s) %s", strings.Join(fields, ", "), alias)
}

// groupRecords is the group s's anchor as a and its first other record as
// f, from their split pair.
func groupRecords(l *Level) string {
	return `join recon_split_pairs p on p.anchor_id = s.anchor_id and p.other_id = s.others[1] ` +
		splitRecord(l, "p", "a", true) + " " + splitRecord(l, "p", "f", false)
}

// splits is splitsSQL for level l.
func splits(l *Level) string {
	anchor := l.Splits.Anchor
	// the pair as the level sees it: left first; the other side as its sums
	pair := `a.amount, s.amount, a.currency, s.currency, a.date, s.date`
	leftID, rightID := `s.anchor_id`, `s.others[1]`
	if anchor == "right" {
		pair = `s.amount, a.amount, s.currency, a.currency, s.date, a.date`
		leftID, rightID = `s.others[1]`, `s.anchor_id`
	}
	tol := "a" // the tolerance side's provider: the anchor, or the other side's first record
	if l.Tolerance.Side != anchor {
		tol = "f"
	}
	// the group's first pair as a run's candidate names it (the report sums
	// add the further records apart: splitFactsSQL)
	names := `a.amount as l_amount, f.amount as r_amount, a.currency as l_cur, f.currency as r_cur, a.date as l_date`
	if anchor == "right" {
		names = `f.amount as l_amount, a.amount as r_amount, f.currency as l_cur, a.currency as r_cur, f.date as l_date`
	}
	groups, search := allOrNoneSQL, 0
	if l.Splits.Search > 0 {
		groups, search = subsetsSQL, l.Splits.Search
	}
	return fmt.Sprintf(strings.Replace(splitsSQL, "%[9]s", groups, 1),
		groupRecords(l), splitRecord(l, "c", "o", false), leftID, rightID, tol, pair, names, carryOf(l, "a", "f"), "", search)
}

// carryOf is the level's carry columns of the records aliased left and
// right (", x.col ...").
func carryOf(l *Level, left, right string) string {
	var b strings.Builder
	for _, c := range l.Carry {
		prefix, col, _ := strings.Cut(c, ".")
		alias := right
		if prefix == "l" {
			alias = left
		}
		fmt.Fprintf(&b, ", %s.%s", alias, col)
	}
	return b.String()
}

// splitFactsSQL adds to recon_cand (the groups' first pairs, weight 1) the
// further records of each group whose anchor is its left record: weight 0,
// no amount of the left side, the record's own right-side amount and
// carry, so the level's afterRun adds each as the match triggers would.
func splitFactsSQL(l *Level) string {
	return fmt.Sprintf(`insert into recon_cand
		select s.anchor_id, s.others, s.left_id, s.right_id, null, s.lag, null, s.rule, s.status,
		       0, o.amount, s.l_cur, s.r_cur, s.l_date, s.provider_key%s, 0
		from recon_split s cross join unnest(s.others[2:]) x
		join recon_split_pairs p on p.anchor_id = s.anchor_id and p.other_id = x %s %s`,
		carryOf(l, "a", "o"), splitRecord(l, "p", "a", true), splitRecord(l, "p", "o", false))
}

// splitPairs is splitPairsSQL for level l.
func splitPairs(l *Level) string {
	anchor, them := l.Splits.Anchor, other(l.Splits.Anchor)
	from := fmt.Sprintf(`%s a join %s o on %s`, l.side(anchor).Source, l.side(them).Source, keyEqual(l, "a", "o"))
	if l.Window == "key" {
		// Only the keys the other side holds more than once
		// (splitKeysSQL): each side's unmatched records of those keys
		// first, then joined. (Joining both whole sides first, as the
		// planner chose, hashed a million pairs to keep a tenth: level 2
		// at a million, 1.9 s; this way 1.2 s.)
		side := func(which string) string {
			cols := splitColumns(l, which == anchor)
			for _, k := range l.Key {
				if !slices.Contains(cols, k) {
					cols = append(cols, k)
				}
			}
			return fmt.Sprintf(`select x.%[1]s from %[2]s x where x.%[3]s in (select %[3]s from recon_split_keys) and %[4]s`,
				strings.Join(cols, ", x."), l.side(which).Source, l.Key[0], autoSQL(l, which, "x"))
		}
		return fmt.Sprintf(`create temp table recon_split_pairs on commit drop as
			with a as materialized (%s), o as materialized (%s)
			select a.id as anchor_id, o.id as other_id%s
			from a join o on %s
			where abs(o.date - a.date) <= $1::int`, side(anchor), side(them), pairValues(l), keyEqual(l, "a", "o"))
	}
	return fmt.Sprintf(splitPairsSQL, from, autoSQL(l, anchor, "a"), autoSQL(l, them, "o"), pairValues(l))
}

// splitKeysSQL lists, for a level paired by key, the values of its key's
// first column the other side of its splits holds more than once (a
// superset of the keys it holds more than once, read along the column's
// index): only those can split, so the
// search looks up the matches of the few records of those keys, not of a
// million (1M records: 0.3 s for this, instead of 1.8 s for the search
// over every record). A table of its own, analyzed, so the search's plan
// knows how few they are.
func splitKeysSQL(l *Level) string {
	return fmt.Sprintf(`create temp table recon_split_keys on commit drop as
		select %[1]s from %[2]s group by %[1]s having count(*) > 1`, l.Key[0], l.side(other(l.Splits.Anchor)).Source)
}

// matchSplits matches the groups splitsSQL finds, after the rounds: each
// group's first records as its match, the rest as its members, added to
// the report sums by the level's afterRun (or else by the triggers, as for
// a group made by hand). It adds what it matched to c.
func matchSplits(ctx context.Context, tx pgx.Tx, l *Level, runID int64, actor string, maxLag int, c *matchCounts, took *steps) error {
	if l.Splits == nil {
		return nil
	}
	// The statistics learn of the run's one-to-one matches first: planned
	// on the level's old (often empty) statistics, the triggers that add
	// the groups to the report sums walked a million new matches once per
	// member. And the search, a few records in a million, reads them along
	// their indexes as the cached pages they are (random_page_cost 1.1,
	// not 4): the groups' records were joined by hashing both whole sides
	// (1M records: 2.0 s, now 1.3 s).
	for _, sql := range []string{`set local default_statistics_target = 10`, `analyze recon_match`, `set local default_statistics_target to default`,
		`set local random_page_cost = 1.1`} {
		if _, err := tx.Exec(ctx, sql); err != nil {
			return err
		}
	}
	defer func() { _, _ = tx.Exec(ctx, `set local random_page_cost to default`) }()
	if l.Window == "key" {
		// (grouped in key order along the key's index: hashing a million
		// keys took twice as long)
		for _, sql := range []string{`set local enable_hashagg = off`, splitKeysSQL(l), `set local enable_hashagg to default`, `analyze recon_split_keys`} {
			if _, err := tx.Exec(ctx, sql); err != nil {
				return fmt.Errorf("split keys: %w", err)
			}
		}
	}
	if _, err := tx.Exec(ctx, splitPairs(l), maxLag); err != nil {
		return fmt.Errorf("split pairs: %w", err)
	}
	if _, err := tx.Exec(ctx, `analyze recon_split_pairs`); err != nil {
		return err
	}
	took.done("splitPairs")
	if _, err := tx.Exec(ctx, splits(l), l.N, l.toleranceType(), l.Splits.Max); err != nil {
		return fmt.Errorf("splits: %w", err)
	}
	took.done("splitGroups")
	// A level whose run adds its own pairs to the report sums (afterRun)
	// adds its groups the same way, each a row of its anchor with the sums
	// of the rest: the triggers would join tens of thousands of new matches
	// and members back to their records.
	direct := l.AfterRun != "" && l.Splits.Anchor == "left"
	if direct {
		if _, err := tx.Exec(ctx, `select set_config('ledgerdesk.recon_day_applied', 'on', true)`); err != nil {
			return err
		}
	}
	var matched, partial, extra int
	err := tx.QueryRow(ctx, `
		with ins as (
			insert into recon_match (level, left_id, right_id, status, rule, amount_variance, date_lag_days, run_id, created_by)
			select $1, s.left_id, s.right_id, s.status, s.rule, s.variance, s.lag, $2, $3 from recon_split s order by s.anchor_id
			returning status)
		select count(*) filter (where status = 'matched'), count(*) filter (where status = 'partial'),
		       (select coalesce(sum(cardinality(others) - 1), 0) from recon_split)
		from ins`, l.N, runID, actor).Scan(&matched, &partial, &extra)
	if err != nil {
		return fmt.Errorf("splits: %w", err)
	}
	took.done("splitInsert")
	// (a statement of its own: the match trigger added each group's first
	// records; the member trigger adds these)
	if _, err := tx.Exec(ctx, fmt.Sprintf(`
		insert into recon_match_member (match_id, level, side, record_id)
		select m.id, $1::smallint, '%[1]s', x
		from recon_split s
		join recon_match m on m.level = $1 and m.%[2]s_id = s.anchor_id and m.undone_on is null
		cross join unnest(s.others[2:]) x
		order by m.id, x`, other(l.Splits.Anchor), l.Splits.Anchor), l.N); err != nil {
		return fmt.Errorf("split members: %w", err)
	}
	if direct {
		for _, sql := range []string{`select set_config('ledgerdesk.recon_day_applied', 'off', true)`,
			`drop table recon_cand`, `create temp table recon_cand on commit drop as select *, 1 as weight from recon_split`, splitFactsSQL(l)} {
			if _, err := tx.Exec(ctx, sql); err != nil {
				return fmt.Errorf("split day sums: %w", err)
			}
		}
		if err := afterRun(ctx, tx, l); err != nil {
			return fmt.Errorf("split day sums: %w", err)
		}
	}
	c.matched += matched
	c.partial += partial
	if l.Splits.Anchor == "left" {
		c.rightExtra += extra
	} else {
		c.leftExtra += extra
	}
	return nil
}
