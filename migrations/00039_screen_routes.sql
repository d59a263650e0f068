-- +goose Up
-- Every metadata screen is served at dashboard/<route> (its views.yaml
-- screens: key); the Audit Trail and Approvals were under dashboard/screens/.
-- The screens' ids, names and routes are declared once, in
-- internal/screenids; the server refuses to start when this table differs.
update web_screen set route = 'dashboard/audit' where id = 16;
update web_screen set route = 'dashboard/approvals' where id = 17;

-- +goose Down
update web_screen set route = 'dashboard/screens/audit' where id = 16;
update web_screen set route = 'dashboard/screens/approvals' where id = 17;
