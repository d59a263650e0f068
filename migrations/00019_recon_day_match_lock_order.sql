-- +goose Up
-- The match trigger of 00016 ended every statement on recon_match with
--     delete from recon_ticket_day where tickets = 0;
--     delete from recon_transaction_day where transactions = 0;
-- whatever level the statement wrote, even none (a statement trigger fires
-- for an insert of no rows: every run's last round, and level 3). The delete
-- takes ROW EXCLUSIVE on the other level's table, which conflicts with the
-- SHARE ROW EXCLUSIVE lock recon_day_lock gives that level's writer: so a
-- level-2 run holding recon_transaction_day waited for recon_ticket_day while
-- the level-1 run holding recon_ticket_day waited for recon_transaction_day,
-- the opposite of recon_day_lock's order: deadlock (40P01). Each statement
-- now touches only the day tables of its levels, after recon_day_lock has
-- locked them in order (tickets' first).

-- +goose StatementBegin
create or replace function recon_day_match_apply() returns trigger language plpgsql as $f$
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
    -- a group whose records all moved away (only in the tables of the
    -- levels the statement wrote, which recon_day_lock took first)
    if level1 then
        delete from recon_ticket_day where tickets = 0;
    end if;
    if level2 then
        delete from recon_transaction_day where transactions = 0;
    end if;
    return null;
end
$f$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
create or replace function recon_day_match_apply() returns trigger language plpgsql as $f$
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
-- +goose StatementEnd
