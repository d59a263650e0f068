// Package mail delivers the product's messages (password-reset and sign-in
// codes) by email over SMTP, or, when no SMTP server or mobile provider is
// configured, into the mail_outbox table, where `ledgerdesk outbox` shows
// them. Delivery runs in the background so that a slow mail server never
// slows a request, nor makes a known address answer slower than an unknown one.
package mail

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"regexp"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	gomail "github.com/wneessen/go-mail"
)

// Channels a message can go out on (user two-factor type 1 and 2).
const (
	Email  = "email"
	Mobile = "mobile"
)

// Message is one message to one recipient.
type Message struct {
	Channel string // Email or Mobile
	To      string // address or phone number
	Subject string
	Body    string
}

// Transport delivers one message now. SMTP and Outbox implement it; a mobile
// provider would too.
type Transport interface {
	Deliver(ctx context.Context, m Message) error
}

// Sender routes messages to a transport by channel and delivers them in the
// background. Wait blocks until every queued delivery has finished.
type Sender struct {
	Email  Transport
	Mobile Transport
	Log    *slog.Logger
	wg     sync.WaitGroup
}

// Send queues m for delivery and returns at once.
func (s *Sender) Send(m Message) {
	t := s.Email
	if m.Channel == Mobile {
		t = s.Mobile
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		if err := t.Deliver(ctx, m); err != nil {
			s.Log.Error("message not delivered", "channel", m.Channel, "to", m.To, "subject", m.Subject, "err", err)
		}
	}()
}

// Wait blocks until queued deliveries are done (shutdown, tests).
func (s *Sender) Wait() { s.wg.Wait() }

// New builds the sender for the configuration: SMTP for email when smtpURL is
// set, the outbox otherwise; mobile messages go to the outbox until a
// provider is configured.
// outboxKey (OutboxKey of the server secret) seals what the outbox masks.
func New(smtpURL, from string, pool *pgxpool.Pool, log *slog.Logger, outboxKey []byte) (*Sender, error) {
	outbox := &Outbox{Pool: pool, Log: log, Key: outboxKey}
	s := &Sender{Email: outbox, Mobile: outbox, Log: log}
	if smtpURL != "" {
		smtp, err := NewSMTP(smtpURL, from)
		if err != nil {
			return nil, err
		}
		s.Email = smtp
	}
	return s, nil
}

// Outbox keeps messages in the mail_outbox table. The log records that a
// message is waiting, never its body: bodies hold codes. The stored body
// has its codes masked; the whole body is kept sealed with Key (from the
// server secret), so only `ledgerdesk outbox` shows the codes, not a read of
// the table.
type Outbox struct {
	Pool *pgxpool.Pool
	Log  *slog.Logger
	Key  []byte // nil: codes are masked and not kept at all
}

// codes are the six-digit codes of reset and sign-in messages.
var codes = regexp.MustCompile(`\b\d{6}\b`)

func (o *Outbox) Deliver(ctx context.Context, m Message) error {
	masked := codes.ReplaceAllString(m.Body, "******")
	var sealed *string
	if masked != m.Body && len(o.Key) > 0 {
		s, err := Seal(o.Key, m.Body)
		if err != nil {
			return fmt.Errorf("outbox: %w", err)
		}
		sealed = &s
	}
	var id int64
	err := o.Pool.QueryRow(ctx, `insert into mail_outbox (channel, recipient, subject, body, sealed) values ($1, $2, $3, $4, $5) returning id`,
		m.Channel, m.To, m.Subject, masked, sealed).Scan(&id)
	if err != nil {
		return fmt.Errorf("outbox: %w", err)
	}
	o.Log.Info("message in the outbox (no delivery configured); read it with `ledgerdesk outbox`",
		"outbox_id", id, "channel", m.Channel, "to", m.To, "subject", m.Subject)
	return nil
}

// OutboxKey derives the outbox's sealing key from the server secret.
func OutboxKey(secret []byte) []byte {
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte("ledgerdesk outbox"))
	return mac.Sum(nil)
}

// Seal encrypts plain with key (AES-256-GCM): base64 of nonce and sealed text.
func Seal(key []byte, plain string) (string, error) {
	aead, err := gcm(key)
	if err != nil {
		return "", err
	}
	nonce := make([]byte, aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(aead.Seal(nonce, nonce, []byte(plain), nil)), nil
}

// Unseal reverses Seal.
func Unseal(key []byte, sealed string) (string, error) {
	aead, err := gcm(key)
	if err != nil {
		return "", err
	}
	raw, err := base64.StdEncoding.DecodeString(sealed)
	if err != nil || len(raw) < aead.NonceSize() {
		return "", errors.New("not a sealed outbox body")
	}
	plain, err := aead.Open(nil, raw[:aead.NonceSize()], raw[aead.NonceSize():], nil)
	return string(plain), err
}

func gcm(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// SMTP sends email through one SMTP server.
type SMTP struct {
	from string
	opts []gomail.Option
	host string
}

// NewSMTP parses smtp://user:pass@host:port (STARTTLS when offered) or
// smtps://user:pass@host:port (TLS from the start).
func NewSMTP(rawURL, from string) (*SMTP, error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Hostname() == "" {
		return nil, fmt.Errorf("SMTP_URL: not a URL")
	}
	s := &SMTP{from: from, host: u.Hostname()}
	port := 587
	if u.Scheme == "smtps" {
		port = 465
		s.opts = append(s.opts, gomail.WithSSL())
	} else {
		s.opts = append(s.opts, gomail.WithTLSPolicy(gomail.TLSOpportunistic))
	}
	if p := u.Port(); p != "" {
		if port, err = strconv.Atoi(p); err != nil {
			return nil, fmt.Errorf("SMTP_URL: bad port %q", p)
		}
	}
	s.opts = append(s.opts, gomail.WithPort(port), gomail.WithTimeout(30*time.Second))
	if u.User != nil {
		pass, _ := u.User.Password()
		s.opts = append(s.opts, gomail.WithSMTPAuth(gomail.SMTPAuthAutoDiscover),
			gomail.WithUsername(u.User.Username()), gomail.WithPassword(pass))
	}
	return s, nil
}

func (s *SMTP) Deliver(ctx context.Context, m Message) error {
	msg := gomail.NewMsg()
	if err := msg.From(s.from); err != nil {
		return fmt.Errorf("MAIL_FROM %q: %w", s.from, err)
	}
	if err := msg.To(m.To); err != nil {
		return fmt.Errorf("recipient: %w", err)
	}
	msg.Subject(m.Subject)
	msg.SetBodyString(gomail.TypeTextPlain, m.Body)
	c, err := gomail.NewClient(s.host, s.opts...)
	if err != nil {
		return err
	}
	return c.DialAndSendWithContext(ctx, msg)
}
