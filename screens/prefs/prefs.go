// Package prefs keeps each user's screen preferences on the server (column
// order, widths, visibility, filters of a grid), so they follow the user to
// another browser. A user reads and writes only their own.
package prefs

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"ledgerdesk/engine"
)

// MaxBytes is the largest preference value (the table's check says so too).
const MaxBytes = 32 << 10

var keyPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)

// Store reads and writes preferences.
type Store struct {
	pool  *pgxpool.Pool
	keys  int // keys a user may keep
	bytes int // bytes a user may keep, all keys together
}

// New returns the store; a user keeps at most keys preferences of at most
// bytes together (PREFERENCE_KEYS, PREFERENCE_BYTES).
func New(pool *pgxpool.Pool, keys, bytes int) *Store {
	return &Store{pool: pool, keys: keys, bytes: bytes}
}

func checkKey(key string) error {
	if !keyPattern.MatchString(key) {
		return engine.Invalid("key", "A preference key is 1 to 64 lower-case letters, digits, dots, dashes or underscores.").With("prefs.badKey")
	}
	return nil
}

// Get returns the caller's preferences under key, or an empty object.
func (s *Store) Get(ctx context.Context, key string) (json.RawMessage, error) {
	if err := checkKey(key); err != nil {
		return nil, err
	}
	var v json.RawMessage
	err := s.pool.QueryRow(ctx, `select value from user_preference where user_id = $1 and key = $2`, engine.ActorFrom(ctx).UserID, key).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return json.RawMessage(`{}`), nil
	}
	return v, err
}

// Put stores the caller's preferences under key: a JSON object.
func (s *Store) Put(ctx context.Context, key string, value []byte) error {
	if err := checkKey(key); err != nil {
		return err
	}
	if len(value) > MaxBytes {
		return engine.Invalid("value", "Preferences can be at most %d bytes.", MaxBytes).With("prefs.tooLarge", "max", MaxBytes)
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(value, &obj) != nil || obj == nil {
		return engine.Invalid("value", "Preferences must be a JSON object.").With("prefs.notObject")
	}
	user := engine.ActorFrom(ctx).UserID
	return engine.TranslatePG(pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// One writer per user at a time, so that two parallel writes cannot
		// both pass the bounds.
		if _, err := tx.Exec(ctx, `select pg_advisory_xact_lock(hashtext('user_preference'), $1::int)`, user); err != nil {
			return err
		}
		var keys, bytes int
		if err := tx.QueryRow(ctx, `select count(*), coalesce(sum(octet_length(value::text)), 0) from user_preference where user_id = $1 and key <> $2`,
			user, key).Scan(&keys, &bytes); err != nil {
			return err
		}
		if keys >= s.keys {
			return engine.Invalid("key", "A user keeps at most %d preferences; this would be one more.", s.keys).With("prefs.tooManyKeys", "max", s.keys)
		}
		if bytes+len(value) > s.bytes {
			return engine.Invalid("value", "A user's preferences take at most %d bytes together; these would take %d.", s.bytes, bytes+len(value)).
				With("prefs.tooMuch", "max", s.bytes, "total", bytes+len(value))
		}
		_, err := tx.Exec(ctx, `insert into user_preference (user_id, key, value, updated_on) values ($1, $2, $3, now())
			on conflict (user_id, key) do update set value = excluded.value, updated_on = excluded.updated_on`, user, key, value)
		return err
	}))
}
