-- +goose Up
-- Ticket-sale imports write extraction-log rows with module Ticket; the
-- extraction-logs screen gets a fourth tab for them (spec 02 names three tabs,
-- for the three kinds of files it knew; ticket sales are imported too).
create view vw_ticket_extraction_log as
    select id, module, description, created_on, created_by, status, error_description from extraction_log where module = 'Ticket';

-- +goose Down
drop view vw_ticket_extraction_log;
