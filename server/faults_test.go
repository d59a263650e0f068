package server

import (
	"context"
	"io"
	"net"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"ledgerdesk/internal/pgtest"
	"ledgerdesk/migrations"
	"ledgerdesk/screens/identity"
)

// dbProxy stands between the application and PostgreSQL, so that a test can
// make the database go away (every connection cut, new ones refused) and
// come back, as a restart of the server does.
type dbProxy struct {
	ln       net.Listener
	upstream string
	down     atomic.Bool
	mu       sync.Mutex
	conns    []net.Conn
}

func startProxy(t *testing.T, upstream string) *dbProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &dbProxy{ln: ln, upstream: upstream}
	t.Cleanup(func() { ln.Close(); p.cut() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			if p.down.Load() {
				c.Close()
				continue
			}
			go p.pipe(c)
		}
	}()
	return p
}

func (p *dbProxy) pipe(c net.Conn) {
	up, err := net.Dial("tcp", p.upstream)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	p.conns = append(p.conns, c, up)
	p.mu.Unlock()
	go func() { io.Copy(up, c); up.Close() }()
	io.Copy(c, up)
	c.Close()
}

// cut closes every connection through the proxy.
func (p *dbProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// TestDatabaseRestartUnderLoad (security round 3, faults): clients keep
// calling while PostgreSQL goes away and comes back. While it is away every
// answer is a 503 with Retry-After (never a 500, never a hang past the
// client's patience); once it is back the same process answers again, with
// no restart.
func TestDatabaseRestartUnderLoad(t *testing.T) {
	dbURL := pgtest.NewDatabase(t)
	direct, err := pgxpool.New(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(direct.Close)
	u, _ := url.Parse(dbURL)
	proxy := startProxy(t, u.Host)
	u.Host = proxy.ln.Addr().String()
	q := u.Query()
	q.Set("connect_timeout", "2")
	u.RawQuery = q.Encode()
	pool, err := pgxpool.New(context.Background(), u.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if _, err := migrations.Up(context.Background(), pool, discardLog()); err != nil {
		t.Fatal(err)
	}
	ident := identity.New(identity.Options{Pool: pool, Secret: []byte("0123456789abcdef0123456789abcdef"), Log: discardLog()})
	if _, err := ident.EnsureAdmin(context.Background(), adminPassword); err != nil {
		t.Fatal(err)
	}
	w := &world{t: t, app: New(Deps{Config: testConfig(t), Pool: pool, Log: discardLog(), Identity: ident})}
	admin := w.login("admin", adminPassword)

	type tally struct{ ok, unavailable, other int }
	var mu sync.Mutex
	var counts tally
	var bad []string
	stop := make(chan struct{})
	answered := make(chan struct{}, 1) // a client's answer was counted
	var clients sync.WaitGroup
	for i := 0; i < 4; i++ {
		clients.Add(1)
		go func() {
			defer clients.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				a := w.do("GET", "/api/profile", admin, nil)
				mu.Lock()
				switch {
				case a.status == 200:
					counts.ok++
				case a.status == 503 && a.header.Get("Retry-After") != "":
					counts.unavailable++
				default:
					counts.other++
					if len(bad) < 5 {
						bad = append(bad, string(a.body))
					}
				}
				mu.Unlock()
				select {
				case answered <- struct{}{}:
				default:
				}
			}
		}()
	}
	waitFor := func(what string, cond func(tally) bool) {
		t.Helper()
		deadline := time.NewTimer(60 * time.Second)
		defer deadline.Stop()
		for {
			mu.Lock()
			c := counts
			mu.Unlock()
			if cond(c) {
				return
			}
			select { // the next answer, or the bound past which the test gives up
			case <-answered:
			case <-deadline.C:
				t.Fatalf("%s: never (%+v)", what, c)
			}
		}
	}
	waitFor("answers while the database is up", func(c tally) bool { return c.ok >= 20 })
	// The restart: every connection cut, new ones refused for a while.
	proxy.down.Store(true)
	proxy.cut()
	waitFor("503s while it is away", func(c tally) bool { return c.unavailable >= 20 })
	mu.Lock()
	okBefore := counts.ok
	mu.Unlock()
	proxy.down.Store(false)
	waitFor("answers once it is back", func(c tally) bool { return c.ok >= okBefore+20 })
	close(stop)
	clients.Wait()
	if counts.other > 0 {
		t.Errorf("%d answers neither 200 nor 503 with Retry-After, e.g. %q", counts.other, bad)
	}
	t.Logf("%+v", counts)
}
