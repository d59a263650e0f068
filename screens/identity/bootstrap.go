package identity

import (
	"context"
	"crypto/rand"
	"math/big"

	"github.com/jackc/pgx/v5"

	"ledgerdesk/engine"
)

// FirstAdmin is the administrator made at first start.
type FirstAdmin struct {
	Username string
	Password string // only when generated: printed once, stored nowhere in clear
	Created  bool
}

// EnsureAdmin makes the built-in Administrator role and, when there is no
// user at all, the first admin user holding it. password is
// LEDGERDESK_ADMIN_PASSWORD; empty means generate one. Several instances
// starting at once make one admin (an advisory lock orders them).
func (s *Service) EnsureAdmin(ctx context.Context, password string) (*FirstAdmin, error) {
	out := &FirstAdmin{Username: firstAdminUsername}
	if password != "" {
		if msg := ValidatePassword(password); msg != "" {
			return nil, engine.Invalid("LEDGERDESK_ADMIN_PASSWORD", "LEDGERDESK_ADMIN_PASSWORD %s.", msg)
		}
	}
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `select pg_advisory_xact_lock(7310001)`); err != nil {
			return err
		}
		var roleID int64
		err := tx.QueryRow(ctx, `insert into role (role_name, description, is_admin) values ($1, 'Built-in role: every screen', true)
			on conflict (is_admin) where is_admin do update set is_admin = true returning id`, adminRoleName).Scan(&roleID)
		if err != nil {
			return err
		}
		var users int
		if err := tx.QueryRow(ctx, `select count(*) from app_user`).Scan(&users); err != nil || users > 0 {
			return err
		}
		if password == "" {
			out.Password = generatePassword()
			password = out.Password
		}
		hash, err := HashPassword(password)
		if err != nil {
			return err
		}
		var userID int64
		err = tx.QueryRow(ctx, `insert into app_user (username, first_name, last_name, email, password_hash)
			values ($1, 'System', 'Administrator', 'admin@ledgerdesk.local', $2) returning id`, firstAdminUsername, hash).Scan(&userID)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `insert into user_role (user_id, role_id) values ($1, $2)`, userID, roleID); err != nil {
			return err
		}
		out.Created = true
		return engine.Audit(ctx, tx, engine.AuditEntry{Action: "user.create", Entity: "user", Actor: "system",
			After: map[string]any{"username": firstAdminUsername, "roles": []string{adminRoleName}, "firstAdmin": true}})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// generatePassword returns 16 random characters that meet the password
// rules (a letter of each case, a digit and a special character, 8 to 20 long).
// Its special characters are those of the rules a shell leaves alone, so the
// password printed at the first start pastes into a command line as it is
// (no $, !, &, * or quotes).
func generatePassword() string {
	const (
		upper   = "ABCDEFGHJKLMNPQRSTUVWXYZ"
		lower   = "abcdefghijkmnopqrstuvwxyz"
		digits  = "23456789"
		special = "@%,.:"
		all     = upper + lower + digits + special
	)
	pick := func(set string) byte {
		n, _ := rand.Int(rand.Reader, big.NewInt(int64(len(set))))
		return set[n.Int64()]
	}
	b := []byte{pick(upper), pick(lower), pick(digits), pick(special)}
	for len(b) < 16 {
		b = append(b, pick(all))
	}
	for i := len(b) - 1; i > 0; i-- { // shuffle so the classes are not in a fixed place
		n, _ := rand.Int(rand.Reader, big.NewInt(int64(i+1)))
		j := n.Int64()
		b[i], b[j] = b[j], b[i]
	}
	return string(b)
}
