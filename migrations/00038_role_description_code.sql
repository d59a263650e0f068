-- +goose Up
-- The built-in Administrator role's description, seeded in English
-- (identity.EnsureAdmin), reads in the reader's language: the roles grid
-- gets its message code (roles.adminDescription) while the text is still
-- the seeded one; a description an administrator wrote shows as written.
create or replace view vw_roles_list as
    select id, role_name, description, created_on, created_by,
           case when is_admin and description = 'Built-in role: every screen' then 'roles.adminDescription' end as description_code,
           null::text as description_params
    from role;

-- +goose Down
drop view vw_roles_list;
create view vw_roles_list as
    select id, role_name, description, created_on, created_by from role;
