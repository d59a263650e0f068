-- +goose Up
-- The reconciliation reports of spec 03 section 3.2 with the status numbers
-- of DESIGN.md section 6, as set-returning functions of the filter values.
-- Engine views with declared params read them (views.yaml), so paging,
-- sorting, column filters and export come from the engine. Every function
-- takes the date range, currencies, providers (null: all) and a ticket
-- number (null: all), and returns a row_key the grid pages by.
--
-- Amounts of a matched pair are compared in the left record's currency: the
-- right side counts as left amount minus the match's variance, which the
-- matching computed through the USD rates when the currencies differ.

-- Tickets vs transactions, per ticket date, currency, payment type and
-- country. Manual adjustments of a task count toward their ticket number.
-- 1 unmatched (no ticket of the group matched), 2 partial, 3 matched (every
-- ticket matched exactly).
create function recon_ticket_transaction_report(p_from date, p_to date, p_currency text[], p_provider text[], p_ticket text)
returns table (row_key text, ticket_date date, sales_currency text, payment_type text, country_code text,
               sra_ticket_count bigint, ppa_transaction_count bigint, sra_total_amount numeric, ppa_total_amount numeric,
               count_variance bigint, amount_variance numeric, reconciliation_status text, reconcile_status_number integer)
language sql stable as $$
    with adj as (
        select a.client_unique_id, sum(a.transaction_amount) as amount
        from card_transaction a where a.task_id is not null and a.is_manual_adjust
        group by a.client_unique_id
    ), t as (
        select t.trans_date, t.currency, coalesce(t.payment_type, '') as payment_type, coalesce(t.country_code, '') as country_code,
               t.sale_amount, m.id as match_id, m.status, m.amount_variance, coalesce(adj.amount, 0) as adjusted
        from ticket t
        left join recon_match m on m.level = 1 and m.left_id = t.id and m.undone_on is null and m.status <> 'investigation'
        left join card_transaction x on x.id = m.right_id
        left join adj on adj.client_unique_id = t.ticket_number
        where t.trans_date between p_from and p_to
          and (p_currency is null or t.currency = any (p_currency))
          and (p_ticket is null or t.ticket_number = p_ticket)
          -- an unmatched ticket has no provider yet: it shows under any provider filter
          and (p_provider is null or x.id is null or x.provider_actor = any (p_provider))
    ), g as (
        select trans_date, currency, payment_type, country_code,
               count(*) as tickets, count(match_id) as transactions, sum(sale_amount) as sra,
               coalesce(sum(sale_amount - coalesce(amount_variance, 0)) filter (where match_id is not null), 0) + sum(adjusted) as ppa,
               bool_and(match_id is not null and status = 'matched' and coalesce(amount_variance, 0) = 0) as all_exact
        from t
        group by trans_date, currency, payment_type, country_code
    )
    select concat_ws('|', trans_date, currency, payment_type, country_code), trans_date, currency, payment_type, country_code,
           tickets, transactions, sra, ppa, tickets - transactions, sra - ppa,
           case when transactions = 0 then 'Unmatched' when all_exact or sra = ppa and transactions = tickets then 'Matched' else 'Partial' end,
           case when transactions = 0 then 1 when all_exact or sra = ppa and transactions = tickets then 3 else 2 end
    from g
$$;

-- The ticket-only lookup: a row per ticket with its transaction. 1 matched,
-- 2 partial, 3 investigation, 4 matched by hand with a difference, 5 unmatched.
create function recon_ticket_lookup(p_from date, p_to date, p_currency text[], p_provider text[], p_ticket text)
returns table (id bigint, ticket_date date, ticket_number text, currency text, payment_type text, country_code text,
               sales_amount numeric, transaction_date date, provider_actor text, transaction_amount numeric,
               variance_amount numeric, reconciliation_status text, reconciliation_status_number integer, match_id bigint)
language sql stable as $$
    select t.id, t.trans_date, t.ticket_number, t.currency, t.payment_type, t.country_code, t.sale_amount,
           x.processing_date, x.provider_actor, x.transaction_amount, m.amount_variance,
           s.label, s.n, m.id
    from ticket t
    left join recon_match m on m.level = 1 and m.left_id = t.id and m.undone_on is null
    left join card_transaction x on x.id = m.right_id
    cross join lateral (select case
            when m.id is null then 5
            when m.status = 'investigation' then 3
            when m.rule = 'manual' and coalesce(m.amount_variance, 0) <> 0 then 4
            when m.status = 'matched' then 1
            else 2 end as n) sn
    cross join lateral (select sn.n, (array['Matched', 'Partial', 'Investigation', 'Matched with difference', 'Unmatched'])[sn.n] as label) s
    where (p_from is null or t.trans_date >= p_from) and (p_to is null or t.trans_date <= p_to)
      and (p_currency is null or t.currency = any (p_currency))
      and (p_ticket is null or t.ticket_number = p_ticket)
      and (p_provider is null or x.id is null or x.provider_actor = any (p_provider))
$$;

-- Transactions vs settlements, per transaction date, currency and provider.
-- Variance is null when no settlement matched and 0 when every transaction
-- matched exactly; the exchange columns are the part settled in another
-- currency and what the exchange cost (in the transaction currency).
create function recon_transaction_settlement_report(p_from date, p_to date, p_currency text[], p_provider text[], p_ticket text)
returns table (row_key text, trans_date date, trans_currency text, transaction_amount numeric, provider_actor text,
               settle_total_amount numeric, settlement_currency text, total_fees numeric, amount_after_fees numeric,
               settlement_amount numeric, variance numeric, exchange_currency_amount numeric, exchange_cost numeric,
               recon_status text)
language sql stable as $$
    with x as (
        select x.processing_date, x.currency, x.provider_actor, x.transaction_amount,
               m.id as match_id, m.status, m.amount_variance,
               s.settlement_currency, coalesce(s.gross_amount, s.settlement_net + coalesce(s.fees, 0)) as gross, s.fees, s.settlement_net
        from card_transaction x
        left join recon_match m on m.level = 2 and m.left_id = x.id and m.undone_on is null and m.status <> 'investigation'
        left join settlement s on s.id = m.right_id
        where not x.is_manual_adjust
          and x.processing_date between p_from and p_to
          and (p_currency is null or x.currency = any (p_currency))
          and (p_provider is null or x.provider_actor = any (p_provider))
          and (p_ticket is null or x.client_unique_id = p_ticket)
    ), g as (
        select processing_date, currency, provider_actor, sum(transaction_amount) as amount, count(*) as n, count(match_id) as matched,
               sum(gross) as gross, string_agg(distinct settlement_currency, ', ') as settlement_currency,
               sum(fees) as fees, sum(settlement_net) as net,
               sum(transaction_amount - coalesce(amount_variance, 0)) filter (where match_id is not null) as settled,
               sum(transaction_amount) filter (where settlement_currency <> currency) as fx_amount,
               sum(amount_variance) filter (where settlement_currency <> currency) as fx_cost,
               bool_and(match_id is not null and status = 'matched' and coalesce(amount_variance, 0) = 0) as all_exact
        from x
        group by processing_date, currency, provider_actor
    )
    select concat_ws('|', processing_date, currency, provider_actor), processing_date, currency, amount, provider_actor,
           gross, settlement_currency, fees, net, settled,
           case when matched = 0 then null when all_exact then 0 else amount - settled end,
           fx_amount, fx_cost,
           case when matched = 0 then 'Unmatched' when all_exact then 'Matched' else 'Partial' end
    from g
$$;

-- Settlements vs bank, a row per payout with its booking: 1 matched, 2
-- partial, 3 unmatched.
create function recon_settlement_bank_report(p_from date, p_to date, p_currency text[], p_provider text[])
returns table (payout_id text, settlement_date date, settlement_amount numeric, settlement_currency text, provider_actor text,
               booked_date date, bank_account text, reco_amount_in_local_currency numeric, charges numeric, currency text,
               amount_variance numeric, recon_status text, recon_status_number integer, bank_id bigint, match_id bigint)
language sql stable as $$
    with p as (
        select s.payout_id, max(s.settlement_date) as settlement_date, sum(s.settlement_net) as amount,
               string_agg(distinct s.settlement_currency, ', ') as currency, min(s.provider_actor) as provider_actor
        from settlement s
        where s.settlement_date between p_from and p_to
          and (p_currency is null or s.settlement_currency = any (p_currency))
          and (p_provider is null or s.provider_actor = any (p_provider))
        group by s.payout_id
    )
    select p.payout_id, p.settlement_date, p.amount, p.currency, p.provider_actor,
           b.booked_date, b.bank_account, coalesce(b.reco_amount_in_local_currency, b.amount_local), b.bank_charges_in_local, b.currency,
           m.amount_variance, s.label, s.n, b.id, m.id
    from p
    left join payout po on po.payout_key = p.payout_id
    left join recon_match m on m.level = 3 and m.left_id = po.id and m.undone_on is null
    left join bank_booking b on b.id = m.right_id
    cross join lateral (select case
            when m.id is null then 3
            when m.status = 'matched' and coalesce(m.amount_variance, 0) = 0 then 1
            else 2 end as n) sn
    cross join lateral (select sn.n, (array['Matched', 'Partial', 'Unmatched'])[sn.n] as label) s
$$;

-- +goose Down
drop function recon_settlement_bank_report(date, date, text[], text[]);
drop function recon_transaction_settlement_report(date, date, text[], text[], text);
drop function recon_ticket_lookup(date, date, text[], text[], text);
drop function recon_ticket_transaction_report(date, date, text[], text[], text);
