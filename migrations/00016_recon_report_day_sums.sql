-- +goose Up
-- The first two reconciliation reports group a month of records (some
-- 80,000 at a million a year) by day and a few keys, and each record's
-- match was looked up one by one at every page: 0.7 s with one client, 3 s
-- with eight. These tables keep the sums per report group and day, split by
-- what the report filters on, so a page reads a few hundred rows:
--   recon_ticket_day       level 1: per ticket date, currency, payment type,
--                          country and the matched transaction's provider
--                          (lower case; null while the ticket is unmatched)
--   recon_transaction_day  level 2: per transaction date, currency, provider
--                          and the matched settlement's currency (null while
--                          the transaction is unmatched)
--   recon_payout_day       level 3: per payout, settlement date, currency and
--                          provider (sorting and grouping a month of
--                          settlements by payout at every page took 0.5 s)
-- Statement triggers keep them exact in the writing transaction:
-- - new tickets and transactions are added as unmatched;
-- - a match made (or undone, or deleted) moves its record from the
--   unmatched row to the matched one (or back): these are the writes of
--   every run and manual match, and cost one join of the statement's rows;
-- - changes to the documents themselves (documents are imported, not
--   edited; a task's manual adjustment is deleted) recompute the days they
--   touch from the documents, as does a truncate.
-- A report filtered by ticket number reads the documents, through the
-- ticket-number index, as before.

create table recon_ticket_day (
    trans_date   date not null,
    currency     text not null,
    payment_type text not null,
    country_code text not null,
    provider_key text,              -- lower(provider_actor) of the matched transaction; null: unmatched
    tickets      bigint not null,
    matched      bigint not null,   -- with a live match that is not an investigation
    exact        bigint not null,   -- of those, status matched and no variance
    sra          numeric not null,  -- sum of sale_amount
    ppa          numeric not null   -- sum of sale_amount - amount_variance of the matched
);
create unique index recon_ticket_day_key on recon_ticket_day
    (trans_date, currency, payment_type, country_code, provider_key) nulls not distinct;
create index recon_ticket_day_empty on recon_ticket_day (tickets) where tickets = 0;

create table recon_transaction_day (
    processing_date     date not null,
    currency            text not null,
    provider_actor      text not null,
    settlement_currency text,             -- of the matched settlement; null: unmatched
    transactions        bigint not null,
    amount              numeric not null, -- sum of transaction_amount
    matched             bigint not null,
    exact               bigint not null,
    gross               numeric not null, -- of the matched settlements
    gross_n             bigint not null,  -- how many of them have a gross (else the sum is unknown)
    fees                numeric not null,
    fees_n              bigint not null,
    net                 numeric not null,
    settled             numeric not null, -- sum of transaction_amount - amount_variance of the matched
    fx_amount           numeric not null, -- transaction_amount settled in another currency
    fx_cost             numeric not null, -- amount_variance of those
    fx_n                bigint not null,
    fx_cost_n           bigint not null
);
create unique index recon_transaction_day_key on recon_transaction_day
    (processing_date, currency, provider_actor, settlement_currency) nulls not distinct;
create index recon_transaction_day_empty on recon_transaction_day (transactions) where transactions = 0;

create table recon_payout_day (
    settlement_date     date not null,
    payout_id           text not null,
    settlement_currency text not null,
    provider_actor      text not null,
    settlements         bigint not null,
    net                 numeric not null  -- sum of settlement_net
);
create unique index recon_payout_day_key on recon_payout_day (settlement_date, payout_id, settlement_currency, provider_actor);
create index recon_payout_day_empty on recon_payout_day (settlements) where settlements = 0;

-- +goose StatementBegin
-- The rows of recon_ticket_day for the tickets of rel (a table or
-- transition table name, or a query in parentheses), as a query.
create function recon_ticket_day_rows(rel text, sign int) returns text language sql immutable as $f$
    select format($q$
        select t.trans_date, t.currency, coalesce(t.payment_type, '') as payment_type, coalesce(t.country_code, '') as country_code,
               null::text as provider_key, %1$s::bigint as tickets, 0::bigint as matched, 0::bigint as exact,
               %1$s * t.sale_amount as sra, 0::numeric as ppa
        from %2$s t $q$, sign, rel)
$f$;

-- The moves of the level-1 matches of rel (recon_match rows) from the
-- unmatched row of their ticket to the matched one; sign -1 moves back.
-- Summed per group first: a run moves a million tickets into a few
-- thousand groups.
create function recon_ticket_day_moves(rel text, sign int) returns text language sql immutable as $f$
    select format($q$
        select g.trans_date, g.currency, g.payment_type, g.country_code, v.provider_key,
               %1$s * v.tickets, %1$s * v.matched, %1$s * v.exact, %1$s * v.sra, %1$s * v.ppa
        from (
            select t.trans_date, t.currency, coalesce(t.payment_type, '') as payment_type, coalesce(t.country_code, '') as country_code,
                   coalesce(lower(x.provider_actor), '') as provider_key, count(*) as n,
                   count(*) filter (where m.status = 'matched' and coalesce(m.amount_variance, 0) = 0) as exact,
                   sum(t.sale_amount) as sra, sum(t.sale_amount - coalesce(m.amount_variance, 0)) as ppa
            from %2$s m
            join ticket t on t.id = m.left_id
            join card_transaction x on x.id = m.right_id
            where m.level = 1 and m.undone_on is null and m.status <> 'investigation'
            group by 1, 2, 3, 4, 5) g
        cross join lateral (values
            (null::text, -g.n, 0::bigint, 0::bigint, -g.sra, 0::numeric),
            (g.provider_key, g.n, g.n, g.exact, g.sra, g.ppa)) v(provider_key, tickets, matched, exact, sra, ppa) $q$, sign, rel)
$f$;

create function recon_transaction_day_rows(rel text, sign int) returns text language sql immutable as $f$
    select format($q$
        select x.processing_date, x.currency, x.provider_actor, null::text, %1$s::bigint, %1$s * x.transaction_amount,
               0::bigint, 0::bigint, 0::numeric, 0::bigint, 0::numeric, 0::bigint, 0::numeric, 0::numeric, 0::numeric, 0::numeric, 0::bigint, 0::bigint
        from %2$s x where not x.is_manual_adjust $q$, sign, rel)
$f$;

create function recon_transaction_day_moves(rel text, sign int) returns text language sql immutable as $f$
    select format($q$
        select g.processing_date, g.currency, g.provider_actor, v.settlement_currency,
               %1$s * v.transactions, %1$s * v.amount, %1$s * v.matched, %1$s * v.exact, %1$s * v.gross, %1$s * v.gross_n,
               %1$s * v.fees, %1$s * v.fees_n, %1$s * v.net, %1$s * v.settled, %1$s * v.fx_amount, %1$s * v.fx_cost,
               %1$s * v.fx_n, %1$s * v.fx_cost_n
        from (
            select x.processing_date, x.currency, x.provider_actor, s.settlement_currency, count(*) as n, sum(x.transaction_amount) as amount,
                   count(*) filter (where m.status = 'matched' and coalesce(m.amount_variance, 0) = 0) as exact,
                   coalesce(sum(coalesce(s.gross_amount, s.settlement_net + coalesce(s.fees, 0))), 0) as gross,
                   count(coalesce(s.gross_amount, s.settlement_net + coalesce(s.fees, 0))) as gross_n,
                   coalesce(sum(s.fees), 0) as fees, count(s.fees) as fees_n, sum(s.settlement_net) as net,
                   sum(x.transaction_amount - coalesce(m.amount_variance, 0)) as settled,
                   case when s.settlement_currency <> x.currency then sum(x.transaction_amount) else 0 end as fx_amount,
                   case when s.settlement_currency <> x.currency then coalesce(sum(m.amount_variance), 0) else 0 end as fx_cost,
                   case when s.settlement_currency <> x.currency then count(*) else 0 end as fx_n,
                   case when s.settlement_currency <> x.currency then count(m.amount_variance) else 0 end as fx_cost_n
            from %2$s m
            join card_transaction x on x.id = m.left_id and not x.is_manual_adjust
            join settlement s on s.id = m.right_id
            where m.level = 2 and m.undone_on is null and m.status <> 'investigation'
            group by 1, 2, 3, 4) g
        cross join lateral (values
            (null::text, -g.n, -g.amount, 0::bigint, 0::bigint, 0::numeric, 0::bigint, 0::numeric, 0::bigint, 0::numeric,
             0::numeric, 0::numeric, 0::numeric, 0::bigint, 0::bigint),
            (g.settlement_currency, g.n, g.amount, g.n, g.exact, g.gross, g.gross_n, g.fees, g.fees_n, g.net,
             g.settled, g.fx_amount, g.fx_cost, g.fx_n, g.fx_cost_n))
            v(settlement_currency, transactions, amount, matched, exact, gross, gross_n, fees, fees_n, net, settled, fx_amount, fx_cost, fx_n, fx_cost_n) $q$, sign, rel)
$f$;

-- The statement adding the rows of a query (as built above) to the sums.
-- Trigger functions execute these themselves: a transition table is seen
-- only by the trigger's own function.
create function recon_ticket_day_add(q text) returns text language sql immutable as $f$
    select format($q$
        insert into recon_ticket_day as d
        select trans_date, currency, payment_type, country_code, provider_key, sum(tickets), sum(matched), sum(exact), sum(sra), sum(ppa)
        from (%s) r (trans_date, currency, payment_type, country_code, provider_key, tickets, matched, exact, sra, ppa)
        group by 1, 2, 3, 4, 5 order by 1, 2, 3, 4, 5
        on conflict (trans_date, currency, payment_type, country_code, provider_key) do update set
            tickets = d.tickets + excluded.tickets, matched = d.matched + excluded.matched, exact = d.exact + excluded.exact,
            sra = d.sra + excluded.sra, ppa = d.ppa + excluded.ppa $q$, q)
$f$;

create function recon_transaction_day_add(q text) returns text language sql immutable as $f$
    select format($q$
        insert into recon_transaction_day as d
        select processing_date, currency, provider_actor, settlement_currency, sum(transactions), sum(amount), sum(matched), sum(exact),
               sum(gross), sum(gross_n), sum(fees), sum(fees_n), sum(net), sum(settled), sum(fx_amount), sum(fx_cost), sum(fx_n), sum(fx_cost_n)
        from (%s) r (processing_date, currency, provider_actor, settlement_currency, transactions, amount, matched, exact,
                     gross, gross_n, fees, fees_n, net, settled, fx_amount, fx_cost, fx_n, fx_cost_n)
        group by 1, 2, 3, 4 order by 1, 2, 3, 4
        on conflict (processing_date, currency, provider_actor, settlement_currency) do update set
            transactions = d.transactions + excluded.transactions, amount = d.amount + excluded.amount,
            matched = d.matched + excluded.matched, exact = d.exact + excluded.exact,
            gross = d.gross + excluded.gross, gross_n = d.gross_n + excluded.gross_n,
            fees = d.fees + excluded.fees, fees_n = d.fees_n + excluded.fees_n, net = d.net + excluded.net,
            settled = d.settled + excluded.settled, fx_amount = d.fx_amount + excluded.fx_amount,
            fx_cost = d.fx_cost + excluded.fx_cost, fx_n = d.fx_n + excluded.fx_n, fx_cost_n = d.fx_cost_n + excluded.fx_cost_n $q$, q)
$f$;

-- Recomputes the days of both tables from the documents and their live
-- matches; null days: all of them.
create function recon_ticket_day_refresh(days date[]) returns void language plpgsql as $f$
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
$f$;

create function recon_transaction_day_refresh(days date[]) returns void language plpgsql as $f$
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
$f$;

-- Writers of the day sums queue per table, always the tickets' before the
-- transactions': an automatic run moves records of thousands of groups over
-- several statements, and an import or a manual match writing the same
-- groups in another order could otherwise deadlock with it. Readers (the
-- reports) are not held up.
create function recon_day_lock(tickets boolean, transactions boolean) returns void language plpgsql as $f$
begin
    if tickets then
        lock table recon_ticket_day in share row exclusive mode;
    end if;
    if transactions then
        lock table recon_transaction_day in share row exclusive mode;
    end if;
end
$f$;

-- recon_match: a statement's matches move their records (old rows back,
-- new rows forward); a truncate leaves every record unmatched.
create function recon_day_match_apply() returns trigger language plpgsql as $f$
declare
    many boolean;
    level1 boolean := false;
    level2 boolean := false;
    nestloop text := current_setting('enable_nestloop');
begin
    if tg_op = 'TRUNCATE' then
        perform recon_ticket_day_refresh(null);
        perform recon_transaction_day_refresh(null);
        return null;
    end if;
    -- A run's statement moves up to a million records: hash joins then, as
    -- the planner cannot know a transition table's size; a manual match
    -- moves one, through the primary keys.
    if tg_op = 'INSERT' then
        select count(*) > 10000 into many from (select 1 from new_rows limit 10001) n;
    else
        select count(*) > 10000 into many from (select 1 from old_rows limit 10001) n;
    end if;
    if many then
        perform set_config('enable_nestloop', 'off', true);
    end if;
    -- (a statement writes the matches of one level: the other is not read)
    if tg_op in ('UPDATE', 'DELETE') then
        level1 := exists (select 1 from old_rows where level = 1);
        level2 := exists (select 1 from old_rows where level = 2);
    else
        level1 := exists (select 1 from new_rows where level = 1);
        level2 := exists (select 1 from new_rows where level = 2);
    end if;
    perform recon_day_lock(level1, level2);
    if tg_op in ('UPDATE', 'DELETE') then
        if level1 then
            execute recon_ticket_day_add(recon_ticket_day_moves('old_rows', -1));
        end if;
        if level2 then
            execute recon_transaction_day_add(recon_transaction_day_moves('old_rows', -1));
        end if;
    end if;
    if tg_op in ('UPDATE', 'INSERT') then
        if level1 then
            execute recon_ticket_day_add(recon_ticket_day_moves('new_rows', 1));
        end if;
        if level2 then
            execute recon_transaction_day_add(recon_transaction_day_moves('new_rows', 1));
        end if;
    end if;
    if many then
        perform set_config('enable_nestloop', nestloop, true);
    end if;
    -- a group whose records all moved away
    delete from recon_ticket_day where tickets = 0;
    delete from recon_transaction_day where transactions = 0;
    return null;
end
$f$;

-- ticket: new tickets are unmatched; a change or a delete recomputes its days.
create function recon_day_ticket_apply() returns trigger language plpgsql as $f$
declare
    days date[];
begin
    if tg_op = 'TRUNCATE' then
        truncate recon_ticket_day;
        return null;
    end if;
    perform recon_day_lock(true, false);
    if tg_op = 'INSERT' then
        execute recon_ticket_day_add(recon_ticket_day_rows('new_rows', 1));
    else
        if tg_op = 'UPDATE' then
            select array_agg(distinct trans_date) into days from (select trans_date from old_rows union select trans_date from new_rows) d;
        else
            select array_agg(distinct trans_date) into days from old_rows;
        end if;
        perform recon_ticket_day_refresh(days);
    end if;
    return null;
end
$f$;

-- card_transaction: new ones are unmatched at level 2; a change or a delete
-- recomputes their days at level 2 and the days of the tickets matched to
-- them at level 1 (the matched row names the transaction's provider).
create function recon_day_transaction_apply() returns trigger language plpgsql as $f$
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
$f$;

-- The statement adding the settlements of rel to recon_payout_day, or
-- taking them away (sign -1).
create function recon_payout_day_add(rel text, sign int) returns text language sql immutable as $f$
    select format($q$
        insert into recon_payout_day as d
        select settlement_date, payout_id, settlement_currency, provider_actor, %1$s * count(*), %1$s * sum(settlement_net)
        from %2$s group by 1, 2, 3, 4 order by 1, 2, 3, 4
        on conflict (settlement_date, payout_id, settlement_currency, provider_actor) do update set
            settlements = d.settlements + excluded.settlements, net = d.net + excluded.net $q$, sign, rel)
$f$;

-- settlement: its payout's sums follow every write; a change or a delete
-- also recomputes the level-2 days of the transactions matched to it.
create function recon_day_settlement_apply() returns trigger language plpgsql as $f$
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
$f$;
-- +goose StatementEnd

create trigger recon_day_match_insert after insert on recon_match
    referencing new table as new_rows for each statement execute function recon_day_match_apply();
create trigger recon_day_match_update after update on recon_match
    referencing old table as old_rows new table as new_rows for each statement execute function recon_day_match_apply();
create trigger recon_day_match_delete after delete on recon_match
    referencing old table as old_rows for each statement execute function recon_day_match_apply();
create trigger recon_day_match_truncate after truncate on recon_match
    for each statement execute function recon_day_match_apply();

create trigger recon_day_ticket_insert after insert on ticket
    referencing new table as new_rows for each statement execute function recon_day_ticket_apply();
create trigger recon_day_ticket_update after update on ticket
    referencing old table as old_rows new table as new_rows for each statement execute function recon_day_ticket_apply();
create trigger recon_day_ticket_delete after delete on ticket
    referencing old table as old_rows for each statement execute function recon_day_ticket_apply();
create trigger recon_day_ticket_truncate after truncate on ticket
    for each statement execute function recon_day_ticket_apply();

create trigger recon_day_transaction_insert after insert on card_transaction
    referencing new table as new_rows for each statement execute function recon_day_transaction_apply();
create trigger recon_day_transaction_update after update on card_transaction
    referencing old table as old_rows new table as new_rows for each statement execute function recon_day_transaction_apply();
create trigger recon_day_transaction_delete after delete on card_transaction
    referencing old table as old_rows for each statement execute function recon_day_transaction_apply();
create trigger recon_day_transaction_truncate after truncate on card_transaction
    for each statement execute function recon_day_transaction_apply();

create trigger recon_day_settlement_insert after insert on settlement
    referencing new table as new_rows for each statement execute function recon_day_settlement_apply();
create trigger recon_day_settlement_update after update on settlement
    referencing old table as old_rows new table as new_rows for each statement execute function recon_day_settlement_apply();
create trigger recon_day_settlement_delete after delete on settlement
    referencing old table as old_rows for each statement execute function recon_day_settlement_apply();
create trigger recon_day_settlement_truncate after truncate on settlement
    for each statement execute function recon_day_settlement_apply();

select recon_ticket_day_refresh(null);
select recon_transaction_day_refresh(null);
insert into recon_payout_day
select settlement_date, payout_id, settlement_currency, provider_actor, count(*), sum(settlement_net)
from settlement group by 1, 2, 3, 4;

-- The reports read the sums (the first two unless a ticket number is asked for).
-- +goose StatementBegin
create or replace function recon_ticket_transaction_report(p_from date, p_to date, p_currency text[], p_provider text[], p_ticket text)
returns table (row_key text, ticket_date date, sales_currency text, payment_type text, country_code text,
               sra_ticket_count bigint, ppa_transaction_count bigint, sra_total_amount numeric, ppa_total_amount numeric,
               count_variance bigint, amount_variance numeric, reconciliation_status text, reconcile_status_number integer)
language sql stable as $$
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
        -- manual adjustments of tasks (few) count toward their ticket number
        select t.trans_date, t.currency, coalesce(t.payment_type, '') as payment_type, coalesce(t.country_code, '') as country_code,
               sum(a.amount) as amount
        from (select a.client_unique_id, sum(a.transaction_amount) as amount
              from card_transaction a where a.task_id is not null and a.is_manual_adjust
              group by a.client_unique_id) a
        join ticket t on t.ticket_number = a.client_unique_id
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
    ), r as (
        select g.trans_date, g.currency, g.payment_type, g.country_code, g.tickets, g.transactions, g.sra,
               g.ppa + coalesce(adj.amount, 0) as ppa, g.all_exact
        from g left join adj using (trans_date, currency, payment_type, country_code)
    )
    select concat_ws('|', trans_date, currency, payment_type, country_code), trans_date, currency, payment_type, country_code,
           tickets, transactions, sra, ppa, tickets - transactions, sra - ppa,
           case when transactions = 0 then 'Unmatched' when all_exact or sra = ppa and transactions = tickets then 'Matched' else 'Partial' end,
           case when transactions = 0 then 1 when all_exact or sra = ppa and transactions = tickets then 3 else 2 end
    from r
$$;

create or replace function recon_transaction_settlement_report(p_from date, p_to date, p_currency text[], p_provider text[], p_ticket text)
returns table (row_key text, trans_date date, trans_currency text, transaction_amount numeric, provider_actor text,
               settle_total_amount numeric, settlement_currency text, total_fees numeric, amount_after_fees numeric,
               settlement_amount numeric, variance numeric, exchange_currency_amount numeric, exchange_cost numeric,
               recon_status text)
language sql stable as $$
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
$$;

create or replace function recon_settlement_bank_report(p_from date, p_to date, p_currency text[], p_provider text[])
returns table (payout_id text, settlement_date date, settlement_amount numeric, settlement_currency text, provider_actor text,
               booked_date date, bank_account text, reco_amount_in_local_currency numeric, charges numeric, currency text,
               amount_variance numeric, recon_status text, recon_status_number integer, bank_id bigint, match_id bigint)
language sql stable as $$
    with p as (
        select s.payout_id, max(s.settlement_date) as settlement_date, sum(s.net) as amount,
               string_agg(distinct s.settlement_currency, ', ') as currency, min(s.provider_actor) as provider_actor
        from recon_payout_day s
        where s.settlement_date between p_from and p_to
          and (p_currency is null or s.settlement_currency = any (p_currency))
          and (p_provider is null or lower(s.provider_actor) in (select lower(v) from unnest(p_provider) v))
        group by s.payout_id
    )
    select p.payout_id, p.settlement_date, p.amount, p.currency, p.provider_actor,
           b.booked_date, b.bank_account, coalesce(b.reco_amount_in_local_currency, b.amount_local), b.bank_charges_in_local, b.currency,
           m.amount_variance, s.label, s.n, b.id, m.id
    from p
    left join lateral (
        select m.id, m.status, m.amount_variance, m.right_id
        from payout po join recon_match m on m.level = 3 and m.left_id = po.id and m.undone_on is null
        where po.payout_key = p.payout_id limit 1) m on true
    left join lateral (select b.* from bank_booking b where b.id = m.right_id limit 1) b on true
    cross join lateral (select case
            when m.id is null then 3
            when m.status = 'matched' and coalesce(m.amount_variance, 0) = 0 then 1
            else 2 end as n) sn
    cross join lateral (select sn.n, (array['Matched', 'Partial', 'Unmatched'])[sn.n] as label) s
$$;
-- +goose StatementEnd

-- +goose Down
-- The report functions of 00014 come back as they were.

-- +goose StatementBegin
create or replace function recon_ticket_transaction_report(p_from date, p_to date, p_currency text[], p_provider text[], p_ticket text)
returns table (row_key text, ticket_date date, sales_currency text, payment_type text, country_code text,
               sra_ticket_count bigint, ppa_transaction_count bigint, sra_total_amount numeric, ppa_total_amount numeric,
               count_variance bigint, amount_variance numeric, reconciliation_status text, reconcile_status_number integer)
language sql stable as $$
    with adj as (
        select a.client_unique_id, sum(a.transaction_amount) as amount
        from card_transaction a where a.task_id is not null and a.is_manual_adjust
        group by a.client_unique_id
    ), t as (
        select t.trans_date, t.currency, coalesce(t.payment_type, '') as payment_type, coalesce(t.country_code, '') as country_code,
               t.sale_amount, m.id as match_id, m.status, m.amount_variance, coalesce(adj.amount, 0) as adjusted
        from ticket t
        left join lateral (
            select m.id, m.status, m.amount_variance, x.provider_actor
            from recon_match m join card_transaction x on x.id = m.right_id
            where m.level = 1 and m.left_id = t.id and m.undone_on is null and m.status <> 'investigation'
            limit 1) m on true
        left join adj on adj.client_unique_id = t.ticket_number
        where t.trans_date between p_from and p_to
          and (p_currency is null or t.currency = any (p_currency))
          and (p_ticket is null or t.ticket_number = p_ticket)
          -- an unmatched ticket has no provider yet: it shows under any provider filter
          and (p_provider is null or m.id is null or lower(m.provider_actor) in (select lower(v) from unnest(p_provider) v))
    ), g as (
        select trans_date, currency, payment_type, country_code,
               count(*) as tickets, count(match_id) as transactions, sum(sale_amount) as sra,
               coalesce(sum(sale_amount - coalesce(amount_variance, 0)) filter (where match_id is not null), 0) + sum(adjusted) as ppa,
               bool_and(match_id is not null and status = 'matched' and coalesce(amount_variance, 0) = 0) as all_exact
        from t
        group by trans_date, currency, payment_type, country_code
    )
    select concat_ws('|', trans_date, currency, payment_type, country_code), trans_date, currency, payment_type, country_code,
           tickets, transactions, sra, ppa, tickets - transactions, sra - ppa,
           case when transactions = 0 then 'Unmatched' when all_exact or sra = ppa and transactions = tickets then 'Matched' else 'Partial' end,
           case when transactions = 0 then 1 when all_exact or sra = ppa and transactions = tickets then 3 else 2 end
    from g
$$;

create or replace function recon_transaction_settlement_report(p_from date, p_to date, p_currency text[], p_provider text[], p_ticket text)
returns table (row_key text, trans_date date, trans_currency text, transaction_amount numeric, provider_actor text,
               settle_total_amount numeric, settlement_currency text, total_fees numeric, amount_after_fees numeric,
               settlement_amount numeric, variance numeric, exchange_currency_amount numeric, exchange_cost numeric,
               recon_status text)
language sql stable as $$
    with x as (
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
        where not x.is_manual_adjust
          and x.processing_date between p_from and p_to
          and (p_currency is null or x.currency = any (p_currency))
          and (p_provider is null or lower(x.provider_actor) in (select lower(v) from unnest(p_provider) v))
          and (p_ticket is null or x.client_unique_id = p_ticket)
    ), g as (
        select processing_date, currency, provider_actor, sum(transaction_amount) as amount, count(*) as n, count(match_id) as matched,
               sum(gross) as gross, string_agg(distinct settlement_currency, ', ') as settlement_currency,
               sum(fees) as fees, sum(settlement_net) as net,
               sum(transaction_amount - coalesce(amount_variance, 0)) filter (where match_id is not null) as settled,
               sum(transaction_amount) filter (where settlement_currency <> currency) as fx_amount,
               sum(amount_variance) filter (where settlement_currency <> currency) as fx_cost,
               bool_and(match_id is not null and status = 'matched' and coalesce(amount_variance, 0) = 0) as all_exact
        from x
        group by processing_date, currency, provider_actor
    )
    select concat_ws('|', processing_date, currency, provider_actor), processing_date, currency, amount, provider_actor,
           gross, settlement_currency, fees, net, settled,
           case when matched = 0 then null when all_exact then 0 else amount - settled end,
           fx_amount, fx_cost,
           case when matched = 0 then 'Unmatched' when all_exact then 'Matched' else 'Partial' end
    from g
$$;

create or replace function recon_settlement_bank_report(p_from date, p_to date, p_currency text[], p_provider text[])
returns table (payout_id text, settlement_date date, settlement_amount numeric, settlement_currency text, provider_actor text,
               booked_date date, bank_account text, reco_amount_in_local_currency numeric, charges numeric, currency text,
               amount_variance numeric, recon_status text, recon_status_number integer, bank_id bigint, match_id bigint)
language sql stable as $$
    with p as (
        select s.payout_id, max(s.settlement_date) as settlement_date, sum(s.settlement_net) as amount,
               string_agg(distinct s.settlement_currency, ', ') as currency, min(s.provider_actor) as provider_actor
        from settlement s
        where s.settlement_date between p_from and p_to
          and (p_currency is null or s.settlement_currency = any (p_currency))
          and (p_provider is null or lower(s.provider_actor) in (select lower(v) from unnest(p_provider) v))
        group by s.payout_id
    )
    select p.payout_id, p.settlement_date, p.amount, p.currency, p.provider_actor,
           b.booked_date, b.bank_account, coalesce(b.reco_amount_in_local_currency, b.amount_local), b.bank_charges_in_local, b.currency,
           m.amount_variance, s.label, s.n, b.id, m.id
    from p
    left join lateral (
        select m.id, m.status, m.amount_variance, m.right_id
        from payout po join recon_match m on m.level = 3 and m.left_id = po.id and m.undone_on is null
        where po.payout_key = p.payout_id limit 1) m on true
    left join lateral (select b.* from bank_booking b where b.id = m.right_id limit 1) b on true
    cross join lateral (select case
            when m.id is null then 3
            when m.status = 'matched' and coalesce(m.amount_variance, 0) = 0 then 1
            else 2 end as n) sn
    cross join lateral (select sn.n, (array['Matched', 'Partial', 'Unmatched'])[sn.n] as label) s
$$;
-- +goose StatementEnd
drop trigger recon_day_settlement_truncate on settlement;
drop trigger recon_day_settlement_delete on settlement;
drop trigger recon_day_settlement_update on settlement;
drop trigger recon_day_settlement_insert on settlement;
drop trigger recon_day_transaction_truncate on card_transaction;
drop trigger recon_day_transaction_delete on card_transaction;
drop trigger recon_day_transaction_update on card_transaction;
drop trigger recon_day_transaction_insert on card_transaction;
drop trigger recon_day_ticket_truncate on ticket;
drop trigger recon_day_ticket_delete on ticket;
drop trigger recon_day_ticket_update on ticket;
drop trigger recon_day_ticket_insert on ticket;
drop trigger recon_day_match_truncate on recon_match;
drop trigger recon_day_match_delete on recon_match;
drop trigger recon_day_match_update on recon_match;
drop trigger recon_day_match_insert on recon_match;
drop function recon_day_settlement_apply();
drop function recon_payout_day_add(text, int);
drop function recon_day_transaction_apply();
drop function recon_day_ticket_apply();
drop function recon_day_match_apply();
drop function recon_day_lock(boolean, boolean);
drop function recon_transaction_day_refresh(date[]);
drop function recon_ticket_day_refresh(date[]);
drop function recon_transaction_day_add(text);
drop function recon_ticket_day_add(text);
drop function recon_transaction_day_moves(text, int);
drop function recon_transaction_day_rows(text, int);
drop function recon_ticket_day_moves(text, int);
drop function recon_ticket_day_rows(text, int);
drop table recon_payout_day;
drop table recon_transaction_day;
drop table recon_ticket_day;
