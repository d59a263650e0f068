// Package recon is reconciliation (DESIGN.md section 6): the levels as
// recon.yaml declares them (levels.go), and derived from that one
// definition (sql.go) automatic runs per level as set-based SQL in one
// transaction, manual matches and their undo, the records a manual match
// chooses from, the details of a report row, the chain of a record through
// every level and why a record did not match. One pair evaluation, the SQL
// function recon_pair_eval, decides for all of them. Reports are engine
// views (views.yaml) over the SQL functions of the migrations; this package
// never builds SQL from client text.
package recon

import (
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"ledgerdesk/engine"
)

// Service is reconciliation over one database.
type Service struct {
	def   *Definition
	pool  *pgxpool.Pool
	queue *river.Client[pgx.Tx]
	log   *slog.Logger
	// approvals are asked by the manual actions (approve.go); nil: none
	approvals engine.Approvals
	// Wait is how long Auto waits for its run before answering that it is
	// still running (the run goes on).
	Wait time.Duration
}

// NewService returns reconciliation of the levels of def over pool.
func NewService(pool *pgxpool.Pool, def *Definition, log *slog.Logger) *Service {
	if log == nil {
		log = slog.Default()
	}
	return &Service{def: def, pool: pool, log: log, Wait: 60 * time.Second}
}

// Levels are the declared levels in tab order.
func (s *Service) Levels() []*Level { return s.def.Levels }

// Level returns the level of an API path segment, or an Invalid error.
func (s *Service) Level(slug string) (*Level, error) { return s.def.Level(slug) }

// Definition is the service's recon.yaml.
func (s *Service) Definition() *Definition { return s.def }

// SetQueue gives the service the job queue auto runs are queued on.
func (s *Service) SetQueue(q *river.Client[pgx.Tx]) { s.queue = q }
