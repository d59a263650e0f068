-- +goose Up
-- Four-eyes approvals (issue: controls; DESIGN section 8). An action above
-- its rule's threshold is not carried out: it is kept here as pending,
-- with what the approver reads (summary) and what carrying it out needs
-- (replay). A user holding the Approvals screen (17) approves it (then it
-- is carried out, as its requester) or rejects it, with a reason; nobody
-- decides their own.
insert into web_screen (id, screen_name, route) values
    (16, 'Audit Trail', 'dashboard/screens/audit'),
    (17, 'Approvals', 'dashboard/screens/approvals');

-- The rules: one per action, all off until an administrator turns them on
-- (Configuration Settings). threshold: an amount in USD the action must
-- exceed to wait (matchDifference: the match's difference; adjustment:
-- the adjustment; writeoff: what is written off); null: any amount.
-- days: an undo waits when the match is older than this many days.
create table approval_rule (
    action     text primary key check (action in ('matchDifference', 'forcedMatch', 'adjustment', 'writeoff', 'oldUndo', 'tolerance')),
    position   smallint not null,
    enabled    boolean not null default false,
    threshold  numeric(18, 2) check (threshold >= 0),
    days       integer check (days >= 0),
    updated_by text not null default 'system',
    updated_on timestamptz not null default now()
);
insert into approval_rule (action, position, threshold, days) values
    ('matchDifference', 1, 100, null),
    ('forcedMatch', 2, null, null),
    ('adjustment', 3, 500, null),
    ('writeoff', 4, 100, null),
    ('oldUndo', 5, null, 30),
    ('tolerance', 6, null, null);

create table approval (
    id              bigint generated always as identity primary key,
    action          text not null references approval_rule (action),
    level           smallint,                -- the recon level it acts on, if any
    months          date[] not null default '{}', -- the periods (first days) it touches: a closing waits for it
    summary         jsonb not null,          -- what the approver reads
    replay          jsonb not null,          -- what carrying it out needs
    status          text not null default 'pending' check (status in ('pending', 'approved', 'rejected')),
    requested_by    text not null,
    requested_by_id bigint not null,
    requested_on    timestamptz not null default now(),
    decided_by      text,
    decided_by_id   bigint,
    decided_on      timestamptz,
    decision_reason text,
    check ((status = 'pending') = (decided_on is null)),
    check (decided_by_id is null or decided_by_id <> requested_by_id)
);
create index approval_pending_idx on approval (requested_on desc) where status = 'pending';
create index approval_requester_idx on approval (requested_by_id, requested_on desc);
create index approval_status_idx on approval (status, requested_on desc);

-- The approvals screen's list: who asked what, when, and the outcome.
create view approval_list as
    select a.id, a.action, a.level, l.slug as level_slug,
           array_to_string(array(select to_char(m, 'YYYY-MM') from unnest(a.months) m order by m), ', ') as months,
           a.summary->>'text' as what, a.summary->>'code' as what_code, (a.summary->'params')::text as what_params,
           a.summary->>'amount' as amount, a.summary->>'reason' as reason,
           a.status, a.requested_by, a.requested_by_id, a.requested_on,
           a.decided_by, a.decided_on, a.decision_reason
    from approval a left join recon_level l on l.number = a.level;

-- The closed periods' list (screen 17, tab periods).
-- summary: the figures kept at closing, one line per level and side:
-- "ticket-transaction left: matched 1 (100.00 SEK); unmatched 2 (90.00 SEK)".
create view closed_period_list as
    select c.id, to_char(c.month, 'YYYY-MM') as month, c.level, coalesce(l.slug, 'all') as level_slug,
           c.closed_by, c.closed_on, c.reopened_by, c.reopened_on, c.reopen_reason,
           c.reopened_on is null as closed,
           (select string_agg(x.line, E'\n' order by x.level, x.side)
            from (select f->>'level' as level, f->>'side' as side,
                         f->>'level' || ' ' || (f->>'side') || ': ' ||
                         string_agg((f->>'status') || ' ' || (f->>'count') || ' (' || (f->>'amount') || ' ' || (f->>'currency') || ')', '; '
                                    order by f->>'status', f->>'currency') as line
                  from jsonb_array_elements(c.summary) f group by 1, 2) x) as summary
    from closed_period c left join recon_level l on l.number = c.level;

-- The audit screen's list (screen 16): the chain's columns and the
-- changed record as text.
create view audit_log_list as
    select id, seq, at, actor, action, entity, entity_id, before::text as before_text, after::text as after_text,
           ip, request_id, hash
    from audit_log;

-- +goose Down
drop view audit_log_list;
drop view closed_period_list;
drop view approval_list;
drop table approval;
drop table approval_rule;
delete from role_screen where screen_id in (16, 17);
delete from web_screen where id in (16, 17);
