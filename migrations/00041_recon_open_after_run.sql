-- +goose Up
-- The end of an automatic run takes into the exception queue only what the
-- run changed: the records it matched partly (a run's insert leaves those to
-- its end; the records it matched in full lost their rows in the insert's
-- trigger) and the open records no run has taken in yet (new documents). The
-- rows of every other record are kept current by the triggers of 00031
-- (documents, matches, members, investigations, rates, settings, tasks), so
-- the level-wide computation each run's end made (every record of the level
-- against the live matches: seconds at a million records, also when the run
-- changed nothing) gives the same rows.

drop function recon_open_after_run(int);

-- +goose StatementBegin
create function recon_open_after_run(p_level int, p_run bigint) returns void
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

-- +goose Down
drop function recon_open_after_run(int, bigint);

-- +goose StatementBegin
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
