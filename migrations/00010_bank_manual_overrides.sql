-- +goose Up
-- Manual overrides of the bank-final record are kept per field (spec 02:
-- ManualProvider, ManualCreditor, Comments, ExchangeRate and AmountUsd survive
-- reprocessing, each on its own). The three text fields are never written by
-- processing; the rate and the USD amount are processed figures a user may
-- override, so each gets its own flag instead of the one is_modified that froze
-- both after any edit, a comment-only one included.
alter table bank_booking
    add column exchange_rate_manual boolean not null default false,
    add column amount_usd_manual    boolean not null default false;

-- Rows edited before: the audit log says which fields each edit changed.
update bank_booking b set
    exchange_rate_manual = b.exchange_rate is not null and exists (
        select 1 from audit_log a
        where a.action = 'grid.edit' and a.entity = 'VW_BankFinal' and a.entity_id = b.id::text and a.after ? 'ExchangeRate'),
    amount_usd_manual = b.amount_usd is not null and exists (
        select 1 from audit_log a
        where a.action = 'grid.edit' and a.entity = 'VW_BankFinal' and a.entity_id = b.id::text and a.after ? 'AmountUsd')
where b.is_modified;

-- +goose StatementBegin
-- bank_booking_process enriches bank bookings into the bank-final record: in/out
-- by sign; actor, recon mapping, provider and the distribution flags from the
-- first transaction provider (by priority) whose recon mapping occurs in the
-- booking text, matched literally and without regard to case (a '_' or '%' in a
-- mapping is that character, not a wildcard); the USD rate of the booking
-- currency on the booked date, else the latest earlier one, unless the rate was
-- set by hand; the USD amount from the rate, unless it was set by hand; in/out
-- USD from the USD amount. p_import limits it to one file, p_id to one booking;
-- both null processes every booking (reprocess). Dynamic SQL so each call is
-- planned for its own arguments (one row by key, one file, or all).
create function bank_booking_process(p_import bigint, p_id bigint) returns void
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

-- +goose StatementBegin
-- bank_booking_recompute runs after an inline edit of the bank-final record, in
-- the edit's transaction (views.yaml afterEdit): p_columns are the columns the
-- edit wrote. A rate or USD amount typed by hand becomes a manual override of
-- that field; clearing it hands the field back to processing. The derived
-- figures are then computed again for the row, so a new rate gives a new USD
-- amount (unless that was set by hand) and a new USD amount new In/Out (USD).
create function bank_booking_recompute(p_id bigint, p_columns text[]) returns void
language plpgsql as $fn$
begin
    update bank_booking set
        exchange_rate_manual = case when 'exchange_rate' = any(p_columns) then exchange_rate is not null else exchange_rate_manual end,
        amount_usd_manual = case when 'amount_usd' = any(p_columns) then amount_usd is not null else amount_usd_manual end
    where id = p_id;
    perform bank_booking_process(null, p_id);
end
$fn$;
-- +goose StatementEnd

-- An import cut off by a crash is 'running' until the job queue rescues it;
-- neither it nor a failed one may refuse a re-upload of the same content, so
-- the one-import-per-content rule moves from a unique index to the upload's
-- check (queued or succeeded imports only, under an advisory lock per content).
drop index import_file_once;
create index import_file_content on import_file (kind, sha256);

-- Mail goes out as jobs of the queue with retries (a restart or a mail
-- server that is down loses nothing); the outbox row says where each message
-- stands: queued (waiting or retrying), sent (by SMTP; the body, which holds a
-- code, is then not kept), kept (no delivery configured: read it with
-- `ledgerdesk outbox`), failed (after the last try).
alter table mail_outbox
    add column state        text not null default 'kept' check (state in ('queued', 'sent', 'kept', 'failed')),
    add column attempts     integer not null default 0,
    add column last_error   text,
    add column delivered_on timestamptz;

-- +goose Down
alter table mail_outbox drop column state, drop column attempts, drop column last_error, drop column delivered_on;
drop index import_file_content;
create unique index import_file_once on import_file (kind, sha256) where status <> 'failed';
drop function bank_booking_recompute(bigint, text[]);
drop function bank_booking_process(bigint, bigint);
alter table bank_booking drop column exchange_rate_manual, drop column amount_usd_manual;
