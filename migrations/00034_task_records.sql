-- +goose Up
-- Tasks follow every kind of open item (screens/tasks: the exception
-- queue's Assign and the SLA escalation): task_record links a task to
-- settlements, payouts and bank bookings, as task_ticket and
-- task_transaction link tickets and card transactions (spec 03). The queue
-- (recon_open_item.task_id, assignee) reads them as it reads those.
create table task_record (
    task_id   bigint not null references task (id) on delete cascade,
    kind      text not null check (kind in ('settlement', 'payout', 'bank')),
    record_id bigint not null,
    primary key (task_id, kind, record_id)
);
create index task_record_record_idx on task_record (kind, record_id);

-- What a task links, of every kind, in one place (AssignRecords reads it).
create view task_link as
    select task_id, 'ticket' as kind, ticket_id as record_id from task_ticket
    union all
    select task_id, 'transaction', transaction_id from task_transaction
    union all
    select task_id, kind, record_id from task_record;

-- +goose StatementBegin
create or replace function recon_open_task(p_kind text, p_id bigint) returns table (task_id bigint, assignee text)
language sql stable as $$
    select t.id, u.username from task t left join app_user u on u.id = t.assigned_to_id
    where t.is_status <> 3 and t.id in (
        select tt.task_id from task_ticket tt where p_kind = 'ticket' and tt.ticket_id = p_id
        union all
        select tx.task_id from task_transaction tx where p_kind = 'transaction' and tx.transaction_id = p_id
        union all
        select tr.task_id from task_record tr where tr.kind = p_kind and tr.record_id = p_id)
    order by t.id desc limit 1
$$;
-- +goose StatementEnd

-- +goose StatementBegin
-- recon_open_put (00031) with the task of every kind of record: task_record too.
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
create or replace function recon_open_task_apply() returns trigger language plpgsql as $f$
begin
    perform recon_open_task_put('ticket', array(
        select tt.ticket_id from task_ticket tt join new_rows n on n.id = tt.task_id join old_rows o on o.id = n.id
        where (n.assigned_to_id, n.is_status) is distinct from (o.assigned_to_id, o.is_status)));
    perform recon_open_task_put('transaction', array(
        select tx.transaction_id from task_transaction tx join new_rows n on n.id = tx.task_id join old_rows o on o.id = n.id
        where (n.assigned_to_id, n.is_status) is distinct from (o.assigned_to_id, o.is_status)));
    perform recon_open_task_put(k.kind, array(
        select tr.record_id from task_record tr join new_rows n on n.id = tr.task_id join old_rows o on o.id = n.id
        where tr.kind = k.kind and (n.assigned_to_id, n.is_status) is distinct from (o.assigned_to_id, o.is_status)))
    from (values ('settlement'), ('payout'), ('bank')) k(kind);
    return null;
end
$f$;
-- +goose StatementEnd

-- +goose StatementBegin
-- Links made or taken away: the queue rows of those records.
create function recon_open_task_record_apply() returns trigger language plpgsql as $f$
begin
    if tg_op = 'INSERT' then
        perform recon_open_task_put(k.kind, array(select n.record_id from new_rows n where n.kind = k.kind))
        from (select distinct kind from new_rows) k;
    else
        perform recon_open_task_put(k.kind, array(select o.record_id from old_rows o where o.kind = k.kind))
        from (select distinct kind from old_rows) k;
    end if;
    return null;
end
$f$;
-- +goose StatementEnd
create trigger recon_open_insert after insert on task_record referencing new table as new_rows
    for each statement execute function recon_open_task_record_apply();
create trigger recon_open_delete after delete on task_record referencing old table as old_rows
    for each statement execute function recon_open_task_record_apply();

-- +goose Down
drop trigger recon_open_delete on task_record;
drop trigger recon_open_insert on task_record;
drop function recon_open_task_record_apply();

-- +goose StatementBegin
create or replace function recon_open_task_apply() returns trigger language plpgsql as $f$
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

-- +goose StatementBegin
-- recon_open_put as 00031 made it.
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
create or replace function recon_open_task(p_kind text, p_id bigint) returns table (task_id bigint, assignee text)
language sql stable as $$
    select t.id, u.username from task t left join app_user u on u.id = t.assigned_to_id
    where t.is_status <> 3 and t.id in (
        select tt.task_id from task_ticket tt where p_kind = 'ticket' and tt.ticket_id = p_id
        union all
        select tx.task_id from task_transaction tx where p_kind = 'transaction' and tx.transaction_id = p_id)
    order by t.id desc limit 1
$$;
-- +goose StatementEnd

drop view task_link;
drop table task_record;
