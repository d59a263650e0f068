-- +goose Up
-- An automatic run adds the day sums of its matches itself (00016 kept them
-- by the match trigger, which joined a million new matches back to their
-- tickets and transactions: a third of a run). The run's candidates already
-- carry every column a sum needs, so the run adds them from there and tells
-- the trigger, for its one big insert, that it has (the setting
-- ledgerdesk.recon_day_applied, local to the transaction).
--
-- The moves of 00016 are split in two, so a run and the trigger share one
-- definition of what a match adds:
--   recon_*_day_facts(rel)        per live match of rel: its record's group,
--                                 status, variance and amounts (a query);
--   recon_*_day_moves_of(facts)   those facts as moves between the sums.

-- +goose StatementBegin
create function recon_ticket_day_facts(rel text) returns text language sql immutable as $f$
    select format($q$
        select t.trans_date, t.currency, coalesce(t.payment_type, ''), coalesce(t.country_code, ''),
               coalesce(lower(x.provider_actor), ''), m.status, m.amount_variance, t.sale_amount
        from %s m
        join ticket t on t.id = m.left_id
        join card_transaction x on x.id = m.right_id
        where m.level = 1 and m.undone_on is null and m.status <> 'investigation' $q$, rel)
$f$;

-- The moves of matched tickets, from their facts (a query of trans_date,
-- currency, payment_type, country_code, provider_key, status,
-- amount_variance, sale_amount): each leaves the unmatched row of its group
-- for the matched one; sign -1 moves back. Summed per group first: a run
-- moves a million tickets into a few thousand groups.
create function recon_ticket_day_moves_of(facts text, sign int) returns text language sql immutable as $f$
    select format($q$
        select g.trans_date, g.currency, g.payment_type, g.country_code, v.provider_key,
               %1$s * v.tickets, %1$s * v.matched, %1$s * v.exact, %1$s * v.sra, %1$s * v.ppa
        from (
            select f.trans_date, f.currency, f.payment_type, f.country_code, f.provider_key, count(*) as n,
                   count(*) filter (where f.status = 'matched' and coalesce(f.amount_variance, 0) = 0) as exact,
                   sum(f.sale_amount) as sra, sum(f.sale_amount - coalesce(f.amount_variance, 0)) as ppa
            from (%2$s) f (trans_date, currency, payment_type, country_code, provider_key, status, amount_variance, sale_amount)
            group by 1, 2, 3, 4, 5) g
        cross join lateral (values
            (null::text, -g.n, 0::bigint, 0::bigint, -g.sra, 0::numeric),
            (g.provider_key, g.n, g.n, g.exact, g.sra, g.ppa)) v(provider_key, tickets, matched, exact, sra, ppa) $q$, sign, facts)
$f$;

create or replace function recon_ticket_day_moves(rel text, sign int) returns text language sql immutable as $f$
    select recon_ticket_day_moves_of(recon_ticket_day_facts(rel), sign)
$f$;

create function recon_transaction_day_facts(rel text) returns text language sql immutable as $f$
    select format($q$
        select x.processing_date, x.currency, x.provider_actor, s.settlement_currency, m.status, m.amount_variance,
               x.transaction_amount, coalesce(s.gross_amount, s.settlement_net + coalesce(s.fees, 0)), s.fees, s.settlement_net
        from %s m
        join card_transaction x on x.id = m.left_id and not x.is_manual_adjust
        join settlement s on s.id = m.right_id
        where m.level = 2 and m.undone_on is null and m.status <> 'investigation' $q$, rel)
$f$;

-- The moves of matched transactions, from their facts (a query of
-- processing_date, currency, provider_actor, settlement_currency, status,
-- amount_variance, transaction_amount, gross, fees, settlement_net).
create function recon_transaction_day_moves_of(facts text, sign int) returns text language sql immutable as $f$
    select format($q$
        select g.processing_date, g.currency, g.provider_actor, v.settlement_currency,
               %1$s * v.transactions, %1$s * v.amount, %1$s * v.matched, %1$s * v.exact, %1$s * v.gross, %1$s * v.gross_n,
               %1$s * v.fees, %1$s * v.fees_n, %1$s * v.net, %1$s * v.settled, %1$s * v.fx_amount, %1$s * v.fx_cost,
               %1$s * v.fx_n, %1$s * v.fx_cost_n
        from (
            select f.processing_date, f.currency, f.provider_actor, f.settlement_currency, count(*) as n, sum(f.transaction_amount) as amount,
                   count(*) filter (where f.status = 'matched' and coalesce(f.amount_variance, 0) = 0) as exact,
                   coalesce(sum(f.gross), 0) as gross, count(f.gross) as gross_n,
                   coalesce(sum(f.fees), 0) as fees, count(f.fees) as fees_n, sum(f.settlement_net) as net,
                   sum(f.transaction_amount - coalesce(f.amount_variance, 0)) as settled,
                   case when f.settlement_currency <> f.currency then sum(f.transaction_amount) else 0 end as fx_amount,
                   case when f.settlement_currency <> f.currency then coalesce(sum(f.amount_variance), 0) else 0 end as fx_cost,
                   case when f.settlement_currency <> f.currency then count(*) else 0 end as fx_n,
                   case when f.settlement_currency <> f.currency then count(f.amount_variance) else 0 end as fx_cost_n
            from (%2$s) f (processing_date, currency, provider_actor, settlement_currency, status, amount_variance,
                           transaction_amount, gross, fees, settlement_net)
            group by 1, 2, 3, 4) g
        cross join lateral (values
            (null::text, -g.n, -g.amount, 0::bigint, 0::bigint, 0::numeric, 0::bigint, 0::numeric, 0::bigint, 0::numeric,
             0::numeric, 0::numeric, 0::numeric, 0::bigint, 0::bigint),
            (g.settlement_currency, g.n, g.amount, g.n, g.exact, g.gross, g.gross_n, g.fees, g.fees_n, g.net,
             g.settled, g.fx_amount, g.fx_cost, g.fx_n, g.fx_cost_n))
            v(settlement_currency, transactions, amount, matched, exact, gross, gross_n, fees, fees_n, net, settled, fx_amount, fx_cost, fx_n, fx_cost_n) $q$, sign, facts)
$f$;

create or replace function recon_transaction_day_moves(rel text, sign int) returns text language sql immutable as $f$
    select recon_transaction_day_moves_of(recon_transaction_day_facts(rel), sign)
$f$;

-- An automatic run's matches of a level, given as their facts (see above),
-- added to the sums. The run inserts them with ledgerdesk.recon_day_applied
-- on, so the match trigger leaves them to this.
create function recon_day_apply_facts(level int, facts text) returns void language plpgsql as $f$
begin
    if level = 1 then
        perform recon_day_lock(true, false);
        execute recon_ticket_day_add(recon_ticket_day_moves_of(facts, 1));
        delete from recon_ticket_day where tickets = 0;
    elsif level = 2 then
        perform recon_day_lock(false, true);
        execute recon_transaction_day_add(recon_transaction_day_moves_of(facts, 1));
        delete from recon_transaction_day where transactions = 0;
    end if;
end
$f$;

-- +goose StatementEnd

-- recon_match: as in 00016, but an automatic run's own insert (made with
-- ledgerdesk.recon_day_applied on) is left to the run.
drop trigger recon_day_match_insert on recon_match;
create trigger recon_day_match_insert after insert on recon_match
    referencing new table as new_rows for each statement
    when (coalesce(current_setting('ledgerdesk.recon_day_applied', true), '') <> 'on')
    execute function recon_day_match_apply();

-- +goose Down
drop trigger recon_day_match_insert on recon_match;
create trigger recon_day_match_insert after insert on recon_match
    referencing new table as new_rows for each statement execute function recon_day_match_apply();

-- +goose StatementBegin
create or replace function recon_ticket_day_moves(rel text, sign int) returns text language sql immutable as $f$
    select format($q$
        select g.trans_date, g.currency, g.payment_type, g.country_code, v.provider_key,
               %1$s * v.tickets, %1$s * v.matched, %1$s * v.exact, %1$s * v.sra, %1$s * v.ppa
        from (
            select t.trans_date, t.currency, coalesce(t.payment_type, '') as payment_type, coalesce(t.country_code, '') as country_code,
                   coalesce(lower(x.provider_actor), '') as provider_key, count(*) as n,
                   count(*) filter (where m.status = 'matched' and coalesce(m.amount_variance, 0) = 0) as exact,
                   sum(t.sale_amount) as sra, sum(t.sale_amount - coalesce(m.amount_variance, 0)) as ppa
            from %2$s m
            join ticket t on t.id = m.left_id
            join card_transaction x on x.id = m.right_id
            where m.level = 1 and m.undone_on is null and m.status <> 'investigation'
            group by 1, 2, 3, 4, 5) g
        cross join lateral (values
            (null::text, -g.n, 0::bigint, 0::bigint, -g.sra, 0::numeric),
            (g.provider_key, g.n, g.n, g.exact, g.sra, g.ppa)) v(provider_key, tickets, matched, exact, sra, ppa) $q$, sign, rel)
$f$;

create or replace function recon_transaction_day_moves(rel text, sign int) returns text language sql immutable as $f$
    select format($q$
        select g.processing_date, g.currency, g.provider_actor, v.settlement_currency,
               %1$s * v.transactions, %1$s * v.amount, %1$s * v.matched, %1$s * v.exact, %1$s * v.gross, %1$s * v.gross_n,
               %1$s * v.fees, %1$s * v.fees_n, %1$s * v.net, %1$s * v.settled, %1$s * v.fx_amount, %1$s * v.fx_cost,
               %1$s * v.fx_n, %1$s * v.fx_cost_n
        from (
            select x.processing_date, x.currency, x.provider_actor, s.settlement_currency, count(*) as n, sum(x.transaction_amount) as amount,
                   count(*) filter (where m.status = 'matched' and coalesce(m.amount_variance, 0) = 0) as exact,
                   coalesce(sum(coalesce(s.gross_amount, s.settlement_net + coalesce(s.fees, 0))), 0) as gross,
                   count(coalesce(s.gross_amount, s.settlement_net + coalesce(s.fees, 0))) as gross_n,
                   coalesce(sum(s.fees), 0) as fees, count(s.fees) as fees_n, sum(s.settlement_net) as net,
                   sum(x.transaction_amount - coalesce(m.amount_variance, 0)) as settled,
                   case when s.settlement_currency <> x.currency then sum(x.transaction_amount) else 0 end as fx_amount,
                   case when s.settlement_currency <> x.currency then coalesce(sum(m.amount_variance), 0) else 0 end as fx_cost,
                   case when s.settlement_currency <> x.currency then count(*) else 0 end as fx_n,
                   case when s.settlement_currency <> x.currency then count(m.amount_variance) else 0 end as fx_cost_n
            from %2$s m
            join card_transaction x on x.id = m.left_id and not x.is_manual_adjust
            join settlement s on s.id = m.right_id
            where m.level = 2 and m.undone_on is null and m.status <> 'investigation'
            group by 1, 2, 3, 4) g
        cross join lateral (values
            (null::text, -g.n, -g.amount, 0::bigint, 0::bigint, 0::numeric, 0::bigint, 0::numeric, 0::bigint, 0::numeric,
             0::numeric, 0::numeric, 0::numeric, 0::bigint, 0::bigint),
            (g.settlement_currency, g.n, g.amount, g.n, g.exact, g.gross, g.gross_n, g.fees, g.fees_n, g.net,
             g.settled, g.fx_amount, g.fx_cost, g.fx_n, g.fx_cost_n))
            v(settlement_currency, transactions, amount, matched, exact, gross, gross_n, fees, fees_n, net, settled, fx_amount, fx_cost, fx_n, fx_cost_n) $q$, sign, rel)
$f$;


drop function recon_day_apply_facts(int, text);
drop function recon_transaction_day_moves_of(text, int);
drop function recon_transaction_day_facts(text);
drop function recon_ticket_day_moves_of(text, int);
drop function recon_ticket_day_facts(text);
-- +goose StatementEnd
