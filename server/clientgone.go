package server

import (
	"context"
	"net"
	"syscall"
	"time"

	"github.com/gofiber/fiber/v3"
)

// clientGoneEvery is how often a long request looks whether its client is
// still there.
const clientGoneEvery = 100 * time.Millisecond

// stopWhenClientGoes cancels the request's context when the client closes
// its connection, so that a grid read nobody waits for any more stops in
// the database (pgx cancels the statement) instead of holding a core until
// its timeout. fasthttp, under Fiber, gives no such signal (its context ends
// only when the server stops), so the socket is peeked while the handler
// runs: an orderly close or a reset of the peer ends the context.
func stopWhenClientGoes(c fiber.Ctx) error {
	conn := c.RequestCtx().Conn()
	if !canPeek(conn) {
		return c.Next()
	}
	ctx, cancel := context.WithCancel(c.Context())
	defer cancel()
	c.SetContext(ctx)
	done := make(chan struct{})
	defer close(done)
	go func() {
		tick := time.NewTicker(clientGoneEvery)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				if peerClosed(conn) {
					cancel()
					return
				}
			}
		}
	}()
	return c.Next()
}

// canPeek reports whether the connection is a socket that can be peeked
// (not a TLS connection, nor an in-memory one of the tests' app.Test).
func canPeek(conn net.Conn) bool {
	_, ok := conn.(syscall.Conn)
	return ok && peekSupported
}
