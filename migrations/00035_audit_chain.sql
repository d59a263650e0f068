-- +goose Up
-- The audit trail proves itself (DESIGN section 8). Rows stay append-only
-- for the application: a trigger refuses every UPDATE, DELETE and TRUNCATE
-- of audit_log, whoever runs it, except one change the database makes
-- itself: sealing. When an audited transaction commits, its rows are
-- sealed in order: each gets the next position in the chain (seq), the
-- hash of the row before it (prev_hash) and its own hash, a SHA-256 over
-- who, when, what, before, after and prev_hash (audit_line, version 1).
-- `ledgerdesk audit verify` recomputes the chain in Go, apart from this
-- SQL, and names the first row that does not fit.
--
-- Only a superuser or the table's owner can get past the trigger (by
-- disabling it); what they change then no longer fits the chain.
alter table audit_log add column seq bigint, add column prev_hash text, add column hash text;
create unique index audit_log_seq_idx on audit_log (seq);
create index audit_log_unsealed_idx on audit_log (id) where seq is null;
-- The audit screen's filters (text equality ignores case): by user, by
-- action and by entity, newest first.
create index audit_log_actor_idx on audit_log (lower(actor), at);
create index audit_log_action_idx on audit_log (lower(action), at);
create index audit_log_entity_lower_idx on audit_log (lower(entity), at);

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
-- own seal; an update may only seal an unsealed row as the next one of the
-- chain (the hashes are computed here, not taken from the caller).
create function audit_log_guard() returns trigger language plpgsql as $f$
declare
    last_seq  bigint;
    last_hash text;
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
        select seq, hash into last_seq, last_hash from audit_log
         where seq is not null order by seq desc limit 1;
        if new.seq <> coalesce(last_seq, 0) + 1 then
            raise exception 'audit_log row % cannot take chain position % (the next is %)',
                new.id, new.seq, coalesce(last_seq, 0) + 1 using errcode = 'insufficient_privilege';
        end if;
        new.prev_hash := last_hash;
        new.hash := null;
        new.hash := encode(sha256(convert_to(audit_line(new), 'UTF8')), 'hex');
        return new;
    end if;
    raise exception 'audit_log is append-only: its rows cannot be changed or deleted'
        using errcode = 'insufficient_privilege';
end
$f$;

-- audit_seal seals every committed row not sealed yet, in the order of
-- their ids, and returns how many. One sealer at a time (the lock is held
-- to the end of the caller's transaction). Under repeatable read the
-- newest seals may be out of sight, so it leaves the rows to the next
-- read-committed caller (every audited commit and `audit verify` call it).
create function audit_seal() returns integer language plpgsql as $f$
declare
    n    integer := 0;
    next bigint;
    r    record;
begin
    if current_setting('transaction_isolation') <> 'read committed' then
        return 0;
    end if;
    perform pg_advisory_xact_lock(hashtext('audit_log.seal'));
    select coalesce(max(seq), 0) into next from audit_log;
    for r in select id from audit_log where seq is null order by id loop
        next := next + 1;
        update audit_log set seq = next where id = r.id;
        n := n + 1;
    end loop;
    return n;
end
$f$;

create function audit_log_seal_on_commit() returns trigger language plpgsql as $f$
begin
    perform audit_seal();
    return null;
end
$f$;
-- +goose StatementEnd

create trigger audit_log_append_only before insert or update or delete on audit_log
    for each row execute function audit_log_guard();
create trigger audit_log_no_truncate before truncate on audit_log
    for each statement execute function audit_log_guard();
-- Sealed when the writing transaction commits: the lock is held only from
-- here to the commit's end, so audited writes wait for each other only
-- while they commit.
create constraint trigger audit_log_sealed after insert on audit_log
    deferrable initially deferred for each row execute function audit_log_seal_on_commit();

revoke update, delete, truncate on audit_log from public;

select audit_seal();

-- +goose Down
drop trigger audit_log_sealed on audit_log;
drop trigger audit_log_no_truncate on audit_log;
drop trigger audit_log_append_only on audit_log;
drop function audit_log_seal_on_commit();
drop function audit_seal();
drop function audit_log_guard();
drop function audit_line(audit_log);
drop function audit_field(text);
drop index audit_log_entity_lower_idx;
drop index audit_log_action_idx;
drop index audit_log_actor_idx;
alter table audit_log drop column hash, drop column prev_hash, drop column seq;
