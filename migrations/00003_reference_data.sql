-- +goose Up
-- Reference data (actors, bank accounts, exchange rates, countries,
-- reconciliation tolerance settings), the extraction log and the processed
-- bank-final record, with the SQL views the grids read. Every table a grid
-- edits carries updated_on, the version optimistic concurrency checks.

create extension if not exists pg_trgm;

create table transaction_provider (
    id               bigint generated always as identity primary key,
    trans            text not null check (length(trans) between 1 and 100),
    providers        text not null check (length(providers) between 1 and 100),
    priority         integer,
    in_out           text not null default 'IN' check (in_out in ('IN', 'OUT')),
    distr_rvn_settle text check (distr_rvn_settle in ('Yes', 'No')),
    distr_driver     text check (distr_driver in ('Yes', 'No')),
    affects_balance  text check (affects_balance in ('Yes', 'No')),
    recon_mapping    text check (length(recon_mapping) <= 200),
    created_on       timestamptz not null default now(),
    created_by       text not null default 'system',
    updated_on       timestamptz not null default now(),
    updated_by       text not null default 'system'
);
create unique index transaction_provider_key on transaction_provider (lower(trans), lower(providers));

create table bank_account_currency (
    id            bigint generated always as identity primary key,
    i_bank_no     text not null check (length(i_bank_no) between 1 and 50),
    currency_code text not null check (currency_code ~ '^[A-Z]{3}$'),
    bank_name     text not null check (length(bank_name) between 1 and 100),
    created_on    timestamptz not null default now(),
    created_by    text not null default 'system',
    updated_on    timestamptz not null default now(),
    updated_by    text not null default 'system'
);
create unique index bank_account_currency_key on bank_account_currency (i_bank_no, currency_code);

create table currency_exchange_rate (
    id               bigint generated always as identity primary key,
    exchange_rate_on date not null,
    code             text not null check (code ~ '^[A-Z]{3}$'),
    currency         text not null check (length(currency) between 1 and 100),
    dkk              numeric(20, 8),
    eur              numeric(20, 8),
    usd              numeric(20, 8),
    sek              numeric(20, 8),
    nok              numeric(20, 8),
    created_on       timestamptz not null default now(),
    created_by       text not null default 'system',
    updated_on       timestamptz not null default now(),
    updated_by       text not null default 'system'
);
create unique index currency_exchange_rate_key on currency_exchange_rate (code, exchange_rate_on);
create index currency_exchange_rate_on_idx on currency_exchange_rate (exchange_rate_on desc, id desc);

create table country (
    id               bigint generated always as identity primary key,
    country_code     text not null check (length(country_code) between 1 and 3),
    sub_country_code text check (length(sub_country_code) <= 10),
    trigram          text check (length(trigram) <= 3),
    country_name     text not null check (length(country_name) between 1 and 100),
    country_tel_code text check (length(country_tel_code) <= 10),
    created_on       timestamptz not null default now(),
    created_by       text not null default 'system',
    updated_on       timestamptz not null default now(),
    updated_by       text not null default 'system'
);
create unique index country_code_key on country (country_code, coalesce(sub_country_code, ''));

-- Tolerances per provider and level: transaction type 1 = tickets vs
-- transactions, 2 = transactions vs settlements, 3 = settlements vs bank.
create table config_setting (
    id                 bigint generated always as identity primary key,
    provider_name      text not null check (length(provider_name) between 1 and 100),
    transaction_type   smallint not null check (transaction_type in (1, 2, 3)),
    provider_actor     text check (length(provider_actor) <= 100),
    currency_threshold numeric(20, 2) check (currency_threshold >= 0),
    date_threshold     integer check (date_threshold between 0 and 365),
    amount_threshold   numeric(20, 2) check (amount_threshold >= 0),
    created_on         timestamptz not null default now(),
    created_by         text not null default 'system',
    updated_on         timestamptz not null default now(),
    updated_by         text not null default 'system'
);
create unique index config_setting_key on config_setting (lower(provider_name), transaction_type, coalesce(lower(provider_actor), ''));

create table extraction_log (
    id                bigint generated always as identity primary key,
    module            text not null check (module in ('Bank', 'Settlement', 'Transaction', 'Ticket')),
    description       text not null,
    status            text not null,
    error_description text,
    created_on        timestamptz not null default now(),
    created_by        text not null default 'system'
);
create index extraction_log_module_idx on extraction_log (module, id desc);

-- The processed bank-final record (spec 02 section 3): one row per bank
-- booking, enriched with actor mapping, FX and manual overrides.
create table bank_booking (
    id                            bigint generated always as identity primary key,
    bank_account                  text not null,
    file_name                     text not null default '',
    import_date_time              timestamptz not null default now(),
    booked_date                   date not null,
    month                         integer generated always as (extract(month from booked_date)::integer) stored,
    week                          integer generated always as (extract(week from booked_date)::integer) stored,
    in_or_out                     text check (in_or_out in ('IN', 'OUT')),
    amount_local                  numeric(20, 2) not null,
    currency                      text not null check (currency ~ '^[A-Z]{3}$'),
    text                          text not null default '',
    bank_charges_in_local         numeric(20, 2),
    bank_charges                  numeric(20, 2),
    actor                         text,
    recon_mapping                 text,
    reco_amount_in_local_currency numeric(20, 2),
    reconcile_local_currency      text,
    exchange_rate                 numeric(20, 8),
    amount_usd                    numeric(20, 2),
    manual_provider               text check (length(manual_provider) <= 100),
    manual_creditor               text check (length(manual_creditor) <= 100),
    comments                      text check (length(comments) <= 1000),
    fee                           numeric(20, 2),
    charges                       numeric(20, 2),
    interest_date                 date,
    number                        text,
    booked_balance_local_currency numeric(20, 2),
    status                        text,
    bank_archive_reference        text,
    main_key                      text,
    provider                      text,
    creditor                      text,
    dist_rvn_settle               text,
    distr_driver                  text,
    affects_balance               text,
    out_usd                       numeric(20, 2),
    in_usd                        numeric(20, 2),
    is_modified                   boolean not null default false,
    created_on                    timestamptz not null default now(),
    created_by                    text not null default 'system',
    updated_on                    timestamptz not null default now(),
    updated_by                    text not null default 'system'
);
create index bank_booking_created_idx on bank_booking (created_on desc, id desc);
create index bank_booking_booked_idx on bank_booking (booked_date desc, id desc);
create index bank_booking_currency_idx on bank_booking (currency, created_on desc, id desc);
create index bank_booking_amount_idx on bank_booking (amount_local, id);
create index bank_booking_text_trgm on bank_booking using gin (text gin_trgm_ops);
create index bank_booking_comments_trgm on bank_booking using gin (comments gin_trgm_ops);

create view vw_bank_file_extraction_log as
    select id, module, description, created_on, created_by, status, error_description from extraction_log where module = 'Bank';
create view vw_settlement_extraction_log as
    select id, module, description, created_on, created_by, status, error_description from extraction_log where module = 'Settlement';
create view vw_transaction_extraction_log as
    select id, module, description, created_on, created_by, status, error_description from extraction_log where module = 'Transaction';

create view vw_user_list as
    select id, username, first_name, last_name, email, date_of_birth, coalesce(mobile_number, '') as mobile_number, is_active
    from app_user;
create view vw_roles_list as
    select id, role_name, description, created_on, created_by from role;

-- +goose Down
drop view vw_roles_list;
drop view vw_user_list;
drop view vw_transaction_extraction_log;
drop view vw_settlement_extraction_log;
drop view vw_bank_file_extraction_log;
drop table bank_booking;
drop table extraction_log;
drop table config_setting;
drop table country;
drop table currency_exchange_rate;
drop table bank_account_currency;
drop table transaction_provider;
