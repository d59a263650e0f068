package imports

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sort"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"ledgerdesk/engine"
)

// File is an import as the API shows it.
type File struct {
	ImportID    int64   `json:"importId"`
	Kind        Kind    `json:"kind"`
	FileName    string  `json:"fileName"`
	Format      string  `json:"format"`
	Layout      string  `json:"layout"`
	Status      string  `json:"status"` // queued, running, succeeded, failed
	RowsRead    int     `json:"rowsRead"`
	RowsLoaded  int     `json:"rowsLoaded"`
	RowsOverlap int     `json:"rowsOverlap"` // rows already present (same natural key), not loaded again
	Error       *string `json:"error"`
	// ErrorCode and ErrorParams: the message code of Error and its
	// parameters, for the UI to show it in the reader's language.
	ErrorCode   *string        `json:"errorCode,omitempty"`
	ErrorParams map[string]any `json:"errorParams,omitempty"`
	RowErrors   []RowError     `json:"rowErrors"`
	// RowNotes names the rows not stored (a line the same as an earlier
	// one, a booking already loaded, an entry not booked) and values read
	// other than written, each with its reason; NoteCount counts all.
	RowNotes        []RowNote  `json:"rowNotes"`
	NoteCount       int        `json:"noteCount"`
	ExtractionLogID *int64     `json:"extractionLogId"`
	CreatedOn       time.Time  `json:"createdOn"`
	CreatedBy       string     `json:"createdBy"`
	StartedOn       *time.Time `json:"startedOn"`
	FinishedOn      *time.Time `json:"finishedOn"`
}

// Layout is a file layout the server knows, for the import screen.
type Layout struct {
	Name        string `json:"name"`
	Kind        Kind   `json:"kind"`
	Format      string `json:"format"`
	Description string `json:"description"`
}

// Service accepts uploads, queues them as jobs and loads them.
type Service struct {
	pool        *pgxpool.Pool
	queue       *river.Client[pgx.Tx]
	descriptors map[string]*Descriptor
	limits      Limits
	log         *slog.Logger
	now         func() time.Time
	// yearsBack and yearsAhead bound imported dates around today (0, 0: no bound).
	yearsBack, yearsAhead int
}

// SetDateWindow makes imports refuse dates more than back years before
// today or ahead years after it (IMPORT_YEARS_BACK, IMPORT_YEARS_AHEAD).
func (s *Service) SetDateWindow(back, ahead int) { s.yearsBack, s.yearsAhead = back, ahead }

// runLimits are the limits of an import run now: the date window moves with today.
func (s *Service) runLimits() Limits {
	lim := s.limits
	if s.yearsBack > 0 {
		today := utcDate(s.now())
		lim.Earliest, lim.Latest = today.AddDate(-s.yearsBack, 0, 0), today.AddDate(s.yearsAhead, 0, 0)
	}
	return lim
}

// NewService returns the import service. descriptors are the layouts of
// METADATA_DIR/imports (the default layouts are always there as well).
func NewService(pool *pgxpool.Pool, descriptors map[string]*Descriptor, maxBytes int64, log *slog.Logger) *Service {
	lim := DefaultLimits
	if maxBytes > 0 {
		lim.MaxBytes = maxBytes
	}
	all := map[string]*Descriptor{}
	for _, k := range Kinds {
		for _, f := range Formats(k) {
			d, _ := DefaultDescriptor(k, f)
			all[d.Name] = d
		}
	}
	for name, d := range descriptors {
		all[name] = d
	}
	return &Service{pool: pool, descriptors: all, limits: lim, log: log, now: time.Now}
}

// SetQueue gives the service the job queue (made after the service, because
// the queue's workers need the service).
func (s *Service) SetQueue(q *river.Client[pgx.Tx]) { s.queue = q }

// Layouts lists the known layouts, by kind then name.
func (s *Service) Layouts() []Layout {
	out := make([]Layout, 0, len(s.descriptors))
	for _, d := range s.descriptors {
		out = append(out, Layout{Name: d.Name, Kind: d.Kind, Format: d.Format, Description: d.Description})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Kind != out[j].Kind {
			return out[i].Kind < out[j].Kind
		}
		return out[i].Name < out[j].Name
	})
	return out
}

const fileColumns = `id, kind, file_name, format, descriptor, status, rows_read, rows_loaded, rows_overlap, error, row_errors,
	extraction_log_id, created_on, created_by, started_on, finished_on, error_code, error_params, row_notes, note_count`

func scanFile(row pgx.Row) (*File, error) {
	var f File
	var rowErrors, rowNotes []byte
	err := row.Scan(&f.ImportID, &f.Kind, &f.FileName, &f.Format, &f.Layout, &f.Status, &f.RowsRead, &f.RowsLoaded, &f.RowsOverlap,
		&f.Error, &rowErrors, &f.ExtractionLogID, &f.CreatedOn, &f.CreatedBy, &f.StartedOn, &f.FinishedOn, &f.ErrorCode, &f.ErrorParams,
		&rowNotes, &f.NoteCount)
	if err != nil {
		return nil, err
	}
	if len(rowErrors) > 0 {
		json.Unmarshal(rowErrors, &f.RowErrors)
	}
	if len(rowNotes) > 0 {
		json.Unmarshal(rowNotes, &f.RowNotes)
	}
	return &f, nil
}

// Get returns one import with its progress.
func (s *Service) Get(ctx context.Context, id int64) (*File, error) {
	f, err := scanFile(s.pool.QueryRow(ctx, `select `+fileColumns+` from import_file where id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, engine.NotFound("Import %d not found.", id).With("import.notFound", "id", id)
	}
	return f, err
}

// ByOrigin returns the import of an origin (Upload.Origin): the one not
// failed, else the latest failed; nil when there is none.
func (s *Service) ByOrigin(ctx context.Context, origin string) (*File, error) {
	f, err := scanFile(s.pool.QueryRow(ctx, `select `+fileColumns+` from import_file where origin = $1
		order by status <> 'failed' desc, id desc limit 1`, origin))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	return f, err
}

// Recent lists the newest imports (without their row errors).
func (s *Service) Recent(ctx context.Context, limit int) ([]*File, error) {
	rows, err := s.pool.Query(ctx, `select `+fileColumns+` from import_file order by id desc limit $1`, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*File{}
	for rows.Next() {
		f, err := scanFile(rows)
		if err != nil {
			return nil, err
		}
		f.RowErrors, f.RowNotes = nil, nil
		out = append(out, f)
	}
	return out, rows.Err()
}
