package identity

import (
	"context"
	"testing"
	"time"
)

// The actor of a request carries the user's profile language, in which the
// engine filters and exports stored messages.
func TestActorCarriesProfileLanguage(t *testing.T) {
	c := &clock{t: time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)}
	s := newService(t, c.Now)
	ctx := context.Background()
	res, err := s.Login(ctx, "admin", "Admin#2026pass", Client{IP: "10.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.pool.Exec(ctx, `update app_user set language_code = 'sv' where username = 'admin'`); err != nil {
		t.Fatal(err)
	}
	a, err := s.Authenticate(ctx, res.Token)
	if err != nil {
		t.Fatal(err)
	}
	if a.Language != "sv" {
		t.Errorf("language %q, want sv", a.Language)
	}
}
