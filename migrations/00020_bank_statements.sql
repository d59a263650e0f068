-- +goose Up
-- Real bank statements (issue: every booking in, none lost, none invented).

-- The rows an import did not store, or stored other than written, each with
-- its line and reason: [{line, skipped, message, code, params}], the first
-- 1,000; note_count counts all.
alter table import_file
    add column row_notes  jsonb,
    add column note_count integer not null default 0;

-- The time zone of a bank account: the day of a camt.053 date-time is taken
-- in it (empty: Europe/Stockholm, imports.DefaultBankZone).
-- +goose StatementBegin
create function is_time_zone(zone text) returns boolean
    language sql stable
    as $$ select exists (select 1 from pg_timezone_names where name = zone) $$;
-- +goose StatementEnd
alter table bank_account_currency
    add column time_zone text constraint bank_account_currency_time_zone_check check (time_zone is null or is_time_zone(time_zone));

-- Each statement a bank file brought (MT940 :20: to :62F:, camt.053 Stmt):
-- what chains an account's statements from one file to the next. identity
-- is the statement part of its entries' natural keys.
create table bank_statement (
    id               bigint generated always as identity primary key,
    import_file_id   bigint not null references import_file (id),
    identity         text not null collate "C" unique,
    account          text not null,
    reference        text not null default '',
    number           text not null default '',
    sequence         bigint,          -- the statement number, when it is one (:28C: 00301/1 -> 301; ElctrncSeqNb)
    currency         text,
    opening_date     date,
    opening_balance  numeric(20, 2),
    closing_date     date,
    closing_balance  numeric(20, 2),
    entries          integer not null default 0,
    warning          text,            -- the chain's break, in English
    warning_code     text,
    warning_params   jsonb
);
create index bank_statement_account_idx on bank_statement (account, closing_date, id);

-- The warning of a booking's statement, for the processed bank files grid;
-- filtering on it (equals, contains) reads only the few bookings warned.
alter table bank_booking add column statement_warning text;
create index bank_booking_statement_warning_idx on bank_booking (statement_warning) where statement_warning is not null;
create index bank_booking_statement_warning_trgm on bank_booking using gin (statement_warning gin_trgm_ops) where statement_warning is not null;

-- A line of a CSV or XLSX bank export is now identified by all its values and
-- its occurrence among equal lines (screens/imports/load.go), no longer by its
-- archive reference: the bookings loaded so far get the same keys, so a later
-- export overlapping them loads none of them again. (Bookings of camt.053 and
-- MT940 files keep theirs: the statement and position that identify them now
-- were not stored.)
update bank_booking b set natural_key = k.base || '#' || k.n
from (
    select id, base, row_number() over (partition by base order by id) as n
    from (
        select b.id, concat_ws('|', b.bank_account, to_char(b.booked_date, 'YYYY-MM-DD'), coalesce(to_char(b.interest_date, 'YYYY-MM-DD'), ''),
            coalesce(b.text, ''), b.amount_local::text, coalesce(b.currency, ''), coalesce(b.bank_archive_reference, ''), coalesce(b.number, ''),
            coalesce(b.booked_balance_local_currency::text, '')) as base
        from bank_booking b join import_file f on f.id = b.import_file_id
        where f.format in ('csv', 'xlsx')
    ) lines
) k
where b.id = k.id;

-- +goose Down
alter table bank_booking drop column statement_warning;
drop table bank_statement;
alter table bank_account_currency drop column time_zone;
drop function is_time_zone(text);
alter table import_file drop column row_notes, drop column note_count;
