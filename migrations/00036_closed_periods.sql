-- +goose Up
-- Closed periods (issue: controls). An approver closes a month for one
-- level or for all; from then on the database refuses every write dated in
-- it, whichever path makes it: documents imported, edited or deleted
-- (ticket, card_transaction, settlement, bank_booking: by the date their
-- level's side reads), matches made or undone by hand (recon_match,
-- recon_match_member). Automatic runs leave the records of closed months
-- alone (screens/recon autoSQL), so a run never fails on them. Reopening
-- keeps the closing's row, with who, when and why.
create table closed_period (
    id            bigint generated always as identity primary key,
    month         date not null check (month = date_trunc('month', month::timestamp)::date),
    level         smallint,     -- a recon_level number; null: every level
    closed_by     text not null,
    closed_on     timestamptz not null default now(),
    summary       jsonb not null, -- counts and amounts per level, side, status and currency, as at closing
    reopened_by   text,
    reopened_on   timestamptz,
    reopen_reason text,
    check ((reopened_on is null) = (reopened_by is null) and (reopened_on is null) = (reopen_reason is null))
);
create unique index closed_period_live on closed_period (month, coalesce(level, 0)) where reopened_on is null;
create index closed_period_month_idx on closed_period (month desc, id desc);

-- +goose StatementBegin
-- period_refuse raises the refusal for closing c (nothing when c is none):
-- SQLSTATE LDP01, its detail the period as JSON, which the server turns
-- into a 409 naming it.
create function period_refuse(c closed_period) returns void language plpgsql as $f$
begin
    if c.id is null then
        return;
    end if;
    raise exception 'the period % is closed%: nothing dated in it can be written', to_char(c.month, 'YYYY-MM'),
        case when c.level is null then '' else ' for level ' || c.level end
        using errcode = 'LDP01',
              detail = json_build_object('month', to_char(c.month, 'YYYY-MM'), 'level', c.level,
                                         'closedBy', c.closed_by, 'closedOn', c.closed_on)::text;
end
$f$;

-- period_of_kinds: the live closing of month m that covers records of the
-- given kinds (the levels whose sides read them, or all levels).
create function period_of_kinds(p_kinds text[], m date) returns closed_period language sql stable as $f$
    select c.* from closed_period c
    where c.reopened_on is null and c.month = m
      and (c.level is null or c.level in (select number from recon_level where left_kind = any (p_kinds) or right_kind = any (p_kinds)))
    order by c.level nulls first limit 1
$f$;

-- period_of_level: the live closing of month m for level p_level.
create function period_of_level(p_level smallint, m date) returns closed_period language sql stable as $f$
    select c.* from closed_period c
    where c.reopened_on is null and c.month = m and (c.level is null or c.level = p_level)
    order by c.level nulls first limit 1
$f$;

-- period_guard_document: a statement trigger on a document table, with
-- arguments its date column and the kinds its rows are (comma-separated).
-- Rows inserted, the rows an update leaves and finds, and rows deleted.
create function period_guard_document() returns trigger language plpgsql as $f$
declare
    c     closed_period;
    kinds text[] := string_to_array(tg_argv[1], ',');
    tbl   text;
begin
    -- (a closing waits for the writes under way; see screens/controls)
    perform pg_advisory_xact_lock_shared(hashtext('closed_period'));
    if not exists (select 1 from closed_period where reopened_on is null) then
        return null;
    end if;
    foreach tbl in array case tg_op when 'INSERT' then array['new_rows'] when 'DELETE' then array['old_rows']
                                    else array['old_rows', 'new_rows'] end loop
        execute format('select c.* from (select distinct date_trunc(''month'', %I::timestamp)::date as month
                        from %I where %I is not null) m cross join lateral period_of_kinds($1, m.month) c
                        where c.id is not null limit 1', tg_argv[0], tbl, tg_argv[0]) into c using kinds;
        perform period_refuse(c);
    end loop;
    return null;
end
$f$;

-- period_guard_match: manual matches made (run_id null) and matches undone,
-- checked against the closings of their level by both sides' dates.
create function period_guard_match() returns trigger language plpgsql as $f$
declare
    c    closed_period;
    lv   recon_level;
    rows text;
begin
    -- (a closing waits for the writes under way; see screens/controls)
    perform pg_advisory_xact_lock_shared(hashtext('closed_period'));
    if not exists (select 1 from closed_period where reopened_on is null) then
        return null;
    end if;
    if tg_op = 'INSERT' then
        rows := 'select n.level, n.left_id, n.right_id from new_rows n where n.run_id is null';
    else
        rows := 'select n.level, n.left_id, n.right_id from new_rows n join old_rows o on o.id = n.id
                 where o.undone_on is null and n.undone_on is not null';
    end if;
    for lv in select * from recon_level loop
        execute format('select c.* from (
                select distinct date_trunc(''month'', s.date::timestamp)::date as month
                from (%s) r join %I s on s.id = r.left_id where r.level = $1
                union
                select distinct date_trunc(''month'', s.date::timestamp)::date
                from (%s) r join %I s on s.id = r.right_id where r.level = $1) m
                cross join lateral period_of_level($1, m.month) c where c.id is not null limit 1',
                rows, lv.left_source, rows, lv.right_source) into c using lv.number;
        perform period_refuse(c);
    end loop;
    return null;
end
$f$;

-- period_guard_member: further records joining a group made by hand, and
-- records leaving a group that is undone.
create function period_guard_member() returns trigger language plpgsql as $f$
declare
    c    closed_period;
    lv   recon_level;
    rows text;
begin
    -- (a closing waits for the writes under way; see screens/controls)
    perform pg_advisory_xact_lock_shared(hashtext('closed_period'));
    if not exists (select 1 from closed_period where reopened_on is null) then
        return null;
    end if;
    if tg_op = 'INSERT' then
        rows := 'select n.level, n.side, n.record_id from new_rows n join recon_match m on m.id = n.match_id where m.run_id is null';
    else
        rows := 'select n.level, n.side, n.record_id from new_rows n join old_rows o using (match_id, side, record_id)
                 where o.live and not n.live';
    end if;
    for lv in select * from recon_level loop
        execute format('select c.* from (
                select distinct date_trunc(''month'', s.date::timestamp)::date as month
                from (%s) r join %I s on s.id = r.record_id where r.level = $1 and r.side = ''left''
                union
                select distinct date_trunc(''month'', s.date::timestamp)::date
                from (%s) r join %I s on s.id = r.record_id where r.level = $1 and r.side = ''right'') m
                cross join lateral period_of_level($1, m.month) c where c.id is not null limit 1',
                rows, lv.left_source, rows, lv.right_source) into c using lv.number;
        perform period_refuse(c);
    end loop;
    return null;
end
$f$;
-- +goose StatementEnd

create trigger period_guard_insert after insert on ticket referencing new table as new_rows
    for each statement execute function period_guard_document('trans_date', 'ticket');
create trigger period_guard_update after update on ticket referencing old table as old_rows new table as new_rows
    for each statement execute function period_guard_document('trans_date', 'ticket');
create trigger period_guard_delete after delete on ticket referencing old table as old_rows
    for each statement execute function period_guard_document('trans_date', 'ticket');

create trigger period_guard_insert after insert on card_transaction referencing new table as new_rows
    for each statement execute function period_guard_document('processing_date', 'transaction');
create trigger period_guard_update after update on card_transaction referencing old table as old_rows new table as new_rows
    for each statement execute function period_guard_document('processing_date', 'transaction');
create trigger period_guard_delete after delete on card_transaction referencing old table as old_rows
    for each statement execute function period_guard_document('processing_date', 'transaction');

create trigger period_guard_insert after insert on settlement referencing new table as new_rows
    for each statement execute function period_guard_document('settlement_date', 'settlement,payout');
create trigger period_guard_update after update on settlement referencing old table as old_rows new table as new_rows
    for each statement execute function period_guard_document('settlement_date', 'settlement,payout');
create trigger period_guard_delete after delete on settlement referencing old table as old_rows
    for each statement execute function period_guard_document('settlement_date', 'settlement,payout');

create trigger period_guard_insert after insert on bank_booking referencing new table as new_rows
    for each statement execute function period_guard_document('booked_date', 'bank');
create trigger period_guard_update after update on bank_booking referencing old table as old_rows new table as new_rows
    for each statement execute function period_guard_document('booked_date', 'bank');
create trigger period_guard_delete after delete on bank_booking referencing old table as old_rows
    for each statement execute function period_guard_document('booked_date', 'bank');

create trigger period_guard_insert after insert on recon_match referencing new table as new_rows
    for each statement execute function period_guard_match();
create trigger period_guard_update after update on recon_match referencing old table as old_rows new table as new_rows
    for each statement execute function period_guard_match();
create trigger period_guard_insert after insert on recon_match_member referencing new table as new_rows
    for each statement execute function period_guard_member();
create trigger period_guard_update after update on recon_match_member referencing old table as old_rows new table as new_rows
    for each statement execute function period_guard_member();

-- +goose StatementBegin
-- Reprocessing every booking leaves those of closed months as they are
-- (one file's or one booking's processing is refused by the guard instead).
create or replace function bank_booking_process(p_import bigint, p_id bigint) returns void
language plpgsql as $fn$
begin
    execute $sql$
        update bank_booking b set
            in_or_out = d.in_or_out, actor = d.actor, recon_mapping = d.recon_mapping, provider = d.provider,
            dist_rvn_settle = d.dist_rvn_settle, distr_driver = d.distr_driver, affects_balance = d.affects_balance,
            reconcile_local_currency = d.reconcile_local_currency,
            reco_amount_in_local_currency = d.reco_amount_in_local_currency,
            exchange_rate = d.exchange_rate, amount_usd = d.amount_usd, in_usd = d.in_usd, out_usd = d.out_usd,
            status = d.status
        from bank_booking src
        cross join lateral bank_booking_derived(src.text, src.currency, src.booked_date, src.amount_local,
            src.exchange_rate_manual, src.exchange_rate, src.amount_usd_manual, src.amount_usd) d
        where b.id = src.id
          and ($1::bigint is null or src.import_file_id = $1)
          and ($2::bigint is null or src.id = $2)
          and ($1::bigint is not null or $2::bigint is not null
               or (period_of_kinds(array['bank'], date_trunc('month', src.booked_date::timestamp)::date)).id is null)
    $sql$ using p_import, p_id;
end
$fn$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
create or replace function bank_booking_process(p_import bigint, p_id bigint) returns void
language plpgsql as $fn$
begin
    execute $sql$
        update bank_booking b set
            in_or_out = d.in_or_out, actor = d.actor, recon_mapping = d.recon_mapping, provider = d.provider,
            dist_rvn_settle = d.dist_rvn_settle, distr_driver = d.distr_driver, affects_balance = d.affects_balance,
            reconcile_local_currency = d.reconcile_local_currency,
            reco_amount_in_local_currency = d.reco_amount_in_local_currency,
            exchange_rate = d.exchange_rate, amount_usd = d.amount_usd, in_usd = d.in_usd, out_usd = d.out_usd,
            status = d.status
        from bank_booking src
        cross join lateral bank_booking_derived(src.text, src.currency, src.booked_date, src.amount_local,
            src.exchange_rate_manual, src.exchange_rate, src.amount_usd_manual, src.amount_usd) d
        where b.id = src.id
          and ($1::bigint is null or src.import_file_id = $1)
          and ($2::bigint is null or src.id = $2)
    $sql$ using p_import, p_id;
end
$fn$;
-- +goose StatementEnd
drop trigger period_guard_update on recon_match_member;
drop trigger period_guard_insert on recon_match_member;
drop trigger period_guard_update on recon_match;
drop trigger period_guard_insert on recon_match;
drop trigger period_guard_delete on bank_booking;
drop trigger period_guard_update on bank_booking;
drop trigger period_guard_insert on bank_booking;
drop trigger period_guard_delete on settlement;
drop trigger period_guard_update on settlement;
drop trigger period_guard_insert on settlement;
drop trigger period_guard_delete on card_transaction;
drop trigger period_guard_update on card_transaction;
drop trigger period_guard_insert on card_transaction;
drop trigger period_guard_delete on ticket;
drop trigger period_guard_update on ticket;
drop trigger period_guard_insert on ticket;
drop function period_guard_member();
drop function period_guard_match();
drop function period_guard_document();
drop function period_of_level(smallint, date);
drop function period_of_kinds(text[], date);
drop function period_refuse(closed_period);
drop table closed_period;
