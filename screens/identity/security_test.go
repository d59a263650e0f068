package identity

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"ledgerdesk/engine"
)

// TestHole1SignInThrottlingRace: parallel wrong passwords for one account
// from one address get at most freeFailures checked; a stranger's failures
// neither refuse the right password from the user's known address nor keep
// an administrator from unlocking the account.
func TestHole1SignInThrottlingRace(t *testing.T) {
	c := &clock{t: time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)}
	s := newService(t, c.Now)
	ctx := context.Background()
	home := Client{IP: "10.0.0.1"}
	if _, err := s.Login(ctx, "admin", "Admin#2026pass", home); err != nil {
		t.Fatal(err)
	}
	c.Advance(time.Second)

	var checked, refused atomic.Int32
	var wg sync.WaitGroup
	for i := 0; i < 40; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := s.Login(ctx, "admin", "Guess-1A!", Client{IP: "10.6.0.1"})
			switch code(err) {
			case engine.CodeUnauthorized:
				checked.Add(1)
			case engine.CodeRateLimited, engine.CodeUnavailable:
				refused.Add(1)
			default:
				t.Errorf("attempt: %v", err)
			}
		}()
	}
	wg.Wait()
	if checked.Load() > freeFailures {
		t.Errorf("%d of 40 parallel wrong passwords were checked, want at most %d (%d refused)", checked.Load(), freeFailures, refused.Load())
	}
	if _, err := s.Login(ctx, "admin", "Admin#2026pass", home); err != nil {
		t.Fatalf("the right password from the known address after a stranger's failures: %v", err)
	}

	// A full lock (stranger's failures from many addresses) holds for a new
	// address, until an administrator unlocks or resets the account.
	for i := 0; i < accountFailsHour; i++ {
		s.recordAttempt(ctx, s.pool, "admin", "10.9.9.9", false)
	}
	c.Advance(maxBackoff + time.Second)
	away := Client{IP: "10.0.0.2"}
	if _, err := s.Login(ctx, "admin", "Admin#2026pass", away); code(err) != engine.CodeRateLimited {
		t.Fatalf("expected the account lock from a new address, got %v", err)
	}
	if _, err := s.Login(ctx, "admin", "Admin#2026pass", home); err != nil {
		t.Fatalf("the known address is not locked out by strangers: %v", err)
	}
	var adminID int64
	s.pool.QueryRow(ctx, `select id from app_user where username = 'admin'`).Scan(&adminID)
	actx := engine.WithActor(ctx, &engine.Actor{UserID: adminID, Username: "admin", Screens: map[int]bool{4: true}})
	if err := s.Unlock(actx, adminID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Login(ctx, "admin", "Admin#2026pass", away); err != nil {
		t.Fatalf("after Unlock: %v", err)
	}

	// An administrator's password reset clears a lock too.
	c.Advance(time.Second)
	for i := 0; i < accountFailsHour; i++ {
		s.recordAttempt(ctx, s.pool, "admin", "10.9.9.9", false)
	}
	if _, err := s.Login(ctx, "admin", "Admin#2026pass", Client{IP: "10.0.0.3"}); code(err) != engine.CodeRateLimited {
		t.Fatalf("expected the lock again, got %v", err)
	}
	u, err := s.GetUser(ctx, adminID)
	if err != nil {
		t.Fatal(err)
	}
	in := UserInput{Username: u.Username, personFields: personFields{FirstName: u.FirstName, LastName: u.LastName, Email: u.Email,
		DateFormat: u.DateFormat, LanguageCode: u.LanguageCode}, ChangePassword: true, NewPassword: "Fresh#2026pw", Version: u.Version}
	other := engine.WithActor(ctx, secondAdmin(t, s))
	if _, err := s.UpdateUser(other, adminID, in); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Login(ctx, "admin", "Fresh#2026pw", Client{IP: "10.0.0.3"}); err != nil {
		t.Fatalf("after an administrator's password reset: %v", err)
	}
}

// secondAdmin adds another Administrator and returns them as an actor.
func secondAdmin(t *testing.T, s *Service) *engine.Actor {
	t.Helper()
	ctx := context.Background()
	hash, _ := HashPassword("Other#2026pass")
	var id int64
	if err := s.pool.QueryRow(ctx, `insert into app_user (username, first_name, last_name, email, password_hash)
		values ('admin2', 'Second', 'Admin', 'admin2@example.com', $1) returning id`, hash).Scan(&id); err != nil {
		t.Fatal(err)
	}
	if _, err := s.pool.Exec(ctx, `insert into user_role (user_id, role_id) select $1, id from role where is_admin`, id); err != nil {
		t.Fatal(err)
	}
	return &engine.Actor{UserID: id, Username: "admin2", Screens: map[int]bool{3: true, 4: true, 5: true, 6: true}}
}

// TestHole2HashConcurrencyBound: at most hashSlots argon2id hashes run at
// once (each takes 19 MiB); beyond that a request is refused with a
// Retry-After instead of queueing without bound. A reset checks its code
// before hashing, and code tries are throttled per address and per account.
func TestHole2HashConcurrencyBound(t *testing.T) {
	c := &clock{t: time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)}
	s := newService(t, c.Now)
	ctx := context.Background()
	if cap(s.hashSlots) != 2*runtime.NumCPU() {
		t.Errorf("%d hash slots, want twice the %d cores", cap(s.hashSlots), runtime.NumCPU())
	}
	s.hashSlots = make(chan struct{}, 2)
	s.hashSlots <- struct{}{}
	s.hashSlots <- struct{}{}

	_, err := s.Login(ctx, "admin", "Admin#2026pass", Client{IP: "10.0.0.1"})
	var e *engine.Error
	if !errors.As(err, &e) || e.Code != engine.CodeUnavailable || e.RetryAfter <= 0 {
		t.Fatalf("a sign-in with every hash slot taken: %v, want unavailable with a Retry-After", err)
	}
	// A wrong reset code is refused without a hash, so even now it is a 400.
	if err := s.ForgotPassword(ctx, "admin@ledgerdesk.local"); err != nil {
		t.Fatal(err)
	}
	if err := s.ResetPassword(ctx, "admin@ledgerdesk.local", "000000", "N3w!Passw0rd", Client{IP: "10.0.0.1"}); code(err) != engine.CodeInvalid {
		t.Fatalf("a wrong reset code while hashing is saturated: %v", err)
	}
	<-s.hashSlots
	if _, err := s.Login(ctx, "admin", "Admin#2026pass", Client{IP: "10.0.0.1"}); err != nil {
		t.Fatalf("with a slot free: %v", err)
	}

	// Reset codes: per address, then per account, at most codeFails15Min
	// wrong tries, also when they come all at once.
	var checked atomic.Int32
	var wg sync.WaitGroup
	for i := 0; i < 40; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if code(s.ResetPassword(ctx, "someone@example.com", "000000", "N3w!Passw0rd", Client{IP: "10.5.9.9"})) == engine.CodeInvalid {
				checked.Add(1)
			}
		}()
	}
	wg.Wait()
	if checked.Load() > codeFails15Min {
		t.Errorf("%d of 40 parallel wrong reset codes were checked, want at most %d", checked.Load(), codeFails15Min)
	}
	for i := 0; i < codeFails15Min; i++ {
		if err := s.ResetPassword(ctx, "nobody@example.com", "000000", "N3w!Passw0rd", Client{IP: "10.5.0.1"}); code(err) != engine.CodeInvalid {
			t.Fatalf("wrong code %d: %v", i, err)
		}
	}
	if err := s.ResetPassword(ctx, "admin@ledgerdesk.local", "000000", "N3w!Passw0rd", Client{IP: "10.5.0.1"}); code(err) != engine.CodeRateLimited {
		t.Fatalf("reset tries past the address limit: %v", err)
	}
	for i := 0; i < codeFails15Min; i++ {
		ip := Client{IP: fmt.Sprintf("10.4.0.%d", i)}
		if err := s.ResetPassword(ctx, "admin@ledgerdesk.local", "000000", "N3w!Passw0rd", ip); code(err) != engine.CodeInvalid && code(err) != engine.CodeRateLimited {
			t.Fatalf("wrong code %d: %v", i, err)
		}
	}
	if err := s.ResetPassword(ctx, "admin@ledgerdesk.local", "000000", "N3w!Passw0rd", Client{IP: "10.3.0.1"}); code(err) != engine.CodeRateLimited {
		t.Fatalf("reset tries past the account limit: %v", err)
	}

	// Sign-in codes: the same per address.
	for i := 0; i < codeFails15Min; i++ {
		if _, err := s.VerifyLogin(ctx, "5f0c6f0e-1111-4111-8111-111111111111", "000000", Client{IP: "10.2.0.1"}); code(err) != engine.CodeUnauthorized {
			t.Fatalf("wrong sign-in code %d: %v", i, err)
		}
	}
	if _, err := s.VerifyLogin(ctx, "5f0c6f0e-1111-4111-8111-111111111111", "000000", Client{IP: "10.2.0.1"}); code(err) != engine.CodeRateLimited {
		t.Fatalf("sign-in code tries past the address limit: %v", err)
	}
}

// TestHole9TokenSkew: a token is refused from one second after its expiry.
func TestHole9TokenSkew(t *testing.T) {
	c := &clock{t: time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)}
	tokens := NewTokens([]byte(strings.Repeat("k", 32)), time.Hour, c.Now)
	tok, _, err := tokens.Issue(1, "5f0c6f0e-1111-4111-8111-111111111111")
	if err != nil {
		t.Fatal(err)
	}
	c.Advance(time.Hour)
	if _, _, err := tokens.Parse(tok); err != nil {
		t.Fatalf("at its expiry: %v", err)
	}
	c.Advance(2 * time.Second)
	if _, _, err := tokens.Parse(tok); err == nil {
		t.Fatal("a token two seconds past its expiry was accepted")
	}
}

// TestHole9SessionCapAndIdleTimeout: a user has at most MaxSessions live
// sessions (a new one ends the oldest), and a session unused for
// IdleTimeout ends; use keeps it alive.
func TestHole9SessionCapAndIdleTimeout(t *testing.T) {
	c := &clock{t: time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)}
	s := newService(t, c.Now)
	s.maxSessions, s.idleTimeout = 2, 30*time.Minute
	ctx := context.Background()
	from := Client{IP: "10.0.0.1"}
	var tokens []string
	for i := 0; i < 3; i++ {
		res, err := s.Login(ctx, "admin", "Admin#2026pass", from)
		if err != nil {
			t.Fatal(err)
		}
		tokens = append(tokens, res.Token)
		c.Advance(time.Second)
	}
	if _, err := s.Authenticate(ctx, tokens[0]); err == nil {
		t.Error("the oldest of three sessions outlived a cap of two")
	}
	for _, tok := range tokens[1:] {
		if _, err := s.Authenticate(ctx, tok); err != nil {
			t.Fatalf("a session within the cap: %v", err)
		}
	}
	c.Advance(20 * time.Minute)
	if _, err := s.Authenticate(ctx, tokens[2]); err != nil { // used: stays alive
		t.Fatal(err)
	}
	c.Advance(20 * time.Minute)
	if _, err := s.Authenticate(ctx, tokens[1]); err == nil {
		t.Error("a session idle for 40 minutes was accepted")
	}
	if _, err := s.Authenticate(ctx, tokens[2]); err != nil {
		t.Fatalf("a session used 20 minutes ago: %v", err)
	}
}

// TestHole9CommonPasswords: passwords meeting the rules but on the list of
// the most common ones are refused.
func TestHole9CommonPasswords(t *testing.T) {
	for _, p := range []string{"P@ssw0rd1", "Password1!", "Welcome1!", "Qwerty123!", "Letmein123!"} {
		if CheckPasswordRules(p).Met() != 5 {
			t.Fatalf("%s should meet the rules for this test", p)
		}
		if msg := ValidatePassword(p); !strings.Contains(msg, "common") {
			t.Errorf("%s: %q, want refused as common", p, msg)
		}
	}
	if msg := ValidatePassword("Admin#2026pass"); msg != "" {
		t.Errorf("an uncommon password: %s", msg)
	}
}

// TestHole9ForgotPasswordSameWork: the answer to forgot-password does no
// work that depends on the address (the lookup and the mail happen after
// it), so known and unknown addresses cost the same.
func TestHole9ForgotPasswordSameWork(t *testing.T) {
	s := newService(t, time.Now)
	s.pool.Close() // any lookup before answering would fail now
	for _, email := range []string{"admin@ledgerdesk.local", "nobody@example.com"} {
		if err := s.ForgotPassword(context.Background(), email); err != nil {
			t.Errorf("%s: %v", email, err)
		}
	}
}
