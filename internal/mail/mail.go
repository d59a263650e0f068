// Package mail delivers the product's messages (password-reset and sign-in
// codes) by email over SMTP, or, when no SMTP server or mobile provider is
// configured, into the mail_outbox table, where `ledgerdesk outbox` shows
// them. Delivery runs in the background so that a slow mail server never
// slows a request, nor makes a known address answer slower than an unknown one:
// each message is a row of mail_outbox and a job of the queue (river), so a
// restart or a mail server down for a while delays it, with retries, but never
// loses it, and `ledgerdesk outbox` shows where each one stands.
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

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
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
// background. With a job queue (SetQueue; the server has one) every message
// is a mail_outbox row and a delivery job with retries; without one (tests,
// tools) it is delivered by a goroutine, and Wait blocks until those are done.
type Sender struct {
	Email  Transport
	Mobile Transport
	Log    *slog.Logger
	Pool   *pgxpool.Pool // where queued messages are kept (with a queue)
	// Key seals queued bodies as the outbox does: the table holds them with
	// their codes masked until delivery.
	Key   []byte
	wg    sync.WaitGroup
	queue *river.Client[pgx.Tx]
}

// SetQueue makes every later message a delivery job of q (on Pool).
func (s *Sender) SetQueue(q *river.Client[pgx.Tx]) { s.queue = q }

func (s *Sender) transport(channel string) Transport {
	if channel == Mobile {
		return s.Mobile
	}
	return s.Email
}

// Send queues m for delivery and returns at once (after one insert when
// there is a job queue).
func (s *Sender) Send(m Message) {
	if s.queue != nil && s.Pool != nil {
		if err := s.enqueue(m); err != nil {
			s.Log.Error("message not queued", "channel", m.Channel, "to", m.To, "subject", m.Subject, "err", err)
		}
		return
	}
	t := s.transport(m.Channel)
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

// enqueue keeps m in the outbox as queued and adds its delivery job, in one
// transaction: either both are there or neither.
func (s *Sender) enqueue(m Message) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	masked, sealed, err := maskAndSeal(s.Key, m.Body)
	if err != nil {
		return err
	}
	return pgx.BeginFunc(ctx, s.Pool, func(tx pgx.Tx) error {
		var id int64
		if err := tx.QueryRow(ctx, `insert into mail_outbox (channel, recipient, subject, body, sealed, state) values ($1, $2, $3, $4, $5, 'queued') returning id`,
			m.Channel, m.To, m.Subject, masked, sealed).Scan(&id); err != nil {
			return err
		}
		_, err := s.queue.InsertTx(ctx, tx, DeliverArgs{OutboxID: id}, nil)
		return err
	})
}

// DeliverArgs is the job that delivers one queued message of the outbox.
type DeliverArgs struct {
	OutboxID int64 `json:"outboxId"`
}

// Kind names the job for the queue.
func (DeliverArgs) Kind() string { return "mail_deliver" }

// DeliverAttempts: with the queue's backoff (attempt^4 seconds) the tries
// span about eleven hours, so a mail server down for a while loses nothing.
const DeliverAttempts = 12

// InsertOpts: retries on their own queue's default.
func (DeliverArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: DeliverAttempts}
}

// DeliverWorker delivers queued messages through the sender's transports.
type DeliverWorker struct {
	river.WorkerDefaults[DeliverArgs]
	Sender *Sender
}

// Work delivers one message: through SMTP (state sent, the body is then not
// kept: it holds a code), or, without a delivery configured, it stays in the
// outbox (state kept). A failed try is written to the row and retried; after
// the last one the row says failed.
func (w *DeliverWorker) Work(ctx context.Context, job *river.Job[DeliverArgs]) error {
	s := w.Sender
	var m Message
	var state string
	var sealed *string
	err := s.Pool.QueryRow(ctx, `select channel, recipient, subject, body, sealed, state from mail_outbox where id = $1`, job.Args.OutboxID).
		Scan(&m.Channel, &m.To, &m.Subject, &m.Body, &sealed, &state)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && state != "queued") {
		return nil // gone, or delivered by an earlier try
	}
	if err != nil {
		return err
	}
	if sealed != nil { // the body with its codes, for delivery
		if m.Body, err = Unseal(s.Key, *sealed); err != nil {
			return fmt.Errorf("outbox %d: %w", job.Args.OutboxID, err)
		}
	}
	t := s.transport(m.Channel)
	if _, ok := t.(*Outbox); ok {
		_, err := s.Pool.Exec(ctx, `update mail_outbox set state = 'kept', attempts = $2 where id = $1`, job.Args.OutboxID, job.Attempt)
		if err == nil {
			s.Log.Info("message in the outbox (no delivery configured); read it with `ledgerdesk outbox`",
				"outbox_id", job.Args.OutboxID, "channel", m.Channel, "to", m.To, "subject", m.Subject)
		}
		return err
	}
	if deliverErr := t.Deliver(ctx, m); deliverErr != nil {
		state := "queued"
		if job.Attempt >= job.MaxAttempts {
			state = "failed"
		}
		s.Log.Warn("message not delivered", "outbox_id", job.Args.OutboxID, "attempt", job.Attempt, "of", job.MaxAttempts, "err", deliverErr)
		if _, err := s.Pool.Exec(context.WithoutCancel(ctx), `update mail_outbox set state = $2, attempts = $3, last_error = $4 where id = $1`,
			job.Args.OutboxID, state, job.Attempt, deliverErr.Error()); err != nil {
			return errors.Join(deliverErr, err)
		}
		return deliverErr
	}
	_, err = s.Pool.Exec(context.WithoutCancel(ctx), `update mail_outbox set state = 'sent', attempts = $2, last_error = null, delivered_on = now(),
		body = '(delivered; not kept)', sealed = null where id = $1`, job.Args.OutboxID, job.Attempt)
	return err
}

// New builds the sender for the configuration: SMTP for email when smtpURL is
// set, the outbox otherwise; mobile messages go to the outbox until a
// provider is configured.
// outboxKey (OutboxKey of the server secret) seals what the outbox masks.
func New(smtpURL, from string, pool *pgxpool.Pool, log *slog.Logger, outboxKey []byte) (*Sender, error) {
	outbox := &Outbox{Pool: pool, Log: log, Key: outboxKey}
	s := &Sender{Email: outbox, Mobile: outbox, Log: log, Pool: pool, Key: outboxKey}
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

// maskAndSeal returns body with its codes masked and, when it had any and
// there is a key, the whole body sealed with key.
func maskAndSeal(key []byte, body string) (string, *string, error) {
	masked := codes.ReplaceAllString(body, "******")
	if masked == body || len(key) == 0 {
		return masked, nil, nil
	}
	s, err := Seal(key, body)
	if err != nil {
		return "", nil, fmt.Errorf("outbox: %w", err)
	}
	return masked, &s, nil
}

func (o *Outbox) Deliver(ctx context.Context, m Message) error {
	masked, sealed, err := maskAndSeal(o.Key, m.Body)
	if err != nil {
		return err
	}
	var id int64
	err = o.Pool.QueryRow(ctx, `insert into mail_outbox (channel, recipient, subject, body, sealed) values ($1, $2, $3, $4, $5) returning id`,
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
