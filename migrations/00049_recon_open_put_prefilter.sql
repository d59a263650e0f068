-- +goose Up
-- A run's end, the queue's puts: the records read from a span are first
-- merged with their live match as first record, and those matched in full
-- left out, before the SLA, the groups, the investigations and the tasks
-- are joined; until now all of them were joined to every record of the
-- span (a million a side at a first run) and the matched ones dropped
-- last. The shortest SLA (the due date of a record without a provider) is
-- read once instead of joined to each record.

-- +goose StatementBegin
-- recon_open_put (00047) with the records that have a live match in full
-- as their first record left out before the rest is joined: the sla, the
-- groups, investigations and tasks are joined to the open records alone,
-- not to every record of a span (a first run: 116,000 of a million a side).
-- The shortest SLA is read once, not joined to each record.
create or replace function recon_open_put(p_level int, p_side text, p_ids bigint[], p_mode text) returns void
language plpgsql
-- (compiling its statements costs seconds and gains nothing here)
set jit = off
as $f$
declare
    l recon_level;
    ids bigint[] := p_ids;
    records text := '';
    upsert text := $u$
            -- a row that is as it was is left alone (a run's end passes every open record again)
            on conflict (level, side, record_id) do update set
                kind = excluded.kind, ref = excluded.ref, date = excluded.date, amount = excluded.amount, currency = excluded.currency,
                amount_usd = excluded.amount_usd, provider = excluded.provider, status = excluded.status, match_id = excluded.match_id,
                due_on = excluded.due_on, task_id = excluded.task_id, assignee = excluded.assignee
            where (recon_open_item.kind, recon_open_item.ref, recon_open_item.date, recon_open_item.amount, recon_open_item.currency,
                   recon_open_item.amount_usd, recon_open_item.provider, recon_open_item.status, recon_open_item.match_id,
                   recon_open_item.due_on, recon_open_item.task_id, recon_open_item.assignee)
                  is distinct from (excluded.kind, excluded.ref, excluded.date, excluded.amount, excluded.currency, excluded.amount_usd,
                   excluded.provider, excluded.status, excluded.match_id, excluded.due_on, excluded.task_id, excluded.assignee)$u$;
    -- the rows of p_ids (or of the side) that are no longer open go
    finish text := $d$
        delete from recon_open_item o
        where o.level = $1 and o.side = $2 and ($5 is null or o.record_id in (select unnest($5)))
          and not exists (select 1 from base x where x.record_id = o.record_id)$d$;
    sql text;
    span record;
    gap bigint;
    cur_lo bigint;
    cur_hi bigint;
    hashjoin text := current_setting('enable_hashjoin');
    -- the due days of a record without a provider: the shortest SLA (read
    -- once, not joined to each record)
    sla_min int;
begin
    select * into l from recon_level where number = p_level;
    if not found then
        return;
    end if;
    select min(sla_days) into sla_min from recon_sla where tolerance_type = l.tolerance_type;
    if p_mode = 'existing' then
        select coalesce(array_agg(record_id), '{}') into ids from recon_open_item
        where level = p_level and side = p_side and (p_ids is null or record_id in (select unnest(p_ids)));
        if cardinality(ids) = 0 then
            return;
        end if;
    end if;
    if p_mode = 'unseen' then
        records := $r$join (select 1) k on s.id between $6 and $7
             and not exists (select 1 from recon_open_item o where o.level = $1 and o.side = $2 and o.record_id = s.id)$r$;
        -- under the queue's lock no row can have come meanwhile: inserted
        -- plainly (ON CONFLICT's speculative insertion cost 0.9 s per
        -- 100,000 rows)
        if exists (select 1 from pg_locks where locktype = 'relation' and relation = 'recon_open_item'::regclass
                   and pid = pg_backend_pid() and mode = 'ShareRowExclusiveLock' and granted) then
            upsert := '';
        end if;
        finish := 'select null';
    elsif ids is not null then
        records := 'join (select distinct unnest($5) as id) k on k.id = s.id';
    end if;
    sql := format($q$
        with base as materialized (
            select $1::smallint as level, $2 as side, s.id as record_id, $3 as kind, s.ref, s.date, s.amount, s.currency, s.provider,
                   coalesce(m.status, case when i.record_id is not null then 'investigation' else 'unmatched' end) as status, m.id as match_id,
                   s.date + case when s.provider_key is null then $8 else sla.sla_days end as due_on, t.task_id, t.assignee
            -- the records without a live match in full as their first
            -- record (a record has one live match at most: one so matched
            -- is not open), before anything else is joined to them (00049)
            from (select s.*, m1.id as m1_id, m1.status as m1_status
                  from %1$I s %2$s
                  left join recon_match m1 on m1.level = $1 and m1.%5$I = s.id and m1.undone_on is null
                  -- (spelt so that the planner guesses, as for the whole
                  -- test below: estimated from the column's statistics -
                  -- every match 'matched' - it took the open records for
                  -- one, and the end's anti-join with them nested a loop
                  -- over 20,000 x 20,000 rows)
                  where s.counted and not s.manual and coalesce(m1.status, '') <> 'matched'
                  offset 0) s
            left join recon_sla sla on sla.tolerance_type = $4 and sla.provider_key = s.provider_key
            -- then as a further record of a group (recon_match_live for one
            -- known side, read from that side's column)
            left join recon_match_member mm on mm.live and mm.level = $1 and mm.side = $2 and mm.record_id = s.id
            left join recon_match m2 on m2.id = mm.match_id and m2.undone_on is null
            cross join lateral (select coalesce(s.m1_id, m2.id) as id, coalesce(s.m1_status, m2.status) as status) m
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
            where m.status is distinct from 'matched'),
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
            select * from open order by record_id %3$s)
        %4$s $q$,
        case p_side when 'left' then l.left_source else l.right_source end, records, upsert, finish, p_side || '_id');
    if p_mode <> 'unseen' then
        execute sql using p_level, p_side, case p_side when 'left' then l.left_kind else l.right_kind end, l.tolerance_type, ids,
            null::bigint, null::bigint, sla_min;
        return;
    end if;
    -- (merged along the ids with the matches, sorted, rather than hashed: see above)
    perform set_config('enable_hashjoin', 'off', true);
    select greatest(10000, (max(hi) - min(lo)) / 50) into gap
    from recon_unseen where id = any (p_ids) and level = p_level and side = p_side;
    for span in
        select lower(r) as lo, upper(r) - 1 as hi
        from unnest((select range_agg(int8range(u.lo, u.hi, '[]')) from recon_unseen u
                     where u.id = any (p_ids) and u.level = p_level and u.side = p_side)) r
        order by 1
    loop
        if cur_lo is not null and span.lo - cur_hi > gap then
            execute sql using p_level, p_side, case p_side when 'left' then l.left_kind else l.right_kind end, l.tolerance_type, ids,
                cur_lo, cur_hi, sla_min;
            cur_lo := null;
        end if;
        cur_lo := coalesce(cur_lo, span.lo);
        cur_hi := span.hi;
    end loop;
    if cur_lo is not null then
        execute sql using p_level, p_side, case p_side when 'left' then l.left_kind else l.right_kind end, l.tolerance_type, ids,
            cur_lo, cur_hi, sla_min;
    end if;
    perform set_config('enable_hashjoin', hashjoin, true);
end
$f$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
-- recon_open_put (00044) with mode 'unseen': p_ids are then ids of the
-- level's recon_unseen rows (of side p_side), and the records of those
-- ranges that count, have no queue row and no live match in full are
-- inserted (plainly when the caller holds the queue's lock, as
-- recon_open_after_run does when it can). The
-- other modes are as before: 'seen' puts each record of p_ids (null: every
-- record of the side), 'existing' only those with a row already.
--
-- The ranges are merged, and ranges a small gap apart read as one: each
-- span is one statement whose bounds the planner sees ($6, $7), so a first
-- run's million records are merged with the level's matches along their
-- ids, sorted (0.8 s a side), and a later run's few thousand looked up one
-- by one. (Joined with the ranges as a set, the planner guessed a hundred
-- ranges of a ninth of the table each and nested loops over all of it: 7 s.
-- Hashing a million records with their matches took 2 s.) A span may hold
-- records no range names: those without a row and without a live match in
-- full are open records the queue lacks, so putting them is right anyway.
create or replace function recon_open_put(p_level int, p_side text, p_ids bigint[], p_mode text) returns void
language plpgsql
-- (compiling its statements costs seconds and gains nothing here)
set jit = off
as $f$
declare
    l recon_level;
    ids bigint[] := p_ids;
    records text := '';
    upsert text := $u$
            -- a row that is as it was is left alone (a run's end passes every open record again)
            on conflict (level, side, record_id) do update set
                kind = excluded.kind, ref = excluded.ref, date = excluded.date, amount = excluded.amount, currency = excluded.currency,
                amount_usd = excluded.amount_usd, provider = excluded.provider, status = excluded.status, match_id = excluded.match_id,
                due_on = excluded.due_on, task_id = excluded.task_id, assignee = excluded.assignee
            where (recon_open_item.kind, recon_open_item.ref, recon_open_item.date, recon_open_item.amount, recon_open_item.currency,
                   recon_open_item.amount_usd, recon_open_item.provider, recon_open_item.status, recon_open_item.match_id,
                   recon_open_item.due_on, recon_open_item.task_id, recon_open_item.assignee)
                  is distinct from (excluded.kind, excluded.ref, excluded.date, excluded.amount, excluded.currency, excluded.amount_usd,
                   excluded.provider, excluded.status, excluded.match_id, excluded.due_on, excluded.task_id, excluded.assignee)$u$;
    -- the rows of p_ids (or of the side) that are no longer open go
    finish text := $d$
        delete from recon_open_item o
        where o.level = $1 and o.side = $2 and ($5 is null or o.record_id in (select unnest($5)))
          and not exists (select 1 from base x where x.record_id = o.record_id)$d$;
    sql text;
    span record;
    gap bigint;
    cur_lo bigint;
    cur_hi bigint;
    hashjoin text := current_setting('enable_hashjoin');
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
    if p_mode = 'unseen' then
        records := $r$join (select 1) k on s.id between $6 and $7
             and not exists (select 1 from recon_open_item o where o.level = $1 and o.side = $2 and o.record_id = s.id)$r$;
        -- under the queue's lock no row can have come meanwhile: inserted
        -- plainly (ON CONFLICT's speculative insertion cost 0.9 s per
        -- 100,000 rows)
        if exists (select 1 from pg_locks where locktype = 'relation' and relation = 'recon_open_item'::regclass
                   and pid = pg_backend_pid() and mode = 'ShareRowExclusiveLock' and granted) then
            upsert := '';
        end if;
        finish := 'select null';
    elsif ids is not null then
        records := 'join (select distinct unnest($5) as id) k on k.id = s.id';
    end if;
    sql := format($q$
        with base as materialized (
            select $1::smallint as level, $2 as side, s.id as record_id, $3 as kind, s.ref, s.date, s.amount, s.currency, s.provider,
                   coalesce(m.status, case when i.record_id is not null then 'investigation' else 'unmatched' end) as status, m.id as match_id,
                   s.date + case when s.provider_key is null then smin.days else sla.sla_days end as due_on, t.task_id, t.assignee
            from %1$I s %2$s
            left join recon_sla sla on sla.tolerance_type = $4 and sla.provider_key = s.provider_key
            cross join (select min(sla_days) as days from recon_sla where tolerance_type = $4) smin
            -- the record's live match: as its first record, or as a further
            -- record of a group (recon_match_live for one known side, read
            -- from that side's column; until 00048 a join with the view read
            -- every match of the level)
            left join recon_match m1 on m1.level = $1 and m1.%5$I = s.id and m1.undone_on is null
            left join recon_match_member mm on mm.live and mm.level = $1 and mm.side = $2 and mm.record_id = s.id
            left join recon_match m2 on m2.id = mm.match_id and m2.undone_on is null
            cross join lateral (select coalesce(m1.id, m2.id) as id, coalesce(m1.status, m2.status) as status) m
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
            select * from open order by record_id %3$s)
        %4$s $q$,
        case p_side when 'left' then l.left_source else l.right_source end, records, upsert, finish, p_side || '_id');
    if p_mode <> 'unseen' then
        execute sql using p_level, p_side, case p_side when 'left' then l.left_kind else l.right_kind end, l.tolerance_type, ids,
            null::bigint, null::bigint;
        return;
    end if;
    -- (merged along the ids with the matches, sorted, rather than hashed: see above)
    perform set_config('enable_hashjoin', 'off', true);
    select greatest(10000, (max(hi) - min(lo)) / 50) into gap
    from recon_unseen where id = any (p_ids) and level = p_level and side = p_side;
    for span in
        select lower(r) as lo, upper(r) - 1 as hi
        from unnest((select range_agg(int8range(u.lo, u.hi, '[]')) from recon_unseen u
                     where u.id = any (p_ids) and u.level = p_level and u.side = p_side)) r
        order by 1
    loop
        if cur_lo is not null and span.lo - cur_hi > gap then
            execute sql using p_level, p_side, case p_side when 'left' then l.left_kind else l.right_kind end, l.tolerance_type, ids,
                cur_lo, cur_hi;
            cur_lo := null;
        end if;
        cur_lo := coalesce(cur_lo, span.lo);
        cur_hi := span.hi;
    end loop;
    if cur_lo is not null then
        execute sql using p_level, p_side, case p_side when 'left' then l.left_kind else l.right_kind end, l.tolerance_type, ids,
            cur_lo, cur_hi;
    end if;
    perform set_config('enable_hashjoin', hashjoin, true);
end
$f$;
-- +goose StatementEnd
