-- +goose Up
-- Indexes made on demand (engine/indexes.go): a grid read of a large view
-- that outlasts the quick lane with equality filters and a sort on another
-- column (Currency = NOK, biggest USD amounts first) is one no single-column
-- index answers fast when the filter's rows lie at the far end of the
-- sort's index. Each such request is recorded here as the composite index
-- that would serve it (the filters' columns, then the sort's, then the
-- key); the server builds the most demanded few per table in the
-- background and drops those that fall out of them.
create table grid_index_demand (
    name          text primary key,
    view_name     text not null,
    table_name    text not null,
    filter_fields text[] not null, -- the request's equality filters, by field
    sort_field    text not null,
    columns       text not null,   -- the index's key as shown, e.g. lower(currency), amount_usd, id
    demanded      integer not null default 1,
    first_on      timestamptz not null default now(),
    last_on       timestamptz not null default now()
);

alter table grid_index drop constraint grid_index_kind_check;
alter table grid_index add constraint grid_index_kind_check check (kind in ('btree', 'trgm', 'demand'));

-- +goose Down
delete from grid_index where kind = 'demand';
alter table grid_index drop constraint grid_index_kind_check;
alter table grid_index add constraint grid_index_kind_check check (kind in ('btree', 'trgm'));
drop table grid_index_demand;
