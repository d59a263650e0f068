package pgtest

import (
	"testing"
	"time"
)

// WaitFor checks cond on every tick until it holds; within is only the
// bound past which the test gives up (a condition that never comes), never
// a time the test counts on.
func WaitFor(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.NewTimer(within)
	defer deadline.Stop()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-deadline.C:
			t.Fatalf("%s: not within %v", what, within)
		case <-tick.C:
		}
	}
}
