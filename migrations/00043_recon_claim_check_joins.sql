-- +goose Up
-- The check that a new live match's first records are not further records
-- of a live group asked one semi-join with an OR of its two sides: planned
-- as a hash on the level alone, it compared every new match with every live
-- member of its level (a run of 100,000 matches beside 46,000 members: 4.6
-- billion comparisons). Each side is now its own join along the members'
-- index (level, side, record_id).

-- +goose StatementBegin
create or replace function recon_match_claim_check() returns trigger language plpgsql as $f$
declare
    bad record;
begin
    if not exists (select 1 from recon_match_member where live) then
        return null;
    end if;
    select x.level, x.left_id, x.right_id into bad from (
        select n.level, n.left_id, n.right_id from new_rows n
        join recon_match_member mm on mm.live and mm.level = n.level and mm.side = 'left' and mm.record_id = n.left_id
        where n.undone_on is null
        union all
        select n.level, n.left_id, n.right_id from new_rows n
        join recon_match_member mm on mm.live and mm.level = n.level and mm.side = 'right' and mm.record_id = n.right_id
        where n.undone_on is null) x
    limit 1;
    if found then
        raise exception 'a record of the new match % / % already is in a live group at level %', bad.left_id, bad.right_id, bad.level
            using errcode = '23505';
    end if;
    return null;
end
$f$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
create or replace function recon_match_claim_check() returns trigger language plpgsql as $f$
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
-- +goose StatementEnd
