-- +goose Up
-- Match groups (DESIGN.md section 6): a match joins one or more records of
-- a level's left side with one or more of its right side. The recon_match
-- row is the group: its status, rule, variance (the group's sums compared,
-- left minus right in the left currency), reason, who, when and undo; its
-- left_id and right_id are the group's first record of each side, and
-- recon_match_member holds the further records. A one-to-one match (nearly
-- all of them, and every match an automatic run writes one by one) has no
-- member rows, so runs write what they wrote before.
--
-- A record has at most one live match per level, enforced here: the unique
-- live indexes of recon_match (its first records), the unique live index of
-- recon_match_member (the further ones), and triggers refusing a record
-- that is live in the other table (unique_violation).
--
-- Reports and their day sums count every record of a group: its first
-- left record carries the group's variance, the further ones none, so a
-- report's sums are the group's sums; a further record is exact only when
-- its group is.

create table recon_match_member (
    match_id  bigint not null references recon_match (id),
    level     smallint not null,
    side      text not null check (side in ('left', 'right')),
    record_id bigint not null,
    live      boolean not null default true, -- false once its group is undone (kept with it)
    primary key (match_id, side, record_id)
);
create unique index recon_match_member_live on recon_match_member (level, side, record_id) where live;

-- +goose StatementBegin
-- A member belongs to a live group of its level, and its record is not the
-- first record of a live match of that level and side.
create function recon_match_member_check() returns trigger language plpgsql as $f$
declare
    bad record;
begin
    select n.* into bad from new_rows n left join recon_match h on h.id = n.match_id
    where h.id is null or h.level <> n.level or h.undone_on is not null limit 1;
    if found then
        raise exception 'member % of match % does not belong to a live match of level %', bad.record_id, bad.match_id, bad.level
            using errcode = '23514';
    end if;
    select n.* into bad from new_rows n
    where n.live and (
        (n.side = 'left' and exists (select 1 from recon_match m where m.level = n.level and m.left_id = n.record_id and m.undone_on is null))
        or (n.side = 'right' and exists (select 1 from recon_match m where m.level = n.level and m.right_id = n.record_id and m.undone_on is null)))
    limit 1;
    if found then
        raise exception 'the % record % already has a live match at level %', bad.side, bad.record_id, bad.level
            using errcode = '23505';
    end if;
    return null;
end
$f$;

-- A new live match's first records are not further records of a live
-- group (checked only while groups exist: an automatic run's million new
-- matches cost nothing more when none do).
create function recon_match_claim_check() returns trigger language plpgsql as $f$
declare
    bad record;
begin
    if not exists (select 1 from recon_match_member where live) then
        return null;
    end if;
    select n.level, n.left_id, n.right_id into bad from new_rows n
    where n.undone_on is null and exists (
        select 1 from recon_match_member mm where mm.live and mm.level = n.level
          and ((mm.side = 'left' and mm.record_id = n.left_id) or (mm.side = 'right' and mm.record_id = n.right_id)))
    limit 1;
    if found then
        raise exception 'a record of the new match % / % already is in a live group at level %', bad.left_id, bad.right_id, bad.level
            using errcode = '23505';
    end if;
    return null;
end
$f$;

-- An undone group's members are no longer live (their records are free).
create function recon_match_member_follow() returns trigger language plpgsql as $f$
begin
    if not exists (select 1 from recon_match_member where live) then
        return null;
    end if;
    update recon_match_member mm set live = false
    from new_rows n where n.id = mm.match_id and n.undone_on is not null and mm.live;
    return null;
end
$f$;
-- +goose StatementEnd

create trigger recon_match_member_check after insert on recon_match_member
    referencing new table as new_rows for each statement execute function recon_match_member_check();
create trigger recon_match_claim_check after insert on recon_match
    referencing new table as new_rows for each statement execute function recon_match_claim_check();
create trigger recon_match_member_follow after update on recon_match
    referencing new table as new_rows for each statement execute function recon_match_member_follow();

-- Every live match of a record, whichever place it has in its group: a row
-- per record of every live match, with the group's fields. variance_share
-- is what the record carries of the group's variance in sums over its side
-- (the first record of each side all of it, the further ones none);
-- amount_variance is the group's. Readers ask it for one record
-- (level, side, record_id), which each branch answers from its index (a
-- further record's level is read from its member row, whose index has it).
create view recon_match_live as
    select m.level, 'left'::text as side, m.left_id as record_id, true as first, m.id, m.left_id, m.right_id, m.status, m.rule,
           m.amount_variance, m.amount_variance as variance_share, m.date_lag_days, m.reason, m.run_id, m.created_by, m.created_on
    from recon_match m where m.undone_on is null
    union all
    select m.level, 'right', m.right_id, true, m.id, m.left_id, m.right_id, m.status, m.rule,
           m.amount_variance, m.amount_variance, m.date_lag_days, m.reason, m.run_id, m.created_by, m.created_on
    from recon_match m where m.undone_on is null
    union all
    select mm.level, mm.side, mm.record_id, false, m.id, m.left_id, m.right_id, m.status, m.rule,
           m.amount_variance, 0::numeric(20, 2), m.date_lag_days, m.reason, m.run_id, m.created_by, m.created_on
    from recon_match_member mm join recon_match m on m.id = mm.match_id
    where mm.live and m.undone_on is null;

-- +goose StatementBegin
-- The records of a side of a match, its first record first.
create function recon_match_ids(p_match bigint, p_side text) returns bigint[] language sql stable as $f$
    select case when p_side = 'left' then m.left_id else m.right_id end
           || array(select mm.record_id from recon_match_member mm where mm.match_id = m.id and mm.side = p_side order by mm.record_id)
    from recon_match m where m.id = p_match
$f$;

-- The one evaluation of a group (recon_pair_eval over the sums of each
-- side) against the tolerances of its level and provider: the sums, each
-- side's currency (null when its records are in several), its latest date,
-- the provider whose tolerance counts (the tolerance side's first record),
-- the tolerances, and the pair evaluation of the two sums. A one-to-one
-- group evaluates as its pair.
create function recon_group_eval(p_level int, p_left bigint[], p_right bigint[])
returns table (left_sum numeric, right_sum numeric, left_cur text, right_cur text, left_date date, right_date date,
               left_n int, right_n int, provider_key text, provider text,
               amount_threshold numeric, date_threshold integer, currency_threshold numeric,
               variance numeric, lag integer, rank_diff numeric, diff_pct numeric, rule text, status text,
               amount_ok boolean, date_ok boolean, currency_ok boolean, inside boolean, no_rate boolean,
               amount_missed numeric, date_missed integer, currency_missed numeric)
language plpgsql stable as $f$
declare
    l recon_level;
begin
    select * into l from recon_level where number = p_level;
    if not found then
        raise exception 'no reconciliation level %', p_level using errcode = '22023';
    end if;
    return query execute format($q$
        with a as (
            select sum(s.amount) as total, case when count(distinct s.currency) = 1 and count(s.currency) = count(*) then min(s.currency) end as cur,
                   max(s.date) as day, count(*)::int as n
            from %1$I s where s.id = any ($2)
        ), b as (
            select sum(s.amount) as total, case when count(distinct s.currency) = 1 and count(s.currency) = count(*) then min(s.currency) end as cur,
                   max(s.date) as day, count(*)::int as n
            from %2$I s where s.id = any ($3)
        ), p as (
            select s.provider_key, s.provider from %3$I s where s.id = $4
        )
        select a.total, b.total, a.cur, b.cur, a.day, b.day, a.n, b.n, p.provider_key, p.provider,
               tol.amount_threshold, tol.date_threshold, tol.currency_threshold,
               e.variance, e.lag, e.rank_diff, e.diff_pct, e.rule, e.status, e.amount_ok, e.date_ok, e.currency_ok, e.inside,
               e.no_rate, e.amount_missed, e.date_missed, e.currency_missed
        from a cross join b left join p on true
        left join recon_tolerance tol on tol.level = $1 and tol.provider_key = p.provider_key
        cross join lateral recon_pair_eval(a.total, b.total, a.cur, b.cur, a.day, b.day,
                                           tol.amount_threshold, tol.date_threshold, tol.currency_threshold) e $q$,
        l.left_source, l.right_source, case when l.tolerance_side = 'left' then l.left_source else l.right_source end)
    using l.tolerance_type, p_left, p_right, case when l.tolerance_side = 'left' then p_left[1] else p_right[1] end;
end
$f$;

-- The facts of the level-1 day sums for the matches of heads (a table,
-- transition table or query in parentheses of recon_match rows): a row per
-- left record of each match, its first record (with_heads) and its further
-- ones listed in members (recon_match_member, or the new rows of it), with
-- the provider of the group's first transaction. The first ticket carries
-- the group's variance, a further one none and is exact only when its
-- group is.
create function recon_ticket_day_group_facts(heads text, members text, with_heads boolean) returns text language sql immutable as $f$
    select format($q$
        select t.trans_date, t.currency, coalesce(t.payment_type, ''), coalesce(t.country_code, ''),
               coalesce(lower(x.provider_actor), ''), m.fact_status, m.fact_variance, t.sale_amount
        from (
            select m.level, m.left_id as record_id, m.right_id, m.status as fact_status, m.amount_variance as fact_variance, m.undone_on, m.status
            from %1$s m where %3$L
            union all
            select m.level, mm.record_id, m.right_id,
                   case when m.status = 'matched' and coalesce(m.amount_variance, 0) = 0 then 'matched' else 'partial' end, 0, m.undone_on, m.status
            from %1$s m join %2$s mm on mm.match_id = m.id and mm.side = 'left') m
        join ticket t on t.id = m.record_id
        join card_transaction x on x.id = m.right_id
        where m.level = 1 and m.undone_on is null and m.status <> 'investigation' $q$, heads, members, with_heads)
$f$;

create or replace function recon_ticket_day_facts(rel text) returns text language sql immutable as $f$
    select recon_ticket_day_group_facts(rel, 'recon_match_member', true)
$f$;

-- The level-2 facts: a row per left record of each match as for level 1
-- (with the settlement currency of the group's first settlement), and a
-- row of weight 0 per further settlement of a group, adding its gross,
-- fees and net to the row of the group's first transaction.
create function recon_transaction_day_group_facts(heads text, members text, with_heads boolean) returns text language sql immutable as $f$
    select format($q$
        select x.processing_date, x.currency, x.provider_actor, s.settlement_currency, m.fact_status, m.fact_variance,
               x.transaction_amount, coalesce(s.gross_amount, s.settlement_net + coalesce(s.fees, 0)), s.fees, s.settlement_net, 1
        from (
            select m.level, m.left_id as record_id, m.right_id, m.status as fact_status, m.amount_variance as fact_variance, m.undone_on, m.status,
                   true as first
            from %1$s m where %3$L
            union all
            select m.level, mm.record_id, m.right_id,
                   case when m.status = 'matched' and coalesce(m.amount_variance, 0) = 0 then 'matched' else 'partial' end, 0, m.undone_on, m.status,
                   false
            from %1$s m join %2$s mm on mm.match_id = m.id and mm.side = 'left') m
        join card_transaction x on x.id = m.record_id and not x.is_manual_adjust
        join settlement s0 on s0.id = m.right_id
        -- a further transaction names its group's settlement currency, not its sums
        cross join lateral (select s0.settlement_currency,
                                   case when m.first then s0.gross_amount end as gross_amount,
                                   case when m.first then s0.settlement_net end as settlement_net,
                                   case when m.first then s0.fees end as fees) s
        where m.level = 2 and m.undone_on is null and m.status <> 'investigation'
        union all
        select x.processing_date, x.currency, x.provider_actor, s0.settlement_currency, m.status, null,
               0, coalesce(s.gross_amount, s.settlement_net + coalesce(s.fees, 0)), s.fees, s.settlement_net, 0
        from %1$s m
        join %2$s mm on mm.match_id = m.id and mm.side = 'right'
        join card_transaction x on x.id = m.left_id and not x.is_manual_adjust
        join settlement s0 on s0.id = m.right_id
        join settlement s on s.id = mm.record_id
        where m.level = 2 and m.undone_on is null and m.status <> 'investigation' $q$, heads, members, with_heads)
$f$;

create or replace function recon_transaction_day_facts(rel text) returns text language sql immutable as $f$
    select recon_transaction_day_group_facts(rel, 'recon_match_member', true)
$f$;

-- A group's further records added to the day sums of their level when they
-- join it (their group's first records were added with it).
create function recon_day_member_apply() returns trigger language plpgsql as $f$
declare
    level1 boolean := exists (select 1 from new_rows where level = 1);
    level2 boolean := exists (select 1 from new_rows where level = 2);
    -- (their groups read by id: a run's split members are tens of thousands,
    -- which a semi-join with the transition table, guessed small, probed
    -- the whole matches table for)
    heads text := '(select h.* from recon_match h where h.id = any (array(select distinct match_id from new_rows)))';
begin
    perform recon_day_lock(level1, level2);
    if level1 then
        execute recon_ticket_day_add(recon_ticket_day_moves_of(recon_ticket_day_group_facts(heads, 'new_rows', false), 1));
        delete from recon_ticket_day where tickets = 0;
    end if;
    if level2 then
        execute recon_transaction_day_add(recon_transaction_day_moves_of(recon_transaction_day_group_facts(heads, 'new_rows', false), 1));
        delete from recon_transaction_day where transactions = 0;
    end if;
    return null;
end
$f$;

-- The level-2 moves, as in 00017, with a weight per fact: 1 for a
-- transaction, 0 for a further settlement of a group (its sums only).
create or replace function recon_transaction_day_moves_of(facts text, sign int) returns text language sql immutable as $f$
    select format($q$
        select g.processing_date, g.currency, g.provider_actor, v.settlement_currency,
               %1$s * v.transactions, %1$s * v.amount, %1$s * v.matched, %1$s * v.exact, %1$s * v.gross, %1$s * v.gross_n,
               %1$s * v.fees, %1$s * v.fees_n, %1$s * v.net, %1$s * v.settled, %1$s * v.fx_amount, %1$s * v.fx_cost,
               %1$s * v.fx_n, %1$s * v.fx_cost_n
        from (
            select f.processing_date, f.currency, f.provider_actor, f.settlement_currency, sum(f.weight) as n, sum(f.transaction_amount) as amount,
                   coalesce(sum(f.weight) filter (where f.status = 'matched' and coalesce(f.amount_variance, 0) = 0), 0) as exact,
                   coalesce(sum(f.gross), 0) as gross, count(f.gross) as gross_n,
                   coalesce(sum(f.fees), 0) as fees, count(f.fees) as fees_n, coalesce(sum(f.settlement_net), 0) as net,
                   sum(f.transaction_amount - coalesce(f.amount_variance, 0)) as settled,
                   case when f.settlement_currency <> f.currency then sum(f.transaction_amount) else 0 end as fx_amount,
                   case when f.settlement_currency <> f.currency then coalesce(sum(f.amount_variance), 0) else 0 end as fx_cost,
                   case when f.settlement_currency <> f.currency then sum(f.weight) else 0 end as fx_n,
                   case when f.settlement_currency <> f.currency then count(f.amount_variance) else 0 end as fx_cost_n
            from (%2$s) f (processing_date, currency, provider_actor, settlement_currency, status, amount_variance,
                           transaction_amount, gross, fees, settlement_net, weight)
            group by 1, 2, 3, 4) g
        cross join lateral (values
            (null::text, -g.n, -g.amount, 0::bigint, 0::bigint, 0::numeric, 0::bigint, 0::numeric, 0::bigint, 0::numeric,
             0::numeric, 0::numeric, 0::numeric, 0::bigint, 0::bigint),
            (g.settlement_currency, g.n, g.amount, g.n, g.exact, g.gross, g.gross_n, g.fees, g.fees_n, g.net,
             g.settled, g.fx_amount, g.fx_cost, g.fx_n, g.fx_cost_n))
            v(settlement_currency, transactions, amount, matched, exact, gross, gross_n, fees, fees_n, net, settled, fx_amount, fx_cost, fx_n, fx_cost_n) $q$, sign, facts)
$f$;

-- A run's pairs and groups (recon_cand: weight 1 a group's first pair,
-- weight 0 each further record of the grouped side, automatic splits).
create or replace function recon_day_apply_run(level int) returns void language plpgsql as $f$
begin
    if level = 1 then
        perform recon_day_apply_facts(1, $q$select l_date, l_cur, coalesce(payment_type, ''), coalesce(country_code, ''),
            coalesce(provider_key, ''), status, variance, l_amount from recon_cand where weight = 1$q$);
    elsif level = 2 then
        perform recon_day_apply_facts(2, $q$select l_date, l_cur, provider, r_cur, status, variance, l_amount, r_amount,
            fees, settlement_net, weight from recon_cand$q$);
    end if;
end
$f$;

-- The day refreshes: the matches with a record of the days (a group's
-- records may lie on several), and only the facts of those days.
create or replace function recon_ticket_day_refresh(days date[]) returns void language plpgsql as $f$
declare
    t text := case when days is null then 'ticket' else '(select * from ticket where trans_date = any ($1))' end;
    m text := case when days is null then 'recon_match'
                   else '(select m.* from recon_match m where m.level = 1 and m.undone_on is null and m.id in (
                              select v.id from ticket t join recon_match_live v on v.level = 1 and v.side = ''left'' and v.record_id = t.id
                              where t.trans_date = any ($1)))' end;
begin
    delete from recon_ticket_day where days is null or trans_date = any (days);
    execute format($q$
        insert into recon_ticket_day
        select trans_date, currency, payment_type, country_code, provider_key, sum(tickets), sum(matched), sum(exact), sum(sra), sum(ppa)
        from (%s union all %s) r (trans_date, currency, payment_type, country_code, provider_key, tickets, matched, exact, sra, ppa)
        where $1 is null or trans_date = any ($1)
        group by 1, 2, 3, 4, 5 having sum(tickets) <> 0 $q$, recon_ticket_day_rows(t, 1), recon_ticket_day_moves(m, 1)) using days;
end
$f$;

create or replace function recon_transaction_day_refresh(days date[]) returns void language plpgsql as $f$
declare
    x text := case when days is null then 'card_transaction' else '(select * from card_transaction where processing_date = any ($1))' end;
    m text := case when days is null then 'recon_match'
                   else '(select m.* from recon_match m where m.level = 2 and m.undone_on is null and m.id in (
                              select v.id from card_transaction x join recon_match_live v on v.level = 2 and v.side = ''left'' and v.record_id = x.id
                              where x.processing_date = any ($1)))' end;
begin
    delete from recon_transaction_day where days is null or processing_date = any (days);
    execute format($q$
        insert into recon_transaction_day
        select processing_date, currency, provider_actor, settlement_currency, sum(transactions), sum(amount), sum(matched), sum(exact),
               sum(gross), sum(gross_n), sum(fees), sum(fees_n), sum(net), sum(settled), sum(fx_amount), sum(fx_cost), sum(fx_n), sum(fx_cost_n)
        from (%s union all %s) r (processing_date, currency, provider_actor, settlement_currency, transactions, amount, matched, exact,
                                  gross, gross_n, fees, fees_n, net, settled, fx_amount, fx_cost, fx_n, fx_cost_n)
        where $1 is null or processing_date = any ($1)
        group by 1, 2, 3, 4 having sum(transactions) <> 0 $q$, recon_transaction_day_rows(x, 1), recon_transaction_day_moves(m, 1)) using days;
end
$f$;
-- +goose StatementEnd

-- (an automatic run adds its groups to the sums itself, as its pairs:
-- ledgerdesk.recon_day_applied on)
create trigger recon_day_member_insert after insert on recon_match_member
    referencing new table as new_rows for each statement
    when (coalesce(current_setting('ledgerdesk.recon_day_applied', true), '') <> 'on')
    execute function recon_day_member_apply();

-- +goose StatementBegin
-- recon_follow as in 00018, for groups too: a record gone ends its group;
-- a group whose records changed is evaluated again over its sums
-- (recon_group_eval), a one-to-one match over its pair as before. The ids
-- are records whose compared values changed (recon_follow_apply), so the
-- evaluation's verdict stands even where the variance and lag come out as
-- they were (an unknown variance, a date that is not the latest).
create or replace function recon_follow(source text, ids bigint[]) returns void language plpgsql as $f$
declare
    l recon_level;
    side text;
    groups boolean := exists (select 1 from recon_match_member where live);
begin
    if ids is null or cardinality(ids) = 0 then
        return;
    end if;
    for l in select * from recon_level where left_source = source or right_source = source order by number loop
        foreach side in array array['left', 'right'] loop
            continue when (side = 'left' and l.left_source <> source) or (side = 'right' and l.right_source <> source);
            execute format($q$
                update recon_match m set undone_on = now(), undone_by = 'system',
                       undo_reason = 'The record was deleted or left reconciliation.'
                where m.level = $1 and m.%1$I in (select unnest($2)) and m.undone_on is null
                  and not exists (select 1 from %2$I s where s.id = m.%1$I) $q$,
                side || '_id', source) using l.number, ids;
            if groups then
                execute format($q$
                    update recon_match m set undone_on = now(), undone_by = 'system',
                           undo_reason = 'The record was deleted or left reconciliation.'
                    where m.undone_on is null and m.id in (
                        select mm.match_id from recon_match_member mm
                        where mm.level = $1 and mm.side = $3 and mm.live and mm.record_id in (select unnest($2))
                          and not exists (select 1 from %1$I s where s.id = mm.record_id)) $q$,
                    source) using l.number, ids, side;
            end if;
            -- one-to-one matches
            execute format($q$
                update recon_match m set amount_variance = x.variance, date_lag_days = x.lag, status = x.status
                from (
                    select m.id, e.variance, e.lag,
                           case when m.status = 'investigation' then 'investigation' when e.inside then e.status else 'changed' end as status
                    from recon_match m
                    join %2$I l on l.id = m.left_id
                    join %3$I r on r.id = m.right_id
                    left join recon_tolerance tol on tol.level = $3 and tol.provider_key = %4$s.provider_key
                    cross join lateral recon_pair_eval(l.amount, r.amount, l.currency, r.currency, l.date, r.date,
                        tol.amount_threshold, tol.date_threshold, tol.currency_threshold) e
                    where m.level = $1 and m.%1$I in (select unnest($2)) and m.undone_on is null
                      and ($4 is false or not exists (select 1 from recon_match_member mm where mm.match_id = m.id))) x
                where m.id = x.id
                  and (m.amount_variance, m.date_lag_days, m.status) is distinct from (x.variance, x.lag, x.status) $q$,
                side || '_id', l.left_source, l.right_source, case when l.tolerance_side = 'left' then 'l' else 'r' end)
                using l.number, ids, l.tolerance_type, groups;
            -- groups: evaluated over their sums
            if groups then
                execute format($q$
                    update recon_match m set amount_variance = x.variance, date_lag_days = x.lag, status = x.status
                    from (
                        select g.id, e.variance, e.lag,
                               case when g.status = 'investigation' then 'investigation' when e.inside then e.status else 'changed' end as status
                        from (select distinct m.id, m.level, m.status from recon_match m
                              left join recon_match_member mm on mm.match_id = m.id and mm.side = $3 and mm.live
                              where m.level = $1 and m.undone_on is null
                                and exists (select 1 from recon_match_member x where x.match_id = m.id)
                                and (m.%1$I in (select unnest($2)) or mm.record_id in (select unnest($2)))) g
                        cross join lateral recon_group_eval(g.level, recon_match_ids(g.id, 'left'), recon_match_ids(g.id, 'right')) e) x
                    where m.id = x.id
                      and (m.amount_variance, m.date_lag_days, m.status) is distinct from (x.variance, x.lag, x.status) $q$,
                    side || '_id') using l.number, ids, side;
            end if;
        end loop;
    end loop;
end
$f$;
-- +goose StatementEnd

-- +goose StatementBegin
-- The reports: every record of a group counts (recon_match_live), the first
-- record of each side carrying the group's variance; a row is exact only
-- when its group is.
CREATE OR REPLACE FUNCTION public.recon_settlement_bank_report(p_from date, p_to date, p_currency text[], p_provider text[])
 RETURNS TABLE(payout_id text, settlement_date date, settlement_amount numeric, settlement_currency text, provider_actor text, booked_date date, bank_account text, reco_amount_in_local_currency numeric, charges numeric, currency text, amount_variance numeric, recon_status text, recon_status_number integer, bank_id bigint, match_id bigint)
 LANGUAGE sql
 STABLE
AS $function$
    select p.payout_key, p.latest_date, p.total_net, coalesce(p.currency, c.currencies), p.provider_actor,
           b.booked_date, b.bank_account, coalesce(b.reco_amount_in_local_currency, b.amount_local), b.bank_charges_in_local, b.currency,
           m.amount_variance, s.label, s.n, b.id, m.id
    from payout p
    -- a payout in several currencies names them all
    left join lateral (
        select string_agg(distinct d.settlement_currency, ', ') as currencies
        from recon_payout_day d where p.currency is null and d.payout_id = p.payout_key) c on true
    left join lateral (
        select m.id, m.status, m.variance_share as amount_variance, m.amount_variance as group_variance, m.right_id
        from recon_match_live m where m.level = 3 and m.side = 'left' and m.record_id = p.id limit 1) m on true
    left join lateral (select b.* from bank_booking b where b.id = m.right_id limit 1) b on true
    cross join lateral (select case
            when m.id is null then 3
            when m.status = 'matched' and coalesce(m.group_variance, 0) = 0 then 1
            else 2 end as n) sn
    cross join lateral (select sn.n, (array['Matched', 'Partial', 'Unmatched'])[sn.n] as label) s
    where p.latest_date between p_from and p_to
      and (p_currency is null or p.currency = any (p_currency)
           or p.currency is null and exists (select 1 from recon_payout_day d where d.payout_id = p.payout_key
                                             and d.settlement_currency = any (p_currency)))
      and (p_provider is null or lower(p.provider_actor) in (select lower(v) from unnest(p_provider) v))
$function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION public.recon_ticket_lookup(p_from date, p_to date, p_currency text[], p_provider text[], p_ticket text)
 RETURNS TABLE(id bigint, ticket_date date, ticket_number text, currency text, payment_type text, country_code text, sales_amount numeric, transaction_date date, provider_actor text, transaction_amount numeric, variance_amount numeric, reconciliation_status text, reconciliation_status_number integer, match_id bigint)
 LANGUAGE sql
 STABLE
AS $function$
    select t.id, t.trans_date, t.ticket_number, t.currency, t.payment_type, t.country_code, t.sale_amount,
           x.processing_date, x.provider_actor, x.transaction_amount, m.amount_variance,
           case when m.status = 'changed' then 'Changed since matched'
                else (array['Matched', 'Partial', 'Investigation', 'Matched with difference', 'Unmatched'])[sn.n] end, sn.n, m.id
    from ticket t
    left join lateral (
        select m.id, m.status, m.rule, m.variance_share as amount_variance, m.amount_variance as group_variance, m.right_id
        from recon_match_live m where m.level = 1 and m.side = 'left' and m.record_id = t.id limit 1) m on true
    left join lateral (select x.processing_date, x.provider_actor, x.transaction_amount, x.id
        from card_transaction x where x.id = m.right_id limit 1) x on true
    cross join lateral (select case
            when m.id is null then 5
            when m.status = 'investigation' then 3
            when m.status = 'changed' then 2
            when m.rule in ('manual', 'forced') and coalesce(m.group_variance, 0) <> 0 then 4
            when m.status = 'matched' then 1
            else 2 end as n) sn
    where (p_from is null or t.trans_date >= p_from) and (p_to is null or t.trans_date <= p_to)
      and (p_currency is null or t.currency = any (p_currency))
      and (p_ticket is null or t.ticket_number = p_ticket)
      and (p_provider is null or x.id is null or lower(x.provider_actor) in (select lower(v) from unnest(p_provider) v))
$function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION public.recon_ticket_transaction_report(p_from date, p_to date, p_currency text[], p_provider text[], p_ticket text)
 RETURNS TABLE(row_key text, ticket_date date, sales_currency text, payment_type text, country_code text, sra_ticket_count bigint, ppa_transaction_count bigint, sra_total_amount numeric, ppa_total_amount numeric, count_variance bigint, amount_variance numeric, reconciliation_status text, reconcile_status_number integer)
 LANGUAGE sql
 STABLE
AS $function$
    with providers as (
        select lower(v) as provider_key from unnest(p_provider) v
    ), sums as (
        -- a month of groups from the day sums
        select d.trans_date, d.currency, d.payment_type, d.country_code, sum(d.tickets)::bigint as tickets, sum(d.matched)::bigint as transactions,
               sum(d.sra) as sra, sum(d.ppa) as ppa, sum(d.exact) = sum(d.tickets) as all_exact
        from recon_ticket_day d
        where p_ticket is null and d.trans_date between p_from and p_to
          and (p_currency is null or d.currency = any (p_currency))
          -- an unmatched ticket has no provider yet: it shows under any provider filter
          and (p_provider is null or d.provider_key is null or d.provider_key in (select provider_key from providers))
        group by d.trans_date, d.currency, d.payment_type, d.country_code
    ), one as (
        -- one ticket number: its tickets, each with its match
        select t.trans_date, t.currency, coalesce(t.payment_type, '') as payment_type, coalesce(t.country_code, '') as country_code,
               count(*) as tickets, count(m.id) as transactions, sum(t.sale_amount) as sra,
               coalesce(sum(t.sale_amount - coalesce(m.amount_variance, 0)) filter (where m.id is not null), 0) as ppa,
               bool_and(m.id is not null and m.status = 'matched' and coalesce(m.group_variance, 0) = 0) as all_exact
        from ticket t
        left join lateral (
            select m.id, m.status, m.variance_share as amount_variance, m.amount_variance as group_variance, x.provider_actor
            from recon_match_live m join card_transaction x on x.id = m.right_id
            where m.level = 1 and m.side = 'left' and m.record_id = t.id and m.status <> 'investigation'
            limit 1) m on true
        where t.ticket_number = p_ticket and t.trans_date between p_from and p_to
          and (p_currency is null or t.currency = any (p_currency))
          and (p_provider is null or m.id is null or lower(m.provider_actor) in (select provider_key from providers))
        group by 1, 2, 3, 4
    ), g as (
        select * from sums union all select * from one
    ), adj as (
        -- manual adjustments of tasks (few) count once, toward the ticket each was made for
        select t.trans_date, t.currency, coalesce(t.payment_type, '') as payment_type, coalesce(t.country_code, '') as country_code,
               sum(a.amount) as amount
        from (select a.adjusted_ticket_id, sum(a.transaction_amount) as amount
              from card_transaction a where a.task_id is not null and a.is_manual_adjust
              group by a.adjusted_ticket_id) a
        join ticket t on t.id = a.adjusted_ticket_id
        left join lateral (
            select m.id, x.provider_actor
            from recon_match_live m join card_transaction x on x.id = m.right_id
            where m.level = 1 and m.side = 'left' and m.record_id = t.id and m.status <> 'investigation'
            limit 1) m on true
        where t.trans_date between p_from and p_to
          and (p_ticket is null or t.ticket_number = p_ticket)
          and (p_currency is null or t.currency = any (p_currency))
          and (p_provider is null or m.id is null or lower(m.provider_actor) in (select provider_key from providers))
        group by 1, 2, 3, 4
    ), changed as (
        -- groups holding a match changed since it was made (few): never
        -- Matched, whatever their sums say (its variance may be unknown)
        select distinct t.trans_date, t.currency, coalesce(t.payment_type, '') as payment_type, coalesce(t.country_code, '') as country_code
        from recon_match_live m join ticket t on t.id = m.record_id
        where m.level = 1 and m.side = 'left' and m.status = 'changed' and t.trans_date between p_from and p_to
    ), r as (
        select g.trans_date, g.currency, g.payment_type, g.country_code, g.tickets, g.transactions, g.sra,
               g.ppa + coalesce(adj.amount, 0) as ppa,
               -- Matched: every ticket matched and no variance left (DESIGN.md
               -- section 6), adjustments included
               g.sra = g.ppa + coalesce(adj.amount, 0) and g.transactions = g.tickets
               and not exists (select 1 from changed c where (c.trans_date, c.currency, c.payment_type, c.country_code) =
                                                             (g.trans_date, g.currency, g.payment_type, g.country_code)) as matched
        from g left join adj using (trans_date, currency, payment_type, country_code)
    )
    select concat_ws('|', trans_date, currency, payment_type, country_code), trans_date, currency, payment_type, country_code,
           tickets, transactions, sra, ppa, tickets - transactions, sra - ppa,
           case when transactions = 0 then 'Unmatched' when matched then 'Matched' else 'Partial' end,
           case when transactions = 0 then 1 when matched then 3 else 2 end
    from r
$function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION public.recon_level_report(p_level integer, p_from date, p_to date, p_currency text[], p_provider text[])
 RETURNS TABLE(left_id bigint, left_ref text, left_date date, left_amount numeric, left_currency text, provider text, right_id bigint, right_ref text, right_date date, right_amount numeric, right_currency text, amount_variance numeric, recon_status text, recon_status_number integer, match_id bigint)
 LANGUAGE plpgsql
 STABLE
AS $function$
declare
    l recon_level;
begin
    select * into l from recon_level where number = p_level;
    if not found then
        raise exception 'no reconciliation level %', p_level using errcode = '22023';
    end if;
    return query execute format($q$
        select a.id, a.ref, a.date, a.amount, a.currency, coalesce(a.provider, b.provider),
               b.id, b.ref, b.date, b.amount, b.currency, m.amount_variance,
               (array['Matched', 'Partial', 'Unmatched'])[sn.n], sn.n, m.id
        from %1$I a
        left join lateral (
            select m.id, m.status, m.variance_share as amount_variance, m.amount_variance as group_variance, m.right_id
            from recon_match_live m where m.level = $1 and m.side = 'left' and m.record_id = a.id limit 1) m on true
        left join %2$I b on b.id = m.right_id
        cross join lateral (select case when m.id is null then 3
                                        when m.status = 'matched' and coalesce(m.group_variance, 0) = 0 then 1
                                        else 2 end as n) sn
        where a.date between $2 and $3
          and ($4 is null or a.currency = any ($4))
          and ($5 is null or lower(coalesce(a.provider, b.provider)) in (select lower(v) from unnest($5) v)) $q$,
        l.left_source, l.right_source) using p_level, p_from, p_to, p_currency, p_provider;
end
$function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION public.recon_transaction_settlement_report(p_from date, p_to date, p_currency text[], p_provider text[], p_ticket text)
 RETURNS TABLE(row_key text, trans_date date, trans_currency text, transaction_amount numeric, provider_actor text, settle_total_amount numeric, settlement_currency text, total_fees numeric, amount_after_fees numeric, settlement_amount numeric, variance numeric, exchange_currency_amount numeric, exchange_cost numeric, recon_status text)
 LANGUAGE sql
 STABLE
AS $function$
    with sums as (
        select d.processing_date, d.currency, d.provider_actor, sum(d.amount) as amount, sum(d.transactions)::bigint as n,
               sum(d.matched)::bigint as matched, case when sum(d.gross_n) > 0 then sum(d.gross) end as gross,
               string_agg(distinct d.settlement_currency, ', ') as settlement_currency,
               case when sum(d.fees_n) > 0 then sum(d.fees) end as fees, case when sum(d.gross_n) > 0 then sum(d.net) end as net,
               case when sum(d.matched) > 0 then sum(d.settled) end as settled,
               case when sum(d.fx_n) > 0 then sum(d.fx_amount) end as fx_amount,
               case when sum(d.fx_cost_n) > 0 then sum(d.fx_cost) end as fx_cost,
               sum(d.exact) = sum(d.transactions) as all_exact
        from recon_transaction_day d
        where p_ticket is null and d.processing_date between p_from and p_to
          and (p_currency is null or d.currency = any (p_currency))
          and (p_provider is null or lower(d.provider_actor) in (select lower(v) from unnest(p_provider) v))
        group by d.processing_date, d.currency, d.provider_actor
    ), x as (
        select x.processing_date, x.currency, x.provider_actor, x.transaction_amount,
               m.id as match_id, m.status, m.amount_variance, m.group_variance,
               m.settlement_currency, m.gross, m.fees, m.settlement_net
        from card_transaction x
        left join lateral (
            select m.id, m.status, m.variance_share as amount_variance, m.amount_variance as group_variance, s0.settlement_currency,
                   s.gross, s.fees, s.settlement_net
            from recon_match_live m join settlement s0 on s0.id = m.right_id
            -- a group's settlements count once, with its first transaction
            left join lateral (
                select sum(coalesce(s.gross_amount, s.settlement_net + coalesce(s.fees, 0))) as gross, sum(s.fees) as fees,
                       sum(s.settlement_net) as settlement_net
                from settlement s where m.first and s.id = any (recon_match_ids(m.id, 'right'))) s on true
            where m.level = 2 and m.side = 'left' and m.record_id = x.id and m.status <> 'investigation'
            limit 1) m on true
        where not x.is_manual_adjust and x.client_unique_id = p_ticket
          and x.processing_date between p_from and p_to
          and (p_currency is null or x.currency = any (p_currency))
          and (p_provider is null or lower(x.provider_actor) in (select lower(v) from unnest(p_provider) v))
    ), one as (
        select processing_date, currency, provider_actor, sum(transaction_amount) as amount, count(*) as n, count(match_id) as matched,
               sum(gross) as gross, string_agg(distinct settlement_currency, ', ') as settlement_currency,
               sum(fees) as fees, sum(settlement_net) as net,
               sum(transaction_amount - coalesce(amount_variance, 0)) filter (where match_id is not null) as settled,
               sum(transaction_amount) filter (where settlement_currency <> currency) as fx_amount,
               sum(amount_variance) filter (where settlement_currency <> currency) as fx_cost,
               bool_and(match_id is not null and status = 'matched' and coalesce(group_variance, 0) = 0) as all_exact
        from x
        group by processing_date, currency, provider_actor
    ), g as (
        select * from sums union all select * from one
    )
    select concat_ws('|', processing_date, currency, provider_actor), processing_date, currency, amount, provider_actor,
           gross, settlement_currency, fees, net, settled,
           case when matched = 0 then null when all_exact then 0 else amount - settled end,
           fx_amount, fx_cost,
           case when matched = 0 then 'Unmatched' when all_exact then 'Matched' else 'Partial' end
    from g
$function$;
-- +goose StatementEnd


-- A document's change recomputes the days of every record of the groups it
-- is in (a group's further settlement adds to its first transaction's day,
-- its currency shows on every transaction's).
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION public.recon_day_settlement_apply()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
declare
    days date[];
begin
    if tg_op = 'TRUNCATE' then
        truncate recon_payout_day;
        perform recon_transaction_day_refresh(null);
        return null;
    end if;
    if tg_op in ('UPDATE', 'DELETE') then
        execute recon_payout_day_add('old_rows', -1);
    end if;
    if tg_op in ('UPDATE', 'INSERT') then
        execute recon_payout_day_add('new_rows', 1);
    end if;
    delete from recon_payout_day where settlements = 0;
    if tg_op = 'INSERT' then
        return null;
    end if;
    if tg_op = 'UPDATE' then
        select array_agg(distinct x.processing_date) into days
        from (select id from old_rows union select id from new_rows) c
        join recon_match_live v on v.level = 2 and v.side = 'right' and v.record_id = c.id
        join recon_match_live w on w.level = 2 and w.id = v.id and w.side = 'left'
        join card_transaction x on x.id = w.record_id;
    else
        select array_agg(distinct x.processing_date) into days
        from old_rows c join recon_match_live v on v.level = 2 and v.side = 'right' and v.record_id = c.id
        join recon_match_live w on w.level = 2 and w.id = v.id and w.side = 'left'
        join card_transaction x on x.id = w.record_id;
    end if;
    if days is not null then
        perform recon_day_lock(false, true);
        perform recon_transaction_day_refresh(days);
    end if;
    return null;
end
$function$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION public.recon_day_transaction_apply()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
declare
    days date[];
    ticket_days date[];
begin
    if tg_op = 'TRUNCATE' then
        truncate recon_transaction_day;
        perform recon_ticket_day_refresh(null);
    elsif tg_op = 'INSERT' then
        -- (a task's manual adjustment is not a report row)
        if exists (select 1 from new_rows where not is_manual_adjust) then
            perform recon_day_lock(false, true);
            execute recon_transaction_day_add(recon_transaction_day_rows('new_rows', 1));
        end if;
    else
        perform recon_day_lock(true, true);
        if tg_op = 'UPDATE' then
            create temp table recon_day_changed on commit drop as select id, processing_date from old_rows union select id, processing_date from new_rows;
        else
            create temp table recon_day_changed on commit drop as select id, processing_date from old_rows;
        end if;
        select array_agg(distinct processing_date) into days from recon_day_changed;
        select array_agg(distinct t.trans_date) into ticket_days
        from recon_day_changed c join recon_match_live v on v.level = 1 and v.side = 'right' and v.record_id = c.id
        join recon_match_live w on w.level = 1 and w.id = v.id and w.side = 'left'
        join ticket t on t.id = w.record_id;
        drop table recon_day_changed;
        perform recon_transaction_day_refresh(days);
        if ticket_days is not null then
            perform recon_ticket_day_refresh(ticket_days);
        end if;
    end if;
    return null;
end
$function$;
-- +goose StatementEnd


-- +goose StatementBegin
-- The trigger of a table whose rows a source reads: tg_argv[0] the source,
-- and for an update the columns its compared values come from: only the
-- records whose values of those columns changed are followed (an edit of a
-- booking's text, or a reprocess that changes nothing a match compares,
-- leaves its matches as they are).
create or replace function recon_follow_apply() returns trigger language plpgsql as $f$
declare
    ids bigint[];
    cols text[] := tg_argv[1:];
begin
    if tg_op = 'UPDATE' and cardinality(cols) > 0 then
        execute format('select array_agg(n.id) from new_rows n join old_rows o on o.id = n.id where (%s) is distinct from (%s)',
                       (select string_agg('o.' || quote_ident(c), ', ') from unnest(cols) c),
                       (select string_agg('n.' || quote_ident(c), ', ') from unnest(cols) c)) into ids;
    elsif tg_op = 'UPDATE' then
        select array_agg(id) into ids from new_rows;
    else
        select array_agg(id) into ids from old_rows;
    end if;
    perform recon_follow(tg_argv[0], ids);
    return null;
end
$f$;
-- +goose StatementEnd

drop trigger recon_follow_update on ticket;
create trigger recon_follow_update after update on ticket referencing old table as old_rows new table as new_rows
    for each statement execute function recon_follow_apply('recon_side_ticket', 'sale_amount', 'currency', 'trans_date');
drop trigger recon_follow_update on card_transaction;
create trigger recon_follow_update after update on card_transaction referencing old table as old_rows new table as new_rows
    for each statement execute function recon_follow_apply('recon_side_transaction', 'transaction_amount', 'currency', 'processing_date',
                                                            'provider_actor', 'is_manual_adjust');
drop trigger recon_follow_update on settlement;
create trigger recon_follow_update after update on settlement referencing old table as old_rows new table as new_rows
    for each statement execute function recon_follow_apply('recon_side_settlement', 'gross_amount', 'settlement_net', 'fees',
                                                            'settlement_currency', 'settlement_date', 'provider_actor');
drop trigger recon_follow_update on payout;
create trigger recon_follow_update after update on payout referencing old table as old_rows new table as new_rows
    for each statement execute function recon_follow_apply('recon_side_payout', 'total_net', 'currency', 'latest_date', 'provider_actor');
drop trigger recon_follow_update on bank_booking;
create trigger recon_follow_update after update on bank_booking referencing old table as old_rows new table as new_rows
    for each statement execute function recon_follow_apply('recon_side_bank', 'reco_amount_in_local_currency', 'amount_local',
                                                            'bank_charges_in_local', 'currency', 'booked_date', 'manual_provider',
                                                            'provider', 'status');
-- +goose Down
drop trigger recon_follow_update on ticket;
create trigger recon_follow_update after update on ticket
    referencing new table as new_rows for each statement execute function recon_follow_apply('recon_side_ticket');
drop trigger recon_follow_update on card_transaction;
create trigger recon_follow_update after update on card_transaction
    referencing new table as new_rows for each statement execute function recon_follow_apply('recon_side_transaction');
drop trigger recon_follow_update on settlement;
create trigger recon_follow_update after update on settlement
    referencing new table as new_rows for each statement execute function recon_follow_apply('recon_side_settlement');
drop trigger recon_follow_update on payout;
create trigger recon_follow_update after update on payout
    referencing new table as new_rows for each statement execute function recon_follow_apply('recon_side_payout');
drop trigger recon_follow_update on bank_booking;
create trigger recon_follow_update after update on bank_booking
    referencing new table as new_rows for each statement execute function recon_follow_apply('recon_side_bank');
drop trigger recon_day_member_insert on recon_match_member;
drop trigger recon_match_member_follow on recon_match;
drop trigger recon_match_claim_check on recon_match;
drop trigger recon_match_member_check on recon_match_member;
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION public.recon_ticket_day_facts(rel text)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE
AS $function$
    select format($q$
        select t.trans_date, t.currency, coalesce(t.payment_type, ''), coalesce(t.country_code, ''),
               coalesce(lower(x.provider_actor), ''), m.status, m.amount_variance, t.sale_amount
        from %s m
        join ticket t on t.id = m.left_id
        join card_transaction x on x.id = m.right_id
        where m.level = 1 and m.undone_on is null and m.status <> 'investigation' $q$, rel)
$function$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION public.recon_transaction_day_facts(rel text)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE
AS $function$
    select format($q$
        select x.processing_date, x.currency, x.provider_actor, s.settlement_currency, m.status, m.amount_variance,
               x.transaction_amount, coalesce(s.gross_amount, s.settlement_net + coalesce(s.fees, 0)), s.fees, s.settlement_net
        from %s m
        join card_transaction x on x.id = m.left_id and not x.is_manual_adjust
        join settlement s on s.id = m.right_id
        where m.level = 2 and m.undone_on is null and m.status <> 'investigation' $q$, rel)
$function$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION public.recon_transaction_day_moves_of(facts text, sign integer)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE
AS $function$
    select format($q$
        select g.processing_date, g.currency, g.provider_actor, v.settlement_currency,
               %1$s * v.transactions, %1$s * v.amount, %1$s * v.matched, %1$s * v.exact, %1$s * v.gross, %1$s * v.gross_n,
               %1$s * v.fees, %1$s * v.fees_n, %1$s * v.net, %1$s * v.settled, %1$s * v.fx_amount, %1$s * v.fx_cost,
               %1$s * v.fx_n, %1$s * v.fx_cost_n
        from (
            select f.processing_date, f.currency, f.provider_actor, f.settlement_currency, count(*) as n, sum(f.transaction_amount) as amount,
                   count(*) filter (where f.status = 'matched' and coalesce(f.amount_variance, 0) = 0) as exact,
                   coalesce(sum(f.gross), 0) as gross, count(f.gross) as gross_n,
                   coalesce(sum(f.fees), 0) as fees, count(f.fees) as fees_n, sum(f.settlement_net) as net,
                   sum(f.transaction_amount - coalesce(f.amount_variance, 0)) as settled,
                   case when f.settlement_currency <> f.currency then sum(f.transaction_amount) else 0 end as fx_amount,
                   case when f.settlement_currency <> f.currency then coalesce(sum(f.amount_variance), 0) else 0 end as fx_cost,
                   case when f.settlement_currency <> f.currency then count(*) else 0 end as fx_n,
                   case when f.settlement_currency <> f.currency then count(f.amount_variance) else 0 end as fx_cost_n
            from (%2$s) f (processing_date, currency, provider_actor, settlement_currency, status, amount_variance,
                           transaction_amount, gross, fees, settlement_net)
            group by 1, 2, 3, 4) g
        cross join lateral (values
            (null::text, -g.n, -g.amount, 0::bigint, 0::bigint, 0::numeric, 0::bigint, 0::numeric, 0::bigint, 0::numeric,
             0::numeric, 0::numeric, 0::numeric, 0::bigint, 0::bigint),
            (g.settlement_currency, g.n, g.amount, g.n, g.exact, g.gross, g.gross_n, g.fees, g.fees_n, g.net,
             g.settled, g.fx_amount, g.fx_cost, g.fx_n, g.fx_cost_n))
            v(settlement_currency, transactions, amount, matched, exact, gross, gross_n, fees, fees_n, net, settled, fx_amount, fx_cost, fx_n, fx_cost_n) $q$, sign, facts)
$function$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION public.recon_day_apply_run(level integer)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
begin
    if level = 1 then
        perform recon_day_apply_facts(1, $q$select l_date, l_cur, coalesce(payment_type, ''), coalesce(country_code, ''),
            coalesce(provider_key, ''), status, variance, l_amount from recon_cand$q$);
    elsif level = 2 then
        perform recon_day_apply_facts(2, $q$select l_date, l_cur, provider, r_cur, status, variance, l_amount, r_amount,
            fees, settlement_net from recon_cand$q$);
    end if;
end
$function$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION public.recon_ticket_day_refresh(days date[])
 RETURNS void
 LANGUAGE plpgsql
AS $function$
declare
    t text := case when days is null then 'ticket' else '(select * from ticket where trans_date = any ($1))' end;
    m text := case when days is null then 'recon_match'
                   else '(select m.* from ticket t join recon_match m on m.level = 1 and m.left_id = t.id and m.undone_on is null
                          where t.trans_date = any ($1))' end;
begin
    delete from recon_ticket_day where days is null or trans_date = any (days);
    execute format($q$
        insert into recon_ticket_day
        select trans_date, currency, payment_type, country_code, provider_key, sum(tickets), sum(matched), sum(exact), sum(sra), sum(ppa)
        from (%s union all %s) r (trans_date, currency, payment_type, country_code, provider_key, tickets, matched, exact, sra, ppa)
        group by 1, 2, 3, 4, 5 having sum(tickets) <> 0 $q$, recon_ticket_day_rows(t, 1), recon_ticket_day_moves(m, 1)) using days;
end
$function$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION public.recon_transaction_day_refresh(days date[])
 RETURNS void
 LANGUAGE plpgsql
AS $function$
declare
    x text := case when days is null then 'card_transaction' else '(select * from card_transaction where processing_date = any ($1))' end;
    m text := case when days is null then 'recon_match'
                   else '(select m.* from card_transaction x join recon_match m on m.level = 2 and m.left_id = x.id and m.undone_on is null
                          where x.processing_date = any ($1))' end;
begin
    delete from recon_transaction_day where days is null or processing_date = any (days);
    execute format($q$
        insert into recon_transaction_day
        select processing_date, currency, provider_actor, settlement_currency, sum(transactions), sum(amount), sum(matched), sum(exact),
               sum(gross), sum(gross_n), sum(fees), sum(fees_n), sum(net), sum(settled), sum(fx_amount), sum(fx_cost), sum(fx_n), sum(fx_cost_n)
        from (%s union all %s) r (processing_date, currency, provider_actor, settlement_currency, transactions, amount, matched, exact,
                                  gross, gross_n, fees, fees_n, net, settled, fx_amount, fx_cost, fx_n, fx_cost_n)
        group by 1, 2, 3, 4 having sum(transactions) <> 0 $q$, recon_transaction_day_rows(x, 1), recon_transaction_day_moves(m, 1)) using days;
end
$function$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION public.recon_follow(source text, ids bigint[])
 RETURNS void
 LANGUAGE plpgsql
AS $function$
declare
    l recon_level;
    side text;
begin
    if ids is null or cardinality(ids) = 0 then
        return;
    end if;
    for l in select * from recon_level where left_source = source or right_source = source order by number loop
        foreach side in array array['left', 'right'] loop
            continue when (side = 'left' and l.left_source <> source) or (side = 'right' and l.right_source <> source);
            execute format($q$
                update recon_match m set undone_on = now(), undone_by = 'system',
                       undo_reason = 'The record was deleted or left reconciliation.'
                where m.level = $1 and m.%1$I in (select unnest($2)) and m.undone_on is null
                  and not exists (select 1 from %2$I s where s.id = m.%1$I) $q$,
                side || '_id', source) using l.number, ids;
            execute format($q$
                update recon_match m set amount_variance = x.variance, date_lag_days = x.lag,
                       status = case when m.status = 'investigation' then 'investigation' when x.inside then x.status else 'changed' end
                from (
                    select m.id, e.variance, e.lag, e.inside, e.status
                    from recon_match m
                    join %2$I l on l.id = m.left_id
                    join %3$I r on r.id = m.right_id
                    left join recon_tolerance tol on tol.level = $3 and tol.provider_key = %4$s.provider_key
                    cross join lateral recon_pair_eval(l.amount, r.amount, l.currency, r.currency, l.date, r.date,
                        tol.amount_threshold, tol.date_threshold, tol.currency_threshold) e
                    where m.level = $1 and m.%1$I in (select unnest($2)) and m.undone_on is null) x
                where m.id = x.id
                  and (m.amount_variance, m.date_lag_days) is distinct from (x.variance, x.lag) $q$,
                side || '_id', l.left_source, l.right_source, case when l.tolerance_side = 'left' then 'l' else 'r' end)
                using l.number, ids, l.tolerance_type;
        end loop;
    end loop;
end
$function$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION public.recon_settlement_bank_report(p_from date, p_to date, p_currency text[], p_provider text[])
 RETURNS TABLE(payout_id text, settlement_date date, settlement_amount numeric, settlement_currency text, provider_actor text, booked_date date, bank_account text, reco_amount_in_local_currency numeric, charges numeric, currency text, amount_variance numeric, recon_status text, recon_status_number integer, bank_id bigint, match_id bigint)
 LANGUAGE sql
 STABLE
AS $function$
    select p.payout_key, p.latest_date, p.total_net, coalesce(p.currency, c.currencies), p.provider_actor,
           b.booked_date, b.bank_account, coalesce(b.reco_amount_in_local_currency, b.amount_local), b.bank_charges_in_local, b.currency,
           m.amount_variance, s.label, s.n, b.id, m.id
    from payout p
    -- a payout in several currencies names them all
    left join lateral (
        select string_agg(distinct d.settlement_currency, ', ') as currencies
        from recon_payout_day d where p.currency is null and d.payout_id = p.payout_key) c on true
    left join lateral (
        select m.id, m.status, m.amount_variance, m.right_id
        from recon_match m where m.level = 3 and m.left_id = p.id and m.undone_on is null limit 1) m on true
    left join lateral (select b.* from bank_booking b where b.id = m.right_id limit 1) b on true
    cross join lateral (select case
            when m.id is null then 3
            when m.status = 'matched' and coalesce(m.amount_variance, 0) = 0 then 1
            else 2 end as n) sn
    cross join lateral (select sn.n, (array['Matched', 'Partial', 'Unmatched'])[sn.n] as label) s
    where p.latest_date between p_from and p_to
      and (p_currency is null or p.currency = any (p_currency)
           or p.currency is null and exists (select 1 from recon_payout_day d where d.payout_id = p.payout_key
                                             and d.settlement_currency = any (p_currency)))
      and (p_provider is null or lower(p.provider_actor) in (select lower(v) from unnest(p_provider) v))
$function$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION public.recon_ticket_lookup(p_from date, p_to date, p_currency text[], p_provider text[], p_ticket text)
 RETURNS TABLE(id bigint, ticket_date date, ticket_number text, currency text, payment_type text, country_code text, sales_amount numeric, transaction_date date, provider_actor text, transaction_amount numeric, variance_amount numeric, reconciliation_status text, reconciliation_status_number integer, match_id bigint)
 LANGUAGE sql
 STABLE
AS $function$
    select t.id, t.trans_date, t.ticket_number, t.currency, t.payment_type, t.country_code, t.sale_amount,
           x.processing_date, x.provider_actor, x.transaction_amount, m.amount_variance,
           case when m.status = 'changed' then 'Changed since matched'
                else (array['Matched', 'Partial', 'Investigation', 'Matched with difference', 'Unmatched'])[sn.n] end, sn.n, m.id
    from ticket t
    left join lateral (
        select m.id, m.status, m.rule, m.amount_variance, m.right_id from recon_match m
        where m.level = 1 and m.left_id = t.id and m.undone_on is null limit 1) m on true
    left join lateral (select x.processing_date, x.provider_actor, x.transaction_amount, x.id
        from card_transaction x where x.id = m.right_id limit 1) x on true
    cross join lateral (select case
            when m.id is null then 5
            when m.status = 'investigation' then 3
            when m.status = 'changed' then 2
            when m.rule in ('manual', 'forced') and coalesce(m.amount_variance, 0) <> 0 then 4
            when m.status = 'matched' then 1
            else 2 end as n) sn
    where (p_from is null or t.trans_date >= p_from) and (p_to is null or t.trans_date <= p_to)
      and (p_currency is null or t.currency = any (p_currency))
      and (p_ticket is null or t.ticket_number = p_ticket)
      and (p_provider is null or x.id is null or lower(x.provider_actor) in (select lower(v) from unnest(p_provider) v))
$function$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION public.recon_ticket_transaction_report(p_from date, p_to date, p_currency text[], p_provider text[], p_ticket text)
 RETURNS TABLE(row_key text, ticket_date date, sales_currency text, payment_type text, country_code text, sra_ticket_count bigint, ppa_transaction_count bigint, sra_total_amount numeric, ppa_total_amount numeric, count_variance bigint, amount_variance numeric, reconciliation_status text, reconcile_status_number integer)
 LANGUAGE sql
 STABLE
AS $function$
    with providers as (
        select lower(v) as provider_key from unnest(p_provider) v
    ), sums as (
        -- a month of groups from the day sums
        select d.trans_date, d.currency, d.payment_type, d.country_code, sum(d.tickets)::bigint as tickets, sum(d.matched)::bigint as transactions,
               sum(d.sra) as sra, sum(d.ppa) as ppa, sum(d.exact) = sum(d.tickets) as all_exact
        from recon_ticket_day d
        where p_ticket is null and d.trans_date between p_from and p_to
          and (p_currency is null or d.currency = any (p_currency))
          -- an unmatched ticket has no provider yet: it shows under any provider filter
          and (p_provider is null or d.provider_key is null or d.provider_key in (select provider_key from providers))
        group by d.trans_date, d.currency, d.payment_type, d.country_code
    ), one as (
        -- one ticket number: its tickets, each with its match
        select t.trans_date, t.currency, coalesce(t.payment_type, '') as payment_type, coalesce(t.country_code, '') as country_code,
               count(*) as tickets, count(m.id) as transactions, sum(t.sale_amount) as sra,
               coalesce(sum(t.sale_amount - coalesce(m.amount_variance, 0)) filter (where m.id is not null), 0) as ppa,
               bool_and(m.id is not null and m.status = 'matched' and coalesce(m.amount_variance, 0) = 0) as all_exact
        from ticket t
        left join lateral (
            select m.id, m.status, m.amount_variance, x.provider_actor
            from recon_match m join card_transaction x on x.id = m.right_id
            where m.level = 1 and m.left_id = t.id and m.undone_on is null and m.status <> 'investigation'
            limit 1) m on true
        where t.ticket_number = p_ticket and t.trans_date between p_from and p_to
          and (p_currency is null or t.currency = any (p_currency))
          and (p_provider is null or m.id is null or lower(m.provider_actor) in (select provider_key from providers))
        group by 1, 2, 3, 4
    ), g as (
        select * from sums union all select * from one
    ), adj as (
        -- manual adjustments of tasks (few) count once, toward the ticket each was made for
        select t.trans_date, t.currency, coalesce(t.payment_type, '') as payment_type, coalesce(t.country_code, '') as country_code,
               sum(a.amount) as amount
        from (select a.adjusted_ticket_id, sum(a.transaction_amount) as amount
              from card_transaction a where a.task_id is not null and a.is_manual_adjust
              group by a.adjusted_ticket_id) a
        join ticket t on t.id = a.adjusted_ticket_id
        left join lateral (
            select m.id, x.provider_actor
            from recon_match m join card_transaction x on x.id = m.right_id
            where m.level = 1 and m.left_id = t.id and m.undone_on is null and m.status <> 'investigation'
            limit 1) m on true
        where t.trans_date between p_from and p_to
          and (p_ticket is null or t.ticket_number = p_ticket)
          and (p_currency is null or t.currency = any (p_currency))
          and (p_provider is null or m.id is null or lower(m.provider_actor) in (select provider_key from providers))
        group by 1, 2, 3, 4
    ), changed as (
        -- groups holding a match changed since it was made (few): never
        -- Matched, whatever their sums say (its variance may be unknown)
        select distinct t.trans_date, t.currency, coalesce(t.payment_type, '') as payment_type, coalesce(t.country_code, '') as country_code
        from recon_match m join ticket t on t.id = m.left_id
        where m.level = 1 and m.status = 'changed' and m.undone_on is null and t.trans_date between p_from and p_to
    ), r as (
        select g.trans_date, g.currency, g.payment_type, g.country_code, g.tickets, g.transactions, g.sra,
               g.ppa + coalesce(adj.amount, 0) as ppa,
               -- Matched: every ticket matched and no variance left (DESIGN.md
               -- section 6), adjustments included
               g.sra = g.ppa + coalesce(adj.amount, 0) and g.transactions = g.tickets
               and not exists (select 1 from changed c where (c.trans_date, c.currency, c.payment_type, c.country_code) =
                                                             (g.trans_date, g.currency, g.payment_type, g.country_code)) as matched
        from g left join adj using (trans_date, currency, payment_type, country_code)
    )
    select concat_ws('|', trans_date, currency, payment_type, country_code), trans_date, currency, payment_type, country_code,
           tickets, transactions, sra, ppa, tickets - transactions, sra - ppa,
           case when transactions = 0 then 'Unmatched' when matched then 'Matched' else 'Partial' end,
           case when transactions = 0 then 1 when matched then 3 else 2 end
    from r
$function$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION public.recon_level_report(p_level integer, p_from date, p_to date, p_currency text[], p_provider text[])
 RETURNS TABLE(left_id bigint, left_ref text, left_date date, left_amount numeric, left_currency text, provider text, right_id bigint, right_ref text, right_date date, right_amount numeric, right_currency text, amount_variance numeric, recon_status text, recon_status_number integer, match_id bigint)
 LANGUAGE plpgsql
 STABLE
AS $function$
declare
    l recon_level;
begin
    select * into l from recon_level where number = p_level;
    if not found then
        raise exception 'no reconciliation level %', p_level using errcode = '22023';
    end if;
    return query execute format($q$
        select a.id, a.ref, a.date, a.amount, a.currency, coalesce(a.provider, b.provider),
               b.id, b.ref, b.date, b.amount, b.currency, m.amount_variance,
               (array['Matched', 'Partial', 'Unmatched'])[sn.n], sn.n, m.id
        from %1$I a
        left join lateral (
            select m.id, m.status, m.amount_variance, m.right_id from recon_match m
            where m.level = $1 and m.left_id = a.id and m.undone_on is null limit 1) m on true
        left join %2$I b on b.id = m.right_id
        cross join lateral (select case when m.id is null then 3
                                        when m.status = 'matched' and coalesce(m.amount_variance, 0) = 0 then 1
                                        else 2 end as n) sn
        where a.date between $2 and $3
          and ($4 is null or a.currency = any ($4))
          and ($5 is null or lower(coalesce(a.provider, b.provider)) in (select lower(v) from unnest($5) v)) $q$,
        l.left_source, l.right_source) using p_level, p_from, p_to, p_currency, p_provider;
end
$function$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION public.recon_transaction_settlement_report(p_from date, p_to date, p_currency text[], p_provider text[], p_ticket text)
 RETURNS TABLE(row_key text, trans_date date, trans_currency text, transaction_amount numeric, provider_actor text, settle_total_amount numeric, settlement_currency text, total_fees numeric, amount_after_fees numeric, settlement_amount numeric, variance numeric, exchange_currency_amount numeric, exchange_cost numeric, recon_status text)
 LANGUAGE sql
 STABLE
AS $function$
    with sums as (
        select d.processing_date, d.currency, d.provider_actor, sum(d.amount) as amount, sum(d.transactions)::bigint as n,
               sum(d.matched)::bigint as matched, case when sum(d.gross_n) > 0 then sum(d.gross) end as gross,
               string_agg(distinct d.settlement_currency, ', ') as settlement_currency,
               case when sum(d.fees_n) > 0 then sum(d.fees) end as fees, case when sum(d.matched) > 0 then sum(d.net) end as net,
               case when sum(d.matched) > 0 then sum(d.settled) end as settled,
               case when sum(d.fx_n) > 0 then sum(d.fx_amount) end as fx_amount,
               case when sum(d.fx_cost_n) > 0 then sum(d.fx_cost) end as fx_cost,
               sum(d.exact) = sum(d.transactions) as all_exact
        from recon_transaction_day d
        where p_ticket is null and d.processing_date between p_from and p_to
          and (p_currency is null or d.currency = any (p_currency))
          and (p_provider is null or lower(d.provider_actor) in (select lower(v) from unnest(p_provider) v))
        group by d.processing_date, d.currency, d.provider_actor
    ), x as (
        select x.processing_date, x.currency, x.provider_actor, x.transaction_amount,
               m.id as match_id, m.status, m.amount_variance,
               m.settlement_currency, m.gross, m.fees, m.settlement_net
        from card_transaction x
        left join lateral (
            select m.id, m.status, m.amount_variance, s.settlement_currency,
                   coalesce(s.gross_amount, s.settlement_net + coalesce(s.fees, 0)) as gross, s.fees, s.settlement_net
            from recon_match m join settlement s on s.id = m.right_id
            where m.level = 2 and m.left_id = x.id and m.undone_on is null and m.status <> 'investigation'
            limit 1) m on true
        where not x.is_manual_adjust and x.client_unique_id = p_ticket
          and x.processing_date between p_from and p_to
          and (p_currency is null or x.currency = any (p_currency))
          and (p_provider is null or lower(x.provider_actor) in (select lower(v) from unnest(p_provider) v))
    ), one as (
        select processing_date, currency, provider_actor, sum(transaction_amount) as amount, count(*) as n, count(match_id) as matched,
               sum(gross) as gross, string_agg(distinct settlement_currency, ', ') as settlement_currency,
               sum(fees) as fees, sum(settlement_net) as net,
               sum(transaction_amount - coalesce(amount_variance, 0)) filter (where match_id is not null) as settled,
               sum(transaction_amount) filter (where settlement_currency <> currency) as fx_amount,
               sum(amount_variance) filter (where settlement_currency <> currency) as fx_cost,
               bool_and(match_id is not null and status = 'matched' and coalesce(amount_variance, 0) = 0) as all_exact
        from x
        group by processing_date, currency, provider_actor
    ), g as (
        select * from sums union all select * from one
    )
    select concat_ws('|', processing_date, currency, provider_actor), processing_date, currency, amount, provider_actor,
           gross, settlement_currency, fees, net, settled,
           case when matched = 0 then null when all_exact then 0 else amount - settled end,
           fx_amount, fx_cost,
           case when matched = 0 then 'Unmatched' when all_exact then 'Matched' else 'Partial' end
    from g
$function$;
-- +goose StatementEnd
drop function recon_day_member_apply();
drop function recon_transaction_day_group_facts(text, text, boolean);
drop function recon_ticket_day_group_facts(text, text, boolean);
drop function recon_group_eval(int, bigint[], bigint[]);
drop function recon_match_ids(bigint, text);
drop view recon_match_live;
drop function recon_match_member_follow();
drop function recon_match_claim_check();
drop function recon_match_member_check();
drop table recon_match_member;
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION public.recon_day_settlement_apply()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
declare
    days date[];
begin
    if tg_op = 'TRUNCATE' then
        truncate recon_payout_day;
        perform recon_transaction_day_refresh(null);
        return null;
    end if;
    if tg_op in ('UPDATE', 'DELETE') then
        execute recon_payout_day_add('old_rows', -1);
    end if;
    if tg_op in ('UPDATE', 'INSERT') then
        execute recon_payout_day_add('new_rows', 1);
    end if;
    delete from recon_payout_day where settlements = 0;
    if tg_op = 'INSERT' then
        return null;
    end if;
    if tg_op = 'UPDATE' then
        select array_agg(distinct x.processing_date) into days
        from (select id from old_rows union select id from new_rows) c
        join recon_match m on m.level = 2 and m.right_id = c.id and m.undone_on is null
        join card_transaction x on x.id = m.left_id;
    else
        select array_agg(distinct x.processing_date) into days
        from old_rows c join recon_match m on m.level = 2 and m.right_id = c.id and m.undone_on is null
        join card_transaction x on x.id = m.left_id;
    end if;
    if days is not null then
        perform recon_day_lock(false, true);
        perform recon_transaction_day_refresh(days);
    end if;
    return null;
end
$function$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION public.recon_day_transaction_apply()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
declare
    days date[];
    ticket_days date[];
begin
    if tg_op = 'TRUNCATE' then
        truncate recon_transaction_day;
        perform recon_ticket_day_refresh(null);
    elsif tg_op = 'INSERT' then
        -- (a task's manual adjustment is not a report row)
        if exists (select 1 from new_rows where not is_manual_adjust) then
            perform recon_day_lock(false, true);
            execute recon_transaction_day_add(recon_transaction_day_rows('new_rows', 1));
        end if;
    else
        perform recon_day_lock(true, true);
        if tg_op = 'UPDATE' then
            create temp table recon_day_changed on commit drop as select id, processing_date from old_rows union select id, processing_date from new_rows;
        else
            create temp table recon_day_changed on commit drop as select id, processing_date from old_rows;
        end if;
        select array_agg(distinct processing_date) into days from recon_day_changed;
        select array_agg(distinct t.trans_date) into ticket_days
        from recon_day_changed c join recon_match m on m.level = 1 and m.right_id = c.id and m.undone_on is null
        join ticket t on t.id = m.left_id;
        drop table recon_day_changed;
        perform recon_transaction_day_refresh(days);
        if ticket_days is not null then
            perform recon_ticket_day_refresh(ticket_days);
        end if;
    end if;
    return null;
end
$function$;
-- +goose StatementEnd
-- +goose StatementBegin
create or replace function recon_follow_apply() returns trigger language plpgsql as $f$
declare
    ids bigint[];
begin
    if tg_op = 'UPDATE' then
        select array_agg(id) into ids from new_rows;
    else
        select array_agg(id) into ids from old_rows;
    end if;
    perform recon_follow(tg_argv[0], ids);
    return null;
end
$f$;
-- +goose StatementEnd
