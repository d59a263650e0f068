-- +goose Up
-- Identity and access: users, roles, the screens each role grants, sessions
-- (token ids, for revocation), one-time codes (password reset, second
-- factor), sign-in attempts (throttling), the mail outbox and the audit log.

create table app_user (
    id                bigint generated always as identity primary key,
    username          text not null check (username ~ '^[A-Za-z0-9._@-]{3,50}$'),
    first_name        text not null check (length(first_name) between 1 and 100),
    last_name         text not null check (length(last_name) between 1 and 100),
    email             text not null check (length(email) between 3 and 254),
    mobile_number     text check (length(mobile_number) <= 30),
    date_of_birth     date check (date_of_birth >= date '1900-01-01'),
    date_format       text not null default 'DD-MM-YYYY HH:mm:ss',
    language_code     text not null default 'en' check (language_code in ('en', 'sv', 'es', 'pt')),
    enable_two_factor boolean not null default false,
    two_factor_type   smallint not null default 0 check (two_factor_type in (0, 1, 2)),
    password_hash     text not null,
    is_active         boolean not null default true,
    created_on        timestamptz not null default now(),
    created_by        text not null default 'system',
    updated_on        timestamptz not null default now(),
    updated_by        text not null default 'system',
    check (enable_two_factor = (two_factor_type <> 0))
);
create unique index app_user_username_key on app_user (lower(username));
create unique index app_user_email_key on app_user (lower(email));

create table role (
    id          bigint generated always as identity primary key,
    role_name   text not null check (length(role_name) between 1 and 50),
    description text not null default '' check (length(description) <= 200),
    -- the built-in Administrator role grants every screen, present and future
    is_admin    boolean not null default false,
    created_on  timestamptz not null default now(),
    created_by  text not null default 'system',
    updated_on  timestamptz not null default now(),
    updated_by  text not null default 'system'
);
create unique index role_name_key on role (lower(role_name));
create unique index role_single_admin on role (is_admin) where is_admin;

create table user_role (
    user_id bigint not null references app_user (id) on delete cascade,
    role_id bigint not null references role (id) on delete cascade,
    primary key (user_id, role_id)
);
create index user_role_role_idx on user_role (role_id);

create table role_screen (
    role_id   bigint not null references role (id) on delete cascade,
    screen_id integer not null references web_screen (id),
    primary key (role_id, screen_id)
);

create table auth_session (
    id         uuid primary key,
    user_id    bigint not null references app_user (id) on delete cascade,
    issued_at  timestamptz not null,
    expires_at timestamptz not null,
    revoked_at timestamptz,
    ip         text not null default '',
    user_agent text not null default ''
);
create index auth_session_user_idx on auth_session (user_id) where revoked_at is null;

create table one_time_code (
    id          uuid primary key,
    user_id     bigint not null references app_user (id) on delete cascade,
    purpose     text not null check (purpose in ('reset', 'login')),
    code_hash   text not null,
    channel     text not null default 'email',
    expires_at  timestamptz not null,
    attempts    integer not null default 0,
    used_at     timestamptz,
    created_on  timestamptz not null default now()
);
create index one_time_code_user_idx on one_time_code (user_id, purpose, created_on);

create table login_attempt (
    id        bigint generated always as identity primary key,
    username  text not null,
    ip        text not null,
    succeeded boolean not null,
    at        timestamptz not null default now()
);
create index login_attempt_user_idx on login_attempt (lower(username), at);
create index login_attempt_ip_idx on login_attempt (ip, at);

create table mail_outbox (
    id         bigint generated always as identity primary key,
    channel    text not null default 'email' check (channel in ('email', 'mobile')),
    recipient  text not null,
    subject    text not null,
    body       text not null,
    created_on timestamptz not null default now()
);

create table audit_log (
    id         bigint generated always as identity primary key,
    at         timestamptz not null default now(),
    actor_id   bigint,
    actor      text not null,
    action     text not null,
    entity     text not null,
    entity_id  text not null default '',
    before     jsonb,
    after      jsonb,
    ip         text not null default '',
    request_id text not null default ''
);
create index audit_log_entity_idx on audit_log (entity, entity_id, at);
create index audit_log_at_idx on audit_log (at);

-- +goose Down
drop table audit_log;
drop table mail_outbox;
drop table login_attempt;
drop table one_time_code;
drop table auth_session;
drop table role_screen;
drop table user_role;
drop table role;
drop table app_user;
