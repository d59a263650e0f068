package engine

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// Lanes keep a heavy grid read from starving the cheap ones. Every read
// starts in the quick lane with a short statement timeout; one that outlasts
// it is stopped and read again at once with the engine's full timeout, on
// one core (no parallel workers, so the other cores stay with the quick
// lane). When that read too takes more than twice the quick lane's time,
// its shape (view, filters, sort) is remembered as heavy: the shape's next
// reads go to the heavy lane, where at most HeavyTotal run at once and
// HeavyPerUser of one user. Whether a request is heavy is not guessed from
// the planner's estimate, which is wrong exactly where a read is slow (a
// filter whose rows lie at the far end of the sort's index): it is
// measured. A read only somewhat slow was slow because the machine was
// busy: on a saturated machine every read is, and queueing them all behind
// the heavy ones would make the heavy lane the bottleneck.
type Lanes struct {
	// Quick is the quick lane's statement timeout (0: no lanes, every read
	// runs with the full timeout as it comes).
	Quick        time.Duration
	HeavyTotal   int           // heavy reads at once, all users (default 1)
	HeavyPerUser int           // heavy reads at once of one user (default 1)
	Wait         time.Duration // the longest a heavy read waits for its place (default 10 s)
	// Remember is how long a shape found heavy goes straight to the heavy lane.
	Remember time.Duration
	// Demand: a read done in the quick lane that took longer asks for an
	// index made on demand, as one that outlasts the lane does (0: only
	// those). A click's target is 100 ms: a read of 200 ms never outlasts a
	// quick lane of 500 ms, yet an index may make it one of 5.
	Demand time.Duration

	once   sync.Once
	total  chan struct{}
	mu     sync.Mutex
	users  map[string]chan struct{}
	heavy  map[string]time.Time // shape -> when it was last found heavy
	passes struct{ quick, heavy, demoted int64 }
}

const maxRemembered = 1000

func (l *Lanes) init() {
	l.once.Do(func() {
		l.HeavyTotal = max(l.HeavyTotal, 1)
		l.HeavyPerUser = max(l.HeavyPerUser, 1)
		if l.Wait <= 0 {
			l.Wait = 10 * time.Second
		}
		if l.Remember <= 0 {
			l.Remember = 10 * time.Minute
		}
		l.total = make(chan struct{}, l.HeavyTotal)
		l.users = map[string]chan struct{}{}
		l.heavy = map[string]time.Time{}
	})
}

// LaneCounts are the reads since the start: quick (done in the quick
// lane), demoted (stopped there and read again at once) and heavy (read in
// the heavy lane, a shape known heavy).
type LaneCounts struct{ Quick, Heavy, Demoted int64 }

// Counts reports how the reads went.
func (l *Lanes) Counts() LaneCounts {
	l.mu.Lock()
	defer l.mu.Unlock()
	return LaneCounts{l.passes.quick, l.passes.heavy, l.passes.demoted}
}

// shape is what makes two requests the same read but for the page.
func shape(r GridRequest) string {
	r.PageNumber, r.PageSize, r.ExactCount, r.StoredProcedureName = 0, 0, false, ""
	b, _ := json.Marshal(r)
	return string(b)
}

func (l *Lanes) knownHeavy(key string, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	at, ok := l.heavy[key]
	if ok && now.Sub(at) > l.Remember {
		delete(l.heavy, key)
		return false
	}
	return ok
}

func (l *Lanes) forget(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.heavy, key)
}

// forgetAll forgets every shape found heavy (new indexes were built).
func (l *Lanes) forgetAll() {
	l.mu.Lock()
	defer l.mu.Unlock()
	clear(l.heavy)
}

func (l *Lanes) count(n *int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	*n++
}

func (l *Lanes) rememberHeavy(key string, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.heavy) >= maxRemembered { // forget the oldest
		oldest, at := "", now
		for k, t := range l.heavy {
			if t.Before(at) {
				oldest, at = k, t
			}
		}
		delete(l.heavy, oldest)
	}
	l.heavy[key] = now
	l.passes.demoted++
}

// enter waits for a place in the heavy lane: the user's first, then one of
// all. It gives up when ctx ends or after Wait, with a 503 the client may
// retry.
func (l *Lanes) enter(ctx context.Context, user string) (release func(), err error) {
	l.mu.Lock()
	mine := l.users[user]
	if mine == nil {
		mine = make(chan struct{}, l.HeavyPerUser)
		l.users[user] = mine
	}
	l.mu.Unlock()
	timer := time.NewTimer(l.Wait)
	defer timer.Stop()
	busy := func() error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &Error{Code: CodeUnavailable, Key: "grid.busy", RetryAfter: 5 * time.Second,
			Message: "Other slow searches are running; this one waited its turn too long. Try again in a few seconds, or narrow the filter."}
	}
	// A free place is taken at once, before the wait is looked at: on a busy
	// machine the timer may have fired before this goroutine ran again.
	if !take(mine) {
		select {
		case mine <- struct{}{}:
		case <-ctx.Done():
			return nil, busy()
		case <-timer.C:
			return nil, busy()
		}
	}
	if !take(l.total) {
		select {
		case l.total <- struct{}{}:
		case <-ctx.Done():
			<-mine
			return nil, busy()
		case <-timer.C:
			<-mine
			return nil, busy()
		}
	}
	l.mu.Lock()
	l.passes.heavy++
	l.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			<-l.total
			<-mine
		})
	}, nil
}

// take takes a place in a lane if one is free, without waiting.
func take(places chan struct{}) bool {
	select {
	case places <- struct{}{}:
		return true
	default:
		return false
	}
}

// pageInLanes reads a page in the lanes: the quick one first, unless its
// shape is known heavy.
func (e *Engine) pageInLanes(ctx context.Context, r GridRequest, l *Lanes) (*GridPage, error) {
	l.init()
	key := shape(r)
	heavy := readMode{timeout: e.timeout, heavy: true}
	if !l.knownHeavy(key, e.now()) {
		start := time.Now()
		p, err := e.page(ctx, r, readMode{timeout: l.Quick})
		if !statementTimedOut(ctx, err) {
			if err == nil {
				l.count(&l.passes.quick)
				if l.Demand > 0 && time.Since(start) > l.Demand {
					e.recordDemand(ctx, r) // a composite index may serve it
				}
			}
			return p, err
		}
		// Outlasted the quick lane: read again at once, on one core. Its
		// next pages wait for a place in the heavy lane, unless this read
		// shows the slowness was the moment's (a busy machine), not its own.
		l.rememberHeavy(key, e.now())
		start = time.Now()
		p, err = e.page(ctx, r, heavy)
		if err == nil && time.Since(start) < 2*l.Quick {
			// Not clearly heavy: on a busy machine every read is slower, and
			// queueing such reads behind the heavy ones would make a
			// bottleneck of the heavy lane. (Slower than Demand all the same.)
			l.forget(key)
			if l.Demand > 0 {
				e.recordDemand(ctx, r)
			}
		} else if err == nil {
			e.recordDemand(ctx, r) // a composite index may serve it
		}
		return p, err
	}
	release, err := l.enter(ctx, ActorFrom(ctx).Username)
	if err != nil {
		return nil, err
	}
	defer release()
	start := time.Now()
	p, err := e.page(ctx, r, heavy)
	if err == nil && time.Since(start) < l.Quick { // heavy no more (an index came, the data changed)
		l.forget(key)
	}
	return p, err
}

// statementTimedOut reports a statement stopped by its statement timeout
// (not by the caller going away, which cancels the same way).
func statementTimedOut(ctx context.Context, err error) bool {
	var pg *pgconn.PgError
	return ctx.Err() == nil && errors.As(err, &pg) && pg.Code == "57014"
}
