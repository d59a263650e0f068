-- +goose Up
-- Indexes derived from the grid metadata (engine/indexes.go): a view
-- declared large: true offers only sorts and filters an index serves, and
-- the server builds the ones its columns need (create index concurrently,
-- one node at a time). Each build is recorded here; `ledgerdesk check`
-- reports what is still not served.
create table grid_index (
    name        text primary key,
    table_name  text not null,
    column_name text not null,
    kind        text not null check (kind in ('btree', 'trgm')),
    needed_by   text not null,
    state       text not null check (state in ('building', 'ready', 'failed')),
    started_on  timestamptz not null,
    finished_on timestamptz,
    seconds     numeric(12, 3),
    error       text
);

-- The bank-final view is large: the server builds (lower(currency), id) for
-- its currency sort and filters, which serves what this index served.
drop index bank_booking_currency_lower_idx;

-- +goose Down
create index bank_booking_currency_lower_idx on bank_booking (lower(currency), created_on desc, id desc);
drop table grid_index;
