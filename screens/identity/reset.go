package identity

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"ledgerdesk/engine"
	"ledgerdesk/internal/mail"
)

// ForgotPassword sends a reset code to the email when it belongs to an
// active user. It answers after checking the address's form only: the lookup
// and the mail run after the answer, so neither its content nor its time
// tells whether the address is known.
func (s *Service) ForgotPassword(ctx context.Context, email string) error {
	email = strings.TrimSpace(email)
	if email == "" {
		return engine.Invalid("email", "Email is required.")
	}
	if !validEmail(email) {
		return engine.Invalid("email", "Email is not a valid email address.")
	}
	// The lookup and the mail happen after the answer: its time and content
	// are the same whether the address is known or not.
	select {
	case s.background <- struct{}{}:
		go func() {
			defer func() { <-s.background }()
			if err := s.sendResetCode(context.WithoutCancel(ctx), email); err != nil && s.log != nil {
				s.log.Error("forgot-password", "err", err)
			}
		}()
	default:
		if s.log != nil {
			s.log.Warn("forgot-password: too many requests at once; this one is dropped")
		}
	}
	return nil
}

// backgroundJobs bounds the forgot-password requests worked on at once;
// beyond it (a flood) requests are dropped, with the same answer.
const backgroundJobs = 32

// sendResetCode issues and mails a reset code when email belongs to an
// active user (at most resetCodesPerHour an hour).
func (s *Service) sendResetCode(ctx context.Context, email string) error {
	var userID int64
	var username string
	err := s.pool.QueryRow(ctx, `select id, username from app_user where lower(email) = lower($1) and is_active`, email).Scan(&userID, &username)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	var code string
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		var recent int
		if err := tx.QueryRow(ctx, `select count(*) from one_time_code where user_id = $1 and purpose = 'reset' and created_on > $2`,
			userID, s.now().Add(-time.Hour)).Scan(&recent); err != nil {
			return err
		}
		if recent >= resetCodesPerHour {
			return nil // quietly: the answer must not differ for a known address
		}
		var err error
		if _, code, err = s.issueCode(ctx, tx, userID, "reset", mail.Email); err != nil {
			return err
		}
		return engine.Audit(ctx, tx, engine.AuditEntry{Action: "password.reset_requested", Entity: "user", EntityID: fmt.Sprint(userID), Actor: username})
	})
	if err != nil || code == "" {
		return err
	}
	s.mail.Send(mail.Message{Channel: mail.Email, To: email, Subject: "Your Ledgerdesk password reset code",
		Body: fmt.Sprintf("Your Ledgerdesk password reset code is %s.\n\nIt is valid for %d minutes and can be used once. If you did not ask to reset your password, ignore this message.\n",
			code, int(codeTTL.Minutes()))})
	return nil
}

// errBadResetCode does not tell a wrong code from an expired one or an
// unknown email: that would tell a stranger which emails have accounts.
var errBadResetCode = engine.Invalid("code", "The reset code is wrong or no longer valid: check it, or request a new code (codes expire after %d minutes).",
	int(codeTTL.Minutes())).With("reset.badCode", "minutes", int(codeTTL.Minutes()))

// ResetPassword sets a new password with a code sent by ForgotPassword. The
// newest live code of the user is tried; five wrong tries kill it. Success
// ends every session of the user. Two-factor stays on: a reset does not
// bypass it.
func (s *Service) ResetPassword(ctx context.Context, email, code, newPassword string, from Client) error {
	email, code = strings.TrimSpace(email), strings.TrimSpace(code)
	switch {
	case email == "":
		return engine.Invalid("email", "Email is required.")
	case code == "":
		return engine.Invalid("code", "Reset code is required.").With("reset.codeRequired")
	case newPassword == "":
		return engine.Invalid("newPassword", "New password is required.").With("reset.passwordRequired")
	}
	if e := PasswordError("newPassword", "New password", newPassword); e != nil {
		return e
	}
	try, err := s.codeTry(ctx, "reset", email, from.IP)
	if err != nil {
		return err
	}
	var ok bool
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		if len(code) != 6 || strings.Trim(code, "0123456789") != "" {
			return nil
		}
		var userID int64
		var codeID, username string
		err := tx.QueryRow(ctx, `select c.id, u.id, u.username from one_time_code c join app_user u on u.id = c.user_id
			where lower(u.email) = lower($1) and u.is_active and c.purpose = 'reset' and c.used_at is null and c.expires_at > $2 and c.attempts < $3
			order by c.created_on desc limit 1`, email, s.now(), codeMaxTries).Scan(&codeID, &userID, &username)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		if _, ok, err = s.spendCode(ctx, tx, codeID, "reset", code); err != nil || !ok {
			return err
		}
		if err := s.codeRight(ctx, tx, try); err != nil {
			return err
		}
		// Hashed only once the code is right: a wrong code costs no hash. Busy
		// hashing rolls the try back, so the code stays usable.
		hash, err := s.hash(ctx, newPassword)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `update app_user set password_hash = $2, updated_on = $3, updated_by = $4, sign_in_cleared_at = $3 where id = $1`,
			userID, hash, s.now(), username); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `update one_time_code set used_at = $2 where user_id = $1 and purpose = 'reset' and used_at is null`, userID, s.now()); err != nil {
			return err
		}
		if err := s.revokeSessions(ctx, tx, userID); err != nil {
			return err
		}
		return engine.Audit(ctx, tx, engine.AuditEntry{Action: "password.reset", Entity: "user", EntityID: fmt.Sprint(userID), Actor: username,
			After: map[string]bool{"passwordChanged": true}})
	})
	if err != nil {
		return err
	}
	if !ok {
		return errBadResetCode
	}
	return nil
}
