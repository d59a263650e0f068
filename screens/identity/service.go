// Package identity is sign-in, sessions, password reset, two-factor codes,
// profiles, users, roles and the screens each role grants. It returns typed
// engine errors; the server maps them to statuses. Passwords are argon2id,
// tokens HS256 JWTs naming a revocable session, codes six digits stored as
// keyed hashes.
package identity

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"runtime"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"ledgerdesk/engine"
	"ledgerdesk/internal/mail"
)

// Limits of DESIGN.md section 8.
const (
	codeTTL            = 10 * time.Minute
	codeMaxTries       = 5
	accountFailsHour   = 100 // failed sign-ins an account may have in an hour
	addressFails15Min  = 50  // failed sign-ins an address may have in 15 minutes
	freeFailures       = 5   // consecutive failures before back-off starts
	maxBackoff         = 60 * time.Second
	resetCodesPerHour  = 5
	loginCodesPerHour  = 10
	codeFails15Min     = 10 // wrong reset or sign-in codes an address, or an account, may send in 15 minutes
	DefaultTokenTTL    = 8 * time.Hour
	DefaultIdleTimeout = 30 * time.Minute
	DefaultMaxSessions = 10
	DefaultDateFormat  = "DD-MM-YYYY HH:mm:ss"
	DefaultLanguage    = "en"
	adminRoleName      = "Administrator"
	firstAdminUsername = "admin"
)

// Service is the identity and access logic.
type Service struct {
	pool    *pgxpool.Pool
	tokens  *Tokens
	codeKey []byte
	mail    *mail.Sender
	now     func() time.Time
	log     *slog.Logger
	// hashSlots bounds the argon2id hashes running at once (19 MiB each).
	hashSlots chan struct{}
	// maxSessions caps the live sessions of a user; idleTimeout ends a
	// session unused that long.
	maxSessions int
	idleTimeout time.Duration
	// background bounds the work done after an answer (forgot-password).
	background chan struct{}
}

// Options configure a Service.
type Options struct {
	Pool     *pgxpool.Pool
	Secret   []byte // signs tokens and keys code hashes
	TokenTTL time.Duration
	Mail     *mail.Sender
	Now      func() time.Time
	Log      *slog.Logger
	// HashConcurrency bounds the password hashes running at once; 0 means
	// twice the cores.
	HashConcurrency int
	// IdleTimeout ends a session unused that long (0: DefaultIdleTimeout);
	// MaxSessions caps a user's live sessions, a new one ending the oldest
	// (0: DefaultMaxSessions).
	IdleTimeout time.Duration
	MaxSessions int
}

// New returns the identity service.
func New(o Options) *Service {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.TokenTTL == 0 {
		o.TokenTTL = DefaultTokenTTL
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = DefaultIdleTimeout
	}
	if o.MaxSessions <= 0 {
		o.MaxSessions = DefaultMaxSessions
	}
	if o.HashConcurrency <= 0 {
		o.HashConcurrency = 2 * runtime.NumCPU()
	}
	mac := hmac.New(sha256.New, o.Secret)
	mac.Write([]byte("ledgerdesk one-time codes"))
	return &Service{
		pool:    o.Pool,
		tokens:  NewTokens(o.Secret, o.TokenTTL, o.Now),
		codeKey: mac.Sum(nil),
		mail:    o.Mail,
		now:     o.Now,
		log:     o.Log,

		hashSlots:   make(chan struct{}, o.HashConcurrency),
		maxSessions: o.MaxSessions,
		idleTimeout: o.IdleTimeout,
		background:  make(chan struct{}, backgroundJobs),
	}
}

// LoadSecret returns the configured secret, or the one stored in the
// database, generating and storing it on first run. Every instance sharing
// the database gets the same secret.
func LoadSecret(ctx context.Context, pool *pgxpool.Pool, configured string) ([]byte, error) {
	if configured != "" {
		return []byte(configured), nil
	}
	buf := make([]byte, 32)
	if _, err := rand.Read(buf); err != nil {
		return nil, err
	}
	_, err := pool.Exec(ctx, `insert into app_setting (key, value) values ('jwt_secret', $1) on conflict (key) do nothing`, hex.EncodeToString(buf))
	if err != nil {
		return nil, fmt.Errorf("store the token secret: %w", err)
	}
	var secret string
	if err := pool.QueryRow(ctx, `select value from app_setting where key = 'jwt_secret'`).Scan(&secret); err != nil {
		return nil, fmt.Errorf("read the token secret: %w", err)
	}
	return []byte(secret), nil
}

// newCode returns a six-digit code from crypto/rand.
func newCode() (string, error) {
	n, err := rand.Int(rand.Reader, big.NewInt(1_000_000))
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%06d", n.Int64()), nil
}

// hashCode keys the hash with the server secret: a leaked table alone does
// not let anyone try the million codes offline.
func (s *Service) hashCode(id, code string) string {
	mac := hmac.New(sha256.New, s.codeKey)
	mac.Write([]byte(id + ":" + code))
	return hex.EncodeToString(mac.Sum(nil))
}

// inTx runs fn in one transaction: committed if fn returns nil, else rolled back.
func (s *Service) inTx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	return pgx.BeginFunc(ctx, s.pool, fn)
}

// issueCode stores a new code for user and purpose and returns its id and
// the code in clear (to be sent, never stored or logged).
func (s *Service) issueCode(ctx context.Context, q engine.Execer, userID int64, purpose, channel string) (id, code string, err error) {
	code, err = newCode()
	if err != nil {
		return "", "", err
	}
	id = uuid.NewString()
	_, err = q.Exec(ctx, `insert into one_time_code (id, user_id, purpose, code_hash, channel, expires_at, created_on) values ($1, $2, $3, $4, $5, $6, $7)`,
		id, userID, purpose, s.hashCode(id, code), channel, s.now().Add(codeTTL), s.now())
	return id, code, err
}

// spendCode checks code against the live code id: one try is counted
// whatever the outcome, the code dies after codeMaxTries wrong tries, and a
// right code is used up. It reports the code's user when right.
func (s *Service) spendCode(ctx context.Context, tx pgx.Tx, id, purpose, code string) (int64, bool, error) {
	var userID int64
	var hash string
	err := tx.QueryRow(ctx, `update one_time_code set attempts = attempts + 1
		where id = $1 and purpose = $2 and used_at is null and expires_at > $3 and attempts < $4
		returning user_id, code_hash`, id, purpose, s.now(), codeMaxTries).Scan(&userID, &hash)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	if !hmac.Equal([]byte(hash), []byte(s.hashCode(id, code))) {
		return 0, false, nil
	}
	_, err = tx.Exec(ctx, `update one_time_code set used_at = $2 where id = $1`, id, s.now())
	return userID, err == nil, err
}

// revokeSessions ends every live session of user (password change, reset,
// disable): the next request with any of their tokens gets 401.
func (s *Service) revokeSessions(ctx context.Context, q engine.Execer, userID int64) error {
	_, err := q.Exec(ctx, `update auth_session set revoked_at = $2 where user_id = $1 and revoked_at is null`, userID, s.now())
	return err
}
