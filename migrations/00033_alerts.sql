-- +goose Up
-- Alerts (screens/intake): what went wrong or did not come while nobody
-- was looking, shown on Home and in the daily digest to those whose screens
-- permit it.
--
-- import_file.holders: the provider actors (transactions, settlements) or
-- bank accounts (bank files) a file held, written by its import; an
-- expected file (intake.yaml) has arrived when a file of its kind holding
-- its provider or account loaded that day.
alter table import_file add column holders text[];
create index import_file_finished_idx on import_file (kind, finished_on) where status = 'succeeded';

-- app_user.daily_digest: the user asked (Profile) for the daily email.
alter table app_user add column daily_digest boolean not null default false;

-- alert: one row per thing that went wrong, once (key says what it is
-- about: 'run:<id>', 'import:<id>', 'refused:<origin>', 'pull:<source>:<day>',
-- 'missing:<expected>:<day>'); screen: the screen a user must hold to see
-- it; cleared_on: set when what it is about has come right (a later run of
-- the level succeeded, the missing file arrived).
create table alert (
    id             bigint generated always as identity primary key,
    key            text not null unique,
    kind           text not null check (kind in ('runFailed', 'intakeFailed', 'fileMissing')),
    screen         integer not null references web_screen (id),
    message        text not null,
    message_code   text not null,
    message_params jsonb,
    raised_on      timestamptz not null default now(),
    cleared_on     timestamptz
);
create index alert_open_idx on alert (raised_on desc) where cleared_on is null;

-- +goose StatementBegin
-- A run that fails raises an alert (its message the run's error, by its
-- code when it has one); a run of the level that succeeds clears the
-- level's earlier ones.
create function alert_run_apply() returns trigger language plpgsql as $f$
begin
    if new.status = 'failed' then
        insert into alert (key, kind, screen, message, message_code, message_params)
        values ('run:' || new.id, 'runFailed', 13,
                format('Automatic reconcile run %s of level %s failed: %s', new.id, new.level, coalesce(new.error, '')),
                coalesce(new.error_code, 'alert.runFailed'),
                coalesce(new.error_params, '{}') || jsonb_build_object('runId', new.id, 'level', new.level, 'detail', coalesce(new.error, '')))
        on conflict (key) do nothing;
    elsif new.status = 'succeeded' then
        update alert set cleared_on = now()
        where kind = 'runFailed' and cleared_on is null and (message_params ->> 'level')::int = new.level;
    end if;
    return null;
end
$f$;
-- +goose StatementEnd
create trigger alert_run after update of status on recon_run
    for each row when (new.status in ('failed', 'succeeded') and old.status is distinct from new.status)
    execute function alert_run_apply();

-- +goose StatementBegin
-- An intake import that fails raises an alert with the import's error (a
-- user's upload shows its failure to the user at once).
create function alert_import_apply() returns trigger language plpgsql as $f$
begin
    insert into alert (key, kind, screen, message, message_code, message_params)
    values ('import:' || new.id, 'intakeFailed', 2,
            format('%s (%s, arrived by itself) could not be loaded: %s', new.file_name, new.kind, coalesce(new.error, '')),
            coalesce(new.error_code, 'alert.importFailed'),
            coalesce(new.error_params, '{}') || jsonb_build_object('importId', new.id, 'file', new.file_name, 'kind', new.kind, 'detail', coalesce(new.error, '')))
    on conflict (key) do nothing;
    return null;
end
$f$;
-- +goose StatementEnd
create trigger alert_import after update of status on import_file
    for each row when (new.status = 'failed' and old.status <> 'failed' and new.origin is not null)
    execute function alert_import_apply();

-- +goose Down
drop trigger alert_import on import_file;
drop function alert_import_apply();
drop trigger alert_run on recon_run;
drop function alert_run_apply();
drop table alert;
alter table app_user drop column daily_digest;
drop index import_file_finished_idx;
alter table import_file drop column holders;
