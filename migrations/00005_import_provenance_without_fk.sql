-- +goose Up
-- The document tables name their import file without a foreign key: the
-- check ran once per loaded row and cost as much as all the indexes together
-- (a million-row import: 13.3 s with it, 6.6 s without). The loader writes
-- the id of the import it is running, in the same transaction, and import
-- files are never deleted, so the reference cannot dangle.
alter table ticket drop constraint ticket_import_file_id_fkey;
alter table card_transaction drop constraint card_transaction_import_file_id_fkey;
alter table settlement drop constraint settlement_import_file_id_fkey;
alter table bank_booking drop constraint bank_booking_import_file_id_fkey;
create index bank_booking_import_idx on bank_booking (import_file_id);

-- +goose Down
drop index bank_booking_import_idx;
alter table ticket add constraint ticket_import_file_id_fkey foreign key (import_file_id) references import_file (id);
alter table card_transaction add constraint card_transaction_import_file_id_fkey foreign key (import_file_id) references import_file (id);
alter table settlement add constraint settlement_import_file_id_fkey foreign key (import_file_id) references import_file (id);
alter table bank_booking add constraint bank_booking_import_file_id_fkey foreign key (import_file_id) references import_file (id);
