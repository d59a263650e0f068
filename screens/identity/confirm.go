package identity

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"ledgerdesk/engine"
	"ledgerdesk/internal/mail"
)

// Proof is what a signed-in user sends to show it is really them before a
// change that a stolen token must not make: a new email, a new password,
// two-factor off. A two-factor user adds a code from SendConfirmCode.
type Proof struct {
	CurrentPassword string `json:"currentPassword"`
	ChallengeID     string `json:"challengeId"`
	Code            string `json:"code"`
}

// ConfirmChallenge is the answer to SendConfirmCode.
type ConfirmChallenge struct {
	ChallengeID string `json:"challengeId"`
	Channel     string `json:"channel"`
}

// SendConfirmCode sends the caller a code on their two-factor channel, for
// a Proof.
func (s *Service) SendConfirmCode(ctx context.Context) (*ConfirmChallenge, error) {
	a := engine.ActorFrom(ctx)
	var twoFA bool
	var factor int
	var email, mobile string
	if err := s.pool.QueryRow(ctx, `select enable_two_factor, two_factor_type, email, coalesce(mobile_number, '') from app_user where id = $1`,
		a.UserID).Scan(&twoFA, &factor, &email, &mobile); err != nil {
		return nil, err
	}
	if !twoFA {
		return nil, engine.Invalid("", "Two-factor sign-in is off for your account: your current password is enough.").With("auth.noTwoFactor")
	}
	channel, to := mail.Email, email
	if factor == 2 {
		channel, to = mail.Mobile, mobile
	}
	var id, code string
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var issued int
		if err := tx.QueryRow(ctx, `select count(*) from one_time_code where user_id = $1 and purpose = 'confirm' and created_on > $2`,
			a.UserID, s.now().Add(-time.Hour)).Scan(&issued); err != nil {
			return err
		}
		if issued >= loginCodesPerHour {
			return rateLimited("Too many codes were requested for this account. Try again later.", time.Hour).With("auth.codesLimited")
		}
		var err error
		id, code, err = s.issueCode(ctx, tx, a.UserID, "confirm", channel)
		return err
	})
	if err != nil {
		return nil, err
	}
	s.mail.Send(mail.Message{Channel: channel, To: to, Subject: "Your Ledgerdesk confirmation code",
		Body: fmt.Sprintf("Your Ledgerdesk confirmation code is %s.\n\nIt is valid for %d minutes. If you did not ask for it, change your password.\n", code, int(codeTTL.Minutes()))})
	return &ConfirmChallenge{ChallengeID: id, Channel: channel}, nil
}

// confirm checks a Proof for the calling user: the current password (its
// failures count as failed sign-ins, so guessing is throttled the same way)
// and, when needCode, a confirmation code.
func (s *Service) confirm(ctx context.Context, p Proof, needCode bool) error {
	a := engine.ActorFrom(ctx)
	if p.CurrentPassword == "" {
		return engine.Invalid("currentPassword", "Enter your current password to make this change.").With("auth.currentPasswordRequired")
	}
	var username, hash string
	if err := s.pool.QueryRow(ctx, `select username, password_hash from app_user where id = $1`, a.UserID).Scan(&username, &hash); err != nil {
		return err
	}
	attempt, err := s.admit(ctx, username, a.IP)
	if err != nil {
		return err
	}
	match, err := s.verify(ctx, hash, p.CurrentPassword)
	if err != nil || !match {
		if err == nil {
			err = engine.Invalid("currentPassword", "The current password is not right.").With("auth.wrongCurrentPassword")
		}
		return err
	}
	if _, err := s.pool.Exec(ctx, `delete from login_attempt where id = $1`, attempt); err != nil {
		return err
	}
	if !needCode {
		return nil
	}
	code := strings.TrimSpace(p.Code)
	if p.ChallengeID == "" || code == "" {
		return engine.Invalid("code", "Enter the code sent to you: two-factor sign-in is on for your account.").With("auth.codeRequired")
	}
	try, err := s.codeTry(ctx, "verify", username, a.IP)
	if err != nil {
		return err
	}
	var owner int64
	ok := false
	if _, perr := uuid.Parse(p.ChallengeID); perr == nil && len(code) == 6 {
		err = s.inTx(ctx, func(tx pgx.Tx) error {
			var err error
			owner, ok, err = s.spendCode(ctx, tx, p.ChallengeID, "confirm", code)
			return err
		})
		if err != nil {
			return err
		}
	}
	if !ok || owner != a.UserID {
		return engine.Invalid("code", "The code is invalid or has expired.").With("auth.badCode")
	}
	return s.codeRight(ctx, s.pool, try)
}

// tellOldAddress mails the address an account had that it has changed, so
// a takeover does not go unnoticed.
func (s *Service) tellOldAddress(username, oldEmail, newEmail string) {
	s.mail.Send(mail.Message{Channel: mail.Email, To: oldEmail, Subject: "Your Ledgerdesk email address was changed",
		Body: fmt.Sprintf("The email address of the Ledgerdesk account %s was changed from %s to %s.\n\nPassword resets and sign-in codes now go to the new address. If you did not make this change, tell your administrator at once.\n",
			username, oldEmail, newEmail)})
}
