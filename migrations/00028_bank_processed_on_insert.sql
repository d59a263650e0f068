-- +goose Up
-- A bank booking is processed as it is inserted. The import used to COPY the
-- bookings and then process them with an UPDATE of every row: each booking
-- was written twice, and so was every index of bank_booking, which the large
-- bank-final grid now has many of (engine/indexes.go). What processing
-- derives from a booking is now one function, bank_booking_derived (the rules
-- of migration 00010, unchanged), read by the import's INSERT and by
-- bank_booking_process (reprocess, and an inline edit's recompute).

-- +goose StatementBegin
-- bank_booking_derived is what processing makes of a booking: in/out by sign;
-- actor, recon mapping, provider and the distribution flags from the first
-- transaction provider (by priority) whose recon mapping occurs in the
-- booking text, matched literally and without regard to case; the USD rate
-- of the booking currency on the booked date, else the latest earlier one,
-- unless the rate was set by hand; the USD amount from the rate, unless it
-- was set by hand; in/out USD from the USD amount. One SELECT, so that
-- PostgreSQL inlines it into the statement that reads it.
create function bank_booking_derived(p_text text, p_currency text, p_booked_date date, p_amount_local numeric,
        p_rate_manual boolean, p_rate numeric, p_usd_manual boolean, p_usd numeric)
returns table (in_or_out text, actor text, recon_mapping text, provider text, dist_rvn_settle text, distr_driver text,
        affects_balance text, reconcile_local_currency text, reco_amount_in_local_currency numeric, exchange_rate numeric,
        amount_usd numeric, in_usd numeric, out_usd numeric, status text)
language sql stable as $fn$
    select case when p_amount_local >= 0 then 'IN' else 'OUT' end,
           p.trans, p.recon_mapping, p.providers, p.distr_rvn_settle, p.distr_driver, p.affects_balance,
           p_currency, p_amount_local, f.rate, f.usd,
           case when p_amount_local >= 0 then f.usd end, case when p_amount_local < 0 then f.usd end,
           'Processed'
    from (select 1) one
    left join lateral (
        select tp.trans, tp.recon_mapping, tp.providers, tp.distr_rvn_settle, tp.distr_driver, tp.affects_balance
        from transaction_provider tp
        where tp.recon_mapping is not null and tp.recon_mapping <> ''
          and strpos(lower(p_text), lower(tp.recon_mapping)) > 0
        order by tp.priority nulls last, tp.id limit 1) p on true
    left join lateral (
        select cer.usd from currency_exchange_rate cer
        where cer.code = p_currency and cer.exchange_rate_on <= p_booked_date
        order by cer.exchange_rate_on desc limit 1) r on true
    cross join lateral (select case when p_rate_manual then p_rate else r.usd end as rate) x
    cross join lateral (select x.rate, case when p_usd_manual then p_usd else round(p_amount_local * x.rate, 2) end as usd) f
$fn$;
-- +goose StatementEnd

-- +goose StatementBegin
-- bank_booking_process processes bookings again (bank_booking_derived):
-- p_import limits it to one file, p_id to one booking; both null processes
-- every booking (reprocess). Dynamic SQL so each call is planned for its own
-- arguments (one row by key, one file, or all).
create or replace function bank_booking_process(p_import bigint, p_id bigint) returns void
language plpgsql as $fn$
begin
    execute $sql$
        update bank_booking b set
            in_or_out = d.in_or_out, actor = d.actor, recon_mapping = d.recon_mapping, provider = d.provider,
            dist_rvn_settle = d.dist_rvn_settle, distr_driver = d.distr_driver, affects_balance = d.affects_balance,
            reconcile_local_currency = d.reconcile_local_currency,
            reco_amount_in_local_currency = d.reco_amount_in_local_currency,
            exchange_rate = d.exchange_rate, amount_usd = d.amount_usd, in_usd = d.in_usd, out_usd = d.out_usd,
            status = d.status
        from bank_booking src
        cross join lateral bank_booking_derived(src.text, src.currency, src.booked_date, src.amount_local,
            src.exchange_rate_manual, src.exchange_rate, src.amount_usd_manual, src.amount_usd) d
        where b.id = src.id
          and ($1::bigint is null or src.import_file_id = $1)
          and ($2::bigint is null or src.id = $2)
    $sql$ using p_import, p_id;
end
$fn$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
create or replace function bank_booking_process(p_import bigint, p_id bigint) returns void
language plpgsql as $fn$
begin
    execute $sql$
        update bank_booking b set
            in_or_out = case when b.amount_local >= 0 then 'IN' else 'OUT' end,
            actor = p.trans, recon_mapping = p.recon_mapping, provider = p.providers,
            dist_rvn_settle = p.distr_rvn_settle, distr_driver = p.distr_driver, affects_balance = p.affects_balance,
            reconcile_local_currency = b.currency,
            reco_amount_in_local_currency = b.amount_local,
            exchange_rate = f.rate,
            amount_usd = f.usd,
            in_usd = case when b.amount_local >= 0 then f.usd end,
            out_usd = case when b.amount_local < 0 then f.usd end,
            status = 'Processed'
        from bank_booking src
        left join lateral (
            select tp.trans, tp.recon_mapping, tp.providers, tp.distr_rvn_settle, tp.distr_driver, tp.affects_balance
            from transaction_provider tp
            where tp.recon_mapping is not null and tp.recon_mapping <> ''
              and strpos(lower(src.text), lower(tp.recon_mapping)) > 0
            order by tp.priority nulls last, tp.id limit 1) p on true
        left join lateral (
            select cer.usd from currency_exchange_rate cer
            where cer.code = src.currency and cer.exchange_rate_on <= src.booked_date
            order by cer.exchange_rate_on desc limit 1) r on true
        cross join lateral (
            select case when src.exchange_rate_manual then src.exchange_rate else r.usd end as rate) x
        cross join lateral (
            select x.rate, case when src.amount_usd_manual then src.amount_usd else round(src.amount_local * x.rate, 2) end as usd) f
        where b.id = src.id
          and ($1::bigint is null or src.import_file_id = $1)
          and ($2::bigint is null or src.id = $2)
    $sql$ using p_import, p_id;
end
$fn$;
-- +goose StatementEnd
drop function bank_booking_derived(text, text, date, numeric, boolean, numeric, boolean, numeric);
