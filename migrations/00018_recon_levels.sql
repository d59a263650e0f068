-- +goose Up
-- One definition of each reconciliation level (recon.yaml, DESIGN.md
-- section 6). This migration gives the definition what it stands on:
--   - a canonical source per kind of record (recon_side_*): id, ref,
--     amount, currency, date, provider_key, provider and what dialogs
--     show; each compared amount is written here once;
--   - recon_pair_eval: the one pair evaluation (inside each tolerance or
--     not, and by how much) that automatic runs, manual matches, "why" and
--     the re-evaluation of live matches all use;
--   - recon_level: the levels as recon.yaml declares them (written by the
--     server at start), so the triggers below can follow them;
--   - payouts kept by the settlements' writes (never refreshed on read);
--   - live matches that follow every change of their records, in the
--     writing transaction: variance and status evaluated again (status
--     'changed' when the pair no longer holds within tolerance), or the
--     match ended by the system when a record goes;
--   - the level-3 report a row per payout in the period of its latest
--     settlement date; an adjustment counting once, toward its ticket.

-- A match re-evaluated outside its tolerances is 'changed' (since it was
-- made); a forced match has rule 'forced'. A level is any declared number.
alter table recon_match drop constraint recon_match_status_check;
alter table recon_match add constraint recon_match_status_check check (status in ('matched', 'partial', 'investigation', 'changed'));
alter table recon_match drop constraint recon_match_rule_check;
alter table recon_match add constraint recon_match_rule_check
    check (rule in ('exact', 'date', 'amount', 'fx', 'manual', 'investigation', 'forced'));
alter table recon_match drop constraint recon_match_level_check;
alter table recon_match add constraint recon_match_level_check check (level between 1 and 99);
alter table recon_run drop constraint recon_run_level_check;
alter table recon_run add constraint recon_run_level_check check (level between 1 and 99);

-- A failed run keeps a message code and its parameters (shown in the
-- reader's language), never driver text.
alter table recon_run add column error_code text, add column error_params jsonb;

-- A manual adjustment is made for one ticket (spec 03 section 3.5: the
-- payload names ticketId); before, it was linked by ticket number only, so
-- a sale and its refund sharing a number both counted it.
alter table card_transaction add column adjusted_ticket_id bigint;
update card_transaction a set adjusted_ticket_id = (
    select min(tt.ticket_id) from task_ticket tt join ticket k on k.id = tt.ticket_id
    where tt.task_id = a.task_id and k.ticket_number = a.client_unique_id)
where a.is_manual_adjust;
update card_transaction a set adjusted_ticket_id = (select min(k.id) from ticket k where k.ticket_number = a.client_unique_id)
where a.is_manual_adjust and a.adjusted_ticket_id is null;
-- The few live matches changed since they were made, for the reports.
create index recon_match_changed_idx on recon_match (level, left_id) where status = 'changed' and undone_on is null;
create index card_transaction_adjusted_ticket_idx on card_transaction (adjusted_ticket_id) where adjusted_ticket_id is not null;
alter table card_transaction add constraint card_transaction_adjusted_ticket check (not is_manual_adjust or adjusted_ticket_id is not null) not valid;

-- The levels as recon.yaml declares them: the server writes this table at
-- start; the triggers read it to know which levels a record takes part in.
create table recon_level (
    number          smallint primary key check (number between 1 and 99),
    slug            text not null unique,
    left_source     text not null,
    right_source    text not null,
    tolerance_side  text not null check (tolerance_side in ('left', 'right')),
    tolerance_type  smallint not null
);
insert into recon_level values
    (1, 'ticket-transaction', 'recon_side_ticket', 'recon_side_transaction', 'right', 1),
    (2, 'transaction-settlement', 'recon_side_transaction', 'recon_side_settlement', 'right', 2),
    (3, 'settlement-bank', 'recon_side_payout', 'recon_side_bank', 'left', 3);

-- The canonical sources.
create view recon_side_ticket as
    select t.id, t.ticket_number as ref, t.sale_amount as amount, t.currency, t.trans_date as date,
           null::text as provider_key, null::text as provider, true as counted,
           t.payment_type, t.country_code, t.transaction_code
    from ticket t;

-- (a task's manual adjustment is not a record reconciliation pairs)
create view recon_side_transaction as
    select x.id, x.client_unique_id as ref, x.transaction_amount as amount, x.currency, x.processing_date as date,
           lower(x.provider_actor) as provider_key, x.provider_actor as provider, true as counted,
           x.acquiring_bank, x.payment_method, x.transaction_type
    from card_transaction x
    where not x.is_manual_adjust;

-- A settlement compares its gross (net + fees when the file has no gross).
create view recon_side_settlement as
    select s.id, s.client_unique_id as ref, coalesce(s.gross_amount, s.settlement_net + coalesce(s.fees, 0)) as amount,
           s.settlement_currency as currency, s.settlement_date as date,
           lower(s.provider_actor) as provider_key, s.provider_actor as provider, true as counted,
           s.acquirer_bank, s.fees, s.settlement_net, s.payout_id
    from settlement s;

create view recon_side_payout as
    select p.id, p.payout_key as ref, p.total_net as amount, p.currency, p.latest_date as date,
           lower(p.provider_actor) as provider_key, p.provider_actor as provider, true as counted,
           p.settlement_count
    from payout p;

-- A processed booking compares its amount in local currency plus the
-- charges the bank took from it; its provider is the one set by hand, else
-- the one its recon mapping gave. Only bookings of providers that pay out
-- count as open when unmatched (not bank charges or transfers).
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

-- +goose StatementBegin
-- The one evaluation of a pair against the tolerances of its level and
-- provider (DESIGN.md section 6): amounts compared in the records'
-- currency, or through the USD rates of each record's date across
-- currencies; dates at most date_tol days apart. Gives the variance (left
-- minus right, in the left record's currency), the lag, the difference
-- pairs are ranked by (in USD across currencies), the difference in percent
-- across currencies, the rule and status an automatic match gets, whether
-- each tolerance holds, and by how much each missed. Inlined by the planner
-- where it is used (a SQL function in FROM, flattened into the query: a
-- subquery fence per pair cost 2.5 s a million pairs); the rates are looked
-- up only for pairs in two currencies (CASE), the few that are.
create function recon_pair_eval(l_amount numeric, r_amount numeric, l_cur text, r_cur text, l_date date, r_date date,
                                amount_tol numeric, date_tol integer, currency_tol numeric)
returns table (variance numeric, lag integer, rank_diff numeric, diff_pct numeric, rule text, status text,
               amount_ok boolean, date_ok boolean, currency_ok boolean, inside boolean, no_rate boolean,
               amount_missed numeric, date_missed integer, currency_missed numeric)
language sql stable as $$
    select v.variance, v.lag, v.rank_diff, v.diff_pct, v.rule,
           case when v.rule in ('exact', 'date') then 'matched' else 'partial' end,
           v.amount_ok, v.date_ok, v.currency_ok, v.amount_ok and v.date_ok and v.currency_ok, v.no_rate,
           case when not v.amount_ok then abs(v.diff) - coalesce(amount_tol, 0) end,
           case when not v.date_ok then v.lag - coalesce(date_tol, 0) end,
           case when v.diff_pct is not null and currency_tol is not null and v.diff_pct > currency_tol then v.diff_pct - currency_tol end
    from (
        select case when q.same then q.diff else round(l_amount - r_amount * q.r_rate / q.l_rate, 2) end as variance,
               q.lag, q.diff,
               case when q.same then abs(q.diff) else abs(l_amount * q.l_rate - r_amount * q.r_rate) end as rank_diff,
               case when not q.same and l_amount <> 0 then round(abs(l_amount * q.l_rate - r_amount * q.r_rate) * 100 / abs(l_amount * q.l_rate), 2) end as diff_pct,
               case when not q.same then 'fx' when q.diff <> 0 then 'amount' when q.lag = 0 then 'exact' else 'date' end as rule,
               not q.same or abs(q.diff) <= coalesce(amount_tol, 0) as amount_ok,
               q.lag <= coalesce(date_tol, 0) as date_ok,
               q.same or (currency_tol is not null and q.l_rate is not null and q.r_rate is not null and l_amount <> 0
                          and abs(l_amount * q.l_rate - r_amount * q.r_rate) * 100 <= currency_tol * abs(l_amount * q.l_rate)) as currency_ok,
               not q.same and (q.l_rate is null or q.r_rate is null) as no_rate
        from (
            select l_cur is not distinct from r_cur and l_cur is not null as same,
                   l_amount - r_amount as diff, abs(r_date - l_date) as lag,
                   case when l_cur is distinct from r_cur then usd_rate(l_cur, l_date) end as l_rate,
                   case when l_cur is distinct from r_cur then usd_rate(r_cur, r_date) end as r_rate
            ) q
    ) v
$$;
-- +goose StatementEnd

-- Payouts follow their settlements: every write of settlements brings the
-- payouts of the payout ids it touched up to date from the settlements'
-- day sums (recon_payout_day, kept by the trigger before this one), and a
-- payout whose settlements are all gone goes. Writers queue on one lock
-- (an upsert of many payouts in two orders could deadlock).
-- +goose StatementBegin
create function recon_payout_sync(keys text[]) returns void language plpgsql as $f$
begin
    perform pg_advisory_xact_lock(hashtext('recon.payout'));
    insert into payout as p (payout_key, provider_actor, currency, total_net, latest_date, settlement_count)
    select d.payout_id, min(d.provider_actor),
           case when count(distinct d.settlement_currency) = 1 then min(d.settlement_currency) end,
           sum(d.net), max(d.settlement_date), sum(d.settlements)
    from recon_payout_day d
    where keys is null or d.payout_id = any (keys)
    group by d.payout_id
    order by d.payout_id
    on conflict (payout_key) do update set
        provider_actor = excluded.provider_actor, currency = excluded.currency, total_net = excluded.total_net,
        latest_date = excluded.latest_date, settlement_count = excluded.settlement_count
    where (p.provider_actor, p.currency, p.total_net, p.latest_date, p.settlement_count) is distinct from
          (excluded.provider_actor, excluded.currency, excluded.total_net, excluded.latest_date, excluded.settlement_count);
    delete from payout p
    where (keys is null or p.payout_key = any (keys))
      and not exists (select 1 from recon_payout_day d where d.payout_id = p.payout_key);
end
$f$;

create function recon_payout_settlement_apply() returns trigger language plpgsql as $f$
declare
    keys text[];
begin
    if tg_op = 'TRUNCATE' then
        perform recon_payout_sync(null);
        return null;
    end if;
    if tg_op = 'INSERT' then
        select array_agg(distinct payout_id) into keys from new_rows;
    elsif tg_op = 'UPDATE' then
        select array_agg(distinct payout_id) into keys from (select payout_id from old_rows union select payout_id from new_rows) k;
    else
        select array_agg(distinct payout_id) into keys from old_rows;
    end if;
    if keys is not null then
        perform recon_payout_sync(keys);
    end if;
    return null;
end
$f$;
-- +goose StatementEnd

create trigger recon_payout_settlement_insert after insert on settlement
    referencing new table as new_rows for each statement execute function recon_payout_settlement_apply();
create trigger recon_payout_settlement_update after update on settlement
    referencing old table as old_rows new table as new_rows for each statement execute function recon_payout_settlement_apply();
create trigger recon_payout_settlement_delete after delete on settlement
    referencing old table as old_rows for each statement execute function recon_payout_settlement_apply();
create trigger recon_payout_settlement_truncate after truncate on settlement
    for each statement execute function recon_payout_settlement_apply();

select recon_payout_sync(null);

-- +goose StatementBegin
-- recon_follow brings the live matches of the records ids of a source
-- (recon_side_*) in line with them, at every level the source takes part
-- in: a record no longer in its source (deleted, or no longer a processed
-- booking) ends its match (undone by 'system'); otherwise, when the
-- variance or the lag changed, the pair is evaluated again: an
-- investigation stays one, a pair inside the tolerances is matched or
-- partial, one outside is 'changed'. The match's update moves the report
-- sums (the recon_match triggers). The ids are joined as a set (a
-- reprocess of every bank booking passes millions).
create function recon_follow(source text, ids bigint[]) returns void language plpgsql as $f$
declare
    l recon_level;
    side text;
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
            execute format($q$
                update recon_match m set amount_variance = x.variance, date_lag_days = x.lag,
                       status = case when m.status = 'investigation' then 'investigation' when x.inside then x.status else 'changed' end
                from (
                    select m.id, e.variance, e.lag, e.inside, e.status
                    from recon_match m
                    join %2$I l on l.id = m.left_id
                    join %3$I r on r.id = m.right_id
                    left join recon_tolerance tol on tol.level = $3 and tol.provider_key = %4$s.provider_key
                    cross join lateral recon_pair_eval(l.amount, r.amount, l.currency, r.currency, l.date, r.date,
                        tol.amount_threshold, tol.date_threshold, tol.currency_threshold) e
                    where m.level = $1 and m.%1$I in (select unnest($2)) and m.undone_on is null) x
                where m.id = x.id
                  and (m.amount_variance, m.date_lag_days) is distinct from (x.variance, x.lag) $q$,
                side || '_id', l.left_source, l.right_source, case when l.tolerance_side = 'left' then 'l' else 'r' end)
                using l.number, ids, l.tolerance_type;
        end loop;
    end loop;
end
$f$;

-- The trigger of a table whose rows a source reads: tg_argv[0] the source.
create function recon_follow_apply() returns trigger language plpgsql as $f$
declare
    ids bigint[];
begin
    if tg_op = 'UPDATE' then
        select array_agg(id) into ids from new_rows;
    else
        select array_agg(id) into ids from old_rows;
    end if;
    perform recon_follow(tg_argv[0], ids);
    return null;
end
$f$;
-- +goose StatementEnd

-- +goose StatementBegin
-- Before a statement changes the records of a source, it waits for the
-- levels the source takes part in (the lock an automatic run and a manual
-- match of the level hold, in level order), so the matches it follows are
-- committed ones, and it takes that lock before the day sums' locks, in the
-- order the run takes them (a ticket edited during a run of level 1 waits
-- for it instead of deadlocking with it).
create function recon_follow_lock() returns trigger language plpgsql as $f$
declare
    n int;
begin
    for n in select number from recon_level where left_source = tg_argv[0] or right_source = tg_argv[0] order by number loop
        perform pg_advisory_xact_lock(hashtext('recon.level'), n);
    end loop;
    return null;
end
$f$;
-- +goose StatementEnd

create trigger recon_follow_lock before update or delete on ticket
    for each statement execute function recon_follow_lock('recon_side_ticket');
create trigger recon_follow_lock before update or delete on card_transaction
    for each statement execute function recon_follow_lock('recon_side_transaction');
create trigger recon_follow_lock before update or delete on settlement
    for each statement execute function recon_follow_lock('recon_side_settlement');
create trigger recon_follow_lock before update or delete on payout
    for each statement execute function recon_follow_lock('recon_side_payout');
create trigger recon_follow_lock before update or delete on bank_booking
    for each statement execute function recon_follow_lock('recon_side_bank');

create trigger recon_follow_update after update on ticket
    referencing new table as new_rows for each statement execute function recon_follow_apply('recon_side_ticket');
create trigger recon_follow_delete after delete on ticket
    referencing old table as old_rows for each statement execute function recon_follow_apply('recon_side_ticket');
create trigger recon_follow_update after update on card_transaction
    referencing new table as new_rows for each statement execute function recon_follow_apply('recon_side_transaction');
create trigger recon_follow_delete after delete on card_transaction
    referencing old table as old_rows for each statement execute function recon_follow_apply('recon_side_transaction');
create trigger recon_follow_update after update on settlement
    referencing new table as new_rows for each statement execute function recon_follow_apply('recon_side_settlement');
create trigger recon_follow_delete after delete on settlement
    referencing old table as old_rows for each statement execute function recon_follow_apply('recon_side_settlement');
create trigger recon_follow_update after update on payout
    referencing new table as new_rows for each statement execute function recon_follow_apply('recon_side_payout');
create trigger recon_follow_delete after delete on payout
    referencing old table as old_rows for each statement execute function recon_follow_apply('recon_side_payout');
create trigger recon_follow_update after update on bank_booking
    referencing new table as new_rows for each statement execute function recon_follow_apply('recon_side_bank');
create trigger recon_follow_delete after delete on bank_booking
    referencing old table as old_rows for each statement execute function recon_follow_apply('recon_side_bank');

-- +goose StatementBegin
-- An automatic run's single pairs (temp table recon_cand, with the columns
-- recon.yaml's carry names) added to the report sums of its level; the run
-- inserts them with ledgerdesk.recon_day_applied on, so the match trigger
-- leaves them to this.
create function recon_day_apply_run(level int) returns void language plpgsql as $f$
begin
    if level = 1 then
        perform recon_day_apply_facts(1, $q$select l_date, l_cur, coalesce(payment_type, ''), coalesce(country_code, ''),
            coalesce(provider_key, ''), status, variance, l_amount from recon_cand$q$);
    elsif level = 2 then
        perform recon_day_apply_facts(2, $q$select l_date, l_cur, provider, r_cur, status, variance, l_amount, r_amount,
            fees, settlement_net from recon_cand$q$);
    end if;
end
$f$;

-- Settlements vs bank: a row per payout in the period of its latest
-- settlement date (DESIGN.md section 6), with the total of all its
-- settlements, and its booking. 1 matched, 2 partial (within tolerance but
-- not equal, or changed since matched), 3 unmatched.
create or replace function recon_settlement_bank_report(p_from date, p_to date, p_currency text[], p_provider text[])
returns table (payout_id text, settlement_date date, settlement_amount numeric, settlement_currency text, provider_actor text,
               booked_date date, bank_account text, reco_amount_in_local_currency numeric, charges numeric, currency text,
               amount_variance numeric, recon_status text, recon_status_number integer, bank_id bigint, match_id bigint)
language sql stable as $$
    select p.payout_key, p.latest_date, p.total_net, coalesce(p.currency, c.currencies), p.provider_actor,
           b.booked_date, b.bank_account, coalesce(b.reco_amount_in_local_currency, b.amount_local), b.bank_charges_in_local, b.currency,
           m.amount_variance, s.label, s.n, b.id, m.id
    from payout p
    -- a payout in several currencies names them all
    left join lateral (
        select string_agg(distinct d.settlement_currency, ', ') as currencies
        from recon_payout_day d where p.currency is null and d.payout_id = p.payout_key) c on true
    left join lateral (
        select m.id, m.status, m.amount_variance, m.right_id
        from recon_match m where m.level = 3 and m.left_id = p.id and m.undone_on is null limit 1) m on true
    left join lateral (select b.* from bank_booking b where b.id = m.right_id limit 1) b on true
    cross join lateral (select case
            when m.id is null then 3
            when m.status = 'matched' and coalesce(m.amount_variance, 0) = 0 then 1
            else 2 end as n) sn
    cross join lateral (select sn.n, (array['Matched', 'Partial', 'Unmatched'])[sn.n] as label) s
    where p.latest_date between p_from and p_to
      and (p_currency is null or p.currency = any (p_currency)
           or p.currency is null and exists (select 1 from recon_payout_day d where d.payout_id = p.payout_key
                                             and d.settlement_currency = any (p_currency)))
      and (p_provider is null or lower(p.provider_actor) in (select lower(v) from unnest(p_provider) v))
$$;

-- The ticket-only lookup: 'changed' shows as its own label (number 2, a
-- difference).
create or replace function recon_ticket_lookup(p_from date, p_to date, p_currency text[], p_provider text[], p_ticket text)
returns table (id bigint, ticket_date date, ticket_number text, currency text, payment_type text, country_code text,
               sales_amount numeric, transaction_date date, provider_actor text, transaction_amount numeric,
               variance_amount numeric, reconciliation_status text, reconciliation_status_number integer, match_id bigint)
language sql stable as $$
    select t.id, t.trans_date, t.ticket_number, t.currency, t.payment_type, t.country_code, t.sale_amount,
           x.processing_date, x.provider_actor, x.transaction_amount, m.amount_variance,
           case when m.status = 'changed' then 'Changed since matched'
                else (array['Matched', 'Partial', 'Investigation', 'Matched with difference', 'Unmatched'])[sn.n] end, sn.n, m.id
    from ticket t
    left join lateral (
        select m.id, m.status, m.rule, m.amount_variance, m.right_id from recon_match m
        where m.level = 1 and m.left_id = t.id and m.undone_on is null limit 1) m on true
    left join lateral (select x.processing_date, x.provider_actor, x.transaction_amount, x.id
        from card_transaction x where x.id = m.right_id limit 1) x on true
    cross join lateral (select case
            when m.id is null then 5
            when m.status = 'investigation' then 3
            when m.status = 'changed' then 2
            when m.rule in ('manual', 'forced') and coalesce(m.amount_variance, 0) <> 0 then 4
            when m.status = 'matched' then 1
            else 2 end as n) sn
    where (p_from is null or t.trans_date >= p_from) and (p_to is null or t.trans_date <= p_to)
      and (p_currency is null or t.currency = any (p_currency))
      and (p_ticket is null or t.ticket_number = p_ticket)
      and (p_provider is null or x.id is null or lower(x.provider_actor) in (select lower(v) from unnest(p_provider) v))
$$;

-- Tickets vs transactions: as in 00016, but an adjustment counts once,
-- toward the ticket it was made for (not every ticket of its number), and
-- a group holding a match changed since it was made is never Matched.
create or replace function recon_ticket_transaction_report(p_from date, p_to date, p_currency text[], p_provider text[], p_ticket text)
returns table (row_key text, ticket_date date, sales_currency text, payment_type text, country_code text,
               sra_ticket_count bigint, ppa_transaction_count bigint, sra_total_amount numeric, ppa_total_amount numeric,
               count_variance bigint, amount_variance numeric, reconciliation_status text, reconcile_status_number integer)
language sql stable as $$
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
               bool_and(m.id is not null and m.status = 'matched' and coalesce(m.amount_variance, 0) = 0) as all_exact
        from ticket t
        left join lateral (
            select m.id, m.status, m.amount_variance, x.provider_actor
            from recon_match m join card_transaction x on x.id = m.right_id
            where m.level = 1 and m.left_id = t.id and m.undone_on is null and m.status <> 'investigation'
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
            from recon_match m join card_transaction x on x.id = m.right_id
            where m.level = 1 and m.left_id = t.id and m.undone_on is null and m.status <> 'investigation'
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
        from recon_match m join ticket t on t.id = m.left_id
        where m.level = 1 and m.status = 'changed' and m.undone_on is null and t.trans_date between p_from and p_to
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
$$;

-- The report of any declared level, a row per left record of the period
-- with its live match and right record: what a level added by metadata
-- shows until it gets a report of its own (a view of views.yaml over a
-- one-line function calling this, see the README). 1 matched, 2 partial
-- (a difference, an investigation, or changed since matched), 3 unmatched.
create function recon_level_report(p_level int, p_from date, p_to date, p_currency text[], p_provider text[])
returns table (left_id bigint, left_ref text, left_date date, left_amount numeric, left_currency text, provider text,
               right_id bigint, right_ref text, right_date date, right_amount numeric, right_currency text,
               amount_variance numeric, recon_status text, recon_status_number integer, match_id bigint)
language plpgsql stable as $f$
declare
    l recon_level;
begin
    select * into l from recon_level where number = p_level;
    if not found then
        raise exception 'no reconciliation level %', p_level using errcode = '22023';
    end if;
    return query execute format($q$
        select a.id, a.ref, a.date, a.amount, a.currency, coalesce(a.provider, b.provider),
               b.id, b.ref, b.date, b.amount, b.currency, m.amount_variance,
               (array['Matched', 'Partial', 'Unmatched'])[sn.n], sn.n, m.id
        from %1$I a
        left join lateral (
            select m.id, m.status, m.amount_variance, m.right_id from recon_match m
            where m.level = $1 and m.left_id = a.id and m.undone_on is null limit 1) m on true
        left join %2$I b on b.id = m.right_id
        cross join lateral (select case when m.id is null then 3
                                        when m.status = 'matched' and coalesce(m.amount_variance, 0) = 0 then 1
                                        else 2 end as n) sn
        where a.date between $2 and $3
          and ($4 is null or a.currency = any ($4))
          and ($5 is null or lower(coalesce(a.provider, b.provider)) in (select lower(v) from unnest($5) v)) $q$,
        l.left_source, l.right_source) using p_level, p_from, p_to, p_currency, p_provider;
end
$f$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
create or replace function recon_ticket_transaction_report(p_from date, p_to date, p_currency text[], p_provider text[], p_ticket text)
returns table (row_key text, ticket_date date, sales_currency text, payment_type text, country_code text,
               sra_ticket_count bigint, ppa_transaction_count bigint, sra_total_amount numeric, ppa_total_amount numeric,
               count_variance bigint, amount_variance numeric, reconciliation_status text, reconcile_status_number integer)
language sql stable as $$
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
               bool_and(m.id is not null and m.status = 'matched' and coalesce(m.amount_variance, 0) = 0) as all_exact
        from ticket t
        left join lateral (
            select m.id, m.status, m.amount_variance, x.provider_actor
            from recon_match m join card_transaction x on x.id = m.right_id
            where m.level = 1 and m.left_id = t.id and m.undone_on is null and m.status <> 'investigation'
            limit 1) m on true
        where t.ticket_number = p_ticket and t.trans_date between p_from and p_to
          and (p_currency is null or t.currency = any (p_currency))
          and (p_provider is null or m.id is null or lower(m.provider_actor) in (select provider_key from providers))
        group by 1, 2, 3, 4
    ), g as (
        select * from sums union all select * from one
    ), adj as (
        -- manual adjustments of tasks (few) count toward their ticket number
        select t.trans_date, t.currency, coalesce(t.payment_type, '') as payment_type, coalesce(t.country_code, '') as country_code,
               sum(a.amount) as amount
        from (select a.client_unique_id, sum(a.transaction_amount) as amount
              from card_transaction a where a.task_id is not null and a.is_manual_adjust
              group by a.client_unique_id) a
        join ticket t on t.ticket_number = a.client_unique_id
        left join lateral (
            select m.id, x.provider_actor
            from recon_match m join card_transaction x on x.id = m.right_id
            where m.level = 1 and m.left_id = t.id and m.undone_on is null and m.status <> 'investigation'
            limit 1) m on true
        where t.trans_date between p_from and p_to
          and (p_ticket is null or t.ticket_number = p_ticket)
          and (p_currency is null or t.currency = any (p_currency))
          and (p_provider is null or m.id is null or lower(m.provider_actor) in (select provider_key from providers))
        group by 1, 2, 3, 4
    ), r as (
        select g.trans_date, g.currency, g.payment_type, g.country_code, g.tickets, g.transactions, g.sra,
               g.ppa + coalesce(adj.amount, 0) as ppa, g.all_exact
        from g left join adj using (trans_date, currency, payment_type, country_code)
    )
    select concat_ws('|', trans_date, currency, payment_type, country_code), trans_date, currency, payment_type, country_code,
           tickets, transactions, sra, ppa, tickets - transactions, sra - ppa,
           case when transactions = 0 then 'Unmatched' when all_exact or sra = ppa and transactions = tickets then 'Matched' else 'Partial' end,
           case when transactions = 0 then 1 when all_exact or sra = ppa and transactions = tickets then 3 else 2 end
    from r
$$;

create or replace function recon_settlement_bank_report(p_from date, p_to date, p_currency text[], p_provider text[])
returns table (payout_id text, settlement_date date, settlement_amount numeric, settlement_currency text, provider_actor text,
               booked_date date, bank_account text, reco_amount_in_local_currency numeric, charges numeric, currency text,
               amount_variance numeric, recon_status text, recon_status_number integer, bank_id bigint, match_id bigint)
language sql stable as $$
    with p as (
        select s.payout_id, max(s.settlement_date) as settlement_date, sum(s.net) as amount,
               string_agg(distinct s.settlement_currency, ', ') as currency, min(s.provider_actor) as provider_actor
        from recon_payout_day s
        where s.settlement_date between p_from and p_to
          and (p_currency is null or s.settlement_currency = any (p_currency))
          and (p_provider is null or lower(s.provider_actor) in (select lower(v) from unnest(p_provider) v))
        group by s.payout_id
    )
    select p.payout_id, p.settlement_date, p.amount, p.currency, p.provider_actor,
           b.booked_date, b.bank_account, coalesce(b.reco_amount_in_local_currency, b.amount_local), b.bank_charges_in_local, b.currency,
           m.amount_variance, s.label, s.n, b.id, m.id
    from p
    left join lateral (
        select m.id, m.status, m.amount_variance, m.right_id
        from payout po join recon_match m on m.level = 3 and m.left_id = po.id and m.undone_on is null
        where po.payout_key = p.payout_id limit 1) m on true
    left join lateral (select b.* from bank_booking b where b.id = m.right_id limit 1) b on true
    cross join lateral (select case
            when m.id is null then 3
            when m.status = 'matched' and coalesce(m.amount_variance, 0) = 0 then 1
            else 2 end as n) sn
    cross join lateral (select sn.n, (array['Matched', 'Partial', 'Unmatched'])[sn.n] as label) s
$$;

create or replace function recon_ticket_lookup(p_from date, p_to date, p_currency text[], p_provider text[], p_ticket text)
returns table (id bigint, ticket_date date, ticket_number text, currency text, payment_type text, country_code text,
               sales_amount numeric, transaction_date date, provider_actor text, transaction_amount numeric,
               variance_amount numeric, reconciliation_status text, reconciliation_status_number integer, match_id bigint)
language sql stable as $$
    select t.id, t.trans_date, t.ticket_number, t.currency, t.payment_type, t.country_code, t.sale_amount,
           x.processing_date, x.provider_actor, x.transaction_amount, m.amount_variance,
           s.label, s.n, m.id
    from ticket t
    left join lateral (
        select m.id, m.status, m.rule, m.amount_variance, m.right_id from recon_match m
        where m.level = 1 and m.left_id = t.id and m.undone_on is null limit 1) m on true
    left join lateral (select x.processing_date, x.provider_actor, x.transaction_amount, x.id
        from card_transaction x where x.id = m.right_id limit 1) x on true
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
      and (p_provider is null or x.id is null or lower(x.provider_actor) in (select lower(v) from unnest(p_provider) v))
$$;
-- +goose StatementEnd
drop function recon_level_report(int, date, date, text[], text[]);
drop function recon_day_apply_run(int);
drop trigger recon_follow_update on bank_booking;
drop trigger recon_follow_delete on bank_booking;
drop trigger recon_follow_update on payout;
drop trigger recon_follow_delete on payout;
drop trigger recon_follow_update on settlement;
drop trigger recon_follow_delete on settlement;
drop trigger recon_follow_update on card_transaction;
drop trigger recon_follow_delete on card_transaction;
drop trigger recon_follow_update on ticket;
drop trigger recon_follow_delete on ticket;
drop function recon_follow_apply();
drop trigger recon_follow_lock on bank_booking;
drop trigger recon_follow_lock on payout;
drop trigger recon_follow_lock on settlement;
drop trigger recon_follow_lock on card_transaction;
drop trigger recon_follow_lock on ticket;
drop function recon_follow_lock();
drop function recon_follow(text, bigint[]);
drop trigger recon_payout_settlement_truncate on settlement;
drop trigger recon_payout_settlement_delete on settlement;
drop trigger recon_payout_settlement_update on settlement;
drop trigger recon_payout_settlement_insert on settlement;
drop function recon_payout_settlement_apply();
drop function recon_payout_sync(text[]);
drop function recon_pair_eval(numeric, numeric, text, text, date, date, numeric, integer, numeric);
drop view recon_side_bank;
drop view recon_side_payout;
drop view recon_side_settlement;
drop view recon_side_transaction;
drop view recon_side_ticket;
drop table recon_level;
drop index recon_match_changed_idx;
alter table card_transaction drop constraint card_transaction_adjusted_ticket;
drop index card_transaction_adjusted_ticket_idx;
alter table card_transaction drop column adjusted_ticket_id;
alter table recon_run drop column error_code, drop column error_params;
delete from recon_run where level > 3;
alter table recon_run drop constraint recon_run_level_check;
alter table recon_run add constraint recon_run_level_check check (level in (1, 2, 3));
delete from recon_match where level > 3;
update recon_match set status = 'partial' where status = 'changed';
update recon_match set rule = 'manual' where rule = 'forced';
alter table recon_match drop constraint recon_match_level_check;
alter table recon_match add constraint recon_match_level_check check (level in (1, 2, 3));
alter table recon_match drop constraint recon_match_rule_check;
alter table recon_match add constraint recon_match_rule_check check (rule in ('exact', 'date', 'amount', 'fx', 'manual', 'investigation'));
alter table recon_match drop constraint recon_match_status_check;
alter table recon_match add constraint recon_match_status_check check (status in ('matched', 'partial', 'investigation'));
