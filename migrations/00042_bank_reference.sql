-- +goose Up
-- A bank booking is known by its archive reference, else its number, else
-- (most bank lines carry neither) the words of its text, else its account:
-- never an empty reference, which the screens showed as an internal id
-- ("why not", the exception queue). An empty archive reference counts as
-- none. The queue's rows of bookings take the new references.
create or replace view recon_side_bank as
    select b.id, coalesce(nullif(b.bank_archive_reference, ''), nullif(b.number, ''), nullif(btrim(b.text), ''), b.bank_account) as ref,
           coalesce(b.reco_amount_in_local_currency, b.amount_local) + coalesce(b.bank_charges_in_local, 0) as amount,
           b.currency, b.booked_date as date,
           lower(coalesce(nullif(b.manual_provider, ''), b.provider)) as provider_key,
           coalesce(nullif(b.manual_provider, ''), b.provider) as provider,
           lower(coalesce(nullif(b.manual_provider, ''), b.provider)) in (select lower(p.provider_actor) from payout p) as counted,
           b.bank_account, coalesce(b.reco_amount_in_local_currency, b.amount_local) as amount_local,
           b.bank_charges_in_local as charges, b.text,
           false as manual
    from bank_booking b
    where b.status = 'Processed';

update recon_open_item o set ref = s.ref
from recon_side_bank s
where o.kind = 'bank' and o.record_id = s.id and o.ref is distinct from s.ref;

-- +goose Down
create or replace view recon_side_bank as
    select b.id, coalesce(b.bank_archive_reference, b.number, '') as ref,
           coalesce(b.reco_amount_in_local_currency, b.amount_local) + coalesce(b.bank_charges_in_local, 0) as amount,
           b.currency, b.booked_date as date,
           lower(coalesce(nullif(b.manual_provider, ''), b.provider)) as provider_key,
           coalesce(nullif(b.manual_provider, ''), b.provider) as provider,
           lower(coalesce(nullif(b.manual_provider, ''), b.provider)) in (select lower(p.provider_actor) from payout p) as counted,
           b.bank_account, coalesce(b.reco_amount_in_local_currency, b.amount_local) as amount_local,
           b.bank_charges_in_local as charges, b.text,
           false as manual
    from bank_booking b
    where b.status = 'Processed';

update recon_open_item o set ref = s.ref
from recon_side_bank s
where o.kind = 'bank' and o.record_id = s.id and o.ref is distinct from s.ref;
