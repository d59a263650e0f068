package server

import (
	"strconv"
	"testing"
)

// TestHole2RefusalsCarryRetryAfter: a throttled sign-in is a 429 that says
// when to come back.
func TestHole2RefusalsCarryRetryAfter(t *testing.T) {
	w := newWorld(t)
	var last answer
	for i := 0; i < 6; i++ {
		last = w.do("POST", "/api/auth/login", "", map[string]string{"username": "admin", "password": "Wrong#pass1"})
	}
	if last.status != 429 || last.env.Code != "auth.backoff" {
		t.Fatalf("sixth wrong password: %d %s", last.status, last.body)
	}
	if n, err := strconv.Atoi(last.header.Get("Retry-After")); err != nil || n < 1 {
		t.Errorf("Retry-After %q", last.header.Get("Retry-After"))
	}
}
