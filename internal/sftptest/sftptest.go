// Package sftptest runs a real SFTP server in-process for tests: SSH from
// golang.org/x/crypto/ssh, SFTP from github.com/pkg/sftp, serving a folder
// of the test's with a password login and a fresh ed25519 host key.
package sftptest

import (
	"crypto/ed25519"
	"crypto/rand"
	"net"
	"strconv"
	"sync"
	"testing"

	"github.com/pkg/sftp"
	"golang.org/x/crypto/ssh"
)

// Server is a running SFTP server.
type Server struct {
	Host     string
	Port     int
	User     string
	Password string
	// HostKey is the server's public key in authorized_keys form.
	HostKey string
	// Dir is the folder the server serves (its working directory).
	Dir   string
	ln    net.Listener
	wg    sync.WaitGroup
	mu    sync.Mutex
	conns map[net.Conn]bool
}

// Start serves dir until the test ends.
func Start(t testing.TB, dir string) *Server {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{User: "intake", Password: "s3cret-pass", Dir: dir, conns: map[net.Conn]bool{},
		HostKey: string(ssh.MarshalAuthorizedKey(signer.PublicKey()))}
	cfg := &ssh.ServerConfig{PasswordCallback: func(c ssh.ConnMetadata, pw []byte) (*ssh.Permissions, error) {
		if c.User() == s.User && string(pw) == s.Password {
			return nil, nil
		}
		return nil, errWrongPassword
	}}
	cfg.AddHostKey(signer)
	s.ln, err = net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	host, port, _ := net.SplitHostPort(s.ln.Addr().String())
	s.Host = host
	s.Port, _ = strconv.Atoi(port)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			conn, err := s.ln.Accept()
			if err != nil {
				return
			}
			s.mu.Lock()
			s.conns[conn] = true
			s.mu.Unlock()
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				s.serve(conn, cfg)
			}()
		}
	}()
	t.Cleanup(func() {
		// A client that did not hang up is cut off.
		s.ln.Close()
		s.mu.Lock()
		for c := range s.conns {
			c.Close()
		}
		s.mu.Unlock()
		s.wg.Wait()
	})
	return s
}

type wrongPassword struct{}

func (wrongPassword) Error() string { return "wrong user or password" }

var errWrongPassword = wrongPassword{}

// serve answers one connection: sessions asking for the sftp subsystem.
func (s *Server) serve(conn net.Conn, cfg *ssh.ServerConfig) {
	defer func() {
		conn.Close()
		s.mu.Lock()
		delete(s.conns, conn)
		s.mu.Unlock()
	}()
	sc, chans, reqs, err := ssh.NewServerConn(conn, cfg)
	if err != nil {
		return
	}
	defer sc.Close()
	go ssh.DiscardRequests(reqs)
	for nc := range chans {
		if nc.ChannelType() != "session" {
			nc.Reject(ssh.UnknownChannelType, "only sessions")
			continue
		}
		ch, requests, err := nc.Accept()
		if err != nil {
			return
		}
		go func() {
			for req := range requests {
				ok := req.Type == "subsystem" && len(req.Payload) >= 4 && string(req.Payload[4:]) == "sftp"
				req.Reply(ok, nil)
				if ok {
					srv, err := sftp.NewServer(ch, sftp.WithServerWorkingDirectory(s.Dir))
					if err == nil {
						srv.Serve()
						srv.Close()
					}
					ch.Close()
				}
			}
		}()
	}
}
