// Package smtptest runs a real SMTP server in the test process and hands
// the tests every message it receives, so mail is tested over the wire.
package smtptest

import (
	"io"
	"log"
	"net"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
)

// Mail is one received message.
type Mail struct {
	From string
	To   []string
	Data string // the raw message: headers and body
}

// Server is a running in-process SMTP server.
type Server struct {
	URL  string // smtp://127.0.0.1:port, for SMTP_URL
	mail chan Mail

	mu     sync.Mutex
	latest map[string]Mail // newest message per recipient (lower case)
}

// Latest returns the newest message received for to, if any. Unlike Next it
// does not consume anything: browser tests poll it.
func (s *Server) Latest(to string) (Mail, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.latest[strings.ToLower(to)]
	return m, ok
}

// Start runs a server on a free port until the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	s := &Server{mail: make(chan Mail, 100), latest: map[string]Mail{}}
	srv := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return &session{srv: s}, nil }))
	srv.Domain = "localhost"
	srv.ReadTimeout, srv.WriteTimeout = 10*time.Second, 10*time.Second
	srv.ErrorLog = log.New(io.Discard, "", 0)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	s.URL = "smtp://" + ln.Addr().String()
	return s
}

// Next waits up to 10 seconds for the next message to to.
func (s *Server) Next(t testing.TB, to string) Mail {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case m := <-s.mail:
			for _, r := range m.To {
				if strings.EqualFold(r, to) {
					return m
				}
			}
		case <-timeout:
			t.Fatalf("smtptest: no mail to %s within 10s", to)
			return Mail{}
		}
	}
}

// None reports a test failure if a message arrives within wait.
func (s *Server) None(t testing.TB, wait time.Duration) {
	t.Helper()
	select {
	case m := <-s.mail:
		t.Errorf("smtptest: unexpected mail to %v", m.To)
	case <-time.After(wait):
	}
}

var sixDigits = regexp.MustCompile(`\b(\d{6})\b`)

// Code returns the first six-digit code in the message body.
func (m Mail) Code(t testing.TB) string {
	t.Helper()
	c := m.FindCode()
	if c == "" {
		t.Fatalf("smtptest: no 6-digit code in %q", m.Data)
	}
	return c
}

// FindCode returns the first six-digit code in the message body, or "".
func (m Mail) FindCode() string {
	_, body, _ := strings.Cut(m.Data, "\r\n\r\n")
	if c := sixDigits.FindStringSubmatch(body); c != nil {
		return c[1]
	}
	return ""
}

type session struct {
	srv  *Server
	from string
	to   []string
}

func (s *session) Reset()        { s.from, s.to = "", nil }
func (s *session) Logout() error { return nil }
func (s *session) Mail(from string, _ *smtp.MailOptions) error {
	s.from = from
	return nil
}
func (s *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.to = append(s.to, to)
	return nil
}
func (s *session) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	m := Mail{From: s.from, To: s.to, Data: string(b)}
	s.srv.mu.Lock()
	for _, r := range s.to {
		s.srv.latest[strings.ToLower(r)] = m
	}
	s.srv.mu.Unlock()
	select {
	case s.srv.mail <- m:
	default: // nobody consumes the channel (browser tests use Latest)
	}
	return nil
}
