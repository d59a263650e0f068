-- +goose Up
-- Extraction-log texts and import failures keep their message code and
-- parameters beside the English text, so the UI shows them in the reader's
-- language (serverMessages.<code> in ui/src/i18n); the English text stays for
-- exports, filters and rows written before.
alter table extraction_log
    add column description_code   text,
    add column description_params jsonb,
    add column error_code         text,
    add column error_params       jsonb;
alter table import_file
    add column error_code   text,
    add column error_params jsonb;

drop view vw_bank_file_extraction_log;
drop view vw_settlement_extraction_log;
drop view vw_transaction_extraction_log;
drop view vw_ticket_extraction_log;
create view vw_bank_file_extraction_log as
    select id, module, description, created_on, created_by, status, error_description,
        description_code, description_params::text as description_params, error_code, error_params::text as error_params
    from extraction_log where module = 'Bank';
create view vw_settlement_extraction_log as
    select id, module, description, created_on, created_by, status, error_description,
        description_code, description_params::text as description_params, error_code, error_params::text as error_params
    from extraction_log where module = 'Settlement';
create view vw_transaction_extraction_log as
    select id, module, description, created_on, created_by, status, error_description,
        description_code, description_params::text as description_params, error_code, error_params::text as error_params
    from extraction_log where module = 'Transaction';
create view vw_ticket_extraction_log as
    select id, module, description, created_on, created_by, status, error_description,
        description_code, description_params::text as description_params, error_code, error_params::text as error_params
    from extraction_log where module = 'Ticket';

-- Text equals ignores case in grid filters (lower(x) = lower(value)); the
-- bank-final grid filters on currency over millions of rows, newest first.
create index bank_booking_currency_lower_idx on bank_booking (lower(currency), created_on desc, id desc);

-- +goose Down
drop index bank_booking_currency_lower_idx;
drop view vw_ticket_extraction_log;
drop view vw_transaction_extraction_log;
drop view vw_settlement_extraction_log;
drop view vw_bank_file_extraction_log;
create view vw_bank_file_extraction_log as
    select id, module, description, created_on, created_by, status, error_description from extraction_log where module = 'Bank';
create view vw_settlement_extraction_log as
    select id, module, description, created_on, created_by, status, error_description from extraction_log where module = 'Settlement';
create view vw_transaction_extraction_log as
    select id, module, description, created_on, created_by, status, error_description from extraction_log where module = 'Transaction';
create view vw_ticket_extraction_log as
    select id, module, description, created_on, created_by, status, error_description from extraction_log where module = 'Ticket';
alter table import_file drop column error_code, drop column error_params;
alter table extraction_log drop column description_code, drop column description_params, drop column error_code, drop column error_params;
