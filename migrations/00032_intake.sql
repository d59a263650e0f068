-- +goose Up
-- Files that arrive by themselves, and work that starts by itself
-- (intake.yaml, screens/intake).
--
-- import_file.origin: where an import came from when no user sent it: the
-- drop folder ("folder:<kind>/<claimed name>") or an SFTP source
-- ("sftp:<source>:<remote path>"). The drop folder finds its claimed files'
-- imports by it; an import with an origin that succeeds makes the runs
-- declared "after intake" of its kind due (intake_schedule).
alter table import_file add column origin text;
create unique index import_file_origin on import_file (origin) where origin is not null and status <> 'failed';

-- intake_seen: the files of SFTP sources, by path, size and time of change.
-- A file is taken when two looks in a row find it unchanged (a file still
-- being written changes between them); a file taken is never taken again
-- (its remote copy usually stays). status: waiting (seen once, or changed
-- since), taken (imported or refused; outcome in import_id or message).
create table intake_seen (
    id             bigint generated always as identity primary key,
    source         text not null,
    path           text not null,
    size_bytes     bigint not null,
    modified_on    timestamptz not null,
    status         text not null check (status in ('waiting', 'taken')),
    first_seen_on  timestamptz not null default now(),
    taken_on       timestamptz,
    import_id      bigint references import_file (id) on delete set null,
    message        text,
    message_code   text,
    message_params jsonb
);
-- One waiting look per file; a file taken once per content version.
create unique index intake_seen_waiting on intake_seen (source, path) where status = 'waiting';
create unique index intake_seen_taken on intake_seen (source, path, size_bytes, modified_on) where status = 'taken';

-- intake_schedule: the work intake.yaml schedules, one row each: pulling an
-- SFTP source (kind 'sftp', target its name), an automatic reconcile run
-- of a level (kind 'run', target its slug), the check that an expected file
-- has come (kind 'expect', target its name) or the daily digest ('digest').
-- Written by the server's start from intake.yaml (cron, after_intake,
-- kinds); next_due moves on when the work starts. after_intake: a successful intake import of one of kinds
-- (the import kinds feeding the level's sides) makes the row due now.
create table intake_schedule (
    name          text primary key,
    kind          text not null check (kind in ('sftp', 'run', 'expect', 'digest')),
    target        text not null,
    cron          text,
    time_zone     text not null default 'UTC',
    after_intake  boolean not null default false,
    kinds         text[] not null default '{}',
    next_due      timestamptz,
    last_started  timestamptz,
    last_job_id   bigint,
    last_result   text,
    last_result_code text,
    last_result_params jsonb,
    updated_on    timestamptz not null default now()
);
create index intake_schedule_due on intake_schedule (next_due) where next_due is not null;

-- +goose StatementBegin
-- An intake import that loads rows makes the runs waiting for its kind due
-- now, in the transaction that records its success.
create function intake_after_import() returns trigger language plpgsql as $f$
begin
    update intake_schedule set next_due = least(coalesce(next_due, now()), now()), updated_on = now()
    where after_intake and new.kind = any(kinds);
    return null;
end
$f$;
-- +goose StatementEnd
create trigger intake_after_import after update of status on import_file
    for each row when (new.status = 'succeeded' and old.status <> 'succeeded' and new.origin is not null and new.rows_loaded > 0)
    execute function intake_after_import();

-- +goose StatementBegin
-- The intake grid: the schedules and what they last did.
create view intake_schedule_list as
select s.name, s.kind, s.target, s.cron, s.time_zone, s.after_intake, array_to_string(s.kinds, ', ') as kinds,
       s.next_due, s.last_started, s.last_result, s.last_result_code, s.last_result_params::text as last_result_params
from intake_schedule s;
-- +goose StatementEnd

-- +goose Down
drop view intake_schedule_list;
drop trigger intake_after_import on import_file;
drop function intake_after_import();
drop table intake_schedule;
drop table intake_seen;
drop index import_file_origin;
alter table import_file drop column origin;
