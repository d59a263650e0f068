package identity

import (
	"context"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"ledgerdesk/engine"
)

// hashWait is how long a request waits for a free hash slot before it is
// refused with a Retry-After.
const hashWait = 250 * time.Millisecond

var errHashBusy = (&engine.Error{Code: engine.CodeUnavailable, RetryAfter: time.Second,
	Message: "The server is busy checking passwords. Try again in a moment."}).With("auth.busy")

// hashSlot takes one of the hash slots, waiting at most hashWait; the caller
// runs release when the hash is done. Bounding the hashes bounds their memory
// (19 MiB each) and keeps a flood of sign-ins from starving everything else.
func (s *Service) hashSlot(ctx context.Context) (release func(), err error) {
	release = func() { <-s.hashSlots }
	select {
	case s.hashSlots <- struct{}{}:
		return release, nil
	default:
	}
	wait := time.NewTimer(hashWait)
	defer wait.Stop()
	select {
	case s.hashSlots <- struct{}{}:
		return release, nil
	case <-wait.C:
		return nil, errHashBusy
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// hash is HashPassword within a hash slot.
func (s *Service) hash(ctx context.Context, password string) (string, error) {
	release, err := s.hashSlot(ctx)
	if err != nil {
		return "", err
	}
	defer release()
	h, err := HashPassword(password)
	if err != nil {
		return "", engine.Internal(err)
	}
	return h, nil
}

// verify is VerifyPassword within a hash slot.
func (s *Service) verify(ctx context.Context, phc, password string) (bool, error) {
	release, err := s.hashSlot(ctx)
	if err != nil {
		return false, err
	}
	defer release()
	ok, err := VerifyPassword(phc, password)
	if err != nil {
		return false, engine.Internal(err)
	}
	return ok, nil
}

// codeTry admits a code try (kind "reset" or "verify") unless the address
// or the account has sent codeFails15Min wrong codes in 15 minutes, and
// records it as wrong before the code is checked, in one transaction under
// a per-address and a per-account lock (parallel tries see each other). A
// right code removes the record (codeRight). Each code also dies after
// codeMaxTries; this bounds the guessing across codes.
func (s *Service) codeTry(ctx context.Context, kind, account, ip string) (attempt int64, err error) {
	account = truncate(strings.ToLower(account), 254)
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `select pg_advisory_xact_lock(7310004, hashtext($1 || ' ' || $3)), pg_advisory_xact_lock(7310005, hashtext($1 || ' ' || $2))`,
			kind, account, ip); err != nil {
			return err
		}
		var byAddress, byAccount int
		if err := tx.QueryRow(ctx, `select count(*) filter (where ip = $3), count(*) filter (where $2 <> '' and lower(username) = $2)
			from login_attempt where kind = $1 and not succeeded and at > $4 and (ip = $3 or lower(username) = $2)`,
			kind, account, ip, s.now().Add(-15*time.Minute)).Scan(&byAddress, &byAccount); err != nil {
			return err
		}
		if byAddress >= codeFails15Min || byAccount >= codeFails15Min {
			return rateLimited("Too many wrong codes. Try again in 15 minutes.", 15*time.Minute).With("auth.codesLimited")
		}
		return tx.QueryRow(ctx, `insert into login_attempt (username, ip, succeeded, at, kind) values ($1, $2, false, $3, $4) returning id`,
			account, ip, s.now(), kind).Scan(&attempt)
	})
	return attempt, err
}

// codeRight removes the record of a code try that turned out right.
func (s *Service) codeRight(ctx context.Context, q engine.Execer, attempt int64) error {
	_, err := q.Exec(ctx, `delete from login_attempt where id = $1`, attempt)
	return err
}
