package identity

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"ledgerdesk/engine"
)

// User is a user as the administration screens see it. The password hash
// never leaves the package.
type User struct {
	ID              int64     `json:"id"`
	UserID          int64     `json:"userId"`
	Username        string    `json:"username"`
	FirstName       string    `json:"firstName"`
	LastName        string    `json:"lastName"`
	Email           string    `json:"email"`
	MobileNumber    string    `json:"mobileNumber"`
	DateOfBirth     *string   `json:"dateOfBirth"`
	DateFormat      string    `json:"dateFormat"`
	LanguageCode    string    `json:"languageCode"`
	EnableTwoFactor bool      `json:"enableTwoFactor"`
	TwoFactorType   int       `json:"twoFactorType"`
	IsActive        bool      `json:"isActive"`
	CreatedOn       time.Time `json:"createdOn"`
	CreatedBy       string    `json:"createdBy"`
	// Version is when the user was last changed: an update sends the one
	// it read, and a user changed since is not overwritten.
	Version time.Time `json:"version"`
}

// UserInput is every field the user form may write, and nothing else: other
// fields in a request body are ignored (no mass assignment).
type UserInput struct {
	Username string `json:"username"`
	personFields
	Password        string `json:"password"`
	ChangePassword  bool   `json:"changePassword"`
	NewPassword     string `json:"newPassword"`
	EnableTwoFactor bool   `json:"enableTwoFactor"`
	TwoFactorType   int    `json:"twoFactorType"`
	IsActive        *bool  `json:"isActive"`
	Version         any    `json:"version"` // the user's version as read (updates only)
	// Proof is needed when users change their own email, password or turn
	// their own two-factor off through the user form.
	Proof
}

const userColumns = `id, id, username, first_name, last_name, email, coalesce(mobile_number, ''), date_of_birth,
	date_format, language_code, enable_two_factor, two_factor_type, is_active, created_on, created_by, updated_on`

func scanUser(row pgx.Row) (*User, error) {
	var u User
	var dob *time.Time
	err := row.Scan(&u.ID, &u.UserID, &u.Username, &u.FirstName, &u.LastName, &u.Email, &u.MobileNumber, &dob,
		&u.DateFormat, &u.LanguageCode, &u.EnableTwoFactor, &u.TwoFactorType, &u.IsActive, &u.CreatedOn, &u.CreatedBy, &u.Version)
	u.DateOfBirth = dateString(dob)
	return &u, err
}

// ListUsers returns every user, newest first.
func (s *Service) ListUsers(ctx context.Context) ([]*User, error) {
	rows, err := s.pool.Query(ctx, `select `+userColumns+` from app_user order by id desc`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	users := []*User{}
	for rows.Next() {
		u, err := scanUser(rows)
		if err != nil {
			return nil, err
		}
		users = append(users, u)
	}
	return users, rows.Err()
}

// GetUser returns one user.
func (s *Service) GetUser(ctx context.Context, id int64) (*User, error) {
	return s.getUser(ctx, s.pool, id, false)
}

// querier is a pool or a transaction.
type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

func (s *Service) getUser(ctx context.Context, q querier, id int64, lock bool) (*User, error) {
	query := `select ` + userColumns + ` from app_user where id = $1`
	if lock {
		query += ` for update`
	}
	u, err := scanUser(q.QueryRow(ctx, query, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, engine.NotFound("User %d not found.", id).With("users.notFound", "id", id)
	}
	return u, err
}

// clean checks the user form's rules (spec 01 section 5) and settles the
// two-factor pair: off means type None, on with None means Email.
func (in *UserInput) clean(creating bool, today time.Time) (*time.Time, error) {
	in.Username = strings.TrimSpace(in.Username)
	if in.Username == "" {
		return nil, engine.Invalid("username", "Username is required.")
	}
	if !usernamePattern.MatchString(in.Username) {
		return nil, engine.Invalid("username", "Username must be 3 to 50 letters, digits or . _ @ -.")
	}
	dob, err := in.personFields.clean(today)
	if err != nil {
		return nil, err
	}
	if creating {
		if in.Password == "" {
			return nil, engine.Invalid("password", "Password is required.")
		}
		if e := PasswordError("password", "Password", in.Password); e != nil {
			return nil, e
		}
	} else if in.ChangePassword {
		if in.NewPassword == "" {
			return nil, engine.Invalid("newPassword", "New password is required.")
		}
		if e := PasswordError("newPassword", "New password", in.NewPassword); e != nil {
			return nil, e
		}
	}
	if in.TwoFactorType < 0 || in.TwoFactorType > 2 {
		return nil, engine.Invalid("twoFactorType", "Two-factor type must be 0 (None), 1 (Email) or 2 (Mobile).")
	}
	switch {
	case !in.EnableTwoFactor:
		in.TwoFactorType = 0
	case in.TwoFactorType == 0:
		in.TwoFactorType = 1
	}
	if in.TwoFactorType == 2 && in.MobileNumber == "" {
		return nil, engine.Invalid("mobileNumber", "A mobile number is needed for two-factor codes by mobile.")
	}
	return dob, nil
}

// CreateUser adds a user. Roles are set separately (SetUserRoles), as the
// user form does after creating.
func (s *Service) CreateUser(ctx context.Context, in UserInput) (*User, error) {
	dob, err := in.clean(true, s.now())
	if err != nil {
		return nil, err
	}
	hash, err := s.hash(ctx, in.Password)
	if err != nil {
		return nil, err
	}
	active := in.IsActive == nil || *in.IsActive
	actor := engine.ActorFrom(ctx).Username
	var u *User
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		var id int64
		err := tx.QueryRow(ctx, `insert into app_user (username, first_name, last_name, email, mobile_number, date_of_birth, date_format,
			language_code, enable_two_factor, two_factor_type, password_hash, is_active, created_on, created_by, updated_on, updated_by)
			values ($1, $2, $3, $4, nullif($5, ''), $6, $7, $8, $9, $10, $11, $12, $13, $14, $13, $14) returning id`,
			in.Username, in.FirstName, in.LastName, in.Email, in.MobileNumber, dob, in.DateFormat, in.LanguageCode,
			in.EnableTwoFactor, in.TwoFactorType, hash, active, s.now(), actor).Scan(&id)
		if err != nil {
			return duplicate(err)
		}
		if u, err = s.getUser(ctx, tx, id, false); err != nil {
			return err
		}
		return engine.Audit(ctx, tx, engine.AuditEntry{Action: "user.create", Entity: "user", EntityID: fmt.Sprint(id), After: u})
	})
	return u, err
}

// UpdateUser changes a user. A password change, or disabling the user, ends
// the user's sessions at once.
func (s *Service) UpdateUser(ctx context.Context, id int64, in UserInput) (*User, error) {
	dob, err := in.clean(false, s.now())
	if err != nil {
		return nil, err
	}
	var hash *string
	if in.ChangePassword {
		h, err := s.hash(ctx, in.NewPassword)
		if err != nil {
			return nil, err
		}
		hash = &h
	}
	a := engine.ActorFrom(ctx)
	var after *User
	var emailChanged bool
	var oldEmail string
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		before, err := s.getUser(ctx, tx, id, true)
		if err != nil {
			return err
		}
		if err := mayEditUser(ctx, tx, id); err != nil {
			return err
		}
		if err := engine.CheckVersion(before.Version, in.Version); err != nil {
			return err
		}
		emailChanged = !strings.EqualFold(before.Email, in.Email)
		if id == a.UserID && (emailChanged || hash != nil || before.EnableTwoFactor && !in.EnableTwoFactor) {
			if err := s.confirm(ctx, in.Proof, before.EnableTwoFactor && (emailChanged || !in.EnableTwoFactor)); err != nil {
				return err
			}
		}
		oldEmail = before.Email
		active := before.IsActive
		if in.IsActive != nil {
			active = *in.IsActive
		}
		if !active && id == a.UserID {
			return engine.Invalid("isActive", "You cannot disable your own account.")
		}
		_, err = tx.Exec(ctx, `update app_user set username = $2, first_name = $3, last_name = $4, email = $5, mobile_number = nullif($6, ''),
			date_of_birth = $7, date_format = $8, language_code = $9, enable_two_factor = $10, two_factor_type = $11,
			password_hash = coalesce($12, password_hash), is_active = $13, updated_on = $14, updated_by = $15 where id = $1`,
			id, in.Username, in.FirstName, in.LastName, in.Email, in.MobileNumber, dob, in.DateFormat, in.LanguageCode,
			in.EnableTwoFactor, in.TwoFactorType, hash, active, s.now(), a.Username)
		if err != nil {
			return duplicate(err)
		}
		if hash != nil { // an administrator's password reset also unlocks the account
			if _, err := tx.Exec(ctx, `update app_user set sign_in_cleared_at = $2 where id = $1`, id, s.now()); err != nil {
				return err
			}
		}
		if hash != nil || (before.IsActive && !active) {
			if err := s.revokeSessions(ctx, tx, id); err != nil {
				return err
			}
		}
		if before.IsActive && !active {
			if err := s.keepAnAdmin(ctx, tx); err != nil {
				return err
			}
		}
		if after, err = s.getUser(ctx, tx, id, false); err != nil {
			return err
		}
		audited := struct {
			*User
			PasswordChanged bool `json:"passwordChanged,omitempty"`
		}{after, hash != nil}
		return engine.Audit(ctx, tx, engine.AuditEntry{Action: "user.update", Entity: "user", EntityID: fmt.Sprint(id), Before: before, After: audited})
	})
	if err == nil && emailChanged {
		s.tellOldAddress(after.Username, oldEmail, after.Email)
	}
	return after, err
}

// UserRoles lists the roles a user holds.
func (s *Service) UserRoles(ctx context.Context, id int64) ([]RoleRef, error) {
	if _, err := s.GetUser(ctx, id); err != nil {
		return nil, err
	}
	return s.userRoles(ctx, id)
}

// SetUserRoles replaces the roles of a user. At least one active user must
// keep the Administrator role, so nobody can lock everyone out.
func (s *Service) SetUserRoles(ctx context.Context, id int64, roleIDs []int64) ([]RoleRef, error) {
	roleIDs = uniqueIDs(roleIDs)
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := s.getUser(ctx, tx, id, true); err != nil {
			return err
		}
		if err := mayGrantRoles(ctx, tx, id, roleIDs); err != nil {
			return err
		}
		before, err := replaceLinks(ctx, tx, userRoles, id, roleIDs)
		if err != nil {
			return err
		}
		if err := s.keepAnAdmin(ctx, tx); err != nil {
			return err
		}
		return engine.Audit(ctx, tx, engine.AuditEntry{Action: "user.roles", Entity: "user", EntityID: fmt.Sprint(id),
			Before: map[string]any{"roleIds": before}, After: map[string]any{"roleIds": roleIDs}})
	})
	if err != nil {
		return nil, err
	}
	return s.userRoles(ctx, id)
}

// UserOption is an entry of the user dropdowns (task assignee and the like).
type UserOption struct {
	ID        int64  `json:"id"`
	UserID    int64  `json:"userId"` // the same id, as spec 03 section 3.5 names it
	Username  string `json:"username"`
	FirstName string `json:"firstName"`
	LastName  string `json:"lastName"`
	Email     string `json:"email,omitempty"` // only for those who administer users
}

// UserOptions lists the active users for dropdowns.
func (s *Service) UserOptions(ctx context.Context) ([]UserOption, error) {
	rows, err := s.pool.Query(ctx, `select id, id, username, first_name, last_name, email from app_user where is_active order by first_name, last_name, username`)
	if err != nil {
		return nil, err
	}
	opts, err := pgx.CollectRows(rows, pgx.RowToStructByPos[UserOption])
	if opts == nil {
		opts = []UserOption{}
	}
	return opts, err
}

func (s *Service) keepAnAdmin(ctx context.Context, tx pgx.Tx) error {
	var admins int
	err := tx.QueryRow(ctx, `select count(*) from app_user u join user_role ur on ur.user_id = u.id join role r on r.id = ur.role_id
		where r.is_admin and u.is_active`).Scan(&admins)
	if err != nil {
		return err
	}
	if admins == 0 {
		return engine.Conflict("At least one active user must keep the Administrator role.").With("users.lastAdmin")
	}
	return nil
}

// links is a many-to-many table: an owner's rows pointing at targets.
type links struct {
	table, owner, target string // the link table and its two columns
	targets              string // the table the targets live in
	field                string // the request field that names the targets
	arrayType            string // the SQL array type of the ids
}

var (
	userRoles   = links{"user_role", "user_id", "role_id", "role", "roleIds", "bigint[]"}
	roleScreens = links{"role_screen", "role_id", "screen_id", "web_screen", "screenIds", "int[]"}
)

// replaceLinks sets the owner's targets to ids, after checking that every
// one exists, and returns the ones it had before (for the audit row).
func replaceLinks[T int | int64](ctx context.Context, tx pgx.Tx, l links, owner int64, ids []T) ([]T, error) {
	var known int
	if err := tx.QueryRow(ctx, `select count(*) from `+l.targets+` where id = any($1)`, ids).Scan(&known); err != nil {
		return nil, err
	}
	if known != len(ids) {
		return nil, engine.Invalid(l.field, "%s names an id that does not exist.", l.field)
	}
	rows, err := tx.Query(ctx, `select `+l.target+` from `+l.table+` where `+l.owner+` = $1 order by 1`, owner)
	if err != nil {
		return nil, err
	}
	before, err := pgx.CollectRows(rows, pgx.RowTo[T])
	if err != nil {
		return nil, err
	}
	if _, err := tx.Exec(ctx, `delete from `+l.table+` where `+l.owner+` = $1`, owner); err != nil {
		return nil, err
	}
	_, err = tx.Exec(ctx, `insert into `+l.table+` (`+l.owner+`, `+l.target+`) select $1, unnest($2::`+l.arrayType+`)`, owner, ids)
	return before, err
}

func uniqueIDs[T comparable](ids []T) []T {
	seen := map[T]bool{}
	out := make([]T, 0, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}
