-- +goose Up
-- The financial documents the product reconciles, and the files they come
-- from. Every document row names its import file and carries a natural key
-- (computed by the loader from the fields that identify it), so the same
-- row arriving in two files is reported, not stored twice.

create table import_file (
    id            bigint generated always as identity primary key,
    kind          text not null check (kind in ('bank', 'transaction', 'settlement', 'ticket')),
    file_name     text not null check (length(file_name) between 1 and 255),
    format        text not null check (format in ('csv', 'xlsx', 'camt053', 'mt940')),
    descriptor    text not null,
    sha256        text not null check (sha256 ~ '^[0-9a-f]{64}$'),
    size_bytes    bigint not null check (size_bytes >= 0),
    content       bytea,          -- the upload until its job has run; cleared after
    status        text not null default 'queued' check (status in ('queued', 'running', 'succeeded', 'failed')),
    rows_read     integer not null default 0,
    rows_loaded   integer not null default 0,
    rows_overlap  integer not null default 0,
    error         text,
    row_errors    jsonb,          -- the first 100 bad rows: [{line, column, message}]
    extraction_log_id bigint references extraction_log (id),
    created_on    timestamptz not null default now(),
    created_by    text not null default 'system',
    started_on    timestamptz,
    finished_on   timestamptz
);
-- The same content of a kind is imported once; a failed attempt does not block a retry.
create unique index import_file_once on import_file (kind, sha256) where status <> 'failed';
create index import_file_recent_idx on import_file (id desc);

create table ticket (
    id               bigint generated always as identity primary key,
    ticket_number    text not null check (ticket_number ~ '^[0-9]{13}$'),
    trans_date       date not null,
    payment_type     text,
    country_code     text,
    currency         text not null check (currency ~ '^[A-Z]{3}$'),
    transaction_code text,
    sale_amount      numeric(20, 2) not null,
    natural_key      text not null unique,
    import_file_id   bigint not null references import_file (id),
    created_on       timestamptz not null default now()
);
create index ticket_number_idx on ticket (ticket_number);
create index ticket_date_idx on ticket (trans_date, currency);

create table card_transaction (
    id                 bigint generated always as identity primary key,
    client_unique_id   text not null,
    processing_date    date not null,
    provider_actor     text not null,
    acquiring_bank     text,
    payment_method     text,
    currency           text not null check (currency ~ '^[A-Z]{3}$'),
    transaction_amount numeric(20, 2) not null,
    transaction_type   text,
    natural_key        text not null unique,
    import_file_id     bigint not null references import_file (id),
    created_on         timestamptz not null default now()
);
create index card_transaction_client_idx on card_transaction (client_unique_id);
create index card_transaction_date_idx on card_transaction (processing_date, provider_actor, currency);

create table settlement (
    id                  bigint generated always as identity primary key,
    payout_id           text not null,
    client_unique_id    text,
    settlement_date     date not null,
    provider_actor      text not null,
    acquirer_bank       text,
    settlement_currency text not null check (settlement_currency ~ '^[A-Z]{3}$'),
    gross_amount        numeric(20, 2),
    fees                numeric(20, 2),
    settlement_net      numeric(20, 2) not null,
    natural_key         text not null unique,
    import_file_id      bigint not null references import_file (id),
    created_on          timestamptz not null default now()
);
create index settlement_client_idx on settlement (client_unique_id);
create index settlement_payout_idx on settlement (payout_id);
create index settlement_date_idx on settlement (settlement_date, provider_actor, settlement_currency);

alter table bank_booking
    add column natural_key text unique,
    add column import_file_id bigint references import_file (id);

-- +goose Down
alter table bank_booking drop column import_file_id, drop column natural_key;
drop table settlement;
drop table card_transaction;
drop table ticket;
drop table import_file;
