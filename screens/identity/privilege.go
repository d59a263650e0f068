package identity

import (
	"context"

	"ledgerdesk/engine"
	"ledgerdesk/internal/screenids"
)

// holdsAdmin reports whether the user holds the Administrator role.
func holdsAdmin(ctx context.Context, q querier, userID int64) (bool, error) {
	var yes bool
	err := q.QueryRow(ctx, `select exists (select 1 from user_role ur join role r on r.id = ur.role_id where ur.user_id = $1 and r.is_admin)`,
		userID).Scan(&yes)
	return yes, err
}

func adminOnly(what string) error {
	return engine.Forbidden("Only an Administrator may %s.", what).With("auth.adminOnly")
}

// mayEditUser refuses a delegated administrator (screen 4 without the
// Administrator role) changing an Administrator user, or a user holding a
// screen the delegated administrator does not hold: resetting the password
// of a role editor would make them one.
func mayEditUser(ctx context.Context, q querier, userID int64) error {
	actor := engine.ActorFrom(ctx).UserID
	if self, err := holdsAdmin(ctx, q, actor); err != nil || self {
		return err
	}
	target, err := holdsAdmin(ctx, q, userID)
	if err != nil {
		return err
	}
	if target {
		return adminOnly("change an Administrator's account")
	}
	var beyond []int
	err = q.QueryRow(ctx, `select coalesce(array_agg(distinct rs.screen_id order by rs.screen_id), '{}')
		from user_role ur join role_screen rs on rs.role_id = ur.role_id
		where ur.user_id = $1 and rs.screen_id not in (
			select mine.screen_id from user_role me join role_screen mine on mine.role_id = me.role_id where me.user_id = $2)`,
		userID, actor).Scan(&beyond)
	if err != nil || len(beyond) == 0 {
		return err
	}
	return engine.Forbidden("You may change only users whose screens you hold yourself; this user also holds screens %v.", beyond).
		With("auth.beyondOwnScreens", "screens", beyond)
}

// mayGrantRoles checks a change of user's roles to roleIDs: nobody changes
// their own roles, and only an Administrator changes an Administrator's
// roles or newly gives a role that is Administrator or grants screen 4 or 6.
func mayGrantRoles(ctx context.Context, q querier, userID int64, roleIDs []int64) error {
	actor := engine.ActorFrom(ctx).UserID
	if userID == actor {
		return engine.Forbidden("You cannot change your own roles; ask another administrator.").With("auth.ownRoles")
	}
	if self, err := holdsAdmin(ctx, q, actor); err != nil || self {
		return err
	}
	if err := mayEditUser(ctx, q, userID); err != nil {
		return err
	}
	var powerful bool
	err := q.QueryRow(ctx, `select exists (select 1 from role r where r.id = any($1)
			and not exists (select 1 from user_role ur where ur.user_id = $2 and ur.role_id = r.id)
			and (r.is_admin or exists (select 1 from role_screen rs where rs.role_id = r.id and rs.screen_id = any($3))))`,
		roleIDs, userID, []int{screenids.UserEdit, screenids.RoleEdit}).Scan(&powerful)
	if err != nil {
		return err
	}
	if powerful {
		return adminOnly("give the Administrator role or a role granting screens 4 or 6")
	}
	// A delegated administrator gives only what they hold themselves.
	var beyond []int
	err = q.QueryRow(ctx, `select coalesce(array_agg(distinct rs.screen_id order by rs.screen_id), '{}')
		from role_screen rs where rs.role_id = any($1) and rs.screen_id not in (
			select mine.screen_id from user_role me join role_screen mine on mine.role_id = me.role_id where me.user_id = $2)`,
		roleIDs, actor).Scan(&beyond)
	if err != nil || len(beyond) == 0 {
		return err
	}
	return engine.Forbidden("You may give only roles whose screens you hold yourself; these also grant screens %v.", beyond).
		With("auth.beyondOwnScreens", "screens", beyond)
}

// mayEditRole refuses a non-Administrator changing the Administrator role.
func mayEditRole(ctx context.Context, q querier, role *Role) error {
	if !role.IsAdmin {
		return nil
	}
	if self, err := holdsAdmin(ctx, q, engine.ActorFrom(ctx).UserID); err != nil || self {
		return err
	}
	return adminOnly("change the Administrator role")
}

// mayChangeWriteOffLimit refuses a change of the write-off limit of a role
// the actor holds, unless they are an Administrator: nobody raises what
// they may write off themselves.
func mayChangeWriteOffLimit(ctx context.Context, q querier, role *Role, limit *string) error {
	var same bool
	if err := q.QueryRow(ctx, `select $1::numeric is not distinct from $2::numeric`, role.WriteOffLimit, limit).Scan(&same); err != nil || same {
		return err
	}
	actor := engine.ActorFrom(ctx).UserID
	var own bool
	if err := q.QueryRow(ctx, `select exists (select 1 from user_role where user_id = $1 and role_id = $2)`, actor, role.ID).Scan(&own); err != nil || !own {
		return err
	}
	if admin, err := holdsAdmin(ctx, q, actor); err != nil || admin {
		return err
	}
	return engine.Forbidden("You hold this role: another user changes its write-off limit.").With("roles.ownWriteOffLimit")
}

// mayGrantScreens checks a change of role's screens to screenIDs: nobody
// changes the screens of a role they hold, and only an Administrator newly
// grants screen 4 or 6.
func mayGrantScreens(ctx context.Context, q querier, roleID int64, screenIDs []int) error {
	actor := engine.ActorFrom(ctx).UserID
	var own, powerful bool
	err := q.QueryRow(ctx, `select exists (select 1 from user_role where user_id = $1 and role_id = $2),
		exists (select 1 from unnest($3::int[]) s(id) where s.id = any($4)
			and not exists (select 1 from role_screen rs where rs.role_id = $2 and rs.screen_id = s.id))`,
		actor, roleID, screenIDs, []int{screenids.UserEdit, screenids.RoleEdit}).Scan(&own, &powerful)
	if err != nil {
		return err
	}
	if own {
		return engine.Forbidden("You cannot change the screens of a role you hold; ask another administrator.").With("auth.ownRoleScreens")
	}
	if !powerful {
		return nil
	}
	if self, err := holdsAdmin(ctx, q, actor); err != nil || self {
		return err
	}
	return adminOnly("grant screens 4 (user add/edit) or 6 (role add/edit)")
}
