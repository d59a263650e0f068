package identity

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"ledgerdesk/engine"
)

// Profile is a user's own view of themselves (spec 01 section 3, UserProfile).
type Profile struct {
	UserID       int64   `json:"userId"`
	ID           int64   `json:"id"`
	Username     string  `json:"username"`
	FirstName    string  `json:"firstName"`
	LastName     string  `json:"lastName"`
	Email        string  `json:"email"`
	MobileNumber string  `json:"mobileNumber"`
	DateOfBirth  *string `json:"dateOfBirth"`
	DateFormat   string  `json:"dateFormat"`
	LanguageCode string  `json:"languageCode"`
	// EnableTwoFactor tells the profile dialog that an email change needs a
	// code; the profile cannot change it.
	EnableTwoFactor bool `json:"enableTwoFactor"`
	// DailyDigest: the user gets the daily email of alerts and overdue
	// items (screens/intake), each only what their screens permit.
	DailyDigest bool `json:"dailyDigest"`
}

func (s *Service) profile(ctx context.Context, userID int64) (*Profile, error) {
	var p Profile
	var dob *time.Time
	err := s.pool.QueryRow(ctx, `select id, username, first_name, last_name, email, coalesce(mobile_number, ''), date_of_birth, date_format, language_code,
		enable_two_factor, daily_digest from app_user where id = $1`, userID).
		Scan(&p.UserID, &p.Username, &p.FirstName, &p.LastName, &p.Email, &p.MobileNumber, &dob, &p.DateFormat, &p.LanguageCode, &p.EnableTwoFactor,
			&p.DailyDigest)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, engine.NotFound("User %d not found.", userID)
	}
	if err != nil {
		return nil, err
	}
	p.ID = p.UserID
	p.DateOfBirth = dateString(dob)
	return &p, nil
}

// GetProfile returns the caller's own profile.
func (s *Service) GetProfile(ctx context.Context) (*Profile, error) {
	return s.profile(ctx, engine.ActorFrom(ctx).UserID)
}

// ProfileInput is what the profile dialog may change. The username is not
// among it: it cannot be edited.
type ProfileInput struct {
	UserID int64 `json:"userId"`
	personFields
	// NewPassword, when set, changes the caller's password.
	NewPassword string `json:"newPassword"`
	// Proof is needed for a new email or a new password.
	Proof
	// DailyDigest, when given, turns the daily digest on or off.
	DailyDigest *bool `json:"dailyDigest"`
}

// UpdateProfile changes the caller's own profile. A userId naming someone
// else is refused: the profile is only ever the caller's.
func (s *Service) UpdateProfile(ctx context.Context, in ProfileInput) (*Profile, error) {
	a := engine.ActorFrom(ctx)
	if in.UserID != 0 && in.UserID != a.UserID {
		return nil, engine.Forbidden("You can only change your own profile.")
	}
	dob, err := in.clean(s.now())
	if err != nil {
		return nil, err
	}
	if in.NewPassword != "" {
		if msg := ValidatePassword(in.NewPassword); msg != "" {
			return nil, engine.Invalid("newPassword", "New password %s.", msg)
		}
	}
	before, err := s.profile(ctx, a.UserID)
	if err != nil {
		return nil, err
	}
	emailChanged := !strings.EqualFold(in.Email, before.Email)
	var hash *string
	if emailChanged || in.NewPassword != "" {
		// A stolen token alone must not move where codes go or lock the owner out.
		if err := s.confirm(ctx, in.Proof, emailChanged && before.EnableTwoFactor); err != nil {
			return nil, err
		}
	}
	if in.NewPassword != "" {
		h, err := s.hash(ctx, in.NewPassword)
		if err != nil {
			return nil, err
		}
		hash = &h
	}
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `update app_user set first_name = $2, last_name = $3, email = $4, mobile_number = nullif($5, ''),
			date_of_birth = $6, date_format = $7, language_code = $8, updated_on = $9, updated_by = $10,
			password_hash = coalesce($11, password_hash), daily_digest = coalesce($12, daily_digest) where id = $1`,
			a.UserID, in.FirstName, in.LastName, in.Email, in.MobileNumber, dob, in.DateFormat, in.LanguageCode, s.now(), a.Username, hash,
			in.DailyDigest)
		if err != nil {
			return duplicate(err)
		}
		if hash != nil { // the other sessions end; this one goes on
			if _, err := tx.Exec(ctx, `update auth_session set revoked_at = $3 where user_id = $1 and id <> $2 and revoked_at is null`,
				a.UserID, a.SessionID, s.now()); err != nil {
				return err
			}
		}
		after := *before
		after.FirstName, after.LastName, after.Email, after.MobileNumber = in.FirstName, in.LastName, in.Email, in.MobileNumber
		after.DateOfBirth, after.DateFormat, after.LanguageCode = dateString(dob), in.DateFormat, in.LanguageCode
		if in.DailyDigest != nil {
			after.DailyDigest = *in.DailyDigest
		}
		audited := struct {
			Profile
			PasswordChanged bool `json:"passwordChanged,omitempty"`
		}{after, hash != nil}
		return engine.Audit(ctx, tx, engine.AuditEntry{Action: "profile.update", Entity: "user", EntityID: fmt.Sprint(a.UserID), Before: before, After: audited})
	})
	if err != nil {
		return nil, err
	}
	if emailChanged {
		s.tellOldAddress(before.Username, before.Email, in.Email)
	}
	return s.profile(ctx, a.UserID)
}

func dateString(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := t.Format("2006-01-02")
	return &s
}

// duplicate names the field behind a unique violation, with a message for the user.
func duplicate(err error) error {
	var pg *pgconn.PgError
	if !errors.As(err, &pg) || pg.Code != "23505" {
		return err
	}
	switch pg.ConstraintName {
	case "app_user_username_key":
		return &engine.Error{Code: engine.CodeConflict, Field: "username", Message: "This username is already taken.", Err: err, Key: "users.usernameTaken"}
	case "app_user_email_key":
		return &engine.Error{Code: engine.CodeConflict, Field: "email", Message: "Another user already has this email address.", Err: err, Key: "users.emailTaken"}
	case "role_name_key":
		return &engine.Error{Code: engine.CodeConflict, Field: "roleName", Message: "A role with this name already exists.", Err: err, Key: "roles.nameTaken"}
	}
	return err
}
