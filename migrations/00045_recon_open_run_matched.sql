-- +goose Up
-- A run's insert of its matches no longer deletes, match by match, the
-- queue rows of the records it matched: its end does it once, from the
-- queue's side. The insert triggers of 00031 probed the queue's key once per
-- new match (the transition table is planned as 25 rows): a first run of a
-- million matches spent 3 s there, on an empty queue as on a full one. The
-- run's end reads the level's queue rows against the live matches instead,
-- whose count is the queue's (a few thousand to a few hundred thousand), not
-- the run's. Matches made by hand are followed in their own transaction as
-- before.

-- +goose StatementBegin
create or replace function recon_open_match_insert() returns trigger language plpgsql as $f$
declare
    r record;
begin
    if coalesce(current_setting('ledgerdesk.recon_day_applied', true), '') = 'on' then
        return null; -- a run's insert: its end computes the level (recon_open_after_run)
    end if;
    delete from recon_open_item o using new_rows n
    where n.undone_on is null and n.status = 'matched' and o.level = n.level and o.side = 'left' and o.record_id = n.left_id;
    delete from recon_open_item o using new_rows n
    where n.undone_on is null and n.status = 'matched' and o.level = n.level and o.side = 'right' and o.record_id = n.right_id;
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
create or replace function recon_open_member_insert() returns trigger language plpgsql as $f$
declare
    r record;
begin
    if coalesce(current_setting('ledgerdesk.recon_day_applied', true), '') = 'on' then
        return null; -- a run's groups: its end computes the level
    end if;
    delete from recon_open_item o using new_rows n join recon_match m on m.id = n.match_id
    where n.live and m.undone_on is null and m.status = 'matched'
      and o.level = n.level and o.side = n.side and o.record_id = n.record_id;
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
-- recon_open_after_run (00044), first deleting the queue rows of the
-- records the run matched in full: each row of the level's queue looked up
-- in the live matches (a record matched in full has no row).
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

-- +goose Down
-- +goose StatementBegin
create or replace function recon_open_after_run(p_level int, p_run bigint, p_ranges bigint[]) returns void
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

-- +goose StatementBegin
create or replace function recon_open_member_insert() returns trigger language plpgsql as $f$
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
create or replace function recon_open_match_insert() returns trigger language plpgsql as $f$
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
