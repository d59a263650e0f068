-- +goose Up
-- Write-offs (DESIGN.md section 6, match groups): records of one side of a
-- level accepted without a counter-record, with a reason, within the
-- writer's limit. A write-off is a match group of one side: rule writeoff,
-- status matched (changed once its records no longer sum to what was
-- written off), the other side's first record empty, its variance what
-- was written off (left minus right, so negative for a right side). Its
-- records are no longer open anywhere; the reports count them as matched
-- with their difference (the lookup: 4, matched with a difference); undo
-- takes the write-off back.
--
--   - recon_match's left_id and right_id may be empty, for a write-off only.
--   - role.writeoff_limit: the largest amount in USD a holder of the role
--     may write off at once (empty: none; a user's limit is the largest of
--     their roles').
--   - the readers that took both first records for granted take an empty
--     one: recon_match_live, recon_match_ids, the day-sum facts, the
--     reports, and recon_follow (which re-checks write-offs).
alter table recon_match alter column left_id drop not null, alter column right_id drop not null;
alter table recon_match add constraint recon_match_sides
    check (left_id is not null and right_id is not null or rule = 'writeoff' and num_nonnulls(left_id, right_id) = 1);
alter table role add column writeoff_limit numeric(20, 2) check (writeoff_limit >= 0);
-- (recon_follow asks whether any live write-off exists on every write it
-- follows: answered from this index, not by reading every match)
create index recon_match_writeoff_live on recon_match (level, id) where rule = 'writeoff' and undone_on is null;

create or replace view recon_match_live as
    select m.level, 'left'::text as side, m.left_id as record_id, true as first, m.id, m.left_id, m.right_id, m.status, m.rule,
           m.amount_variance, m.amount_variance as variance_share, m.date_lag_days, m.reason, m.run_id, m.created_by, m.created_on
    from recon_match m where m.undone_on is null and m.left_id is not null
    union all
    select m.level, 'right', m.right_id, true, m.id, m.left_id, m.right_id, m.status, m.rule,
           m.amount_variance, m.amount_variance, m.date_lag_days, m.reason, m.run_id, m.created_by, m.created_on
    from recon_match m where m.undone_on is null and m.right_id is not null
    union all
    select mm.level, mm.side, mm.record_id, false, m.id, m.left_id, m.right_id, m.status, m.rule,
           m.amount_variance, 0::numeric(20, 2), m.date_lag_days, m.reason, m.run_id, m.created_by, m.created_on
    from recon_match_member mm join recon_match m on m.id = mm.match_id
    where mm.live and m.undone_on is null;

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION public.recon_match_ids(p_match bigint, p_side text)
 RETURNS bigint[]
 LANGUAGE sql
 STABLE
AS $function$
    select array_remove(array[case when p_side = 'left' then m.left_id else m.right_id end], null)
           || array(select mm.record_id from recon_match_member mm where mm.match_id = m.id and mm.side = p_side order by mm.record_id)
    from recon_match m where m.id = p_match
$function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION public.recon_ticket_day_group_facts(heads text, members text, with_heads boolean)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE
AS $function$
    select format($q$
        select t.trans_date, t.currency, coalesce(t.payment_type, ''), coalesce(t.country_code, ''),
               coalesce(lower(x.provider_actor), ''), m.fact_status, m.fact_variance, t.sale_amount
        from (
            select m.level, m.left_id as record_id, m.right_id, m.status as fact_status, m.amount_variance as fact_variance, m.undone_on, m.status
            from %1$s m where %3$L
            union all
            select m.level, mm.record_id, m.right_id,
                   case when m.status = 'matched' and coalesce(m.amount_variance, 0) = 0 then 'matched' else 'partial' end, 0, m.undone_on, m.status
            from %1$s m join %2$s mm on mm.match_id = m.id and mm.side = 'left') m
        join ticket t on t.id = m.record_id
        left join card_transaction x on x.id = m.right_id -- (none: written off)
        where m.level = 1 and m.undone_on is null and m.status <> 'investigation' $q$, heads, members, with_heads)
$function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION public.recon_transaction_day_group_facts(heads text, members text, with_heads boolean)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE
AS $function$
    select format($q$
        select x.processing_date, x.currency, x.provider_actor, s.settlement_currency, m.fact_status, m.fact_variance,
               x.transaction_amount, coalesce(s.gross_amount, s.settlement_net + coalesce(s.fees, 0)), s.fees, s.settlement_net, 1
        from (
            select m.level, m.left_id as record_id, m.right_id, m.status as fact_status, m.amount_variance as fact_variance, m.undone_on, m.status,
                   true as first
            from %1$s m where %3$L
            union all
            select m.level, mm.record_id, m.right_id,
                   case when m.status = 'matched' and coalesce(m.amount_variance, 0) = 0 then 'matched' else 'partial' end, 0, m.undone_on, m.status,
                   false
            from %1$s m join %2$s mm on mm.match_id = m.id and mm.side = 'left') m
        join card_transaction x on x.id = m.record_id and not x.is_manual_adjust
        left join settlement s0 on s0.id = m.right_id -- (none: written off, in its own currency)
        -- a further transaction names its group's settlement currency, not its sums
        cross join lateral (select coalesce(s0.settlement_currency, x.currency) as settlement_currency,
                                   case when m.first then s0.gross_amount end as gross_amount,
                                   case when m.first then s0.settlement_net end as settlement_net,
                                   case when m.first then s0.fees end as fees) s
        where m.level = 2 and m.undone_on is null and m.status <> 'investigation'
        union all
        select x.processing_date, x.currency, x.provider_actor, s0.settlement_currency, m.status, null,
               0, coalesce(s.gross_amount, s.settlement_net + coalesce(s.fees, 0)), s.fees, s.settlement_net, 0
        from %1$s m
        join %2$s mm on mm.match_id = m.id and mm.side = 'right'
        join card_transaction x on x.id = m.left_id and not x.is_manual_adjust
        join settlement s0 on s0.id = m.right_id
        join settlement s on s.id = mm.record_id
        where m.level = 2 and m.undone_on is null and m.status <> 'investigation' $q$, heads, members, with_heads)
$function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION public.recon_follow(source text, ids bigint[])
 RETURNS void
 LANGUAGE plpgsql
AS $function$
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
                              where m.level = $1 and m.undone_on is null and m.rule <> 'writeoff'
                                and exists (select 1 from recon_match_member x where x.match_id = m.id)
                                and (m.%1$I in (select unnest($2)) or mm.record_id in (select unnest($2)))) g
                        cross join lateral recon_group_eval(g.level, recon_match_ids(g.id, 'left'), recon_match_ids(g.id, 'right')) e) x
                    where m.id = x.id
                      and (m.amount_variance, m.date_lag_days, m.status) is distinct from (x.variance, x.lag, x.status) $q$,
                    side || '_id') using l.number, ids, side;
            end if;
            -- write-offs: changed once their records no longer sum to the
            -- amount written off (left minus right: what a side wrote off)
            if exists (select 1 from recon_match where rule = 'writeoff' and undone_on is null) then
                execute format($q$
                    update recon_match m set status = x.status
                    from (
                        select w.id, case when (select sum(s.amount) from %2$I s where s.id = any (recon_match_ids(w.id, $3)))
                                               is not distinct from case when $3 = 'left' then w.amount_variance else -w.amount_variance end
                                          then 'matched' else 'changed' end as status
                        from (select distinct m.id, m.amount_variance from recon_match m
                              left join recon_match_member mm on mm.match_id = m.id and mm.side = $3 and mm.live
                              where m.level = $1 and m.undone_on is null and m.rule = 'writeoff'
                                and (m.%1$I in (select unnest($2)) or mm.record_id in (select unnest($2)))) w) x
                    where m.id = x.id and m.status <> x.status $q$,
                    side || '_id', source) using l.number, ids, side;
            end if;
        end loop;
    end loop;
end
$function$;
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
            from recon_match_live m left join card_transaction x on x.id = m.right_id
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

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION public.recon_ticket_lookup(p_from date, p_to date, p_currency text[], p_provider text[], p_ticket text)
 RETURNS TABLE(id bigint, ticket_date date, ticket_number text, currency text, payment_type text, country_code text, sales_amount numeric, transaction_date date, provider_actor text, transaction_amount numeric, variance_amount numeric, reconciliation_status text, reconciliation_status_number integer, match_id bigint)
 LANGUAGE sql
 STABLE
AS $function$
    select t.id, t.trans_date, t.ticket_number, t.currency, t.payment_type, t.country_code, t.sale_amount,
           x.processing_date, x.provider_actor, x.transaction_amount, m.amount_variance,
           case when m.status = 'changed' then 'Changed since matched'
                else (array['Matched', 'Partial', 'Investigation', 'Matched with difference', 'Unmatched'])[sn.n] end, sn.n, m.id
    from ticket t
    left join lateral (
        select m.id, m.status, m.rule, m.variance_share as amount_variance, m.amount_variance as group_variance, m.right_id
        from recon_match_live m where m.level = 1 and m.side = 'left' and m.record_id = t.id limit 1) m on true
    left join lateral (select x.processing_date, x.provider_actor, x.transaction_amount, x.id
        from card_transaction x where x.id = m.right_id limit 1) x on true
    cross join lateral (select case
            when m.id is null then 5
            when m.status = 'investigation' then 3
            when m.status = 'changed' then 2
            when m.rule in ('manual', 'forced', 'writeoff') and coalesce(m.group_variance, 0) <> 0 then 4
            when m.status = 'matched' then 1
            else 2 end as n) sn
    where (p_from is null or t.trans_date >= p_from) and (p_to is null or t.trans_date <= p_to)
      and (p_currency is null or t.currency = any (p_currency))
      and (p_ticket is null or t.ticket_number = p_ticket)
      and (p_provider is null or x.id is null or lower(x.provider_actor) in (select lower(v) from unnest(p_provider) v))
$function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION public.recon_transaction_settlement_report(p_from date, p_to date, p_currency text[], p_provider text[], p_ticket text)
 RETURNS TABLE(row_key text, trans_date date, trans_currency text, transaction_amount numeric, provider_actor text, settle_total_amount numeric, settlement_currency text, total_fees numeric, amount_after_fees numeric, settlement_amount numeric, variance numeric, exchange_currency_amount numeric, exchange_cost numeric, recon_status text)
 LANGUAGE sql
 STABLE
AS $function$
    with sums as (
        select d.processing_date, d.currency, d.provider_actor, sum(d.amount) as amount, sum(d.transactions)::bigint as n,
               sum(d.matched)::bigint as matched, case when sum(d.gross_n) > 0 then sum(d.gross) end as gross,
               string_agg(distinct d.settlement_currency, ', ') as settlement_currency,
               case when sum(d.fees_n) > 0 then sum(d.fees) end as fees, case when sum(d.gross_n) > 0 then sum(d.net) end as net,
               case when sum(d.matched) > 0 then sum(d.settled) end as settled,
               case when sum(d.fx_n) > 0 then sum(d.fx_amount) end as fx_amount,
               case when sum(d.fx_cost_n) > 0 then sum(d.fx_cost) end as fx_cost,
               sum(d.exact) = sum(d.transactions) as all_exact
        from recon_transaction_day d
        where p_ticket is null and d.processing_date between p_from and p_to
          and (p_currency is null or d.currency = any (p_currency))
          and (p_provider is null or lower(d.provider_actor) in (select lower(v) from unnest(p_provider) v))
        group by d.processing_date, d.currency, d.provider_actor
    ), x as (
        select x.processing_date, x.currency, x.provider_actor, x.transaction_amount,
               m.id as match_id, m.status, m.amount_variance, m.group_variance,
               m.settlement_currency, m.gross, m.fees, m.settlement_net
        from card_transaction x
        left join lateral (
            select m.id, m.status, m.variance_share as amount_variance, m.amount_variance as group_variance,
                   coalesce(s0.settlement_currency, x.currency) as settlement_currency, s.gross, s.fees, s.settlement_net
            from recon_match_live m left join settlement s0 on s0.id = m.right_id -- (none: written off)
            -- a group's settlements count once, with its first transaction
            left join lateral (
                select sum(coalesce(s.gross_amount, s.settlement_net + coalesce(s.fees, 0))) as gross, sum(s.fees) as fees,
                       sum(s.settlement_net) as settlement_net
                from settlement s where m.first and s.id = any (recon_match_ids(m.id, 'right'))) s on true
            where m.level = 2 and m.side = 'left' and m.record_id = x.id and m.status <> 'investigation'
            limit 1) m on true
        where not x.is_manual_adjust and x.client_unique_id = p_ticket
          and x.processing_date between p_from and p_to
          and (p_currency is null or x.currency = any (p_currency))
          and (p_provider is null or lower(x.provider_actor) in (select lower(v) from unnest(p_provider) v))
    ), one as (
        select processing_date, currency, provider_actor, sum(transaction_amount) as amount, count(*) as n, count(match_id) as matched,
               sum(gross) as gross, string_agg(distinct settlement_currency, ', ') as settlement_currency,
               sum(fees) as fees, sum(settlement_net) as net,
               sum(transaction_amount - coalesce(amount_variance, 0)) filter (where match_id is not null) as settled,
               sum(transaction_amount) filter (where settlement_currency <> currency) as fx_amount,
               sum(amount_variance) filter (where settlement_currency <> currency) as fx_cost,
               bool_and(match_id is not null and status = 'matched' and coalesce(group_variance, 0) = 0) as all_exact
        from x
        group by processing_date, currency, provider_actor
    ), g as (
        select * from sums union all select * from one
    )
    select concat_ws('|', processing_date, currency, provider_actor), processing_date, currency, amount, provider_actor,
           gross, settlement_currency, fees, net, settled,
           case when matched = 0 then null when all_exact then 0 else amount - settled end,
           fx_amount, fx_cost,
           case when matched = 0 then 'Unmatched' when all_exact then 'Matched' else 'Partial' end
    from g
$function$;
-- +goose StatementEnd

-- +goose Down
update recon_match set undone_on = now(), undone_by = 'system', undo_reason = 'Write-offs were taken back.'
where undone_on is null and rule = 'writeoff';
delete from recon_match_member mm using recon_match m where m.id = mm.match_id and m.rule = 'writeoff';
delete from recon_match where rule = 'writeoff';
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION public.recon_transaction_settlement_report(p_from date, p_to date, p_currency text[], p_provider text[], p_ticket text)
 RETURNS TABLE(row_key text, trans_date date, trans_currency text, transaction_amount numeric, provider_actor text, settle_total_amount numeric, settlement_currency text, total_fees numeric, amount_after_fees numeric, settlement_amount numeric, variance numeric, exchange_currency_amount numeric, exchange_cost numeric, recon_status text)
 LANGUAGE sql
 STABLE
AS $function$
    with sums as (
        select d.processing_date, d.currency, d.provider_actor, sum(d.amount) as amount, sum(d.transactions)::bigint as n,
               sum(d.matched)::bigint as matched, case when sum(d.gross_n) > 0 then sum(d.gross) end as gross,
               string_agg(distinct d.settlement_currency, ', ') as settlement_currency,
               case when sum(d.fees_n) > 0 then sum(d.fees) end as fees, case when sum(d.gross_n) > 0 then sum(d.net) end as net,
               case when sum(d.matched) > 0 then sum(d.settled) end as settled,
               case when sum(d.fx_n) > 0 then sum(d.fx_amount) end as fx_amount,
               case when sum(d.fx_cost_n) > 0 then sum(d.fx_cost) end as fx_cost,
               sum(d.exact) = sum(d.transactions) as all_exact
        from recon_transaction_day d
        where p_ticket is null and d.processing_date between p_from and p_to
          and (p_currency is null or d.currency = any (p_currency))
          and (p_provider is null or lower(d.provider_actor) in (select lower(v) from unnest(p_provider) v))
        group by d.processing_date, d.currency, d.provider_actor
    ), x as (
        select x.processing_date, x.currency, x.provider_actor, x.transaction_amount,
               m.id as match_id, m.status, m.amount_variance, m.group_variance,
               m.settlement_currency, m.gross, m.fees, m.settlement_net
        from card_transaction x
        left join lateral (
            select m.id, m.status, m.variance_share as amount_variance, m.amount_variance as group_variance, s0.settlement_currency,
                   s.gross, s.fees, s.settlement_net
            from recon_match_live m join settlement s0 on s0.id = m.right_id
            -- a group's settlements count once, with its first transaction
            left join lateral (
                select sum(coalesce(s.gross_amount, s.settlement_net + coalesce(s.fees, 0))) as gross, sum(s.fees) as fees,
                       sum(s.settlement_net) as settlement_net
                from settlement s where m.first and s.id = any (recon_match_ids(m.id, 'right'))) s on true
            where m.level = 2 and m.side = 'left' and m.record_id = x.id and m.status <> 'investigation'
            limit 1) m on true
        where not x.is_manual_adjust and x.client_unique_id = p_ticket
          and x.processing_date between p_from and p_to
          and (p_currency is null or x.currency = any (p_currency))
          and (p_provider is null or lower(x.provider_actor) in (select lower(v) from unnest(p_provider) v))
    ), one as (
        select processing_date, currency, provider_actor, sum(transaction_amount) as amount, count(*) as n, count(match_id) as matched,
               sum(gross) as gross, string_agg(distinct settlement_currency, ', ') as settlement_currency,
               sum(fees) as fees, sum(settlement_net) as net,
               sum(transaction_amount - coalesce(amount_variance, 0)) filter (where match_id is not null) as settled,
               sum(transaction_amount) filter (where settlement_currency <> currency) as fx_amount,
               sum(amount_variance) filter (where settlement_currency <> currency) as fx_cost,
               bool_and(match_id is not null and status = 'matched' and coalesce(group_variance, 0) = 0) as all_exact
        from x
        group by processing_date, currency, provider_actor
    ), g as (
        select * from sums union all select * from one
    )
    select concat_ws('|', processing_date, currency, provider_actor), processing_date, currency, amount, provider_actor,
           gross, settlement_currency, fees, net, settled,
           case when matched = 0 then null when all_exact then 0 else amount - settled end,
           fx_amount, fx_cost,
           case when matched = 0 then 'Unmatched' when all_exact then 'Matched' else 'Partial' end
    from g
$function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION public.recon_ticket_lookup(p_from date, p_to date, p_currency text[], p_provider text[], p_ticket text)
 RETURNS TABLE(id bigint, ticket_date date, ticket_number text, currency text, payment_type text, country_code text, sales_amount numeric, transaction_date date, provider_actor text, transaction_amount numeric, variance_amount numeric, reconciliation_status text, reconciliation_status_number integer, match_id bigint)
 LANGUAGE sql
 STABLE
AS $function$
    select t.id, t.trans_date, t.ticket_number, t.currency, t.payment_type, t.country_code, t.sale_amount,
           x.processing_date, x.provider_actor, x.transaction_amount, m.amount_variance,
           case when m.status = 'changed' then 'Changed since matched'
                else (array['Matched', 'Partial', 'Investigation', 'Matched with difference', 'Unmatched'])[sn.n] end, sn.n, m.id
    from ticket t
    left join lateral (
        select m.id, m.status, m.rule, m.variance_share as amount_variance, m.amount_variance as group_variance, m.right_id
        from recon_match_live m where m.level = 1 and m.side = 'left' and m.record_id = t.id limit 1) m on true
    left join lateral (select x.processing_date, x.provider_actor, x.transaction_amount, x.id
        from card_transaction x where x.id = m.right_id limit 1) x on true
    cross join lateral (select case
            when m.id is null then 5
            when m.status = 'investigation' then 3
            when m.status = 'changed' then 2
            when m.rule in ('manual', 'forced') and coalesce(m.group_variance, 0) <> 0 then 4
            when m.status = 'matched' then 1
            else 2 end as n) sn
    where (p_from is null or t.trans_date >= p_from) and (p_to is null or t.trans_date <= p_to)
      and (p_currency is null or t.currency = any (p_currency))
      and (p_ticket is null or t.ticket_number = p_ticket)
      and (p_provider is null or x.id is null or lower(x.provider_actor) in (select lower(v) from unnest(p_provider) v))
$function$;
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

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION public.recon_follow(source text, ids bigint[])
 RETURNS void
 LANGUAGE plpgsql
AS $function$
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
$function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION public.recon_transaction_day_group_facts(heads text, members text, with_heads boolean)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE
AS $function$
    select format($q$
        select x.processing_date, x.currency, x.provider_actor, s.settlement_currency, m.fact_status, m.fact_variance,
               x.transaction_amount, coalesce(s.gross_amount, s.settlement_net + coalesce(s.fees, 0)), s.fees, s.settlement_net, 1
        from (
            select m.level, m.left_id as record_id, m.right_id, m.status as fact_status, m.amount_variance as fact_variance, m.undone_on, m.status,
                   true as first
            from %1$s m where %3$L
            union all
            select m.level, mm.record_id, m.right_id,
                   case when m.status = 'matched' and coalesce(m.amount_variance, 0) = 0 then 'matched' else 'partial' end, 0, m.undone_on, m.status,
                   false
            from %1$s m join %2$s mm on mm.match_id = m.id and mm.side = 'left') m
        join card_transaction x on x.id = m.record_id and not x.is_manual_adjust
        join settlement s0 on s0.id = m.right_id
        -- a further transaction names its group's settlement currency, not its sums
        cross join lateral (select s0.settlement_currency,
                                   case when m.first then s0.gross_amount end as gross_amount,
                                   case when m.first then s0.settlement_net end as settlement_net,
                                   case when m.first then s0.fees end as fees) s
        where m.level = 2 and m.undone_on is null and m.status <> 'investigation'
        union all
        select x.processing_date, x.currency, x.provider_actor, s0.settlement_currency, m.status, null,
               0, coalesce(s.gross_amount, s.settlement_net + coalesce(s.fees, 0)), s.fees, s.settlement_net, 0
        from %1$s m
        join %2$s mm on mm.match_id = m.id and mm.side = 'right'
        join card_transaction x on x.id = m.left_id and not x.is_manual_adjust
        join settlement s0 on s0.id = m.right_id
        join settlement s on s.id = mm.record_id
        where m.level = 2 and m.undone_on is null and m.status <> 'investigation' $q$, heads, members, with_heads)
$function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION public.recon_ticket_day_group_facts(heads text, members text, with_heads boolean)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE
AS $function$
    select format($q$
        select t.trans_date, t.currency, coalesce(t.payment_type, ''), coalesce(t.country_code, ''),
               coalesce(lower(x.provider_actor), ''), m.fact_status, m.fact_variance, t.sale_amount
        from (
            select m.level, m.left_id as record_id, m.right_id, m.status as fact_status, m.amount_variance as fact_variance, m.undone_on, m.status
            from %1$s m where %3$L
            union all
            select m.level, mm.record_id, m.right_id,
                   case when m.status = 'matched' and coalesce(m.amount_variance, 0) = 0 then 'matched' else 'partial' end, 0, m.undone_on, m.status
            from %1$s m join %2$s mm on mm.match_id = m.id and mm.side = 'left') m
        join ticket t on t.id = m.record_id
        join card_transaction x on x.id = m.right_id
        where m.level = 1 and m.undone_on is null and m.status <> 'investigation' $q$, heads, members, with_heads)
$function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION public.recon_match_ids(p_match bigint, p_side text)
 RETURNS bigint[]
 LANGUAGE sql
 STABLE
AS $function$
    select case when p_side = 'left' then m.left_id else m.right_id end
           || array(select mm.record_id from recon_match_member mm where mm.match_id = m.id and mm.side = p_side order by mm.record_id)
    from recon_match m where m.id = p_match
$function$;
-- +goose StatementEnd

create or replace view recon_match_live as
    select m.level, 'left'::text as side, m.left_id as record_id, true as first, m.id, m.left_id, m.right_id, m.status, m.rule,
           m.amount_variance, m.amount_variance as variance_share, m.date_lag_days, m.reason, m.run_id, m.created_by, m.created_on
    from recon_match m where m.undone_on is null
    union all
    select m.level, 'right', m.right_id, true, m.id, m.left_id, m.right_id, m.status, m.rule,
           m.amount_variance, m.amount_variance, m.date_lag_days, m.reason, m.run_id, m.created_by, m.created_on
    from recon_match m where m.undone_on is null
    union all
    select mm.level, mm.side, mm.record_id, false, m.id, m.left_id, m.right_id, m.status, m.rule,
           m.amount_variance, 0::numeric(20, 2), m.date_lag_days, m.reason, m.run_id, m.created_by, m.created_on
    from recon_match_member mm join recon_match m on m.id = mm.match_id
    where mm.live and m.undone_on is null;

drop index recon_match_writeoff_live;
alter table role drop column writeoff_limit;
alter table recon_match drop constraint recon_match_sides;
alter table recon_match alter column left_id set not null, alter column right_id set not null;
