-- +goose Up
-- An import whose process died (its heartbeat stopped) is queued again, so
-- that another node (or the restarted one) finishes it from the stored
-- upload, instead of failing and waiting for the file to be uploaded again;
-- cut_offs counts how often that happened, and the third time it fails
-- (screens/imports/load.go, MarkCutOff).
alter table import_file add column cut_offs smallint not null default 0;

-- +goose Down
alter table import_file drop column cut_offs;
