-- +goose Up
-- A run's end writes the queue rows of its unseen ranges in one statement
-- per side and span of ids (recon_open_put's mode 'unseen'): the records
-- read with their live match, if any, and the open ones inserted, the
-- run's partial matches among them. It used to list their ids first (an
-- anti-join with the live matches), then hand them, with the records of
-- the run's partial matches, to the 'seen' put, which read each record and
-- its match again and inserted with ON CONFLICT. At a first run of a
-- million records a side that took 12 s on a 2-core machine; now 6 s:
--   - the records are read once, merged with the matches along their ids;
--   - the put joins recon_match and its members for the record's side
--     (a join with recon_match_live read every match of the level; see
--     also 00048);
--   - the rows are inserted plainly when the end holds the queue's lock
--     (SHARE ROW EXCLUSIVE, taken only if no writer is at the queue, for
--     the run's last seconds; readers are not held);
--   - the records of the run's partial matches are put again only when
--     their row does not show that match (a row from before the run).
--
-- The run's partial matches are found along a partial index of the live
-- matches not matched in full, by run: scanning a million matches for
-- forty thousand took a quarter of a second a side.

create index recon_match_open_run on recon_match (run_id) where status <> 'matched' and undone_on is null;

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

-- +goose StatementBegin
-- recon_open_after_run (00045) under the queue's lock, its unseen ranges
-- put in one statement a side (mode 'unseen'), and the run's partial
-- matches found along recon_match_open_run.
create or replace function recon_open_after_run(p_level int, p_run bigint, p_ranges bigint[]) returns void
language plpgsql
-- (compiling its statements costs seconds and gains nothing here)
set jit = off
as $f$
declare
    v_side text;
    ids bigint[];
begin
    if not exists (select 1 from recon_level where number = p_level) then
        return;
    end if;
    -- No other writer adds a queue row between the reads below and the
    -- inserts: each waits for this transaction (readers do not). Taken
    -- only if no writer is at the queue now (NOWAIT): waiting for one that
    -- waits for this run (a day sum it locked) would be a deadlock. Then
    -- the puts merge with what others wrote (ON CONFLICT), as before.
    begin
        lock table recon_open_item in share row exclusive mode nowait;
    exception when lock_not_available then
        null;
    end;
    delete from recon_open_item o using recon_match m
    where o.level = p_level and o.side = 'left' and m.level = p_level and m.left_id = o.record_id
      and m.undone_on is null and m.run_id = p_run and m.status = 'matched';
    delete from recon_open_item o using recon_match m
    where o.level = p_level and o.side = 'right' and m.level = p_level and m.right_id = o.record_id
      and m.undone_on is null and m.run_id = p_run and m.status = 'matched';
    delete from recon_open_item o using recon_match_member mm join recon_match m on m.id = mm.match_id
    where o.level = p_level and mm.live and mm.level = p_level and mm.side = o.side and mm.record_id = o.record_id
      and m.undone_on is null and m.run_id = p_run and m.status = 'matched';
    -- what the queue holds now, for the plans (a level's rows compared as a
    -- nested loop with the table taken for empty cost minutes)
    analyze recon_open_item;
    foreach v_side in array array['left', 'right'] loop
        -- the open records of its unseen ranges that have no row yet, the
        -- records of its partial matches and groups among them
        if cardinality(p_ranges) > 0 then
            perform recon_open_put(p_level, v_side, p_ranges, 'unseen');
        end if;
        -- the records of its partial matches and groups whose row does not
        -- show that match yet (their rows from before the run)
        select coalesce(array_agg(distinct r.id), '{}') into ids from (
            select case v_side when 'left' then m.left_id else m.right_id end as id, m.id as match_id, m.status
            from recon_match m
            where m.run_id = p_run and m.level = p_level and m.undone_on is null and m.status <> 'matched'
            union all
            select mm.record_id, m.id, m.status
            from recon_match m join recon_match_member mm on mm.match_id = m.id
            where m.run_id = p_run and m.level = p_level and m.undone_on is null and m.status <> 'matched'
              and mm.live and mm.side = v_side) r
        where r.id is not null
          and not exists (select 1 from recon_open_item o where o.level = p_level and o.side = v_side and o.record_id = r.id
                          and o.match_id = r.match_id and o.status = r.status);
        if cardinality(ids) > 0 then
            perform recon_open_put(p_level, v_side, ids, 'seen');
        end if;
    end loop;
    delete from recon_unseen where id = any (p_ranges) and level = p_level;
end
$f$;
-- +goose StatementEnd

-- +goose Down
drop index recon_match_open_run;

-- +goose StatementBegin
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
create or replace function recon_open_after_run(p_level int, p_run bigint, p_ranges bigint[]) returns void
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
    delete from recon_open_item o using recon_match m
    where o.level = p_level and o.side = 'left' and m.level = p_level and m.left_id = o.record_id
      and m.undone_on is null and m.run_id = p_run and m.status = 'matched';
    delete from recon_open_item o using recon_match m
    where o.level = p_level and o.side = 'right' and m.level = p_level and m.right_id = o.record_id
      and m.undone_on is null and m.run_id = p_run and m.status = 'matched';
    delete from recon_open_item o using recon_match_member mm join recon_match m on m.id = mm.match_id
    where o.level = p_level and mm.live and mm.level = p_level and mm.side = o.side and mm.record_id = o.record_id
      and m.undone_on is null and m.run_id = p_run and m.status = 'matched';
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
