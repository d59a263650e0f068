// Package intake takes files that arrive by themselves and starts the work
// that runs by itself: the drop folder (INBOX_DIR), SFTP sources and the
// schedules of intake.yaml (pulls and automatic reconcile runs).
package intake

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
	"go.yaml.in/yaml/v3"
	"golang.org/x/crypto/ssh"

	"ledgerdesk/screens/imports"
)

// File is the name of the intake declarations beside views.yaml.
const File = "intake.yaml"

// Config is intake.yaml.
type Config struct {
	TimeZone string      `yaml:"timeZone"`
	Tick     Duration    `yaml:"tick"`
	Folder   Folder      `yaml:"folder"`
	SFTP     []*SFTP     `yaml:"sftp"`
	Runs     []*Run      `yaml:"runs"`
	Expected []*Expected `yaml:"expected"`
	Digest   Digest      `yaml:"digest"`
	loc      *time.Location
}

// Folder is how the drop folder is watched.
type Folder struct {
	Poll Duration `yaml:"poll"`
}

// SFTP is a server files are pulled from.
type SFTP struct {
	Name     string `yaml:"name"`
	Host     string `yaml:"host"`
	Port     int    `yaml:"port"`
	User     string `yaml:"user"`
	Password string `yaml:"password"` // the environment variable holding it
	Key      string `yaml:"key"`      // the environment variable holding a private key (PEM)
	HostKey  string `yaml:"hostKey"`  // authorized_keys form, pinned
	Folder   string `yaml:"folder"`
	Kind     string `yaml:"kind"`
	Layout   string `yaml:"layout"`
	Schedule string `yaml:"schedule"`
	hostKey  ssh.PublicKey
}

// Run schedules automatic reconcile runs of a level.
type Run struct {
	Level       string `yaml:"level"`
	Schedule    string `yaml:"schedule"`
	AfterIntake bool   `yaml:"afterIntake"`
}

// Expected is a file expected by a time of day: of a kind, holding a
// provider's rows (transactions, settlements) or a bank account's (bank).
type Expected struct {
	Name        string `yaml:"name"`
	Kind        string `yaml:"kind"`
	Provider    string `yaml:"provider"`
	BankAccount string `yaml:"bankAccount"`
	By          string `yaml:"by"`   // hh:mm in the time zone
	Days        string `yaml:"days"` // weekdays (default) or daily
	cron        string
}

// Holder is the provider or bank account the file holds ("" any).
func (e *Expected) Holder() string { return e.Provider + e.BankAccount }

// Digest is the daily email to the users who asked for it (Profile).
type Digest struct {
	At   string `yaml:"at"`  // hh:mm in the time zone; default 07:00
	Off  bool   `yaml:"off"` // true: no digest is sent
	cron string
}

// DefaultDigestAt is when the digest goes out by default.
const DefaultDigestAt = "07:00"

// clock reads hh:mm as a cron's minute and hour fields.
func clock(v string) (string, bool) {
	t, err := time.Parse("15:04", v)
	if err != nil {
		return "", false
	}
	return fmt.Sprintf("%d %d", t.Minute(), t.Hour()), true
}

// Duration is a time.Duration written as "10s", "1m".
type Duration time.Duration

// UnmarshalYAML reads a Go duration.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	v, err := time.ParseDuration(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %q is not a duration like 10s or 1m", n.Line, n.Value)
	}
	*d = Duration(v)
	return nil
}

// DefaultTick is how often every node looks for due schedules by default.
const DefaultTick = 15 * time.Second

// DefaultPoll is how often the drop folder is looked at by default.
const DefaultPoll = 10 * time.Second

// cronParser reads the five fields (minute hour day month weekday) and the
// descriptors (@daily, @hourly, @every 15m).
var cronParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// Load reads intake.yaml from the metadata; without one, nothing arrives or
// runs by itself. levels says whether a level slug is declared.
func Load(fsys fs.FS, levels func(slug string) bool) (*Config, error) {
	b, err := fs.ReadFile(fsys, File)
	if errors.Is(err, fs.ErrNotExist) {
		return Parse(nil, levels)
	}
	if err != nil {
		return nil, err
	}
	return Parse(b, levels)
}

// Parse reads and checks intake.yaml's content, every problem at once, each
// naming its entry.
func Parse(b []byte, levels func(slug string) bool) (*Config, error) {
	c := &Config{}
	if len(bytes.TrimSpace(b)) > 0 {
		dec := yaml.NewDecoder(bytes.NewReader(b))
		dec.KnownFields(true)
		if err := dec.Decode(c); err != nil {
			return nil, fmt.Errorf("%s: %w", File, err)
		}
	}
	var errs []string
	bad := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	c.loc = time.UTC
	if c.TimeZone != "" {
		loc, err := time.LoadLocation(c.TimeZone)
		if err != nil {
			bad("timeZone %q is not a time zone name like Europe/Stockholm", c.TimeZone)
		} else {
			c.loc = loc
		}
	}
	if c.Tick == 0 {
		c.Tick = Duration(DefaultTick)
	} else if time.Duration(c.Tick) < time.Second {
		bad("tick must be at least 1s")
	}
	if c.Folder.Poll == 0 {
		c.Folder.Poll = Duration(DefaultPoll)
	} else if time.Duration(c.Folder.Poll) < time.Second {
		bad("folder.poll must be at least 1s")
	}
	// named checks an entry's name: present, without the characters that
	// separate the parts of schedule names, alert keys and origins, once.
	named := func(at, name string, seen map[string]bool) {
		if name == "" || strings.ContainsAny(name, ":/ ") {
			bad("%s: name is required, without spaces, colons or slashes", at)
		}
		if seen[name] {
			bad("%s: the name is used twice", at)
		}
		seen[name] = true
	}
	names := map[string]bool{}
	for i, s := range c.SFTP {
		at := fmt.Sprintf("sftp[%d] %s", i, s.Name)
		named(at, s.Name, names)
		if s.Host == "" || s.User == "" || s.Folder == "" {
			bad("%s: host, user and folder are required", at)
		}
		if s.Port == 0 {
			s.Port = 22
		}
		if s.Port < 1 || s.Port > 65535 {
			bad("%s: port must be from 1 to 65535", at)
		}
		if (s.Password == "") == (s.Key == "") {
			bad("%s: give either password or key: the name of the environment variable holding it", at)
		}
		if s.HostKey == "" {
			bad("%s: hostKey is required (the server's public key, as in known_hosts: ssh-ed25519 AAAA...)", at)
		} else if k, _, _, _, err := ssh.ParseAuthorizedKey([]byte(s.HostKey)); err != nil {
			bad("%s: hostKey is not a public key in authorized_keys form: %v", at, err)
		} else {
			s.hostKey = k
		}
		if !imports.Kind(s.Kind).Valid() {
			bad("%s: kind must be bank, transaction, settlement or ticket", at)
		}
		if _, err := cronParser.Parse(s.Schedule); err != nil {
			bad("%s: schedule %q is not a cron expression (minute hour day month weekday): %v", at, s.Schedule, err)
		}
	}
	seen := map[string]bool{}
	for i, r := range c.Runs {
		at := fmt.Sprintf("runs[%d] %s", i, r.Level)
		if levels != nil && !levels(r.Level) {
			bad("%s: level is not a level of recon.yaml", at)
		}
		if seen[r.Level] {
			bad("%s: the level has two entries", at)
		}
		seen[r.Level] = true
		if r.Schedule == "" && !r.AfterIntake {
			bad("%s: give a schedule, afterIntake: true, or both", at)
		}
		if r.Schedule != "" {
			if _, err := cronParser.Parse(r.Schedule); err != nil {
				bad("%s: schedule %q is not a cron expression (minute hour day month weekday): %v", at, r.Schedule, err)
			}
		}
	}
	expected := map[string]bool{}
	for i, e := range c.Expected {
		at := fmt.Sprintf("expected[%d] %s", i, e.Name)
		named(at, e.Name, expected)
		switch imports.Kind(e.Kind) {
		case imports.Transaction, imports.Settlement:
			if e.Provider == "" || e.BankAccount != "" {
				bad("%s: a %s file is expected by its provider: give provider, not bankAccount", at, e.Kind)
			}
		case imports.Bank:
			if e.BankAccount == "" || e.Provider != "" {
				bad("%s: a bank file is expected by its account: give bankAccount, not provider", at)
			}
		case imports.Ticket:
			if e.Provider != "" || e.BankAccount != "" {
				bad("%s: a ticket file has no provider or account", at)
			}
		default:
			bad("%s: kind must be bank, transaction, settlement or ticket", at)
		}
		hm, ok := clock(e.By)
		if !ok {
			bad("%s: by must be a time of day like 09:00, got %q", at, e.By)
		}
		switch e.Days {
		case "", "weekdays":
			e.Days, e.cron = "weekdays", hm+" * * 1-5"
		case "daily":
			e.cron = hm + " * * *"
		default:
			bad("%s: days must be weekdays or daily, got %q", at, e.Days)
		}
	}
	if c.Digest.At == "" {
		c.Digest.At = DefaultDigestAt
	}
	if hm, ok := clock(c.Digest.At); ok {
		c.Digest.cron = hm + " * * *"
	} else {
		bad("digest.at must be a time of day like 07:00, got %q", c.Digest.At)
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%s:\n  %s", File, strings.Join(errs, "\n  "))
	}
	return c, nil
}

// Location is the zone the schedules' times are read in.
func (c *Config) Location() *time.Location { return c.loc }

// Source returns the SFTP source named name, or nil.
func (c *Config) Source(name string) *SFTP {
	i := slices.IndexFunc(c.SFTP, func(s *SFTP) bool { return s.Name == name })
	if i < 0 {
		return nil
	}
	return c.SFTP[i]
}

// Expect returns the expected file named name, or nil.
func (c *Config) Expect(name string) *Expected {
	i := slices.IndexFunc(c.Expected, func(e *Expected) bool { return e.Name == name })
	if i < 0 {
		return nil
	}
	return c.Expected[i]
}

// next is when a cron expression is next due after t, in loc.
func next(expr string, loc *time.Location, t time.Time) (time.Time, error) {
	sched, err := cronParser.Parse(expr)
	if err != nil {
		return time.Time{}, err
	}
	return sched.Next(t.In(loc)), nil
}
