-- +goose Up
-- The tasks list is the engine's grid (views.yaml VW_Tasks). Its expander
-- row shows a task's tickets, transactions and followed records: three
-- views, one row per link, each read by the task's id (the links' primary
-- keys lead with task_id).
create view task_ticket_list as
    select tt.task_id, k.id as ticket_id, k.ticket_number, k.trans_date, k.payment_type,
           k.country_code, k.currency, k.transaction_code, k.sale_amount
    from task_ticket tt
    join ticket k on k.id = tt.ticket_id;

create view task_transaction_list as
    select tx.task_id, c.id as transaction_id, c.client_unique_id, c.processing_date, c.acquiring_bank,
           c.payment_method, c.currency, c.transaction_type, c.transaction_amount, c.is_manual_adjust
    from task_transaction tx
    join card_transaction c on c.id = tx.transaction_id;

-- A settlement, payout or bank booking a task follows, by the reference
-- people know it by (kind:id is the row's key: one task follows a record once).
create view task_record_list as
    select tr.task_id, tr.kind || ':' || tr.record_id as record_key, tr.kind, tr.record_id,
           coalesce((select x.ref from recon_side_settlement x where tr.kind = 'settlement' and x.id = tr.record_id
                     union all select x.ref from recon_side_payout x where tr.kind = 'payout' and x.id = tr.record_id
                     union all select x.ref from recon_side_bank x where tr.kind = 'bank' and x.id = tr.record_id
                     limit 1), '#' || tr.record_id) as ref
    from task_record tr;

-- The hand-written task table kept its layout under tasks.grid; the engine
-- grid keeps it under grid.vw_tasks ({layout: {order, hidden, pinned,
-- widths}}). The status column is isStatus now. The old table's applied
-- filters and page size are not carried over: they were not saved sets.
insert into user_preference (user_id, key, value)
select p.user_id, 'grid.vw_tasks',
       jsonb_build_object('layout', jsonb_build_object(
           'order', coalesce((select jsonb_agg(case f when 'statusLabel' then 'isStatus' else f end order by n)
                              from jsonb_array_elements_text(case jsonb_typeof(p.value -> 'order') when 'array' then p.value -> 'order' else '[]' end)
                                   with ordinality as o (f, n)), '[]'),
           'hidden', coalesce((select jsonb_agg(case f when 'statusLabel' then 'isStatus' else f end)
                               from jsonb_array_elements_text(case jsonb_typeof(p.value -> 'hidden') when 'array' then p.value -> 'hidden' else '[]' end) as h (f)), '[]'),
           'pinned', '[]'::jsonb,
           'widths', case jsonb_typeof(p.value -> 'widths') when 'object'
                         then (select coalesce(jsonb_object_agg(case k when 'statusLabel' then 'isStatus' else k end, v), '{}')
                               from jsonb_each(p.value -> 'widths') as w (k, v) where jsonb_typeof(v) = 'number')
                         else '{}' end))
from user_preference p
where p.key = 'tasks.grid'
on conflict (user_id, key) do nothing;
delete from user_preference where key = 'tasks.grid';

-- +goose Down
drop view task_record_list;
drop view task_transaction_list;
drop view task_ticket_list;
