-- +goose Up
-- The exception queue: every record reconciliation has seen and not
-- closed, one row per record and level (recon_open_item), kept by the
-- transaction that changes it.
--
-- A record of a side of a level (recon_level's sources) is an open item
-- when it counts (a counted record not made by hand), the level has seen it
-- (a run of the level after it arrived, or a match, a mark or an undo that
-- took it in), and it has no live match at the level or its live match is
-- not plainly matched: partial, changed since matched, or under
-- investigation. A record imported since its level's last run is waiting
-- for that run, not an exception yet (the dashboard shows it unmatched):
-- so an import writes nothing here, and a run writes only what it leaves
-- open, never a row per record it matched. Each row carries what the queue
-- shows and sorts on: the record's reference, date, amount and currency,
-- the amount in USD (the rate of its date, else the latest earlier one),
-- its provider, the status, the date its SLA runs out and the open task
-- following it up.
--
-- Who keeps it:
--   - an automatic run: at its end the level's open records get their rows
--     (recon_open_after_run), its matched ones lose theirs;
--   - a new live match or group member: its records' rows go (matched) or
--     take its status;
--   - a match whose status changes or that is undone, a mark for
--     investigation: the records concerned are computed again;
--   - the writes of the documents: the rows of their records are computed
--     again (edited, or gone);
--   - rates, SLA settings and tasks: the columns they give.

-- The kind of record of each side (recon.yaml's side name), written by the
-- server with the levels.
alter table recon_level add column left_kind text, add column right_kind text;
update recon_level set left_kind = regexp_replace(left_source, '^recon_side_(card_)?', ''),
                       right_kind = regexp_replace(right_source, '^recon_side_(card_)?', '');
alter table recon_level alter column left_kind set not null, alter column right_kind set not null;

-- An SLA per provider and level (days an item may stay open; none: no SLA),
-- and the provider's owner, who gets the task of an overdue item.
alter table config_setting add column sla_days integer check (sla_days between 0 and 3650),
                           add column owner_id bigint references app_user (id) on delete set null;

-- The configuration settings grid: the rows with their owner's user name.
create view config_setting_list as
    select c.*, u.username as owner_name from config_setting c left join app_user u on u.id = c.owner_id;

-- The SLA of each provider and level, as recon_tolerance picks its row.
create view recon_sla as
    select distinct on (transaction_type, lower(coalesce(nullif(provider_actor, ''), provider_name)))
           transaction_type as tolerance_type,
           lower(coalesce(nullif(provider_actor, ''), provider_name)) as provider_key,
           sla_days, owner_id
    from config_setting
    order by transaction_type, lower(coalesce(nullif(provider_actor, ''), provider_name)), id;


-- The day an item's SLA runs out (due_on) is its date plus the SLA days of
-- its provider at its level; a record with no provider (a ticket) takes
-- the level's strictest SLA; none: no SLA applies.

-- +goose StatementBegin
-- The task following a record up: the latest one not complete that links
-- it (tasks link tickets and card transactions).
create function recon_open_task(p_kind text, p_id bigint) returns table (task_id bigint, assignee text)
language sql stable as $$
    select t.id, u.username from task t left join app_user u on u.id = t.assigned_to_id
    where t.is_status <> 3 and t.id in (
        select tt.task_id from task_ticket tt where p_kind = 'ticket' and tt.ticket_id = p_id
        union all
        select tx.task_id from task_transaction tx where p_kind = 'transaction' and tx.transaction_id = p_id)
    order by t.id desc limit 1
$$;
-- +goose StatementEnd

-- A record marked for investigation from the queue while it has no match:
-- it shows as under investigation (runs still match it; once matched the
-- mark no longer counts).
create table recon_investigation (
    level      smallint not null,
    side       text not null check (side in ('left', 'right')),
    record_id  bigint not null,
    reason     text not null check (length(trim(reason)) between 1 and 1000),
    created_by text not null,
    created_on timestamptz not null default now(),
    primary key (level, side, record_id)
);

-- An open item given to its provider's owner once it was past its SLA
-- (tasks.EscalateOverdue): never twice, whatever happens to the task.
create table recon_escalation (
    level        smallint not null,
    side         text not null check (side in ('left', 'right')),
    record_id    bigint not null,
    task_id      bigint not null,
    due_on       date not null,
    escalated_on timestamptz not null default now(),
    primary key (level, side, record_id)
);

create table recon_open_item (
    id         bigint generated always as identity primary key,
    level      smallint not null,
    side       text not null check (side in ('left', 'right')),
    record_id  bigint not null,
    kind       text not null,
    ref        text,
    date       date,
    amount     numeric,
    currency   text,
    amount_usd numeric(20, 2),
    provider   text,
    status     text not null check (status in ('unmatched', 'partial', 'changed', 'investigation')),
    match_id   bigint,
    due_on     date,
    task_id    bigint,
    assignee   text
);
create unique index recon_open_item_record on recon_open_item (level, side, record_id);
-- rates follow by currency and date
create index recon_open_item_currency_date on recon_open_item (currency, date);

-- +goose StatementBegin
-- Computes the rows of records of one side of a level from its canonical
-- source (all of them when p_ids is null): each open one gets or keeps its
-- row (updated in place: a row keeps its id while its record stays open, so
-- the queue's order and a user's choice hold), the others' rows go. p_mode
-- 'seen': the records are seen (a run, a match, a mark took them in);
-- 'existing': only records that already have a row (a document edited or
-- deleted) are computed again. The SLA and the rate are joined, not looked
-- up row by row.
create function recon_open_put(p_level int, p_side text, p_ids bigint[], p_mode text) returns void
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
            -- each record's latest open task, as recon_open_task picks it (joined: a run's end takes in
            -- a hundred thousand records)
            left join (
                select distinct on (x.record_id) x.record_id, t.id as task_id, u.username as assignee
                from (select tt.ticket_id as record_id, tt.task_id from task_ticket tt where $3 = 'ticket'
                      union all
                      select tx.transaction_id, tx.task_id from task_transaction tx where $3 = 'transaction') x
                join task t on t.id = x.task_id and t.is_status <> 3
                left join app_user u on u.id = t.assigned_to_id
                order by x.record_id, t.id desc) t on t.record_id = s.id
            where s.counted and not s.manual and m.status is distinct from 'matched'),
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
          and not exists (select 1 from open x where x.record_id = o.record_id) $q$,
        case p_side when 'left' then l.left_source else l.right_source end,
        case when ids is not null then 'join (select distinct unnest($5) as id) k on k.id = s.id' else '' end)
    using p_level, p_side, case p_side when 'left' then l.left_kind else l.right_kind end, l.tolerance_type, ids;
end
$f$;
-- +goose StatementEnd

-- +goose StatementBegin
-- Computes the existing rows of records of a source at every level and
-- side reading it (the records were edited or deleted).
create function recon_open_sync(p_source text, p_ids bigint[]) returns void
language plpgsql as $f$
declare
    l recon_level;
begin
    if p_ids is null or cardinality(p_ids) = 0 then
        return;
    end if;
    for l in select * from recon_level where left_source = p_source or right_source = p_source order by number loop
        if l.left_source = p_source then
            perform recon_open_put(l.number, 'left', p_ids, 'existing');
        end if;
        if l.right_source = p_source then
            perform recon_open_put(l.number, 'right', p_ids, 'existing');
        end if;
    end loop;
end
$f$;
-- +goose StatementEnd

-- +goose StatementBegin
-- A level's rows computed again from its sources (every level when null):
-- those that exist, and rows of levels no longer declared go.
create function recon_open_rebuild(p_level int) returns void language plpgsql as $f$
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
-- The end of an automatic run of a level: every open record of the level
-- has been seen, and gets its row.
create function recon_open_after_run(p_level int) returns void language plpgsql as $f$
begin
    -- what the queue holds now, for the plans (a level's rows compared as a
    -- nested loop with the table taken for empty cost minutes)
    analyze recon_open_item;
    perform recon_open_put(p_level, 'left', null, 'seen');
    perform recon_open_put(p_level, 'right', null, 'seen');
end
$f$;
-- +goose StatementEnd

-- +goose StatementBegin
-- The documents' edits and deletes: tg_argv are the canonical sources over
-- the table. (A new document has no row: no level has seen it yet.)
create function recon_open_source_apply() returns trigger language plpgsql as $f$
declare
    ids bigint[];
    src text;
begin
    if tg_op = 'DELETE' then
        select array_agg(id order by id) into ids from old_rows;
    else
        select array_agg(id order by id) into ids from new_rows;
    end if;
    foreach src in array tg_argv loop
        perform recon_open_sync(src, ids);
    end loop;
    return null;
end
$f$;
-- +goose StatementEnd

-- +goose StatementBegin
create function recon_open_source_truncate() returns trigger language plpgsql as $f$
begin
    perform recon_open_rebuild(null); -- the rows of records that went, go
    return null;
end
$f$;
-- +goose StatementEnd

create trigger recon_open_update after update on ticket referencing new table as new_rows
    for each statement execute function recon_open_source_apply('recon_side_ticket');
create trigger recon_open_delete after delete on ticket referencing old table as old_rows
    for each statement execute function recon_open_source_apply('recon_side_ticket');
create trigger recon_open_truncate after truncate on ticket
    for each statement execute function recon_open_source_truncate();
create trigger recon_open_update after update on card_transaction referencing new table as new_rows
    for each statement execute function recon_open_source_apply('recon_side_transaction', 'recon_side_card_transaction');
create trigger recon_open_delete after delete on card_transaction referencing old table as old_rows
    for each statement execute function recon_open_source_apply('recon_side_transaction', 'recon_side_card_transaction');
create trigger recon_open_truncate after truncate on card_transaction
    for each statement execute function recon_open_source_truncate();
create trigger recon_open_update after update on settlement referencing new table as new_rows
    for each statement execute function recon_open_source_apply('recon_side_settlement');
create trigger recon_open_delete after delete on settlement referencing old table as old_rows
    for each statement execute function recon_open_source_apply('recon_side_settlement');
create trigger recon_open_truncate after truncate on settlement
    for each statement execute function recon_open_source_truncate();
create trigger recon_open_update after update on payout referencing new table as new_rows
    for each statement execute function recon_open_source_apply('recon_side_payout');
create trigger recon_open_truncate after truncate on payout
    for each statement execute function recon_open_source_truncate();
create trigger recon_open_update after update on bank_booking referencing new table as new_rows
    for each statement execute function recon_open_source_apply('recon_side_bank');
create trigger recon_open_delete after delete on bank_booking referencing old table as old_rows
    for each statement execute function recon_open_source_apply('recon_side_bank');
create trigger recon_open_truncate after truncate on bank_booking
    for each statement execute function recon_open_source_truncate();

-- +goose StatementBegin
-- Payouts: a deleted payout's row goes; and a processed booking counts
-- only while its provider has payouts, so the rows of the bookings of a
-- provider whose first payout came or whose last one went are computed
-- again.
create function recon_open_payout_apply() returns trigger language plpgsql as $f$
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
create trigger recon_open_insert after insert on payout referencing new table as new_rows
    for each statement execute function recon_open_payout_apply();
create trigger recon_open_delete after delete on payout referencing old table as old_rows
    for each statement execute function recon_open_payout_apply();

-- +goose StatementBegin
-- A new live match (a run's, or one made by hand): the rows of its first
-- records go when it is matched; else they are computed (the records are
-- seen now: a partial match shows). A run's own insert leaves those to its
-- end (recon_open_after_run). Further records of a group follow in
-- recon_open_member_insert.
create function recon_open_match_insert() returns trigger language plpgsql as $f$
declare
    r record;
begin
    delete from recon_open_item o using new_rows n
    where n.undone_on is null and n.status = 'matched' and o.level = n.level and o.side = 'left' and o.record_id = n.left_id;
    delete from recon_open_item o using new_rows n
    where n.undone_on is null and n.status = 'matched' and o.level = n.level and o.side = 'right' and o.record_id = n.right_id;
    if coalesce(current_setting('ledgerdesk.recon_day_applied', true), '') = 'on' then
        return null; -- a run's insert: its end computes the level
    end if;
    for r in
        select level, side, array_agg(record_id order by record_id) as ids from (
            select level, 'left' as side, left_id as record_id from new_rows where undone_on is null and status <> 'matched' and left_id is not null
            union all
            select level, 'right', right_id from new_rows where undone_on is null and status <> 'matched' and right_id is not null) x
        group by level, side order by level, side
    loop
        perform recon_open_put(r.level, r.side, r.ids, 'seen');
    end loop;
    return null;
end
$f$;
-- +goose StatementEnd

-- +goose StatementBegin
create function recon_open_member_insert() returns trigger language plpgsql as $f$
declare
    r record;
begin
    delete from recon_open_item o using new_rows n join recon_match m on m.id = n.match_id
    where n.live and m.undone_on is null and m.status = 'matched'
      and o.level = n.level and o.side = n.side and o.record_id = n.record_id;
    if coalesce(current_setting('ledgerdesk.recon_day_applied', true), '') = 'on' then
        return null;
    end if;
    for r in
        select n.level, n.side, array_agg(n.record_id order by n.record_id) as ids
        from new_rows n join recon_match m on m.id = n.match_id
        where n.live and m.undone_on is null and m.status <> 'matched'
        group by n.level, n.side order by n.level, n.side
    loop
        perform recon_open_put(r.level, r.side, r.ids, 'seen');
    end loop;
    return null;
end
$f$;
-- +goose StatementEnd

-- +goose StatementBegin
-- A match whose status changed or that was undone (or whose first records
-- changed: the old and the new ones), or a member that left its group: the
-- records concerned are computed again.
create function recon_open_match_change() returns trigger language plpgsql as $f$
declare
    r record;
begin
    for r in
        with changed as (
            select n.id, n.level, n.left_id, n.right_id from new_rows n join old_rows o on o.id = n.id
            where (n.status, n.undone_on is null, n.left_id, n.right_id) is distinct from (o.status, o.undone_on is null, o.left_id, o.right_id)
            union all
            select o.id, o.level, o.left_id, o.right_id from new_rows n join old_rows o on o.id = n.id
            where (n.left_id, n.right_id) is distinct from (o.left_id, o.right_id)),
        recs as (
            select level, 'left' as side, left_id as record_id from changed where left_id is not null
            union
            select level, 'right', right_id from changed where right_id is not null
            union
            select mm.level, mm.side, mm.record_id from recon_match_member mm join changed c on c.id = mm.match_id)
        select level, side, array_agg(record_id order by record_id) as ids from recs group by level, side order by level, side
    loop
        perform recon_open_put(r.level, r.side, r.ids, 'seen');
    end loop;
    return null;
end
$f$;
-- +goose StatementEnd

-- +goose StatementBegin
create function recon_open_member_change() returns trigger language plpgsql as $f$
declare
    r record;
begin
    for r in
        select n.level, n.side, array_agg(n.record_id order by n.record_id) as ids
        from new_rows n join old_rows o on o.match_id = n.match_id and o.side = n.side and o.record_id = n.record_id
        where n.live is distinct from o.live
        group by n.level, n.side order by n.level, n.side
    loop
        perform recon_open_put(r.level, r.side, r.ids, 'seen');
    end loop;
    return null;
end
$f$;
-- +goose StatementEnd

-- +goose StatementBegin
-- A deleted match (tests clear the table): its first records again.
create function recon_open_match_delete() returns trigger language plpgsql as $f$
declare
    r record;
begin
    for r in
        with recs as (
            select level, 'left' as side, left_id as record_id from old_rows where left_id is not null
            union
            select level, 'right', right_id from old_rows where right_id is not null)
        select level, side, array_agg(record_id order by record_id) as ids from recs group by level, side order by level, side
    loop
        perform recon_open_put(r.level, r.side, r.ids, 'seen');
    end loop;
    return null;
end
$f$;
-- +goose StatementEnd

create trigger recon_open_insert after insert on recon_match referencing new table as new_rows
    for each statement execute function recon_open_match_insert();
create trigger recon_open_update after update on recon_match referencing old table as old_rows new table as new_rows
    for each statement execute function recon_open_match_change();
create trigger recon_open_delete after delete on recon_match referencing old table as old_rows
    for each statement execute function recon_open_match_delete();
create trigger recon_open_truncate after truncate on recon_match
    for each statement execute function recon_open_source_truncate();
create trigger recon_open_insert after insert on recon_match_member referencing new table as new_rows
    for each statement execute function recon_open_member_insert();
create trigger recon_open_update after update on recon_match_member referencing old table as old_rows new table as new_rows
    for each statement execute function recon_open_member_change();

-- +goose StatementBegin
-- A mark for investigation set or taken away.
create function recon_open_investigation_apply() returns trigger language plpgsql as $f$
declare
    r record;
begin
    if tg_op = 'INSERT' then
        for r in select level, side, array_agg(record_id order by record_id) as ids from new_rows group by level, side order by level, side loop
            perform recon_open_put(r.level, r.side, r.ids, 'seen');
        end loop;
    else
        for r in select level, side, array_agg(record_id order by record_id) as ids from old_rows group by level, side order by level, side loop
            perform recon_open_put(r.level, r.side, r.ids, 'seen');
        end loop;
    end if;
    return null;
end
$f$;
-- +goose StatementEnd

-- +goose StatementBegin
-- Rates: the USD amounts of the items in a changed rate's currency from its
-- day on (a rate serves its day and the days after it until the next one).
create function recon_open_rate_apply() returns trigger language plpgsql as $f$
begin
    if tg_op in ('INSERT', 'UPDATE') then
        update recon_open_item o set amount_usd = round(o.amount * usd_rate(o.currency, o.date), 2)
        from (select code, min(exchange_rate_on) as since from new_rows group by code) c
        where o.currency = c.code and o.date >= c.since
          and o.amount_usd is distinct from round(o.amount * usd_rate(o.currency, o.date), 2);
    end if;
    if tg_op in ('DELETE', 'UPDATE') then
        update recon_open_item o set amount_usd = round(o.amount * usd_rate(o.currency, o.date), 2)
        from (select code, min(exchange_rate_on) as since from old_rows group by code) c
        where o.currency = c.code and o.date >= c.since
          and o.amount_usd is distinct from round(o.amount * usd_rate(o.currency, o.date), 2);
    end if;
    return null;
end
$f$;
-- +goose StatementEnd
create trigger recon_open_insert after insert on recon_investigation referencing new table as new_rows
    for each statement execute function recon_open_investigation_apply();
create trigger recon_open_delete after delete on recon_investigation referencing old table as old_rows
    for each statement execute function recon_open_investigation_apply();

create trigger recon_open_insert after insert on currency_exchange_rate referencing new table as new_rows
    for each statement execute function recon_open_rate_apply();
create trigger recon_open_update after update on currency_exchange_rate referencing old table as old_rows new table as new_rows
    for each statement execute function recon_open_rate_apply();
create trigger recon_open_delete after delete on currency_exchange_rate referencing old table as old_rows
    for each statement execute function recon_open_rate_apply();

-- +goose StatementBegin
-- SLA settings: the due dates of the levels whose settings changed.
create function recon_open_sla_apply() returns trigger language plpgsql as $f$
begin
    -- an item's SLA is its provider's at its level; a record with no
    -- provider (a ticket) takes the level's strictest
    update recon_open_item o set due_on = x.due
    from (select i.id, i.date + case when i.provider is null then smin.days else sla.sla_days end as due
          from recon_open_item i
          join recon_level l on l.number = i.level
          left join recon_sla sla on sla.tolerance_type = l.tolerance_type and sla.provider_key = lower(i.provider)
          left join (select tolerance_type, min(sla_days) as days from recon_sla group by tolerance_type) smin
                 on smin.tolerance_type = l.tolerance_type) x
    where o.id = x.id and o.due_on is distinct from x.due;
    return null;
end
$f$;
-- +goose StatementEnd
create trigger recon_open_sla after insert or update or delete on config_setting
    for each statement execute function recon_open_sla_apply();

-- +goose StatementBegin
-- Tasks: the task and assignee of the records a task links.
create function recon_open_task_put(p_kind text, p_ids bigint[]) returns void language plpgsql as $f$
begin
    update recon_open_item o set (task_id, assignee) = (select t.task_id, t.assignee from recon_open_task(o.kind, o.record_id) t)
    from (select number, 'left' as side from recon_level where left_kind = p_kind
          union all select number, 'right' from recon_level where right_kind = p_kind) s
    where o.level = s.number and o.side = s.side and o.record_id in (select unnest(p_ids));
end
$f$;
-- +goose StatementEnd

-- +goose StatementBegin
create function recon_open_task_link_apply() returns trigger language plpgsql as $f$
declare
    ids bigint[];
begin
    if tg_table_name = 'task_ticket' then
        if tg_op = 'INSERT' then select array_agg(ticket_id) into ids from new_rows; else select array_agg(ticket_id) into ids from old_rows; end if;
        perform recon_open_task_put('ticket', ids);
    else
        if tg_op = 'INSERT' then select array_agg(transaction_id) into ids from new_rows; else select array_agg(transaction_id) into ids from old_rows; end if;
        perform recon_open_task_put('transaction', ids);
    end if;
    return null;
end
$f$;
-- +goose StatementEnd

-- +goose StatementBegin
create function recon_open_task_apply() returns trigger language plpgsql as $f$
begin
    perform recon_open_task_put('ticket', array(
        select tt.ticket_id from task_ticket tt join new_rows n on n.id = tt.task_id join old_rows o on o.id = n.id
        where (n.assigned_to_id, n.is_status) is distinct from (o.assigned_to_id, o.is_status)));
    perform recon_open_task_put('transaction', array(
        select tx.transaction_id from task_transaction tx join new_rows n on n.id = tx.task_id join old_rows o on o.id = n.id
        where (n.assigned_to_id, n.is_status) is distinct from (o.assigned_to_id, o.is_status)));
    return null;
end
$f$;
-- +goose StatementEnd
create trigger recon_open_insert after insert on task_ticket referencing new table as new_rows
    for each statement execute function recon_open_task_link_apply();
create trigger recon_open_delete after delete on task_ticket referencing old table as old_rows
    for each statement execute function recon_open_task_link_apply();
create trigger recon_open_insert after insert on task_transaction referencing new table as new_rows
    for each statement execute function recon_open_task_link_apply();
create trigger recon_open_delete after delete on task_transaction referencing old table as old_rows
    for each statement execute function recon_open_task_link_apply();
create trigger recon_open_update after update on task referencing old table as old_rows new table as new_rows
    for each statement execute function recon_open_task_apply();

-- A database reconciled before: the levels that have run have seen their
-- records.
select recon_open_after_run(number) from recon_level
where exists (select 1 from recon_run r where r.level = number and r.status = 'succeeded');

-- +goose Down
drop trigger recon_open_update on task;
drop trigger recon_open_delete on task_transaction;
drop trigger recon_open_insert on task_transaction;
drop trigger recon_open_delete on task_ticket;
drop trigger recon_open_insert on task_ticket;
drop trigger recon_open_sla on config_setting;
drop trigger recon_open_delete on currency_exchange_rate;
drop trigger recon_open_update on currency_exchange_rate;
drop trigger recon_open_insert on currency_exchange_rate;
drop trigger recon_open_update on recon_match_member;
drop trigger recon_open_insert on recon_match_member;
drop trigger recon_open_truncate on recon_match;
drop trigger recon_open_delete on recon_match;
drop trigger recon_open_update on recon_match;
drop trigger recon_open_insert on recon_match;
drop trigger recon_open_delete on payout;
drop trigger recon_open_insert on payout;
drop trigger recon_open_truncate on payout;
drop trigger recon_open_update on payout;
drop trigger recon_open_truncate on bank_booking;
drop trigger recon_open_delete on bank_booking;
drop trigger recon_open_update on bank_booking;
drop trigger recon_open_truncate on settlement;
drop trigger recon_open_delete on settlement;
drop trigger recon_open_update on settlement;
drop trigger recon_open_truncate on card_transaction;
drop trigger recon_open_delete on card_transaction;
drop trigger recon_open_update on card_transaction;
drop trigger recon_open_truncate on ticket;
drop trigger recon_open_delete on ticket;
drop trigger recon_open_update on ticket;
drop function recon_open_task_apply();
drop function recon_open_task_link_apply();
drop function recon_open_task_put(text, bigint[]);
drop function recon_open_sla_apply();
drop function recon_open_rate_apply();
drop function recon_open_match_delete();
drop function recon_open_member_change();
drop function recon_open_match_change();
drop function recon_open_member_insert();
drop function recon_open_match_insert();
drop function recon_open_payout_apply();
drop function recon_open_source_truncate();
drop function recon_open_source_apply();
drop function recon_open_rebuild(int);
drop function recon_open_after_run(int);
drop function recon_open_sync(text, bigint[]);
drop function recon_open_put(int, text, bigint[], text);
drop table recon_open_item;
drop table recon_investigation;
drop function recon_open_investigation_apply();
drop table recon_escalation;
drop function recon_open_task(text, bigint);
drop view recon_sla;
drop view config_setting_list;
alter table config_setting drop column owner_id, drop column sla_days;
alter table recon_level drop column right_kind, drop column left_kind;
