-- +goose Up
-- The tasks screen (spec 03 section 2.3): the task_list view behind its paged
-- grid and export (views.yaml VW_Tasks), and a per-user store of screen
-- preferences (column order, widths, visibility, filters), kept on the server
-- so they follow the user to another browser.

-- One row per task with the assignee's name, the status label and the
-- figures of its links: counts, the ticket total and the balance (ticket
-- total minus transaction total, manual adjustments included).
create view task_list as
    select t.id,
           t.task_name,
           t.assigned_to_id,
           coalesce(nullif(trim(u.first_name || ' ' || u.last_name), ''), u.username) as assigned_to_name,
           t.is_status,
           case t.is_status when 1 then 'New' when 2 then 'In Progress' else 'Complete' end as status_label,
           t.remarks,
           t.priority,
           t.created_by,
           t.created_on,
           t.updated_by,
           t.updated_on,
           k.ticket_count,
           x.transaction_count,
           k.ticket_total as total_amount,
           k.ticket_total - x.transaction_total as balance
    from task t
    left join app_user u on u.id = t.assigned_to_id
    cross join lateral (
        select count(*) as ticket_count, coalesce(sum(tk.sale_amount), 0)::numeric(20, 2) as ticket_total
        from task_ticket tt join ticket tk on tk.id = tt.ticket_id
        where tt.task_id = t.id) k
    cross join lateral (
        select count(*) as transaction_count, coalesce(sum(c.transaction_amount), 0)::numeric(20, 2) as transaction_total
        from task_transaction tx join card_transaction c on c.id = tx.transaction_id
        where tx.task_id = t.id) x;

-- A user's preferences of one screen or grid (key such as tasks.grid), as
-- the UI writes them. Only the user reads and writes their own rows.
create table user_preference (
    user_id    bigint not null references app_user (id) on delete cascade,
    key        text not null check (key ~ '^[a-z0-9][a-z0-9._-]{0,63}$'),
    value      jsonb not null check (jsonb_typeof(value) = 'object' and octet_length(value::text) <= 32768),
    updated_on timestamptz not null default now(),
    primary key (user_id, key)
);

-- +goose Down
drop table user_preference;
drop view task_list;
