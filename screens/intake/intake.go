package intake

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"ledgerdesk/engine"
	"ledgerdesk/screens/imports"
)

// SystemUser is who intake imports and scheduled runs are recorded as.
const SystemUser = "system"

// Importer is what intake needs of the import service.
type Importer interface {
	Submit(ctx context.Context, u imports.Upload) (*imports.File, error)
	ByOrigin(ctx context.Context, origin string) (*imports.File, error)
}

// Runs queues automatic reconcile runs (recon.Service).
type Runs interface {
	QueueTx(ctx context.Context, tx pgx.Tx, slug, actor string) (runID, activeID int64, err error)
}

// Options are what a Service works with.
type Options struct {
	Pool    *pgxpool.Pool
	Config  *Config
	Imports Importer
	Runs    Runs
	// Kinds names the import kinds feeding a level's sides (after-intake runs).
	Kinds func(slug string) []string
	// Inbox is the drop folder (INBOX_DIR); "" watches none.
	Inbox string
	// Getenv reads the secrets intake.yaml names (passwords, keys).
	Getenv func(string) string
	// Mail sends the daily digest; Messages (message codes) and Texts
	// (every UI text, by key) write it in each reader's language;
	// LevelNames are the levels' translation keys by number.
	Mail       Mailer
	Messages   func(lang string) map[string]string
	Texts      func(lang string) map[string]string
	LevelNames map[int]string
	Log        *slog.Logger
}

// Service runs the intake: the drop folder, SFTP pulls and the schedules.
type Service struct {
	Options
	queue *river.Client[pgx.Tx]
	// looked is what the last look at the drop folder found, by path under
	// it: a file is taken when the next look finds it unchanged.
	mu     sync.Mutex
	looked map[string]stamp
	// afterDownload, when set (tests), runs between an SFTP file's download
	// and the check that it is still there unchanged.
	afterDownload func(path string)
}

// stamp is what says a file is unchanged: its size and time of change.
type stamp struct {
	size    int64
	changed time.Time
}

// New returns the intake service.
func New(o Options) *Service {
	if o.Log == nil {
		o.Log = slog.Default()
	}
	return &Service{Options: o, looked: map[string]stamp{}}
}

// SetQueue gives the service the job queue (made after the service, because
// the queue's workers need it).
func (s *Service) SetQueue(q *river.Client[pgx.Tx]) { s.queue = q }

// system is ctx acting as the system user.
func system(ctx context.Context) context.Context {
	return engine.WithActor(ctx, &engine.Actor{Username: SystemUser, Language: "en"})
}

// message is a result as stored: its English text, code and parameters.
type message struct {
	Text   string
	Code   string
	Params map[string]any
}
