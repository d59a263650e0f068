//go:build !unix

package server

import "net"

// On other systems the socket is not peeked: a read runs to its end.
const peekSupported = false

func peerClosed(net.Conn) bool { return false }
