package identity

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"ledgerdesk/engine"
	"ledgerdesk/internal/mail"
)

// LoginResult is the answer to a sign-in: a session, or a second-factor
// challenge to answer through VerifyLogin.
type LoginResult struct {
	Token             string     `json:"token,omitempty"`
	ExpiresAt         *time.Time `json:"expiresAt,omitempty"`
	User              *Profile   `json:"user,omitempty"`
	ScreenIDs         []int      `json:"screenIds,omitempty"`
	Roles             []RoleRef  `json:"roles,omitempty"`
	TwoFactorRequired bool       `json:"twoFactorRequired,omitempty"`
	ChallengeID       string     `json:"challengeId,omitempty"`
	Channel           string     `json:"channel,omitempty"`
}

// RoleRef names a role a user holds.
type RoleRef struct {
	ID       int64  `json:"id"`
	RoleID   int64  `json:"roleId"`
	RoleName string `json:"roleName"`
}

// Client is where a request comes from, for throttling and session records.
type Client struct {
	IP        string
	UserAgent string
}

var errBadLogin = engine.Unauthorized("Invalid username or password.").With("auth.badLogin")

// Login checks a username and password. Unknown users, wrong passwords and
// disabled accounts get the same answer in about the same time. Failures are
// throttled per account (back-off after a few, at most accountFailsHour an
// hour) and per address.
func (s *Service) Login(ctx context.Context, username, password string, from Client) (*LoginResult, error) {
	username = strings.TrimSpace(username)
	switch {
	case username == "":
		return nil, engine.Invalid("username", "Username is required.")
	case password == "":
		return nil, engine.Invalid("password", "Password is required.")
	case len(username) > 254 || len(password) > 256:
		return nil, errBadLogin
	}
	attempt, err := s.admit(ctx, username, from.IP)
	if err != nil {
		return nil, err
	}

	var (
		userID        int64
		hash          string
		active, twoFA bool
		factor        int
		email, mobile string
		canonicalName string
	)
	err = s.pool.QueryRow(ctx, `select id, username, password_hash, is_active, enable_two_factor, two_factor_type, email, coalesce(mobile_number, '')
		from app_user where lower(username) = lower($1)`, username).
		Scan(&userID, &canonicalName, &hash, &active, &twoFA, &factor, &email, &mobile)
	found := err == nil
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return nil, err
	}
	if !found {
		hash = dummyHash
	}
	match, err := s.verify(ctx, hash, password)
	if err != nil {
		// Not checked: the try does not count against the account.
		if _, derr := s.pool.Exec(ctx, `delete from login_attempt where id = $1`, attempt); derr != nil {
			return nil, derr
		}
		return nil, err
	}
	if !found || !match || !active {
		reason := "wrong password"
		switch {
		case !found:
			reason = "unknown user"
		case !active:
			reason = "user disabled"
		}
		err := engine.Audit(ctx, s.pool, engine.AuditEntry{Action: "login.failed", Entity: "user", EntityID: idOrEmpty(found, userID),
			Actor: username, After: map[string]string{"reason": reason, "ip": from.IP}})
		if err != nil {
			return nil, err
		}
		return nil, errBadLogin
	}

	if twoFA {
		channel, to := mail.Email, email
		if factor == 2 {
			channel, to = mail.Mobile, mobile
		}
		var challenge, code string
		err := s.inTx(ctx, func(tx pgx.Tx) error {
			// The password was right: the try is neither a failure nor yet a
			// sign-in (the code decides).
			if _, err := tx.Exec(ctx, `delete from login_attempt where id = $1`, attempt); err != nil {
				return err
			}
			var issued int
			if err := tx.QueryRow(ctx, `select count(*) from one_time_code where user_id = $1 and purpose = 'login' and created_on > $2`,
				userID, s.now().Add(-time.Hour)).Scan(&issued); err != nil {
				return err
			}
			if issued >= loginCodesPerHour {
				return &engine.Error{Code: engine.CodeRateLimited, Message: "Too many sign-in codes were requested for this account. Try again later."}
			}
			var err error
			if challenge, code, err = s.issueCode(ctx, tx, userID, "login", channel); err != nil {
				return err
			}
			return engine.Audit(ctx, tx, engine.AuditEntry{Action: "login.challenge", Entity: "user", EntityID: fmt.Sprint(userID),
				Actor: canonicalName, After: map[string]string{"channel": channel, "ip": from.IP}})
		})
		if err != nil {
			return nil, err
		}
		s.mail.Send(mail.Message{Channel: channel, To: to, Subject: "Your Ledgerdesk sign-in code",
			Body: fmt.Sprintf("Your Ledgerdesk sign-in code is %s.\n\nIt is valid for %d minutes. If you did not try to sign in, change your password.\n", code, int(codeTTL.Minutes()))})
		return &LoginResult{TwoFactorRequired: true, ChallengeID: challenge, Channel: channel}, nil
	}
	return s.startSession(ctx, userID, canonicalName, from, attempt, "login.succeeded")
}

// VerifyLogin completes a sign-in with the code sent for the challenge.
func (s *Service) VerifyLogin(ctx context.Context, challengeID, code string, from Client) (*LoginResult, error) {
	code = strings.TrimSpace(code)
	if challengeID == "" {
		return nil, engine.Invalid("challengeId", "challengeId is required.")
	}
	if len(code) != 6 || strings.Trim(code, "0123456789") != "" {
		return nil, engine.Invalid("code", "Enter the 6-digit code.")
	}
	var account string // the challenge's user, for the per-account limit
	if _, err := uuid.Parse(challengeID); err == nil {
		err := s.pool.QueryRow(ctx, `select u.username from one_time_code c join app_user u on u.id = c.user_id where c.id = $1`, challengeID).Scan(&account)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return nil, err
		}
	}
	try, err := s.codeTry(ctx, "verify", account, from.IP)
	if err != nil {
		return nil, err
	}
	var userID int64
	var ok bool
	if _, err := uuid.Parse(challengeID); err == nil {
		err := s.inTx(ctx, func(tx pgx.Tx) error {
			var err error
			if userID, ok, err = s.spendCode(ctx, tx, challengeID, "login", code); err != nil || !ok {
				return err
			}
			return s.codeRight(ctx, tx, try)
		})
		if err != nil {
			return nil, err
		}
	}
	if !ok {
		if err := engine.Audit(ctx, s.pool, engine.AuditEntry{Action: "login.code_failed", Entity: "user", Actor: "unknown",
			After: map[string]string{"challengeId": challengeID, "ip": from.IP}}); err != nil {
			return nil, err
		}
		return nil, engine.Unauthorized("The code is invalid or has expired. After 5 wrong tries a code stops working; sign in again to get a new one.").With("auth.badCode")
	}
	var name string
	var active bool
	if err := s.pool.QueryRow(ctx, `select username, is_active from app_user where id = $1`, userID).Scan(&name, &active); err != nil || !active {
		return nil, errBadLogin
	}
	return s.startSession(ctx, userID, name, from, 0, "login.succeeded")
}

// startSession records a session and returns its token with everything the
// UI stores: the profile, the permitted screens and the roles.
// attempt is the sign-in's login_attempt row to turn into a success (0: add one).
func (s *Service) startSession(ctx context.Context, userID int64, username string, from Client, attempt int64, action string) (*LoginResult, error) {
	sessionID := uuid.NewString()
	token, exp, err := s.tokens.Issue(userID, sessionID)
	if err != nil {
		return nil, engine.Internal(err)
	}
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `insert into auth_session (id, user_id, issued_at, expires_at, ip, user_agent, last_seen_at) values ($1, $2, $3, $4, $5, $6, $3)`,
			sessionID, userID, s.now(), exp, from.IP, truncate(from.UserAgent, 300)); err != nil {
			return err
		}
		// At most maxSessions live sessions: the newest stay.
		if _, err := tx.Exec(ctx, `update auth_session set revoked_at = $3 where id in (
				select id from auth_session where user_id = $1 and revoked_at is null and expires_at > $3
				order by issued_at desc, id offset $2)`, userID, s.maxSessions, s.now()); err != nil {
			return err
		}
		if attempt != 0 {
			if _, err := tx.Exec(ctx, `update login_attempt set succeeded = true where id = $1`, attempt); err != nil {
				return err
			}
		} else if err := s.recordAttempt(ctx, tx, username, from.IP, true); err != nil {
			return err
		}
		return engine.Audit(ctx, tx, engine.AuditEntry{Action: action, Entity: "user", EntityID: fmt.Sprint(userID),
			Actor: username, After: map[string]string{"ip": from.IP}})
	})
	if err != nil {
		return nil, err
	}
	profile, err := s.profile(ctx, userID)
	if err != nil {
		return nil, err
	}
	screens, err := s.userScreens(ctx, userID)
	if err != nil {
		return nil, err
	}
	roles, err := s.userRoles(ctx, userID)
	if err != nil {
		return nil, err
	}
	return &LoginResult{Token: token, ExpiresAt: &exp, User: profile, ScreenIDs: screens, Roles: roles}, nil
}

// Logout revokes the session of the calling token.
func (s *Service) Logout(ctx context.Context) error {
	a := engine.ActorFrom(ctx)
	if a.SessionID == "" {
		return engine.Unauthorized("Not signed in.")
	}
	return s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `update auth_session set revoked_at = $2 where id = $1 and revoked_at is null`, a.SessionID, s.now()); err != nil {
			return err
		}
		return engine.Audit(ctx, tx, engine.AuditEntry{Action: "logout", Entity: "user", EntityID: fmt.Sprint(a.UserID)})
	})
}

var errSession = engine.Unauthorized("Your session has ended or is not valid. Please sign in again.")

// Authenticate turns a bearer token into the actor of a request. It reads
// the session, the user and the user's screens on every call, so a revoked
// session, a disabled user or a changed role counts from the next request.
func (s *Service) Authenticate(ctx context.Context, token string) (*engine.Actor, error) {
	sessionID, userID, err := s.tokens.Parse(token)
	if err != nil {
		return nil, errSession
	}
	if _, err := uuid.Parse(sessionID); err != nil {
		return nil, errSession
	}
	a := &engine.Actor{UserID: userID, SessionID: sessionID, Screens: map[int]bool{}}
	var live, stale bool
	var screens []int32
	now := s.now()
	err = s.pool.QueryRow(ctx, `
		select u.username, u.language_code, s.revoked_at is null and s.expires_at > $3 and u.is_active and coalesce(s.last_seen_at, s.issued_at) > $4,
		       s.last_seen_at is null or s.last_seen_at < $5, array(`+ScreensOfUser("$2")+`)
		from auth_session s join app_user u on u.id = s.user_id
		where s.id = $1 and s.user_id = $2`, sessionID, userID, now, now.Add(-s.idleTimeout), now.Add(-time.Minute)).
		Scan(&a.Username, &a.Language, &live, &stale, &screens)
	if errors.Is(err, pgx.ErrNoRows) || err == nil && !live {
		return nil, errSession
	}
	if err != nil {
		return nil, err
	}
	// Use keeps the session alive (idle timeout), written at most once a
	// minute: most calls make no second round trip.
	if stale {
		if _, err := s.pool.Exec(ctx, `update auth_session set last_seen_at = $2 where id = $1 and (last_seen_at is null or last_seen_at < $3)`,
			sessionID, now, now.Add(-time.Minute)); err != nil {
			return nil, err
		}
	}
	for _, id := range screens {
		a.Screens[int(id)] = true
	}
	return a, nil
}

// ScreensOfUser is the query of the screen ids the roles of a user grant
// (the user id is the bind parameter param); the Administrator role grants
// every screen.
func ScreensOfUser(param string) string {
	return `select ws.id from web_screen ws
	where exists (select 1 from user_role ur join role r on r.id = ur.role_id
		where ur.user_id = ` + param + ` and (r.is_admin or exists (select 1 from role_screen rs where rs.role_id = r.id and rs.screen_id = ws.id)))
	order by ws.id`
}

func (s *Service) userScreens(ctx context.Context, userID int64) ([]int, error) {
	rows, err := s.pool.Query(ctx, ScreensOfUser("$1"), userID)
	if err != nil {
		return nil, err
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int])
	if ids == nil {
		ids = []int{}
	}
	return ids, err
}

func (s *Service) userRoles(ctx context.Context, userID int64) ([]RoleRef, error) {
	rows, err := s.pool.Query(ctx, `select r.id, r.id, r.role_name from user_role ur join role r on r.id = ur.role_id
		where ur.user_id = $1 order by r.role_name`, userID)
	if err != nil {
		return nil, err
	}
	roles, err := pgx.CollectRows(rows, pgx.RowToStructByPos[RoleRef])
	if roles == nil {
		roles = []RoleRef{}
	}
	return roles, err
}

// admit decides whether a sign-in may be checked and, when it may, records it
// as a failure before the password is hashed (a right password turns the
// record into a success). The check and the record are one transaction under
// a per-account and a per-address lock, so parallel tries see each other:
// 120 at once get no more checks than 120 in a row.
func (s *Service) admit(ctx context.Context, username, ip string) (attemptID int64, err error) {
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `select pg_advisory_xact_lock(7310002, hashtext(lower($1))), pg_advisory_xact_lock(7310003, hashtext($2))`,
			username, ip); err != nil {
			return err
		}
		if err := s.throttle(ctx, tx, username, ip); err != nil {
			return err
		}
		return tx.QueryRow(ctx, `insert into login_attempt (username, ip, succeeded, at) values ($1, $2, false, $3) returning id`,
			truncate(username, 254), ip, s.now()).Scan(&attemptID)
	})
	return attemptID, err
}

// throttle refuses a sign-in when the account or the address has failed too
// often: after freeFailures consecutive failures the account waits 1, 2, 4 ...
// seconds (at most maxBackoff) between tries, and locks after
// accountFailsHour failures in an hour. From an address the user signed in
// from before, only that address's failures count: a stranger failing
// elsewhere slows the account down for strangers, not for its owner.
// Failures before an administrator's unlock or password reset do not count.
func (s *Service) throttle(ctx context.Context, q querier, username, ip string) error {
	now := s.now()
	var hourFails, streak int
	var lastFail *time.Time
	err := q.QueryRow(ctx, `
		with known as (select exists (select 1 from login_attempt where lower(username) = lower($1) and ip = $3 and succeeded and kind = 'login') as yes),
		cleared as (select coalesce((select sign_in_cleared_at from app_user where lower(username) = lower($1)), '-infinity') as at),
		recent as (select a.id, a.succeeded, a.at from login_attempt a, known, cleared
			where lower(a.username) = lower($1) and a.kind = 'login' and a.at > $2 and a.at > cleared.at and (not known.yes or a.ip = $3))
		select (select count(*) from recent where not succeeded),
		       (select count(*) from recent where not succeeded and id > coalesce((select max(id) from recent where succeeded), 0)),
		       (select max(at) from recent where not succeeded)`,
		username, now.Add(-time.Hour), ip).Scan(&hourFails, &streak, &lastFail)
	if err != nil {
		return err
	}
	if hourFails >= accountFailsHour {
		return rateLimited("This account is locked after too many failed sign-ins. Try again in an hour or ask an administrator to unlock it.", time.Hour).
			With("auth.locked")
	}
	if streak >= freeFailures && lastFail != nil {
		wait := time.Duration(math.Min(math.Pow(2, float64(streak-freeFailures)), maxBackoff.Seconds())) * time.Second
		if left := lastFail.Add(wait).Sub(now); left > 0 {
			secs := int(math.Ceil(left.Seconds()))
			return rateLimited(fmt.Sprintf("Too many failed sign-ins. Try again in %d seconds.", secs), left).With("auth.backoff", "seconds", secs)
		}
	}
	var ipFails int
	if err := q.QueryRow(ctx, `select count(*) from login_attempt where ip = $1 and not succeeded and kind = 'login' and at > $2`,
		ip, now.Add(-15*time.Minute)).Scan(&ipFails); err != nil {
		return err
	}
	if ipFails >= addressFails15Min {
		return rateLimited("Too many failed sign-ins from this address. Try again in 15 minutes.", 15*time.Minute).With("auth.addressLimited")
	}
	return nil
}

// rateLimited is a 429 telling the client when to try again.
func rateLimited(msg string, after time.Duration) *engine.Error {
	return &engine.Error{Code: engine.CodeRateLimited, Message: msg, RetryAfter: after}
}

// Unlock clears the sign-in throttle of a user: failures so far no longer
// count (the user form's Unlock action).
func (s *Service) Unlock(ctx context.Context, id int64) error {
	return s.inTx(ctx, func(tx pgx.Tx) error {
		u, err := s.getUser(ctx, tx, id, true)
		if err != nil {
			return err
		}
		if err := mayEditUser(ctx, tx, id); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `update app_user set sign_in_cleared_at = $2 where id = $1`, id, s.now()); err != nil {
			return err
		}
		return engine.Audit(ctx, tx, engine.AuditEntry{Action: "user.unlock", Entity: "user", EntityID: fmt.Sprint(id), After: map[string]string{"username": u.Username}})
	})
}

func (s *Service) recordAttempt(ctx context.Context, q engine.Execer, username, ip string, ok bool) error {
	_, err := q.Exec(ctx, `insert into login_attempt (username, ip, succeeded, at) values ($1, $2, $3, $4)`, truncate(username, 254), ip, ok, s.now())
	return err
}

func idOrEmpty(found bool, id int64) string {
	if !found {
		return ""
	}
	return fmt.Sprint(id)
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
