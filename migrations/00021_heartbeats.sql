-- +goose Up
-- Running work says it is alive (internal/liveness): an import or an
-- automatic reconcile run whose heartbeat stops belongs to a process that
-- ended, and is marked at once rather than when the job queue rescues its
-- job, minutes later.
alter table import_file add column heartbeat_at timestamptz;
alter table recon_run add column heartbeat_at timestamptz;

-- +goose Down
alter table recon_run drop column heartbeat_at;
alter table import_file drop column heartbeat_at;
