-- +goose Up
-- The audit trail proves itself (DESIGN section 8). Rows stay append-only
-- for the application: a trigger refuses every UPDATE, DELETE and TRUNCATE
-- of audit_log, whoever runs it, except one change the database makes
-- itself: sealing. Committed rows are sealed in order, within seconds (the
-- server's sealer, engine.KeepAuditSealed; `audit verify` seals first):
-- each gets the next position in the chain (seq), the hash of the row
-- before it (prev_hash) and its own hash, a SHA-256 over who, when, what,
-- before, after and prev_hash (audit_line, version 1). Sealing apart from
-- the writing transaction keeps the chain off the write's path: an inline
-- edit pays for its audit row as before (`ledgerdesk bench audit`).
-- `ledgerdesk audit verify` recomputes the chain in Go, apart from this
-- SQL, and names the first row that does not fit.
--
-- Only a superuser or the table's owner can get past the trigger (by
-- disabling it); what they change then no longer fits the chain.
alter table audit_log add column seq bigint, add column prev_hash text, add column hash text;
-- The rows waiting for their seal, in order.
create index audit_log_unsealed_idx on audit_log (id) where seq is null;
-- The audit screen's filters (text equality ignores case): by user, by
-- action and by entity, newest first.
create index audit_log_actor_idx on audit_log (lower(actor), at);
create index audit_log_action_idx on audit_log (lower(action), at);
create index audit_log_entity_lower_idx on audit_log (lower(entity), at);

-- The chain's head: the last sealed position and its hash. Its row lock
-- orders the sealers; verify checks the chain ends there (rows removed
-- from the end no longer fit).
create table audit_chain_head (
    one  boolean primary key default true check (one),
    seq  bigint not null,
    hash text
);
insert into audit_chain_head (seq, hash) values (0, null);
revoke update, delete, truncate on audit_chain_head from public;

-- +goose StatementBegin
-- audit_field writes one value of the hashed line: '-' for null, else its
-- length in bytes, a colon and the value, so no value can pass for two.
create function audit_field(v text) returns text language sql immutable as $f$
    select case when v is null then '-' else octet_length(v)::text || ':' || v end
$f$;

-- audit_line is the text a row's hash is taken over (version 1).
create function audit_line(a audit_log) returns text language sql stable as $f$
    select concat_ws(E'\n', 'ledgerdesk-audit-v1', a.seq::text,
        audit_field(a.prev_hash),
        to_char(a.at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
        audit_field(a.actor_id::text), audit_field(a.actor), audit_field(a.action),
        audit_field(a.entity), audit_field(a.entity_id),
        audit_field(a.before::text), audit_field(a.after::text),
        audit_field(a.ip), audit_field(a.request_id))
$f$;

-- audit_log_guard keeps the table append-only. An insert cannot bring its
-- own seal; an update may only seal an unsealed row, its content as it
-- is. (The seal's values are audit_seal's; whoever wrote them, verify
-- recomputes every one.)
create function audit_log_guard() returns trigger language plpgsql as $f$
begin
    if tg_op = 'INSERT' then
        new.seq := null;
        new.prev_hash := null;
        new.hash := null;
        return new;
    end if;
    if tg_op = 'UPDATE' and old.seq is null and new.seq is not null
        and (new.id, new.at, new.actor_id, new.actor, new.action, new.entity, new.entity_id,
             new.before, new.after, new.ip, new.request_id)
            is not distinct from
            (old.id, old.at, old.actor_id, old.actor, old.action, old.entity, old.entity_id,
             old.before, old.after, old.ip, old.request_id) then
        return new;
    end if;
    raise exception 'audit_log is append-only: its rows cannot be changed or deleted'
        using errcode = 'insufficient_privilege';
end
$f$;

-- audit_seal seals the committed rows not sealed yet (at most 20,000 a
-- call), in the order of their ids, and returns how many: each takes the next position after the
-- head, the head's hash as its prev_hash, and its hash; then the head
-- moves. One statement writes the batch. The head's row lock makes sealers
-- wait for one another to the end of their transactions. Under repeatable
-- read the newest seals may be out of sight, so it leaves the rows to the
-- next read-committed call.
create function audit_seal() returns integer language plpgsql as $f$
declare
    head   audit_chain_head;
    r      audit_log;
    ids    bigint[] := '{}';
    seqs   bigint[] := '{}';
    prevs  text[] := '{}';
    hashes text[] := '{}';
begin
    if current_setting('transaction_isolation') <> 'read committed' then
        return 0;
    end if;
    select * into head from audit_chain_head for update;
    for r in select * from audit_log where seq is null order by id limit 20000 loop
        r.seq := head.seq + 1;
        r.prev_hash := head.hash;
        head.seq := r.seq;
        head.hash := encode(sha256(convert_to(audit_line(r), 'UTF8')), 'hex');
        ids := ids || r.id;
        seqs := seqs || r.seq;
        prevs := prevs || r.prev_hash;
        hashes := hashes || head.hash;
    end loop;
    if cardinality(ids) = 0 then
        return 0;
    end if;
    update audit_log a set seq = b.seq, prev_hash = b.prev, hash = b.hash
    from unnest(ids, seqs, prevs, hashes) as b(id, seq, prev, hash)
    where a.id = b.id and a.seq is null;
    perform set_config('ledgerdesk.audit_sealing', 'on', true);
    update audit_chain_head set seq = head.seq, hash = head.hash;
    perform set_config('ledgerdesk.audit_sealing', '', true);
    return cardinality(ids);
end
$f$;

-- audit_chain_head_guard: the head moves only with a seal (audit_seal),
-- never by a statement of its own.
create function audit_chain_head_guard() returns trigger language plpgsql as $f$
begin
    if tg_op = 'UPDATE' and current_setting('ledgerdesk.audit_sealing', true) = 'on' then
        return new;
    end if;
    raise exception 'audit_chain_head moves only when an audit row is sealed'
        using errcode = 'insufficient_privilege';
end
$f$;

-- +goose StatementEnd

create trigger audit_log_append_only before insert or update or delete on audit_log
    for each row execute function audit_log_guard();
create trigger audit_log_no_truncate before truncate on audit_log
    for each statement execute function audit_log_guard();
create trigger audit_chain_head_guard before update or delete on audit_chain_head
    for each row execute function audit_chain_head_guard();
create trigger audit_chain_head_no_truncate before truncate on audit_chain_head
    for each statement execute function audit_chain_head_guard();

revoke update, delete, truncate on audit_log from public;

select audit_seal();

-- +goose Down
drop trigger audit_log_no_truncate on audit_log;
drop trigger audit_log_append_only on audit_log;
drop trigger audit_chain_head_no_truncate on audit_chain_head;
drop trigger audit_chain_head_guard on audit_chain_head;
drop function audit_chain_head_guard();
drop function audit_seal();
drop function audit_log_guard();
drop function audit_line(audit_log);
drop function audit_field(text);
drop table audit_chain_head;
drop index audit_log_unsealed_idx;
drop index audit_log_entity_lower_idx;
drop index audit_log_action_idx;
drop index audit_log_actor_idx;
alter table audit_log drop column hash, drop column prev_hash, drop column seq;
