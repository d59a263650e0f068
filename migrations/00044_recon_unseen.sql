-- +goose Up
-- The records no automatic run of a level has taken in yet, kept as id
-- ranges (recon_unseen), so that the open records of a level are known
-- without comparing every record with the level's live matches:
--
--   open = the queue's rows without a live match (recon_open_item, kept by
--          the writing transaction since 00031)
--        + the records of the level's unseen ranges without a row or a
--          live match
--        + the records that do not count or were made by hand (never in
--          the queue) without a live match.
--
-- The manual dialog's candidates read that (a month of a million-record
-- level: 300 ms as an anti-join of 80,000 records, a few ms now), and a
-- run's end takes in only its own ranges instead of every record of the
-- level.
--
-- Who writes the ranges:
--   - a statement inserting or updating documents (an import, a form, an
--     edit that brings a record into a side, as a bank booking becoming
--     Processed): one row per level and side reading the table, its lowest
--     and highest id (ids a concurrent statement took in between are
--     included: a range may hold more than unseen records, never less);
--   - a provider's first payout: its bank bookings start to count;
--   - recon_open_rebuild (a level declared anew, a table truncated): the
--     level's whole sources.
-- An automatic run reads the ranges of its level when it starts (each was
-- committed with its records, so the run's later reads see them) and
-- deletes those at its end, when it has taken their records in. Ranges
-- written meanwhile stay for the next run.

create table recon_unseen (
    id     bigint generated always as identity primary key,
    level  smallint not null,
    side   text not null check (side in ('left', 'right')),
    lo     bigint not null,
    hi     bigint not null check (hi >= lo)
);
create index recon_unseen_level on recon_unseen (level, side);

-- the dialog's candidates: a level's open rows without a live match, by date
create index recon_open_item_unmatched on recon_open_item (level, side, date) where match_id is null;

-- a task's adjustments among the card transactions, by date: the few
-- records of the side "made by hand" the dialog offers
create index card_transaction_manual_date on card_transaction (processing_date) where is_manual_adjust;

-- +goose StatementBegin
-- Notes the ids lo..hi of records of kind p_kind as unseen by every level
-- with a side of that kind.
create function recon_unseen_note(p_kind text, p_lo bigint, p_hi bigint) returns void language sql as $$
    insert into recon_unseen (level, side, lo, hi)
    select l.number, s.side, p_lo, p_hi
    from recon_level l cross join lateral (values ('left', l.left_kind), ('right', l.right_kind)) s(side, kind)
    where s.kind = p_kind and p_lo is not null and p_hi is not null
$$;
-- +goose StatementEnd

-- +goose StatementBegin
-- Inserted documents: one range, the statement's lowest and highest id.
-- Updated ones: a range per run of consecutive ids (an edit of two records
-- far apart is two rows, not everything between them).
create function recon_unseen_apply() returns trigger language plpgsql as $f$
declare
    r record;
begin
    if tg_op = 'INSERT' then
        for r in select min(id) as lo, max(id) as hi from new_rows loop
            perform recon_unseen_note(tg_argv[0], r.lo, r.hi);
        end loop;
    else
        for r in
            select min(id) as lo, max(id) as hi
            from (select id, id - row_number() over (order by id) as run from new_rows) x
            group by run
        loop
            perform recon_unseen_note(tg_argv[0], r.lo, r.hi);
        end loop;
    end if;
    return null;
end
$f$;
-- +goose StatementEnd

create trigger recon_unseen_insert after insert on ticket referencing new table as new_rows
    for each statement execute function recon_unseen_apply('ticket');
create trigger recon_unseen_update after update on ticket referencing new table as new_rows
    for each statement execute function recon_unseen_apply('ticket');
create trigger recon_unseen_insert after insert on card_transaction referencing new table as new_rows
    for each statement execute function recon_unseen_apply('transaction');
create trigger recon_unseen_update after update on card_transaction referencing new table as new_rows
    for each statement execute function recon_unseen_apply('transaction');
create trigger recon_unseen_insert after insert on settlement referencing new table as new_rows
    for each statement execute function recon_unseen_apply('settlement');
create trigger recon_unseen_update after update on settlement referencing new table as new_rows
    for each statement execute function recon_unseen_apply('settlement');
create trigger recon_unseen_insert after insert on payout referencing new table as new_rows
    for each statement execute function recon_unseen_apply('payout');
create trigger recon_unseen_update after update on payout referencing new table as new_rows
    for each statement execute function recon_unseen_apply('payout');
create trigger recon_unseen_insert after insert on bank_booking referencing new table as new_rows
    for each statement execute function recon_unseen_apply('bank');
create trigger recon_unseen_update after update on bank_booking referencing new table as new_rows
    for each statement execute function recon_unseen_apply('bank');

-- +goose StatementBegin
-- A level's whole sources as unseen (the level is new or changed, or its
-- records' rows were computed again after a truncate).
create function recon_unseen_seed(p_level int) returns void language plpgsql as $f$
declare
    l recon_level;
    v_side text;
    lo bigint;
    hi bigint;
begin
    for l in select * from recon_level where p_level is null or number = p_level loop
        delete from recon_unseen where level = l.number;
        foreach v_side in array array['left', 'right'] loop
            execute format('select min(id), max(id) from %I', case v_side when 'left' then l.left_source else l.right_source end) into lo, hi;
            if lo is not null then
                insert into recon_unseen (level, side, lo, hi) values (l.number, v_side, lo, hi);
            end if;
        end loop;
    end loop;
end
$f$;
-- +goose StatementEnd

-- +goose StatementBegin
-- recon_open_rebuild (00031) seeds the unseen ranges too: a record whose
-- live match went with a truncate, or of a level declared anew, is taken
-- in by the level's next run.
create or replace function recon_open_rebuild(p_level int) returns void language plpgsql as $f$
declare
    l recon_level;
begin
    delete from recon_open_item where level not in (select number from recon_level);
    delete from recon_unseen where level not in (select number from recon_level);
    analyze recon_open_item;
    for l in select * from recon_level where p_level is null or number = p_level order by number loop
        perform recon_open_put(l.number, 'left', null, 'existing');
        perform recon_open_put(l.number, 'right', null, 'existing');
        perform recon_unseen_seed(l.number);
    end loop;
end
$f$;
-- +goose StatementEnd

-- +goose StatementBegin
-- recon_open_payout_apply (00031): the bookings of a provider whose first
-- payout came start to count, as records no run has seen.
create or replace function recon_open_payout_apply() returns trigger language plpgsql as $f$
declare
    keys text[];
    ids bigint[];
begin
    if tg_op = 'INSERT' then
        select array_agg(distinct lower(n.provider_actor)) into keys from new_rows n
        where not exists (select 1 from payout p where lower(p.provider_actor) = lower(n.provider_actor)
                            and not exists (select 1 from new_rows x where x.id = p.id));
    else
        select array_agg(id order by id) into ids from old_rows;
        perform recon_open_sync('recon_side_payout', ids);
        select array_agg(distinct lower(o.provider_actor)) into keys from old_rows o
        where not exists (select 1 from payout p where lower(p.provider_actor) = lower(o.provider_actor));
    end if;
    if keys is not null then
        select array_agg(b.id order by b.id) into ids from bank_booking b
        where lower(coalesce(nullif(b.manual_provider, ''), b.provider)) = any(keys);
        perform recon_open_sync('recon_side_bank', ids);
        if tg_op = 'INSERT' then
            perform recon_unseen_note('bank', min(x), max(x)) from unnest(ids) x;
        end if;
    end if;
    return null;
end
$f$;
-- +goose StatementEnd

-- +goose StatementBegin
-- recon_open_put (00034) with the rates joined once per currency and date
-- (usd_rate, a function with a subquery, is never inlined: called per row
-- it took half a second of a run's end for 100,000 records).
create or replace function recon_open_put(p_level int, p_side text, p_ids bigint[], p_mode text) returns void
language plpgsql
-- (compiling its statements costs seconds and gains nothing here)
set jit = off
as $f$
declare
    l recon_level;
    ids bigint[] := p_ids;
begin
    select * into l from recon_level where number = p_level;
    if not found then
        return;
    end if;
    if p_mode = 'existing' then
        select coalesce(array_agg(record_id), '{}') into ids from recon_open_item
        where level = p_level and side = p_side and (p_ids is null or record_id in (select unnest(p_ids)));
        if cardinality(ids) = 0 then
            return;
        end if;
    end if;
    execute format($q$
        with base as materialized (
            select $1::smallint as level, $2 as side, s.id as record_id, $3 as kind, s.ref, s.date, s.amount, s.currency, s.provider,
                   coalesce(m.status, case when i.record_id is not null then 'investigation' else 'unmatched' end) as status, m.id as match_id,
                   s.date + case when s.provider_key is null then smin.days else sla.sla_days end as due_on, t.task_id, t.assignee
            from %1$I s %2$s
            left join recon_sla sla on sla.tolerance_type = $4 and sla.provider_key = s.provider_key
            cross join (select min(sla_days) as days from recon_sla where tolerance_type = $4) smin
            left join recon_match_live m on m.level = $1 and m.side = $2 and m.record_id = s.id
            left join recon_investigation i on i.level = $1 and i.side = $2 and i.record_id = s.id
            -- each record's latest open task, as recon_open_task picks it (joined: a run's end takes in
            -- a hundred thousand records)
            left join (
                select distinct on (x.record_id) x.record_id, t.id as task_id, u.username as assignee
                from (select tt.ticket_id as record_id, tt.task_id from task_ticket tt where $3 = 'ticket'
                      union all
                      select tx.transaction_id, tx.task_id from task_transaction tx where $3 = 'transaction'
                      union all
                      select tr.record_id, tr.task_id from task_record tr where tr.kind = $3) x
                join task t on t.id = x.task_id and t.is_status <> 3
                left join app_user u on u.id = t.assigned_to_id
                order by x.record_id, t.id desc) t on t.record_id = s.id
            where s.counted and not s.manual and m.status is distinct from 'matched'),
        rates as (
            select d.currency, d.date, usd_rate(d.currency, d.date) as usd
            from (select distinct b.currency, b.date from base b) d),
        open as (
            select b.level, b.side, b.record_id, b.kind, b.ref, b.date, b.amount, b.currency, round(b.amount * r.usd, 2) as amount_usd,
                   b.provider, b.status, b.match_id, b.due_on, b.task_id, b.assignee
            from base b left join rates r on r.currency = b.currency and r.date = b.date),
        put as (
            insert into recon_open_item (level, side, record_id, kind, ref, date, amount, currency, amount_usd, provider, status, match_id,
                                         due_on, task_id, assignee)
            select * from open order by record_id
            -- a row that is as it was is left alone (a run's end passes every open record again)
            on conflict (level, side, record_id) do update set
                kind = excluded.kind, ref = excluded.ref, date = excluded.date, amount = excluded.amount, currency = excluded.currency,
                amount_usd = excluded.amount_usd, provider = excluded.provider, status = excluded.status, match_id = excluded.match_id,
                due_on = excluded.due_on, task_id = excluded.task_id, assignee = excluded.assignee
            where (recon_open_item.kind, recon_open_item.ref, recon_open_item.date, recon_open_item.amount, recon_open_item.currency,
                   recon_open_item.amount_usd, recon_open_item.provider, recon_open_item.status, recon_open_item.match_id,
                   recon_open_item.due_on, recon_open_item.task_id, recon_open_item.assignee)
                  is distinct from (excluded.kind, excluded.ref, excluded.date, excluded.amount, excluded.currency, excluded.amount_usd,
                   excluded.provider, excluded.status, excluded.match_id, excluded.due_on, excluded.task_id, excluded.assignee))
        delete from recon_open_item o
        where o.level = $1 and o.side = $2 and ($5 is null or o.record_id in (select unnest($5)))
          and not exists (select 1 from base x where x.record_id = o.record_id) $q$,
        case p_side when 'left' then l.left_source else l.right_source end,
        case when ids is not null then 'join (select distinct unnest($5) as id) k on k.id = s.id' else '' end)
    using p_level, p_side, case p_side when 'left' then l.left_kind else l.right_kind end, l.tolerance_type, ids;
end
$f$;
-- +goose StatementEnd

-- +goose StatementBegin
-- recon_open_after_run (00041) over the run's unseen ranges (p_ranges, read
-- when it started) instead of every record of the level; the ranges go.
create function recon_open_after_run(p_level int, p_run bigint, p_ranges bigint[]) returns void
language plpgsql
-- (compiling its statements costs seconds and gains nothing here)
set jit = off
as $f$
declare
    l recon_level;
    v_side text;
    ids bigint[];
    unseen bigint[];
begin
    select * into l from recon_level where number = p_level;
    if not found then
        return;
    end if;
    -- what the queue holds now, for the plans (a level's rows compared as a
    -- nested loop with the table taken for empty cost minutes)
    analyze recon_open_item;
    foreach v_side in array array['left', 'right'] loop
        select coalesce(array_agg(distinct r.id), '{}') into ids from (
            select case v_side when 'left' then m.left_id else m.right_id end as id
            from recon_match m
            where m.run_id = p_run and m.level = p_level and m.undone_on is null and m.status <> 'matched'
            union all
            select mm.record_id
            from recon_match m join recon_match_member mm on mm.match_id = m.id
            where m.run_id = p_run and m.level = p_level and m.undone_on is null and m.status <> 'matched'
              and mm.live and mm.side = v_side) r
        where r.id is not null;
        execute format($q$
            select coalesce(array_agg(distinct s.id), '{}')
            from recon_unseen u join %I s on s.id between u.lo and u.hi
            where u.id = any ($3) and u.level = $1 and u.side = $2
              and s.counted and not s.manual
              and not exists (select 1 from recon_open_item o where o.level = $1 and o.side = $2 and o.record_id = s.id)
              and not exists (select 1 from recon_match_live m
                              where m.level = $1 and m.side = $2 and m.record_id = s.id and m.status = 'matched') $q$,
            case v_side when 'left' then l.left_source else l.right_source end)
        into unseen using p_level, v_side, p_ranges;
        ids := ids || unseen;
        if cardinality(ids) > 0 then
            perform recon_open_put(p_level, v_side, ids, 'seen');
        end if;
    end loop;
    delete from recon_unseen where id = any (p_ranges) and level = p_level;
end
$f$;
-- +goose StatementEnd

drop function recon_open_after_run(int, bigint);

-- +goose StatementBegin
-- A deleted live group member (00031 followed deleted matches, not their
-- members): its record is computed again, as when it leaves its group.
create function recon_open_member_delete() returns trigger language plpgsql as $f$
declare
    r record;
begin
    for r in
        select o.level, o.side, array_agg(o.record_id order by o.record_id) as ids
        from old_rows o where o.live
        group by o.level, o.side order by o.level, o.side
    loop
        perform recon_open_put(r.level, r.side, r.ids, 'seen');
    end loop;
    return null;
end
$f$;
-- +goose StatementEnd
create trigger recon_open_delete after delete on recon_match_member referencing old table as old_rows
    for each statement execute function recon_open_member_delete();

-- what no run has taken in yet: everything, until each level's next run
select recon_unseen_seed(null);

-- +goose Down
drop trigger recon_open_delete on recon_match_member;
drop function recon_open_member_delete();
drop function recon_open_after_run(int, bigint, bigint[]);

-- +goose StatementBegin
create function recon_open_after_run(p_level int, p_run bigint) returns void
language plpgsql
set jit = off
as $f$
declare
    l recon_level;
    v_side text;
    ids bigint[];
    unseen bigint[];
begin
    select * into l from recon_level where number = p_level;
    if not found then
        return;
    end if;
    analyze recon_open_item;
    foreach v_side in array array['left', 'right'] loop
        select coalesce(array_agg(distinct r.id), '{}') into ids from (
            select case v_side when 'left' then m.left_id else m.right_id end as id
            from recon_match m
            where m.run_id = p_run and m.level = p_level and m.undone_on is null and m.status <> 'matched'
            union all
            select mm.record_id
            from recon_match m join recon_match_member mm on mm.match_id = m.id
            where m.run_id = p_run and m.level = p_level and m.undone_on is null and m.status <> 'matched'
              and mm.live and mm.side = v_side) r
        where r.id is not null;
        execute format($q$
            select coalesce(array_agg(s.id), '{}') from %I s
            where s.counted and not s.manual
              and not exists (select 1 from recon_open_item o where o.level = $1 and o.side = $2 and o.record_id = s.id)
              and not exists (select 1 from recon_match_live m
                              where m.level = $1 and m.side = $2 and m.record_id = s.id and m.status = 'matched') $q$,
            case v_side when 'left' then l.left_source else l.right_source end)
        into unseen using p_level, v_side;
        ids := ids || unseen;
        if cardinality(ids) > 0 then
            perform recon_open_put(p_level, v_side, ids, 'seen');
        end if;
    end loop;
end
$f$;
-- +goose StatementEnd

-- +goose StatementBegin
create or replace function recon_open_rebuild(p_level int) returns void language plpgsql as $f$
declare
    l recon_level;
begin
    delete from recon_open_item where level not in (select number from recon_level);
    analyze recon_open_item;
    for l in select * from recon_level where p_level is null or number = p_level order by number loop
        perform recon_open_put(l.number, 'left', null, 'existing');
        perform recon_open_put(l.number, 'right', null, 'existing');
    end loop;
end
$f$;
-- +goose StatementEnd

-- +goose StatementBegin
create or replace function recon_open_payout_apply() returns trigger language plpgsql as $f$
declare
    keys text[];
    ids bigint[];
begin
    if tg_op = 'INSERT' then
        select array_agg(distinct lower(n.provider_actor)) into keys from new_rows n
        where not exists (select 1 from payout p where lower(p.provider_actor) = lower(n.provider_actor)
                            and not exists (select 1 from new_rows x where x.id = p.id));
    else
        select array_agg(id order by id) into ids from old_rows;
        perform recon_open_sync('recon_side_payout', ids);
        select array_agg(distinct lower(o.provider_actor)) into keys from old_rows o
        where not exists (select 1 from payout p where lower(p.provider_actor) = lower(o.provider_actor));
    end if;
    if keys is not null then
        select array_agg(b.id order by b.id) into ids from bank_booking b
        where lower(coalesce(nullif(b.manual_provider, ''), b.provider)) = any(keys);
        perform recon_open_sync('recon_side_bank', ids);
    end if;
    return null;
end
$f$;
-- +goose StatementEnd

-- +goose StatementBegin
create or replace function recon_open_put(p_level int, p_side text, p_ids bigint[], p_mode text) returns void
language plpgsql
set jit = off
as $f$
declare
    l recon_level;
    ids bigint[] := p_ids;
begin
    select * into l from recon_level where number = p_level;
    if not found then
        return;
    end if;
    if p_mode = 'existing' then
        select coalesce(array_agg(record_id), '{}') into ids from recon_open_item
        where level = p_level and side = p_side and (p_ids is null or record_id in (select unnest(p_ids)));
        if cardinality(ids) = 0 then
            return;
        end if;
    end if;
    execute format($q$
        with open as materialized (
            select $1::smallint as level, $2 as side, s.id as record_id, $3 as kind, s.ref, s.date, s.amount, s.currency,
                   round(s.amount * usd_rate(s.currency, s.date), 2) as amount_usd, s.provider,
                   coalesce(m.status, case when i.record_id is not null then 'investigation' else 'unmatched' end) as status, m.id as match_id,
                   s.date + case when s.provider_key is null then smin.days else sla.sla_days end as due_on, t.task_id, t.assignee
            from %1$I s %2$s
            left join recon_sla sla on sla.tolerance_type = $4 and sla.provider_key = s.provider_key
            cross join (select min(sla_days) as days from recon_sla where tolerance_type = $4) smin
            left join recon_match_live m on m.level = $1 and m.side = $2 and m.record_id = s.id
            left join recon_investigation i on i.level = $1 and i.side = $2 and i.record_id = s.id
            left join (
                select distinct on (x.record_id) x.record_id, t.id as task_id, u.username as assignee
                from (select tt.ticket_id as record_id, tt.task_id from task_ticket tt where $3 = 'ticket'
                      union all
                      select tx.transaction_id, tx.task_id from task_transaction tx where $3 = 'transaction'
                      union all
                      select tr.record_id, tr.task_id from task_record tr where tr.kind = $3) x
                join task t on t.id = x.task_id and t.is_status <> 3
                left join app_user u on u.id = t.assigned_to_id
                order by x.record_id, t.id desc) t on t.record_id = s.id
            where s.counted and not s.manual and m.status is distinct from 'matched'),
        put as (
            insert into recon_open_item (level, side, record_id, kind, ref, date, amount, currency, amount_usd, provider, status, match_id,
                                         due_on, task_id, assignee)
            select * from open order by record_id
            on conflict (level, side, record_id) do update set
                kind = excluded.kind, ref = excluded.ref, date = excluded.date, amount = excluded.amount, currency = excluded.currency,
                amount_usd = excluded.amount_usd, provider = excluded.provider, status = excluded.status, match_id = excluded.match_id,
                due_on = excluded.due_on, task_id = excluded.task_id, assignee = excluded.assignee
            where (recon_open_item.kind, recon_open_item.ref, recon_open_item.date, recon_open_item.amount, recon_open_item.currency,
                   recon_open_item.amount_usd, recon_open_item.provider, recon_open_item.status, recon_open_item.match_id,
                   recon_open_item.due_on, recon_open_item.task_id, recon_open_item.assignee)
                  is distinct from (excluded.kind, excluded.ref, excluded.date, excluded.amount, excluded.currency, excluded.amount_usd,
                   excluded.provider, excluded.status, excluded.match_id, excluded.due_on, excluded.task_id, excluded.assignee))
        delete from recon_open_item o
        where o.level = $1 and o.side = $2 and ($5 is null or o.record_id in (select unnest($5)))
          and not exists (select 1 from open x where x.record_id = o.record_id) $q$,
        case p_side when 'left' then l.left_source else l.right_source end,
        case when ids is not null then 'join (select distinct unnest($5) as id) k on k.id = s.id' else '' end)
    using p_level, p_side, case p_side when 'left' then l.left_kind else l.right_kind end, l.tolerance_type, ids;
end
$f$;
-- +goose StatementEnd

drop trigger recon_unseen_insert on ticket;
drop trigger recon_unseen_update on ticket;
drop trigger recon_unseen_insert on card_transaction;
drop trigger recon_unseen_update on card_transaction;
drop trigger recon_unseen_insert on settlement;
drop trigger recon_unseen_update on settlement;
drop trigger recon_unseen_insert on payout;
drop trigger recon_unseen_update on payout;
drop trigger recon_unseen_insert on bank_booking;
drop trigger recon_unseen_update on bank_booking;
drop function recon_unseen_seed(int);
drop function recon_unseen_apply();
drop function recon_unseen_note(text, bigint, bigint);
drop index card_transaction_manual_date;
drop index recon_open_item_unmatched;
drop table recon_unseen;
