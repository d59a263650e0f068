-- +goose Up
-- What a million-row import spends its time on, trimmed (bench import):
-- * The date indexes of the document tables serve no query yet (no grid
--   reads these tables, and reconciliation joins on ticket number, client
--   id and payout id, which keep their indexes); each cost about a fifth of
--   a load. Reconciliation adds the indexes its queries need.
-- * Natural keys are only ever compared for equality, so they sort bytewise
--   (collation "C"): cheaper comparisons on every insert into their index.
-- * Uploads are kept compressed with lz4 rather than pglz, about five
--   times faster on a large file, where the server supports it.
drop index ticket_date_idx;
drop index card_transaction_date_idx;
drop index settlement_date_idx;
alter table ticket alter column natural_key type text collate "C";
alter table card_transaction alter column natural_key type text collate "C";
alter table settlement alter column natural_key type text collate "C";
alter table bank_booking alter column natural_key type text collate "C";
-- +goose StatementBegin
do $$
begin
    alter table import_file alter column content set compression lz4;
exception when feature_not_supported or invalid_parameter_value then
    raise notice 'lz4 is not available here: uploads stay compressed with pglz';
end $$;
-- +goose StatementEnd

-- +goose Down
alter table import_file alter column content set compression default;
alter table ticket alter column natural_key type text collate "default";
alter table card_transaction alter column natural_key type text collate "default";
alter table settlement alter column natural_key type text collate "default";
alter table bank_booking alter column natural_key type text collate "default";
create index ticket_date_idx on ticket (trans_date, currency);
create index card_transaction_date_idx on card_transaction (processing_date, provider_actor, currency);
create index settlement_date_idx on settlement (settlement_date, provider_actor, settlement_currency);
