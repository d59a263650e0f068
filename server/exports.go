package server

import (
	"fmt"
	"sync"
	"time"

	"github.com/gofiber/fiber/v3"

	"ledgerdesk/engine"
)

// exportGate bounds the downloads streaming at once, per user and in all
// (EXPORTS_PER_USER, EXPORTS_TOTAL): an export holds a database connection
// and a core for as long as it streams, so a few users asking for many
// could starve everyone's grid. One past a bound is a 429 with Retry-After.
type exportGate struct {
	mu       sync.Mutex
	perUser  map[int64]int
	total    int
	maxUser  int
	maxTotal int
}

func newExportGate(perUser, total int) *exportGate {
	return &exportGate{perUser: map[int64]int{}, maxUser: perUser, maxTotal: total}
}

// exportGateKey is where the middleware leaves the gate for sendFile.
type exportGateKey struct{}

// offer makes the gate reachable from the request's handlers.
func (g *exportGate) offer(c fiber.Ctx) error {
	c.Locals(exportGateKey{}, g)
	return c.Next()
}

// take reserves a place for the caller's export; release gives it back.
func (g *exportGate) take(c fiber.Ctx) (release func(), err error) {
	return g.takeFor(engine.ActorFrom(c.Context()).UserID)
}

// takeFor reserves a place for user's export.
func (g *exportGate) takeFor(user int64) (release func(), err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	busy := func(format string, max int) error {
		return &engine.Error{Code: engine.CodeRateLimited, Key: "export.busy", Params: map[string]any{"max": max},
			Message: fmt.Sprintf(format, max), RetryAfter: 5 * time.Second}
	}
	switch {
	case g.perUser[user] >= g.maxUser:
		return nil, busy("You already have %d downloads running; wait for one to finish.", g.maxUser)
	case g.total >= g.maxTotal:
		return nil, busy("%d downloads are running already, the most at once; try again in a few seconds.", g.maxTotal)
	}
	g.perUser[user]++
	g.total++
	var once sync.Once
	return func() {
		once.Do(func() {
			g.mu.Lock()
			defer g.mu.Unlock()
			g.total--
			if g.perUser[user]--; g.perUser[user] <= 0 {
				delete(g.perUser, user)
			}
		})
	}, nil
}

// takeExport reserves a place at the request's export gate (none in an app
// without one: a place always).
func takeExport(c fiber.Ctx) (func(), error) {
	g, _ := c.Locals(exportGateKey{}).(*exportGate)
	if g == nil {
		return func() {}, nil
	}
	return g.take(c)
}
