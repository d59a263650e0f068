package identity

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"ledgerdesk/engine"
)

// Role is a named set of screens.
type Role struct {
	ID          int64     `json:"id"`
	RoleName    string    `json:"roleName"`
	Description string    `json:"description"`
	IsAdmin     bool      `json:"isAdmin"`
	CreatedOn   time.Time `json:"createdOn"`
	CreatedBy   string    `json:"createdBy"`
	Version     time.Time `json:"version"` // when last changed; an update sends the one it read
	// WriteOffLimit is the largest amount, in USD, a holder of the role may
	// write off at once (reconciliation); nil: none.
	WriteOffLimit *string `json:"writeOffLimit"`
}

// RoleInput is what the role form may write.
type RoleInput struct {
	RoleName    string `json:"roleName"`
	Description string `json:"description"`
	Version     any    `json:"version"` // the role's version as read (updates only)
	// WriteOffLimit: a JSON number or numeric text of at most 2 decimals,
	// not negative; null or "" for none.
	WriteOffLimit json.RawMessage `json:"writeOffLimit"`
	limit         *string
}

// WebScreen is a screen a role can grant.
type WebScreen struct {
	ID         int    `json:"id"`
	ScreenName string `json:"screenName"`
	// Route is the screen's path in the UI (dashboard/home): the UI's route
	// guards and menu find a screen's id by it.
	Route string `json:"route"`
}

// RoleScreen is one screen a role grants.
type RoleScreen struct {
	ScreenID   int    `json:"screenId"`
	ScreenName string `json:"screenName"`
}

const roleColumns = `id, role_name, description, is_admin, created_on, created_by, updated_on, writeoff_limit::text`

// limitPattern: an amount of at most 18 whole digits and 2 decimals.
var limitPattern = regexp.MustCompile(`^[0-9]{1,18}(\.[0-9]{1,2})?$`)

func (in *RoleInput) clean() error {
	in.RoleName = strings.TrimSpace(in.RoleName)
	in.Description = strings.TrimSpace(in.Description)
	switch {
	case in.RoleName == "":
		return engine.Invalid("roleName", "Role name is required.")
	case len([]rune(in.RoleName)) > 50:
		return engine.Invalid("roleName", "Role name must be at most 50 characters.")
	case len([]rune(in.Description)) > 200:
		return engine.Invalid("description", "Description must be at most 200 characters.")
	}
	text := strings.TrimSpace(string(in.WriteOffLimit))
	var str string
	if json.Unmarshal(in.WriteOffLimit, &str) == nil {
		text = strings.TrimSpace(str)
	}
	if text == "" || text == "null" {
		return nil
	}
	if !limitPattern.MatchString(text) {
		return engine.Invalid("writeOffLimit", "The write-off limit is an amount in USD of at most 2 decimals, not negative, got %s.", text).
			With("roles.writeOffLimit", "value", text)
	}
	in.limit = &text
	return nil
}

// ListRoles returns every role, newest first.
func (s *Service) ListRoles(ctx context.Context) ([]Role, error) {
	rows, err := s.pool.Query(ctx, `select `+roleColumns+` from role order by id desc`)
	if err != nil {
		return nil, err
	}
	roles, err := pgx.CollectRows(rows, pgx.RowToStructByPos[Role])
	if roles == nil {
		roles = []Role{}
	}
	return roles, err
}

// GetRole returns one role.
func (s *Service) GetRole(ctx context.Context, id int64) (*Role, error) {
	return getRole(ctx, s.pool, id, false)
}

func getRole(ctx context.Context, q querier, id int64, lock bool) (*Role, error) {
	query := `select ` + roleColumns + ` from role where id = $1`
	if lock {
		query += ` for update`
	}
	var r Role
	err := q.QueryRow(ctx, query, id).Scan(&r.ID, &r.RoleName, &r.Description, &r.IsAdmin, &r.CreatedOn, &r.CreatedBy, &r.Version, &r.WriteOffLimit)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, engine.NotFound("Role %d not found.", id).With("roles.notFound", "id", id)
	}
	return &r, err
}

// CreateRole adds a role and returns it with its id.
func (s *Service) CreateRole(ctx context.Context, in RoleInput) (*Role, error) {
	if err := in.clean(); err != nil {
		return nil, err
	}
	actor := engine.ActorFrom(ctx).Username
	var r *Role
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var id int64
		err := tx.QueryRow(ctx, `insert into role (role_name, description, created_on, created_by, updated_on, updated_by, writeoff_limit)
			values ($1, $2, $3, $4, $3, $4, $5::numeric) returning id`, in.RoleName, in.Description, s.now(), actor, in.limit).Scan(&id)
		if err != nil {
			return duplicate(err)
		}
		if r, err = getRole(ctx, tx, id, false); err != nil {
			return err
		}
		return engine.Audit(ctx, tx, engine.AuditEntry{Action: "role.create", Entity: "role", EntityID: fmt.Sprint(id), After: r})
	})
	return r, err
}

// UpdateRole changes a role's name and description.
func (s *Service) UpdateRole(ctx context.Context, id int64, in RoleInput) (*Role, error) {
	if err := in.clean(); err != nil {
		return nil, err
	}
	actor := engine.ActorFrom(ctx).Username
	var after *Role
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		before, err := getRole(ctx, tx, id, true)
		if err != nil {
			return err
		}
		if err := mayEditRole(ctx, tx, before); err != nil {
			return err
		}
		if err := engine.CheckVersion(before.Version, in.Version); err != nil {
			return err
		}
		if err := mayChangeWriteOffLimit(ctx, tx, before, in.limit); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `update role set role_name = $2, description = $3, updated_on = $4, updated_by = $5, writeoff_limit = $6::numeric
			where id = $1`, id, in.RoleName, in.Description, s.now(), actor, in.limit); err != nil {
			return duplicate(err)
		}
		if after, err = getRole(ctx, tx, id, false); err != nil {
			return err
		}
		return engine.Audit(ctx, tx, engine.AuditEntry{Action: "role.update", Entity: "role", EntityID: fmt.Sprint(id), Before: before, After: after})
	})
	return after, err
}

// DeleteRole removes a role no user holds. The Administrator role stays.
func (s *Service) DeleteRole(ctx context.Context, id int64) error {
	return s.inTx(ctx, func(tx pgx.Tx) error {
		before, err := getRole(ctx, tx, id, true)
		if err != nil {
			return err
		}
		if before.IsAdmin {
			return engine.Conflict("The Administrator role cannot be deleted.").With("roles.adminDelete")
		}
		var holders int
		if err := tx.QueryRow(ctx, `select count(*) from user_role where role_id = $1`, id).Scan(&holders); err != nil {
			return err
		}
		if holders > 0 {
			return engine.Conflict("The role is assigned to %d user(s); remove it from them first.", holders).With("roles.inUse", "count", holders)
		}
		screens, err := roleScreenIDs(ctx, tx, id)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `delete from role where id = $1`, id); err != nil {
			return err
		}
		return engine.Audit(ctx, tx, engine.AuditEntry{Action: "role.delete", Entity: "role", EntityID: fmt.Sprint(id),
			Before: map[string]any{"role": before, "screenIds": screens}})
	})
}

// WebScreens lists every screen a role can grant.
func (s *Service) WebScreens(ctx context.Context) ([]WebScreen, error) {
	rows, err := s.pool.Query(ctx, `select id, screen_name, route from web_screen order by id`)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowToStructByPos[WebScreen])
}

// RoleScreens lists the screens a role grants (all of them for Administrator).
func (s *Service) RoleScreens(ctx context.Context, id int64) ([]RoleScreen, error) {
	if _, err := s.GetRole(ctx, id); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `select ws.id, ws.screen_name from web_screen ws
		where exists (select 1 from role r where r.id = $1 and (r.is_admin or exists (select 1 from role_screen rs where rs.role_id = r.id and rs.screen_id = ws.id)))
		order by ws.id`, id)
	if err != nil {
		return nil, err
	}
	screens, err := pgx.CollectRows(rows, pgx.RowToStructByPos[RoleScreen])
	if screens == nil {
		screens = []RoleScreen{}
	}
	return screens, err
}

// SetRoleScreens replaces the screens a role grants.
func (s *Service) SetRoleScreens(ctx context.Context, id int64, screenIDs []int) ([]RoleScreen, error) {
	screenIDs = uniqueIDs(screenIDs)
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		r, err := getRole(ctx, tx, id, true)
		if err != nil {
			return err
		}
		if r.IsAdmin {
			return engine.Invalid("screenIds", "The Administrator role always grants every screen.").With("roles.adminScreens")
		}
		if err := mayGrantScreens(ctx, tx, id, screenIDs); err != nil {
			return err
		}
		before, err := replaceLinks(ctx, tx, roleScreens, id, screenIDs)
		if err != nil {
			return err
		}
		return engine.Audit(ctx, tx, engine.AuditEntry{Action: "role.screens", Entity: "role", EntityID: fmt.Sprint(id),
			Before: map[string]any{"screenIds": before}, After: map[string]any{"screenIds": screenIDs}})
	})
	if err != nil {
		return nil, err
	}
	return s.RoleScreens(ctx, id)
}

func roleScreenIDs(ctx context.Context, tx pgx.Tx, roleID int64) ([]int, error) {
	rows, err := tx.Query(ctx, `select screen_id from role_screen where role_id = $1 order by screen_id`, roleID)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[int])
}
