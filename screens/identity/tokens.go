package identity

import (
	"errors"
	"fmt"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Token issuer and audience: a token minted for another system (or by
// anything but this server) is refused even if the key leaked there.
const (
	tokenIssuer   = "ledgerdesk"
	tokenAudience = "ledgerdesk-ui"
)

// Tokens signs and checks session tokens: HS256 only, with exp, iss and aud
// required and a token id (jti) that names the auth_session row, so a
// revoked session ends at once.
type Tokens struct {
	secret []byte
	ttl    time.Duration
	now    func() time.Time
}

// NewTokens returns a signer with the given secret and lifetime.
func NewTokens(secret []byte, ttl time.Duration, now func() time.Time) *Tokens {
	return &Tokens{secret: secret, ttl: ttl, now: now}
}

type claims struct {
	jwt.RegisteredClaims
}

// Issue returns a signed token for the user and session, and its expiry.
func (t *Tokens) Issue(userID int64, sessionID string) (string, time.Time, error) {
	now := t.now()
	exp := now.Add(t.ttl)
	c := claims{jwt.RegisteredClaims{
		Issuer:    tokenIssuer,
		Audience:  jwt.ClaimStrings{tokenAudience},
		Subject:   fmt.Sprint(userID),
		ID:        sessionID,
		IssuedAt:  jwt.NewNumericDate(now),
		NotBefore: jwt.NewNumericDate(now.Add(-time.Minute)),
		ExpiresAt: jwt.NewNumericDate(exp),
	}}
	s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString(t.secret)
	return s, exp, err
}

// Parse checks the signature, algorithm, expiry, issuer and audience and
// returns the session id and user id the token names.
func (t *Tokens) Parse(token string) (sessionID string, userID int64, err error) {
	var c claims
	_, err = jwt.ParseWithClaims(token, &c, func(*jwt.Token) (any, error) { return t.secret, nil },
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
		jwt.WithExpirationRequired(),
		jwt.WithIssuer(tokenIssuer),
		jwt.WithAudience(tokenAudience),
		jwt.WithTimeFunc(t.now),
		// One second for clocks of instances sharing the database; a token is
		// not accepted later than that after its expiry.
		jwt.WithLeeway(time.Second),
	)
	if err != nil {
		return "", 0, err
	}
	if c.ID == "" {
		return "", 0, errors.New("token has no id")
	}
	if _, err := fmt.Sscan(c.Subject, &userID); err != nil || userID <= 0 {
		return "", 0, errors.New("token has no subject")
	}
	return c.ID, userID, nil
}
