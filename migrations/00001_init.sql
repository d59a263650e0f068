-- +goose Up
-- The foundation: the screens a role can be granted (ids fixed by the design,
-- referenced by the UI's route guards and by every API permission check) and a
-- small key/value table for settings the server generates on first run.

create table web_screen (
    id          integer primary key,
    screen_name text not null unique,
    route       text not null
);

insert into web_screen (id, screen_name, route) values
    (1,  'Home',                   'dashboard/home'),
    (2,  'Data Import',            'dashboard/financialdocument'),
    (3,  'Users List',             'dashboard/userslist'),
    (4,  'User Add/Edit',          'dashboard/users'),
    (5,  'Roles List',             'dashboard/roleslist'),
    (6,  'Role Add/Edit',          'dashboard/roles'),
    (7,  'Processed Bank Files',   'dashboard/csvprocessed'),
    (8,  'Bank Settings',          'dashboard/bank-settings'),
    (9,  'Exchange Rates',         'dashboard/cera-settings'),
    (10, 'Countries',              'dashboard/ras-settings'),
    (11, 'Configuration Settings', 'dashboard/config-settings'),
    (12, 'Extraction Logs',        'dashboard/extraction-logs'),
    (13, 'Reconcile',              'dashboard/bank-settlement'),
    (14, 'Tasks',                  'dashboard/tasks'),
    (15, 'Reports',                'dashboard/reports');

create table app_setting (
    key        text primary key,
    value      text not null,
    updated_on timestamptz not null default now()
);

-- +goose Down
drop table app_setting;
drop table web_screen;
