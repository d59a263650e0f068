-- +goose Up
-- Adjustments close items (DESIGN.md section 6, match groups). A task's
-- manual adjustment made for a ticket's difference joins that ticket's
-- level-1 match group, or makes one, with rule adjustment (where the
-- product makes the adjustment: screens/recon/closing.go).
--
--   - Every side gains the canonical column manual: a record made by hand.
--     recon_side_transaction, level 1's right side, holds every card
--     transaction, a task's adjustments too (manual, and counted false):
--     automatic runs and the unmatched counts leave them out, while a
--     group made by hand, the manual dialog, "why not", the chain and a
--     group's evaluation take them. A manual record's date is not
--     compared (it is dated when it was booked, not when money moved).
--   - recon_side_card_transaction, level 2's left side: the imported card
--     transactions only (an adjustment is never a transaction to settle).
--   - the card_transaction triggers that keep matches current follow the
--     new source too (recon_follow for level 2).
--   - the level-1 report counts an adjustment once: in its group's sums
--     when it is in one (the group's variance has it), apart, toward its
--     ticket, as before, when not.
--   - rules adjustment and writeoff (a difference accepted without a
--     counter-record).
alter table recon_match drop constraint recon_match_rule_check;
alter table recon_match add constraint recon_match_rule_check
    check (rule in ('exact', 'date', 'amount', 'fx', 'manual', 'investigation', 'forced', 'adjustment', 'writeoff'));

create or replace view recon_side_ticket as
    select t.id, t.ticket_number as ref, t.sale_amount as amount, t.currency, t.trans_date as date,
           null::text as provider_key, null::text as provider, true as counted,
           t.payment_type, t.country_code, t.transaction_code,
           false as manual
    from ticket t;

create or replace view recon_side_transaction as
    select x.id, x.client_unique_id as ref, x.transaction_amount as amount, x.currency, x.processing_date as date,
           lower(x.provider_actor) as provider_key, x.provider_actor as provider, not x.is_manual_adjust as counted,
           x.acquiring_bank, x.payment_method, x.transaction_type,
           x.is_manual_adjust as manual
    from card_transaction x;

create or replace view recon_side_settlement as
    select s.id, s.client_unique_id as ref, coalesce(s.gross_amount, s.settlement_net + coalesce(s.fees, 0)) as amount,
           s.settlement_currency as currency, s.settlement_date as date,
           lower(s.provider_actor) as provider_key, s.provider_actor as provider, true as counted,
           s.acquirer_bank, s.fees, s.settlement_net, s.payout_id,
           false as manual
    from settlement s;

create or replace view recon_side_payout as
    select p.id, p.payout_key as ref, p.total_net as amount, p.currency, p.latest_date as date,
           lower(p.provider_actor) as provider_key, p.provider_actor as provider, true as counted,
           p.settlement_count,
           false as manual
    from payout p;

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

create view recon_side_card_transaction as
    select * from recon_side_transaction where not manual;

update recon_level set left_source = 'recon_side_card_transaction' where left_source = 'recon_side_transaction';

create trigger recon_follow_lock_card before delete or update on card_transaction
    for each statement execute function recon_follow_lock('recon_side_card_transaction');
create trigger recon_follow_update_card after update on card_transaction referencing old table as old_rows new table as new_rows
    for each statement execute function recon_follow_apply('recon_side_card_transaction', 'transaction_amount', 'currency', 'processing_date',
        'provider_actor', 'is_manual_adjust');
create trigger recon_follow_delete_card after delete on card_transaction referencing old table as old_rows
    for each statement execute function recon_follow_apply('recon_side_card_transaction');

-- +goose StatementBegin
create or replace function recon_group_eval(p_level int, p_left bigint[], p_right bigint[])
returns table (left_sum numeric, right_sum numeric, left_cur text, right_cur text, left_date date, right_date date,
               left_n int, right_n int, provider_key text, provider text,
               amount_threshold numeric, date_threshold integer, currency_threshold numeric,
               variance numeric, lag integer, rank_diff numeric, diff_pct numeric, rule text, status text,
               amount_ok boolean, date_ok boolean, currency_ok boolean, inside boolean, no_rate boolean,
               amount_missed numeric, date_missed integer, currency_missed numeric)
language plpgsql stable as $f$
declare
    l recon_level;
begin
    select * into l from recon_level where number = p_level;
    if not found then
        raise exception 'no reconciliation level %', p_level using errcode = '22023';
    end if;
    return query execute format($q$
        with a as (
            select sum(s.amount) as total, case when count(distinct s.currency) = 1 and count(s.currency) = count(*) then min(s.currency) end as cur,
                   max(s.date) filter (where not s.manual) as day, count(*)::int as n
            from %1$I s where s.id = any ($2)
        ), b as (
            select sum(s.amount) as total, case when count(distinct s.currency) = 1 and count(s.currency) = count(*) then min(s.currency) end as cur,
                   max(s.date) filter (where not s.manual) as day, count(*)::int as n
            from %2$I s where s.id = any ($3)
        ), p as (
            select s.provider_key, s.provider from %3$I s where s.id = $4
        )
        select a.total, b.total, a.cur, b.cur, coalesce(a.day, b.day), coalesce(b.day, a.day), a.n, b.n, p.provider_key, p.provider,
               tol.amount_threshold, tol.date_threshold, tol.currency_threshold,
               e.variance, e.lag, e.rank_diff, e.diff_pct, e.rule, e.status, e.amount_ok, e.date_ok, e.currency_ok, e.inside,
               e.no_rate, e.amount_missed, e.date_missed, e.currency_missed
        from a cross join b left join p on true
        left join recon_tolerance tol on tol.level = $1 and tol.provider_key = p.provider_key
        cross join lateral recon_pair_eval(a.total, b.total, a.cur, b.cur, coalesce(a.day, b.day), coalesce(b.day, a.day),
                                           tol.amount_threshold, tol.date_threshold, tol.currency_threshold) e $q$,
        l.left_source, l.right_source, case when l.tolerance_side = 'left' then l.left_source else l.right_source end)
    using l.tolerance_type, p_left, p_right, case when l.tolerance_side = 'left' then p_left[1] else p_right[1] end;
end
$f$;
-- +goose StatementEnd

-- +goose StatementBegin
create or replace function recon_follow(source text, ids bigint[]) returns void language plpgsql as $f$
declare
    l recon_level;
    side text;
    groups boolean := exists (select 1 from recon_match_member where live);
begin
    if ids is null or cardinality(ids) = 0 then
        return;
    end if;
    for l in select * from recon_level where left_source = source or right_source = source order by number loop
        foreach side in array array['left', 'right'] loop
            continue when (side = 'left' and l.left_source <> source) or (side = 'right' and l.right_source <> source);
            execute format($q$
                update recon_match m set undone_on = now(), undone_by = 'system',
                       undo_reason = 'The record was deleted or left reconciliation.'
                where m.level = $1 and m.%1$I in (select unnest($2)) and m.undone_on is null
                  and not exists (select 1 from %2$I s where s.id = m.%1$I) $q$,
                side || '_id', source) using l.number, ids;
            if groups then
                execute format($q$
                    update recon_match m set undone_on = now(), undone_by = 'system',
                           undo_reason = 'The record was deleted or left reconciliation.'
                    where m.undone_on is null and m.id in (
                        select mm.match_id from recon_match_member mm
                        where mm.level = $1 and mm.side = $3 and mm.live and mm.record_id in (select unnest($2))
                          and not exists (select 1 from %1$I s where s.id = mm.record_id)) $q$,
                    source) using l.number, ids, side;
            end if;
            -- one-to-one matches
            execute format($q$
                update recon_match m set amount_variance = x.variance, date_lag_days = x.lag, status = x.status
                from (
                    select m.id, e.variance, e.lag,
                           case when m.status = 'investigation' then 'investigation' when e.inside then e.status else 'changed' end as status
                    from recon_match m
                    join %2$I l on l.id = m.left_id
                    join %3$I r on r.id = m.right_id
                    left join recon_tolerance tol on tol.level = $3 and tol.provider_key = %4$s.provider_key
                    -- (a record made by hand is dated when it was booked: its date is not compared)
                    cross join lateral recon_pair_eval(l.amount, r.amount, l.currency, r.currency,
                        case when l.manual then r.date else l.date end, case when r.manual then l.date else r.date end,
                        tol.amount_threshold, tol.date_threshold, tol.currency_threshold) e
                    where m.level = $1 and m.%1$I in (select unnest($2)) and m.undone_on is null
                      and ($4 is false or not exists (select 1 from recon_match_member mm where mm.match_id = m.id))) x
                where m.id = x.id
                  and (m.amount_variance, m.date_lag_days, m.status) is distinct from (x.variance, x.lag, x.status) $q$,
                side || '_id', l.left_source, l.right_source, case when l.tolerance_side = 'left' then 'l' else 'r' end)
                using l.number, ids, l.tolerance_type, groups;
            -- groups: evaluated over their sums
            if groups then
                execute format($q$
                    update recon_match m set amount_variance = x.variance, date_lag_days = x.lag, status = x.status
                    from (
                        select g.id, e.variance, e.lag,
                               case when g.status = 'investigation' then 'investigation' when e.inside then e.status else 'changed' end as status
                        from (select distinct m.id, m.level, m.status from recon_match m
                              left join recon_match_member mm on mm.match_id = m.id and mm.side = $3 and mm.live
                              where m.level = $1 and m.undone_on is null
                                and exists (select 1 from recon_match_member x where x.match_id = m.id)
                                and (m.%1$I in (select unnest($2)) or mm.record_id in (select unnest($2)))) g
                        cross join lateral recon_group_eval(g.level, recon_match_ids(g.id, 'left'), recon_match_ids(g.id, 'right')) e) x
                    where m.id = x.id
                      and (m.amount_variance, m.date_lag_days, m.status) is distinct from (x.variance, x.lag, x.status) $q$,
                    side || '_id') using l.number, ids, side;
            end if;
        end loop;
    end loop;
end
$f$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION public.recon_ticket_transaction_report(p_from date, p_to date, p_currency text[], p_provider text[], p_ticket text)
 RETURNS TABLE(row_key text, ticket_date date, sales_currency text, payment_type text, country_code text, sra_ticket_count bigint, ppa_transaction_count bigint, sra_total_amount numeric, ppa_total_amount numeric, count_variance bigint, amount_variance numeric, reconciliation_status text, reconcile_status_number integer)
 LANGUAGE sql
 STABLE
AS $function$
    with providers as (
        select lower(v) as provider_key from unnest(p_provider) v
    ), sums as (
        -- a month of groups from the day sums
        select d.trans_date, d.currency, d.payment_type, d.country_code, sum(d.tickets)::bigint as tickets, sum(d.matched)::bigint as transactions,
               sum(d.sra) as sra, sum(d.ppa) as ppa, sum(d.exact) = sum(d.tickets) as all_exact
        from recon_ticket_day d
        where p_ticket is null and d.trans_date between p_from and p_to
          and (p_currency is null or d.currency = any (p_currency))
          -- an unmatched ticket has no provider yet: it shows under any provider filter
          and (p_provider is null or d.provider_key is null or d.provider_key in (select provider_key from providers))
        group by d.trans_date, d.currency, d.payment_type, d.country_code
    ), one as (
        -- one ticket number: its tickets, each with its match
        select t.trans_date, t.currency, coalesce(t.payment_type, '') as payment_type, coalesce(t.country_code, '') as country_code,
               count(*) as tickets, count(m.id) as transactions, sum(t.sale_amount) as sra,
               coalesce(sum(t.sale_amount - coalesce(m.amount_variance, 0)) filter (where m.id is not null), 0) as ppa,
               bool_and(m.id is not null and m.status = 'matched' and coalesce(m.group_variance, 0) = 0) as all_exact
        from ticket t
        left join lateral (
            select m.id, m.status, m.variance_share as amount_variance, m.amount_variance as group_variance, x.provider_actor
            from recon_match_live m join card_transaction x on x.id = m.right_id
            where m.level = 1 and m.side = 'left' and m.record_id = t.id and m.status <> 'investigation'
            limit 1) m on true
        where t.ticket_number = p_ticket and t.trans_date between p_from and p_to
          and (p_currency is null or t.currency = any (p_currency))
          and (p_provider is null or m.id is null or lower(m.provider_actor) in (select provider_key from providers))
        group by 1, 2, 3, 4
    ), g as (
        select * from sums union all select * from one
    ), adj as (
        -- manual adjustments of tasks (few) outside a match group count once, toward the ticket each was made for
        select t.trans_date, t.currency, coalesce(t.payment_type, '') as payment_type, coalesce(t.country_code, '') as country_code,
               sum(a.amount) as amount
        from (select a.adjusted_ticket_id, sum(a.transaction_amount) as amount
              from card_transaction a where a.task_id is not null and a.is_manual_adjust
                -- (one in a match group counts in its group's sums)
                and not exists (select 1 from recon_match_live v where v.level = 1 and v.side = 'right' and v.record_id = a.id)
              group by a.adjusted_ticket_id) a
        join ticket t on t.id = a.adjusted_ticket_id
        left join lateral (
            select m.id, x.provider_actor
            from recon_match_live m join card_transaction x on x.id = m.right_id
            where m.level = 1 and m.side = 'left' and m.record_id = t.id and m.status <> 'investigation'
            limit 1) m on true
        where t.trans_date between p_from and p_to
          and (p_ticket is null or t.ticket_number = p_ticket)
          and (p_currency is null or t.currency = any (p_currency))
          and (p_provider is null or m.id is null or lower(m.provider_actor) in (select provider_key from providers))
        group by 1, 2, 3, 4
    ), changed as (
        -- groups holding a match changed since it was made (few): never
        -- Matched, whatever their sums say (its variance may be unknown)
        select distinct t.trans_date, t.currency, coalesce(t.payment_type, '') as payment_type, coalesce(t.country_code, '') as country_code
        from recon_match_live m join ticket t on t.id = m.record_id
        where m.level = 1 and m.side = 'left' and m.status = 'changed' and t.trans_date between p_from and p_to
    ), r as (
        select g.trans_date, g.currency, g.payment_type, g.country_code, g.tickets, g.transactions, g.sra,
               g.ppa + coalesce(adj.amount, 0) as ppa,
               -- Matched: every ticket matched and no variance left (DESIGN.md
               -- section 6), adjustments included
               g.sra = g.ppa + coalesce(adj.amount, 0) and g.transactions = g.tickets
               and not exists (select 1 from changed c where (c.trans_date, c.currency, c.payment_type, c.country_code) =
                                                             (g.trans_date, g.currency, g.payment_type, g.country_code)) as matched
        from g left join adj using (trans_date, currency, payment_type, country_code)
    )
    select concat_ws('|', trans_date, currency, payment_type, country_code), trans_date, currency, payment_type, country_code,
           tickets, transactions, sra, ppa, tickets - transactions, sra - ppa,
           case when transactions = 0 then 'Unmatched' when matched then 'Matched' else 'Partial' end,
           case when transactions = 0 then 1 when matched then 3 else 2 end
    from r
$function$;
-- +goose StatementEnd

-- +goose Down
update recon_match set undone_on = now(), undone_by = 'system', undo_reason = 'Rules adjustment and writeoff were taken back.'
where undone_on is null and rule in ('adjustment', 'writeoff');
update recon_match set rule = 'manual' where rule in ('adjustment', 'writeoff');
alter table recon_match drop constraint recon_match_rule_check;
alter table recon_match add constraint recon_match_rule_check
    check (rule in ('exact', 'date', 'amount', 'fx', 'manual', 'investigation', 'forced'));

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION public.recon_ticket_transaction_report(p_from date, p_to date, p_currency text[], p_provider text[], p_ticket text)
 RETURNS TABLE(row_key text, ticket_date date, sales_currency text, payment_type text, country_code text, sra_ticket_count bigint, ppa_transaction_count bigint, sra_total_amount numeric, ppa_total_amount numeric, count_variance bigint, amount_variance numeric, reconciliation_status text, reconcile_status_number integer)
 LANGUAGE sql
 STABLE
AS $function$
    with providers as (
        select lower(v) as provider_key from unnest(p_provider) v
    ), sums as (
        -- a month of groups from the day sums
        select d.trans_date, d.currency, d.payment_type, d.country_code, sum(d.tickets)::bigint as tickets, sum(d.matched)::bigint as transactions,
               sum(d.sra) as sra, sum(d.ppa) as ppa, sum(d.exact) = sum(d.tickets) as all_exact
        from recon_ticket_day d
        where p_ticket is null and d.trans_date between p_from and p_to
          and (p_currency is null or d.currency = any (p_currency))
          -- an unmatched ticket has no provider yet: it shows under any provider filter
          and (p_provider is null or d.provider_key is null or d.provider_key in (select provider_key from providers))
        group by d.trans_date, d.currency, d.payment_type, d.country_code
    ), one as (
        -- one ticket number: its tickets, each with its match
        select t.trans_date, t.currency, coalesce(t.payment_type, '') as payment_type, coalesce(t.country_code, '') as country_code,
               count(*) as tickets, count(m.id) as transactions, sum(t.sale_amount) as sra,
               coalesce(sum(t.sale_amount - coalesce(m.amount_variance, 0)) filter (where m.id is not null), 0) as ppa,
               bool_and(m.id is not null and m.status = 'matched' and coalesce(m.group_variance, 0) = 0) as all_exact
        from ticket t
        left join lateral (
            select m.id, m.status, m.variance_share as amount_variance, m.amount_variance as group_variance, x.provider_actor
            from recon_match_live m join card_transaction x on x.id = m.right_id
            where m.level = 1 and m.side = 'left' and m.record_id = t.id and m.status <> 'investigation'
            limit 1) m on true
        where t.ticket_number = p_ticket and t.trans_date between p_from and p_to
          and (p_currency is null or t.currency = any (p_currency))
          and (p_provider is null or m.id is null or lower(m.provider_actor) in (select provider_key from providers))
        group by 1, 2, 3, 4
    ), g as (
        select * from sums union all select * from one
    ), adj as (
        -- manual adjustments of tasks (few) count once, toward the ticket each was made for
        select t.trans_date, t.currency, coalesce(t.payment_type, '') as payment_type, coalesce(t.country_code, '') as country_code,
               sum(a.amount) as amount
        from (select a.adjusted_ticket_id, sum(a.transaction_amount) as amount
              from card_transaction a where a.task_id is not null and a.is_manual_adjust
              group by a.adjusted_ticket_id) a
        join ticket t on t.id = a.adjusted_ticket_id
        left join lateral (
            select m.id, x.provider_actor
            from recon_match_live m join card_transaction x on x.id = m.right_id
            where m.level = 1 and m.side = 'left' and m.record_id = t.id and m.status <> 'investigation'
            limit 1) m on true
        where t.trans_date between p_from and p_to
          and (p_ticket is null or t.ticket_number = p_ticket)
          and (p_currency is null or t.currency = any (p_currency))
          and (p_provider is null or m.id is null or lower(m.provider_actor) in (select provider_key from providers))
        group by 1, 2, 3, 4
    ), changed as (
        -- groups holding a match changed since it was made (few): never
        -- Matched, whatever their sums say (its variance may be unknown)
        select distinct t.trans_date, t.currency, coalesce(t.payment_type, '') as payment_type, coalesce(t.country_code, '') as country_code
        from recon_match_live m join ticket t on t.id = m.record_id
        where m.level = 1 and m.side = 'left' and m.status = 'changed' and t.trans_date between p_from and p_to
    ), r as (
        select g.trans_date, g.currency, g.payment_type, g.country_code, g.tickets, g.transactions, g.sra,
               g.ppa + coalesce(adj.amount, 0) as ppa,
               -- Matched: every ticket matched and no variance left (DESIGN.md
               -- section 6), adjustments included
               g.sra = g.ppa + coalesce(adj.amount, 0) and g.transactions = g.tickets
               and not exists (select 1 from changed c where (c.trans_date, c.currency, c.payment_type, c.country_code) =
                                                             (g.trans_date, g.currency, g.payment_type, g.country_code)) as matched
        from g left join adj using (trans_date, currency, payment_type, country_code)
    )
    select concat_ws('|', trans_date, currency, payment_type, country_code), trans_date, currency, payment_type, country_code,
           tickets, transactions, sra, ppa, tickets - transactions, sra - ppa,
           case when transactions = 0 then 'Unmatched' when matched then 'Matched' else 'Partial' end,
           case when transactions = 0 then 1 when matched then 3 else 2 end
    from r
$function$;
-- +goose StatementEnd

-- +goose StatementBegin
create or replace function recon_follow(source text, ids bigint[]) returns void language plpgsql as $f$
declare
    l recon_level;
    side text;
    groups boolean := exists (select 1 from recon_match_member where live);
begin
    if ids is null or cardinality(ids) = 0 then
        return;
    end if;
    for l in select * from recon_level where left_source = source or right_source = source order by number loop
        foreach side in array array['left', 'right'] loop
            continue when (side = 'left' and l.left_source <> source) or (side = 'right' and l.right_source <> source);
            execute format($q$
                update recon_match m set undone_on = now(), undone_by = 'system',
                       undo_reason = 'The record was deleted or left reconciliation.'
                where m.level = $1 and m.%1$I in (select unnest($2)) and m.undone_on is null
                  and not exists (select 1 from %2$I s where s.id = m.%1$I) $q$,
                side || '_id', source) using l.number, ids;
            if groups then
                execute format($q$
                    update recon_match m set undone_on = now(), undone_by = 'system',
                           undo_reason = 'The record was deleted or left reconciliation.'
                    where m.undone_on is null and m.id in (
                        select mm.match_id from recon_match_member mm
                        where mm.level = $1 and mm.side = $3 and mm.live and mm.record_id in (select unnest($2))
                          and not exists (select 1 from %1$I s where s.id = mm.record_id)) $q$,
                    source) using l.number, ids, side;
            end if;
            -- one-to-one matches
            execute format($q$
                update recon_match m set amount_variance = x.variance, date_lag_days = x.lag, status = x.status
                from (
                    select m.id, e.variance, e.lag,
                           case when m.status = 'investigation' then 'investigation' when e.inside then e.status else 'changed' end as status
                    from recon_match m
                    join %2$I l on l.id = m.left_id
                    join %3$I r on r.id = m.right_id
                    left join recon_tolerance tol on tol.level = $3 and tol.provider_key = %4$s.provider_key
                    cross join lateral recon_pair_eval(l.amount, r.amount, l.currency, r.currency, l.date, r.date,
                        tol.amount_threshold, tol.date_threshold, tol.currency_threshold) e
                    where m.level = $1 and m.%1$I in (select unnest($2)) and m.undone_on is null
                      and ($4 is false or not exists (select 1 from recon_match_member mm where mm.match_id = m.id))) x
                where m.id = x.id
                  and (m.amount_variance, m.date_lag_days, m.status) is distinct from (x.variance, x.lag, x.status) $q$,
                side || '_id', l.left_source, l.right_source, case when l.tolerance_side = 'left' then 'l' else 'r' end)
                using l.number, ids, l.tolerance_type, groups;
            -- groups: evaluated over their sums
            if groups then
                execute format($q$
                    update recon_match m set amount_variance = x.variance, date_lag_days = x.lag, status = x.status
                    from (
                        select g.id, e.variance, e.lag,
                               case when g.status = 'investigation' then 'investigation' when e.inside then e.status else 'changed' end as status
                        from (select distinct m.id, m.level, m.status from recon_match m
                              left join recon_match_member mm on mm.match_id = m.id and mm.side = $3 and mm.live
                              where m.level = $1 and m.undone_on is null
                                and exists (select 1 from recon_match_member x where x.match_id = m.id)
                                and (m.%1$I in (select unnest($2)) or mm.record_id in (select unnest($2)))) g
                        cross join lateral recon_group_eval(g.level, recon_match_ids(g.id, 'left'), recon_match_ids(g.id, 'right')) e) x
                    where m.id = x.id
                      and (m.amount_variance, m.date_lag_days, m.status) is distinct from (x.variance, x.lag, x.status) $q$,
                    side || '_id') using l.number, ids, side;
            end if;
        end loop;
    end loop;
end
$f$;
-- +goose StatementEnd

-- +goose StatementBegin
create or replace function recon_group_eval(p_level int, p_left bigint[], p_right bigint[])
returns table (left_sum numeric, right_sum numeric, left_cur text, right_cur text, left_date date, right_date date,
               left_n int, right_n int, provider_key text, provider text,
               amount_threshold numeric, date_threshold integer, currency_threshold numeric,
               variance numeric, lag integer, rank_diff numeric, diff_pct numeric, rule text, status text,
               amount_ok boolean, date_ok boolean, currency_ok boolean, inside boolean, no_rate boolean,
               amount_missed numeric, date_missed integer, currency_missed numeric)
language plpgsql stable as $f$
declare
    l recon_level;
begin
    select * into l from recon_level where number = p_level;
    if not found then
        raise exception 'no reconciliation level %', p_level using errcode = '22023';
    end if;
    return query execute format($q$
        with a as (
            select sum(s.amount) as total, case when count(distinct s.currency) = 1 and count(s.currency) = count(*) then min(s.currency) end as cur,
                   max(s.date) as day, count(*)::int as n
            from %1$I s where s.id = any ($2)
        ), b as (
            select sum(s.amount) as total, case when count(distinct s.currency) = 1 and count(s.currency) = count(*) then min(s.currency) end as cur,
                   max(s.date) as day, count(*)::int as n
            from %2$I s where s.id = any ($3)
        ), p as (
            select s.provider_key, s.provider from %3$I s where s.id = $4
        )
        select a.total, b.total, a.cur, b.cur, a.day, b.day, a.n, b.n, p.provider_key, p.provider,
               tol.amount_threshold, tol.date_threshold, tol.currency_threshold,
               e.variance, e.lag, e.rank_diff, e.diff_pct, e.rule, e.status, e.amount_ok, e.date_ok, e.currency_ok, e.inside,
               e.no_rate, e.amount_missed, e.date_missed, e.currency_missed
        from a cross join b left join p on true
        left join recon_tolerance tol on tol.level = $1 and tol.provider_key = p.provider_key
        cross join lateral recon_pair_eval(a.total, b.total, a.cur, b.cur, a.day, b.day,
                                           tol.amount_threshold, tol.date_threshold, tol.currency_threshold) e $q$,
        l.left_source, l.right_source, case when l.tolerance_side = 'left' then l.left_source else l.right_source end)
    using l.tolerance_type, p_left, p_right, case when l.tolerance_side = 'left' then p_left[1] else p_right[1] end;
end
$f$;
-- +goose StatementEnd

drop trigger recon_follow_delete_card on card_transaction;
drop trigger recon_follow_update_card on card_transaction;
drop trigger recon_follow_lock_card on card_transaction;
update recon_level set left_source = 'recon_side_transaction' where left_source = 'recon_side_card_transaction';
drop view recon_side_ticket;
create view recon_side_ticket as
    select t.id, t.ticket_number as ref, t.sale_amount as amount, t.currency, t.trans_date as date,
           null::text as provider_key, null::text as provider, true as counted,
           t.payment_type, t.country_code, t.transaction_code
    from ticket t;

drop view recon_side_transaction cascade;
create view recon_side_transaction as
    select x.id, x.client_unique_id as ref, x.transaction_amount as amount, x.currency, x.processing_date as date,
           lower(x.provider_actor) as provider_key, x.provider_actor as provider, true as counted,
           x.acquiring_bank, x.payment_method, x.transaction_type
    from card_transaction x
    where not x.is_manual_adjust;

drop view recon_side_settlement;
create view recon_side_settlement as
    select s.id, s.client_unique_id as ref, coalesce(s.gross_amount, s.settlement_net + coalesce(s.fees, 0)) as amount,
           s.settlement_currency as currency, s.settlement_date as date,
           lower(s.provider_actor) as provider_key, s.provider_actor as provider, true as counted,
           s.acquirer_bank, s.fees, s.settlement_net, s.payout_id
    from settlement s;

drop view recon_side_payout;
create view recon_side_payout as
    select p.id, p.payout_key as ref, p.total_net as amount, p.currency, p.latest_date as date,
           lower(p.provider_actor) as provider_key, p.provider_actor as provider, true as counted,
           p.settlement_count
    from payout p;

drop view recon_side_bank;
create view recon_side_bank as
    select b.id, coalesce(b.bank_archive_reference, b.number, '') as ref,
           coalesce(b.reco_amount_in_local_currency, b.amount_local) + coalesce(b.bank_charges_in_local, 0) as amount,
           b.currency, b.booked_date as date,
           lower(coalesce(nullif(b.manual_provider, ''), b.provider)) as provider_key,
           coalesce(nullif(b.manual_provider, ''), b.provider) as provider,
           lower(coalesce(nullif(b.manual_provider, ''), b.provider)) in (select lower(p.provider_actor) from payout p) as counted,
           b.bank_account, coalesce(b.reco_amount_in_local_currency, b.amount_local) as amount_local,
           b.bank_charges_in_local as charges, b.text
    from bank_booking b
    where b.status = 'Processed';
