-- +goose Up
-- Indexes made on demand also for a range on one column with a sort on
-- another (engine/demand.go): the range's field is kept with the demand.
alter table grid_index_demand add column range_field text; -- null: none

-- +goose Down
-- (their indexes, no longer demanded, are dropped by the server's next
-- EnsureIndexes)
delete from grid_index_demand where range_field is not null;
alter table grid_index_demand drop column range_field;
