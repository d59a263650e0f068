-- +goose Up
-- Reconciliation (DESIGN.md section 6): runs, matches at three levels, the
-- payouts level 3 matches as one record, manual-adjustment transactions made
-- by hand for a task, the task tables, and the date indexes the reports and
-- the matching need.

-- Date ranges. The btree date indexes were dropped for import speed (00006);
-- BRIN indexes serve the same month-range reads for a fraction of the upkeep:
-- files arrive in date order, so block ranges follow dates closely.
create index ticket_date_brin on ticket using brin (trans_date) with (pages_per_range = 32);
create index card_transaction_date_brin on card_transaction using brin (processing_date) with (pages_per_range = 32);
create index settlement_date_brin on settlement using brin (settlement_date) with (pages_per_range = 32);

-- Manual adjustments: a transaction made by hand for a task, to balance a
-- difference. It has no import file and no natural key; it counts in the
-- ticket-vs-transaction figures of its ticket.
alter table card_transaction
    alter column import_file_id drop not null,
    alter column natural_key drop not null,
    add column is_manual_adjust boolean not null default false,
    add column task_id bigint,
    add column remarks text check (length(remarks) <= 1000),
    add column created_by text not null default 'system';
alter table card_transaction add constraint card_transaction_origin check (
    case when is_manual_adjust then task_id is not null
         else import_file_id is not null and natural_key is not null end);
create index card_transaction_task_idx on card_transaction (task_id) where task_id is not null;

-- Follow-up tasks (spec 03 sections 2.2, 2.3, 3.5): status 1 New, 2 In
-- Progress, 3 Complete, linked to tickets and transactions.
create table task (
    id             bigint generated always as identity primary key,
    task_name      text not null check (length(task_name) between 1 and 200),
    assigned_to_id bigint references app_user (id),
    is_status      smallint not null default 1 check (is_status in (1, 2, 3)),
    remarks        text check (length(remarks) <= 2000),
    priority       integer,
    created_by     text not null default 'system',
    created_on     timestamptz not null default now(),
    updated_by     text not null default 'system',
    updated_on     timestamptz not null default now()
);
create index task_status_idx on task (is_status, id desc);
create index task_assignee_idx on task (assigned_to_id, id desc);

create table task_ticket (
    task_id   bigint not null references task (id) on delete cascade,
    ticket_id bigint not null references ticket (id),
    primary key (task_id, ticket_id)
);
create index task_ticket_ticket_idx on task_ticket (ticket_id);

create table task_transaction (
    task_id        bigint not null references task (id) on delete cascade,
    transaction_id bigint not null references card_transaction (id) on delete cascade,
    primary key (task_id, transaction_id)
);
create index task_transaction_transaction_idx on task_transaction (transaction_id);

alter table card_transaction add constraint card_transaction_task_fkey foreign key (task_id) references task (id) on delete cascade;

-- A payout is the settlements of one payout id: level 3 matches it as one
-- record against a bank booking. The table is brought up to date from the
-- settlements by reconciliation (recon.refreshPayouts) before it reads it;
-- currency is null when the settlements of a payout disagree on it (such a
-- payout never matches automatically).
create table payout (
    id               bigint generated always as identity primary key,
    payout_key       text collate "C" not null unique,
    provider_actor   text not null,
    currency         text,
    total_net        numeric(20, 2) not null,
    latest_date      date not null,
    settlement_count integer not null
);
create index payout_latest_idx on payout (latest_date);

-- One run of automatic reconciliation of a level. At most one run of a level
-- is queued or running at a time (recon_run_active).
create table recon_run (
    id              bigint generated always as identity primary key,
    level           smallint not null check (level in (1, 2, 3)),
    status          text not null default 'queued' check (status in ('queued', 'running', 'succeeded', 'failed')),
    job_id          bigint,
    created_by      text not null,
    created_on      timestamptz not null default now(),
    started_on      timestamptz,
    finished_on     timestamptz,
    matched         integer not null default 0,
    partial         integer not null default 0,
    left_unmatched  integer not null default 0,
    right_unmatched integer not null default 0,
    error           text
);
create unique index recon_run_active on recon_run (level) where status in ('queued', 'running');
create index recon_run_level_idx on recon_run (level, id desc);

-- A match of a left and a right record at a level (left/right: 1 ticket /
-- card_transaction, 2 card_transaction / settlement, 3 payout / bank_booking).
-- Undo keeps the row (undone_on set); a record has at most one live match
-- per level.
create table recon_match (
    id              bigint generated always as identity primary key,
    level           smallint not null check (level in (1, 2, 3)),
    left_id         bigint not null,
    right_id        bigint not null,
    status          text not null check (status in ('matched', 'partial', 'investigation')),
    rule            text not null check (rule in ('exact', 'date', 'amount', 'fx', 'manual', 'investigation')),
    amount_variance numeric(20, 2),
    date_lag_days   integer,
    reason          text check (length(reason) <= 1000),
    run_id          bigint,         -- recon_run, no foreign key: see below
    created_by      text not null,
    created_on      timestamptz not null default now(),
    undone_by       text,
    undone_on       timestamptz,
    undo_reason     text check (length(undo_reason) <= 1000),
    check ((undone_on is null) = (undone_by is null)),
    check (undone_on is null or length(trim(undo_reason)) > 0)
);
-- An automatic run writes a million matches at once: run_id has no foreign
-- key (its check ran once per row and cost as much as the rest of the
-- insert; the run writes its own id in the same transaction, and runs are
-- never deleted), and there are few indexes, since each costs it too. The live ones serve matching and every report; undone
-- pairs are looked up by matching (never made again) and are few.
create unique index recon_match_left_live on recon_match (level, left_id) where undone_on is null;
create unique index recon_match_right_live on recon_match (level, right_id) where undone_on is null;
create index recon_match_undone_idx on recon_match (level, left_id, right_id) where undone_on is not null;

-- Tolerances of a level per provider (config_setting, DESIGN.md section 6):
-- the row whose provider actor (else provider name) is the provider, first
-- by id when several are.
create view recon_tolerance as
    select distinct on (transaction_type, lower(coalesce(nullif(provider_actor, ''), provider_name)))
           transaction_type as level,
           lower(coalesce(nullif(provider_actor, ''), provider_name)) as provider_key,
           coalesce(amount_threshold, 0) as amount_threshold,
           coalesce(date_threshold, 0) as date_threshold,
           currency_threshold,
           id as config_id
    from config_setting
    order by transaction_type, lower(coalesce(nullif(provider_actor, ''), provider_name)), id;

-- The USD value of one unit of a currency on a day: the rate of that day,
-- else the latest earlier one; null when there is none.
create function usd_rate(p_code text, p_on date) returns numeric
language sql stable parallel safe as $$
    select case when p_code = 'USD' then 1::numeric else (
        select r.usd from currency_exchange_rate r
        where r.code = p_code and r.exchange_rate_on <= p_on and r.usd is not null
        order by r.exchange_rate_on desc limit 1) end
$$;

-- +goose Down
drop function usd_rate(text, date);
drop view recon_tolerance;
drop table recon_match;
drop table recon_run;
drop table payout;
alter table card_transaction drop constraint card_transaction_task_fkey;
drop table task_transaction;
drop table task_ticket;
drop table task;
drop index card_transaction_task_idx;
alter table card_transaction drop constraint card_transaction_origin;
delete from card_transaction where is_manual_adjust;
alter table card_transaction
    drop column created_by,
    drop column remarks,
    drop column task_id,
    drop column is_manual_adjust,
    alter column natural_key set not null,
    alter column import_file_id set not null;
drop index settlement_date_brin;
drop index card_transaction_date_brin;
drop index ticket_date_brin;
