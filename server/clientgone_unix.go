//go:build unix

package server

import (
	"errors"
	"net"
	"syscall"
)

const peekSupported = true

// peerClosed peeks one byte without waiting: 0 bytes is the peer's orderly
// close, an error other than "nothing yet" a reset; a byte (a request sent
// ahead on the same connection) or nothing yet means it is still there.
func peerClosed(conn net.Conn) bool {
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return false
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	closed := false
	var buf [1]byte
	raw.Control(func(fd uintptr) {
		n, _, err := syscall.Recvfrom(int(fd), buf[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		switch {
		case err == nil:
			closed = n == 0
		case errors.Is(err, syscall.EAGAIN), errors.Is(err, syscall.EWOULDBLOCK), errors.Is(err, syscall.EINTR):
		default:
			closed = true
		}
	})
	return closed
}
