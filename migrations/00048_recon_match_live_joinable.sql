-- +goose Up
-- recon_match_live takes a join's condition: a join with it looked up only
-- the records it was asked for, not every live match of the level. Its
-- branches had WHERE clauses (undone_on is null, a member's live), and
-- PostgreSQL flattens the branches of a UNION ALL into one appendrel only
-- when each is a single table without a WHERE clause; the branches kept
-- then answer a join as whole subqueries, so every join with the view
-- (a report row's details, the chain, the day sums of an edited ticket,
-- the reports) read and hashed all of the level's matches: a day's
-- tickets with their matches took 860 ms at a million matches, now 8 ms.
--
-- Now each branch is one table with no WHERE, its liveness a column
-- (live), and the view's WHERE keeps the live rows: pushed into each
-- branch, it meets the partial live indexes. A further record's group
-- fields are read from its group by id (scalar subqueries: the branch stays
-- one table); its member row is live only while its group is
-- (recon_match_member_follow).

create or replace view recon_match_live as
    select x.level, x.side, x.record_id, x.first, x.id, x.left_id, x.right_id, x.status, x.rule,
           x.amount_variance, x.variance_share, x.date_lag_days, x.reason, x.run_id, x.created_by, x.created_on
    from (
        select m.level, 'left'::text as side, m.left_id as record_id, true as first, m.id, m.left_id, m.right_id, m.status, m.rule,
               m.amount_variance, m.amount_variance as variance_share, m.date_lag_days, m.reason, m.run_id, m.created_by, m.created_on,
               m.undone_on is null as live
        from recon_match m
        union all
        select m.level, 'right'::text, m.right_id, true, m.id, m.left_id, m.right_id, m.status, m.rule,
               m.amount_variance, m.amount_variance, m.date_lag_days, m.reason, m.run_id, m.created_by, m.created_on,
               m.undone_on is null
        from recon_match m
        union all
        select mm.level, mm.side, mm.record_id, false, mm.match_id,
               (select g.left_id from recon_match g where g.id = mm.match_id),
               (select g.right_id from recon_match g where g.id = mm.match_id),
               (select g.status from recon_match g where g.id = mm.match_id),
               (select g.rule from recon_match g where g.id = mm.match_id),
               (select g.amount_variance from recon_match g where g.id = mm.match_id),
               0::numeric(20, 2),
               (select g.date_lag_days from recon_match g where g.id = mm.match_id),
               (select g.reason from recon_match g where g.id = mm.match_id),
               (select g.run_id from recon_match g where g.id = mm.match_id),
               (select g.created_by from recon_match g where g.id = mm.match_id),
               (select g.created_on from recon_match g where g.id = mm.match_id),
               mm.live
        from recon_match_member mm) x
    where x.live and x.record_id is not null;

-- +goose Down
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
