-- +goose Up
-- Security: an administrator's unlock or password reset clears the sign-in
-- throttle of an account (failures before sign_in_cleared_at no longer
-- count); login_attempt also throttles sign-in codes and reset codes (kind);
-- sessions record when they were last used (idle timeout); a 'confirm'
-- code proves a two-factor user's identity for an email or two-factor change.
alter table app_user add column sign_in_cleared_at timestamptz;
alter table login_attempt add column kind text not null default 'login' check (kind in ('login', 'verify', 'reset'));
alter table auth_session add column last_seen_at timestamptz;
alter table one_time_code drop constraint one_time_code_purpose_check;
alter table one_time_code add constraint one_time_code_purpose_check check (purpose in ('reset', 'login', 'confirm'));
-- The outbox keeps bodies with their codes masked; sealed is the whole body
-- encrypted with a key from the server secret (`ledgerdesk outbox` opens it).
alter table mail_outbox add column sealed text;

-- +goose Down
alter table mail_outbox drop column sealed;
delete from one_time_code where purpose = 'confirm';
alter table one_time_code drop constraint one_time_code_purpose_check;
alter table one_time_code add constraint one_time_code_purpose_check check (purpose in ('reset', 'login'));
alter table auth_session drop column last_seen_at;
alter table login_attempt drop column kind;
alter table app_user drop column sign_in_cleared_at;
