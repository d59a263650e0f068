package imports

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
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
	ErrorCode       *string        `json:"errorCode,omitempty"`
	ErrorParams     map[string]any `json:"errorParams,omitempty"`
	RowErrors       []RowError     `json:"rowErrors"`
	ExtractionLogID *int64         `json:"extractionLogId"`
	CreatedOn       time.Time      `json:"createdOn"`
	CreatedBy       string         `json:"createdBy"`
	StartedOn       *time.Time     `json:"startedOn"`
	FinishedOn      *time.Time     `json:"finishedOn"`
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

// Upload is one file a user sends.
type Upload struct {
	Kind     Kind
	Format   string // optional: csv, xlsx, camt053 or mt940; default: detected from the content
	Layout   string // optional descriptor name; default: the format's default layout
	FileName string
	Content  []byte
}

// Submit checks an upload (kind, size, content against the kind and layout,
// not imported before), stores it and queues its import job, in one
// transaction. It answers at once; the job loads the rows.
func (s *Service) Submit(ctx context.Context, u Upload) (*File, error) {
	f, err := s.submit(ctx, u, true)
	if err != nil {
		s.logRefusal(ctx, u, err)
	}
	return f, err
}

// logRefusal writes the extraction-log row of an upload refused before it
// was stored (bad name, empty, too large, wrong kind or layout), so the log
// tells of every file that was sent, not only of those that were loaded.
func (s *Service) logRefusal(ctx context.Context, u Upload, refusal error) {
	var e *engine.Error
	if !u.Kind.Valid() || !errors.As(refusal, &e) ||
		e.Code != engine.CodeInvalid && e.Code != engine.CodeTooLarge && e.Key != "import.duplicate" {
		return // no module to log under, or not the file's fault (the database)
	}
	name := strings.TrimSpace(u.FileName)
	if name == "" {
		name = "(no name)"
	}
	name = fmt.Sprintf("%.200s", name)
	desc := logText{Text: name + ": refused at upload, nothing loaded", Code: "log.refused", Params: map[string]any{"file": name}}
	if _, err := insertLog(context.WithoutCancel(ctx), s.pool, targets[u.Kind].module, "Failed", desc, errorText(e),
		engine.ActorFrom(ctx).Username); err != nil {
		s.log.Error("extraction log", "err", err)
	}
}

// logText is a stored message: its English text and the code and parameters
// the UI shows it from in the reader's language (serverMessages.<code>).
type logText struct {
	Text   string
	Code   string
	Params map[string]any
}

// errorText is the stored form of an error: a typed error's message with
// its code, anything else as plain text.
func errorText(err error) *logText {
	if err == nil {
		return nil
	}
	var e *engine.Error
	if errors.As(err, &e) {
		return &logText{Text: e.Message, Code: e.Key, Params: e.Params}
	}
	return &logText{Text: err.Error()}
}

// parts are the columns of a stored text: text, code, params (nil when unset).
func (t *logText) parts() (text, code, params any) {
	if t == nil {
		return nil, nil, nil
	}
	text = t.Text
	if t.Code != "" {
		code = t.Code
	}
	if len(t.Params) > 0 {
		b, _ := json.Marshal(t.Params)
		params = string(b)
	}
	return text, code, params
}

// insertLog writes one extraction-log row with its texts' codes.
func insertLog(ctx context.Context, db interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, module, status string, desc logText, failure *logText, actor string) (int64, error) {
	_, dCode, dParams := desc.parts()
	eText, eCode, eParams := failure.parts()
	var id int64
	err := db.QueryRow(ctx, `insert into extraction_log (module, description, description_code, description_params, status,
		error_description, error_code, error_params, created_by) values ($1, $2, $3, $4, $5, $6, $7, $8, $9) returning id`,
		module, desc.Text, dCode, dParams, status, eText, eCode, eParams, actor).Scan(&id)
	return id, err
}

// ImportNow checks, stores and loads an upload in the calling goroutine, with
// no job: for tools (the demo loader) that run without a queue.
func (s *Service) ImportNow(ctx context.Context, u Upload) (*File, error) {
	f, err := s.submit(ctx, u, false)
	if err != nil {
		return nil, err
	}
	if err := s.run(ctx, f.ImportID, u.Content); err != nil {
		return nil, err
	}
	return s.Get(ctx, f.ImportID)
}

func (s *Service) submit(ctx context.Context, u Upload, enqueue bool) (*File, error) {
	if !u.Kind.Valid() {
		return nil, engine.Invalid("kind", "kind must be bank, transaction, settlement or ticket, got %q.", u.Kind).With("import.kind", "kind", string(u.Kind))
	}
	name := strings.TrimSpace(u.FileName)
	if name == "" || len(name) > 255 || strings.ContainsAny(name, "/\\\x00") {
		return nil, engine.Invalid("file", "The file needs a plain name of at most 255 characters.").With("import.fileName")
	}
	if len(u.Content) == 0 {
		return nil, engine.Invalid("file", "%s is empty.", name).With("import.empty", "file", name)
	}
	if int64(len(u.Content)) > s.limits.MaxBytes {
		return nil, &engine.Error{Code: engine.CodeTooLarge, Field: "file", Message: fmt.Sprintf("%s is larger than the %d MB limit.", name, s.limits.MaxBytes>>20)}
	}
	head := u.Content[:min(len(u.Content), SniffBytes)]
	format, err := Detect(u.Kind, name, head)
	if err != nil {
		return nil, err
	}
	if u.Format != "" { // the caller says what the file is: it must be that
		want := strings.ToLower(strings.TrimSpace(u.Format))
		if !slices.Contains(Formats(u.Kind), want) {
			return nil, engine.Invalid("format", "format must be one of %s for %s files, got %q.", strings.Join(Formats(u.Kind), ", "), u.Kind, u.Format).With("import.format", "formats", strings.Join(Formats(u.Kind), ", "), "kind", string(u.Kind), "format", u.Format)
		}
		if want != format {
			return nil, engine.Invalid("format", "%s is a %s file, not %s as the format field says.", name, format, want).With("import.formatMismatch", "file", name, "format", format, "want", want)
		}
	}
	var d *Descriptor
	if u.Layout != "" {
		if d = s.descriptors[u.Layout]; d == nil {
			return nil, engine.Invalid("layout", "Unknown layout %q.", u.Layout).With("import.unknownLayout", "layout", u.Layout)
		}
		if d.Kind != u.Kind {
			return nil, engine.Invalid("layout", "The layout %s is for %s files, not %s files.", d.Name, d.Kind, u.Kind).With("import.layoutKind", "layout", d.Name, "layoutKind", string(d.Kind), "kind", string(u.Kind))
		}
		if d.Format != format {
			return nil, engine.Invalid("file", "%s is a %s file, but the layout %s reads %s.", name, format, d.Name, d.Format).With("import.layoutFormat", "file", name, "format", format, "layout", d.Name, "layoutFormat", d.Format)
		}
	} else if d, err = DefaultDescriptor(u.Kind, format); err != nil {
		return nil, err
	}
	sum := sha256.Sum256(u.Content)
	hash := hex.EncodeToString(sum[:])
	actor := engine.ActorFrom(ctx).Username

	var id int64
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// One upload of the same content at a time decides whether it is a duplicate.
		if _, err := tx.Exec(ctx, `select pg_advisory_xact_lock(hashtextextended($1, 0))`, "import_file:"+string(u.Kind)+":"+hash); err != nil {
			return err
		}
		if dup := duplicateOf(ctx, tx, u.Kind, hash); dup != nil {
			return dup
		}
		err := tx.QueryRow(ctx, `insert into import_file (kind, file_name, format, descriptor, sha256, size_bytes, content, created_by, created_on)
			values ($1, $2, $3, $4, $5, $6, $7, $8, $9) returning id`,
			u.Kind, name, format, d.Name, hash, len(u.Content), u.Content, actor, s.now()).Scan(&id)
		if err != nil {
			return err
		}
		if enqueue {
			if s.queue == nil {
				return errors.New("the job queue is not running")
			}
			if _, err := s.queue.InsertTx(ctx, tx, ImportArgs{ImportID: id}, nil); err != nil {
				return err
			}
		}
		return engine.Audit(ctx, tx, engine.AuditEntry{Action: "import.submit", Entity: "import_file", EntityID: fmt.Sprint(id),
			After: map[string]any{"kind": u.Kind, "fileName": name, "format": format, "layout": d.Name, "sha256": hash}})
	})
	if err != nil {
		return nil, fmt.Errorf("import %s: %w", name, engine.TranslatePG(err))
	}
	return s.Get(ctx, id)
}

// duplicateOf refuses content already imported, or queued to be. A running
// import is not a duplicate (it may have been cut off by a crash and be
// waiting for the queue's rescue), nor a failed one.
func duplicateOf(ctx context.Context, tx pgx.Tx, kind Kind, hash string) error {
	var id int64
	var when time.Time
	var name string
	err := tx.QueryRow(ctx, `select id, created_on, file_name from import_file where kind = $1 and sha256 = $2 and status in ('queued', 'succeeded') order by id limit 1`,
		kind, hash).Scan(&id, &when, &name)
	if err != nil {
		return nil
	}
	return engine.Conflict("This file was already imported on %s as import #%d (%s); importing the same content again would add nothing.",
		when.UTC().Format("2006-01-02 15:04 UTC"), id, name).
		With("import.duplicate", "when", when.UTC().Format(time.RFC3339), "id", id, "file", name)
}

const fileColumns = `id, kind, file_name, format, descriptor, status, rows_read, rows_loaded, rows_overlap, error, row_errors,
	extraction_log_id, created_on, created_by, started_on, finished_on, error_code, error_params`

func scanFile(row pgx.Row) (*File, error) {
	var f File
	var rowErrors []byte
	err := row.Scan(&f.ImportID, &f.Kind, &f.FileName, &f.Format, &f.Layout, &f.Status, &f.RowsRead, &f.RowsLoaded, &f.RowsOverlap,
		&f.Error, &rowErrors, &f.ExtractionLogID, &f.CreatedOn, &f.CreatedBy, &f.StartedOn, &f.FinishedOn, &f.ErrorCode, &f.ErrorParams)
	if err != nil {
		return nil, err
	}
	if len(rowErrors) > 0 {
		json.Unmarshal(rowErrors, &f.RowErrors)
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
		f.RowErrors = nil
		out = append(out, f)
	}
	return out, rows.Err()
}

// target describes where the rows of a kind go.
type target struct {
	table   string
	columns []string // in Fields(kind) order
	key     func(v []any) string
	module  string // extraction-log module
}

var targets = map[Kind]target{
	Ticket: {"ticket", []string{"ticket_number", "trans_date", "payment_type", "country_code", "currency", "transaction_code", "sale_amount"},
		func(v []any) string { return keyOf(v[0], v[5], v[1]) }, "Ticket"},
	Transaction: {"card_transaction", []string{"client_unique_id", "processing_date", "provider_actor", "acquiring_bank", "payment_method", "currency", "transaction_amount", "transaction_type"},
		func(v []any) string { return keyOf(v[2], v[0], v[7], v[1], v[6]) }, "Transaction"},
	Settlement: {"settlement", []string{"payout_id", "client_unique_id", "settlement_date", "provider_actor", "acquirer_bank", "settlement_currency", "gross_amount", "fees", "settlement_net"},
		func(v []any) string { return keyOf(v[3], v[0], v[1]) }, "Settlement"},
	Bank: {"bank_booking", []string{"bank_account", "booked_date", "interest_date", "text", "amount_local", "currency", "bank_archive_reference", "number", "booked_balance_local_currency"},
		func(v []any) string {
			if v[6] != nil && v[6] != "" { // the bank's archive reference identifies a booking
				return keyOf(v[0], v[6])
			}
			return keyOf(v[0], v[1], v[4], v[3], v[7])
		}, "Bank"},
}

// keyOf joins the identifying fields of a row into its natural key.
func keyOf(parts ...any) string {
	var b strings.Builder
	for i, p := range parts {
		if i > 0 {
			b.WriteByte('|')
		}
		switch x := p.(type) {
		case nil:
		case string:
			b.WriteString(x)
		case time.Time:
			b.WriteString(x.Format("2006-01-02"))
		default:
			fmt.Fprint(&b, x)
		}
	}
	return b.String()
}

// progressEvery is how often (rows) a running import reports rows read.
const progressEvery = 5000

// Run loads one queued import: parse, validate and COPY into a staging table
// inside one transaction, then move the rows whose natural key is new into
// the target and, for bank files, process them. A file with any bad row, or
// a bad file, loads nothing. The outcome is written to the import and to one
// extraction-log row either way. It returns an error only for failures worth
// a retry (the database going away), never for bad content.
func (s *Service) Run(ctx context.Context, id int64) error {
	return s.run(ctx, id, nil)
}

// run is Run with the upload's bytes when the caller still has them (they
// are then not read back from the database).
func (s *Service) run(ctx context.Context, id int64, content []byte) error {
	var kind Kind
	var name, format, layout, actor string
	query := `update import_file set status = 'running', started_on = $2 where id = $1 and status in ('queued', 'running')
		returning kind, file_name, format, descriptor, created_by, `
	stored := &content
	if content != nil {
		query += `null::bytea`
		stored = new([]byte)
	} else {
		query += `content`
	}
	err := s.pool.QueryRow(ctx, query, id, s.now()).Scan(&kind, &name, &format, &layout, &actor, stored)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil // finished already (a retried job)
	}
	if err != nil {
		return err
	}
	d := s.descriptors[layout]
	if d == nil {
		return s.finish(ctx, id, kind, name, actor, nil, 0, 0, engine.Invalid("layout", "%s: the layout %s no longer exists on the server.", name, layout).
			With("import.layoutGone", "file", name, "layout", layout))
	}
	t := targets[kind]
	var sum Summary
	var loaded, staged, repeated int
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		cols := append(append([]string{}, t.columns...), "natural_key", "import_file_id")
		// copyRows parses the file and COPYs its good rows into table, the
		// parser and COPY running side by side, rows handed over in batches.
		copyRows := func(table string) (int64, error) {
			rows := make(chan [][]any, 16)
			parseCtx, stop := context.WithCancel(ctx)
			defer stop()
			parseErr := make(chan error, 1)
			go func() {
				defer close(rows)
				batch := make([][]any, 0, copyBatch)
				send := func() error {
					if len(batch) == 0 {
						return nil
					}
					select {
					case rows <- batch:
						batch = make([][]any, 0, copyBatch)
						return nil
					case <-parseCtx.Done():
						return parseCtx.Err()
					}
				}
				var err error
				read := 0
				sum, err = Parse(parseCtx, d, name, bytes.NewReader(content), s.limits, func(r Row) error {
					read++
					vals, err := dbValues(kind, r.Values)
					if err != nil {
						return err
					}
					batch = append(batch, append(vals, t.key(r.Values), id))
					if len(batch) == copyBatch {
						if err := send(); err != nil {
							return err
						}
					}
					if read%progressEvery == 0 { // progress for GET /api/imports/{id}
						s.pool.Exec(context.WithoutCancel(ctx), `update import_file set rows_read = $2 where id = $1`, id, read)
					}
					return nil
				})
				if err == nil {
					err = send()
				}
				parseErr <- err
			}()
			n, copyErr := tx.CopyFrom(ctx, pgx.Identifier{table}, cols, &chanSource{ch: rows})
			stop()
			for range rows { // let the parser finish if COPY stopped early
			}
			if err := <-parseErr; err != nil && !errors.Is(err, context.Canceled) {
				return 0, err
			}
			return n, copyErr
		}

		// Most files hold only new rows: COPY them straight into the target.
		// A natural key that is already there (or twice in the file) stops
		// that COPY; then the file goes through a staging table and the rows
		// already present are counted and skipped.
		start := time.Now()
		if _, err := tx.Exec(ctx, `savepoint direct_copy`); err != nil {
			return err
		}
		n, err := copyRows(t.table)
		loaded = int(n)
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "23505" {
			if _, err := tx.Exec(ctx, `rollback to savepoint direct_copy`); err != nil {
				return err
			}
			const stage = "import_stage"
			if _, err := tx.Exec(ctx, fmt.Sprintf(`create temp table %s on commit drop as select %s from %s with no data`,
				stage, strings.Join(cols, ", "), t.table)); err != nil {
				return err
			}
			if n, err = copyRows(stage); err != nil {
				return err
			}
			colList := strings.Join(cols, ", ")
			err = tx.QueryRow(ctx, fmt.Sprintf(`with moved as (insert into %s (%s) select %s from %s on conflict (natural_key) do nothing returning 1)
				select count(*) from moved`, t.table, colList, colList, stage)).Scan(&loaded)
			if err == nil { // rows repeated within the file, told apart from rows of earlier files
				err = tx.QueryRow(ctx, fmt.Sprintf(`select count(*) - count(distinct natural_key) from %s`, stage)).Scan(&repeated)
			}
		}
		if err != nil {
			return err
		}
		staged = int(n)
		if sum.ErrorCount > 0 {
			return errRowErrors
		}
		if sum.RowsEmitted == 0 {
			return engine.Invalid("file", "%s holds no data rows.", name).With("import.noRows", "file", name)
		}
		s.log.Info("import loaded", "import", id, "rows", loaded, "overlap", staged-loaded, "took", time.Since(start))
		if kind == Bank {
			if _, err := tx.Exec(ctx, `update bank_booking set file_name = $2, import_date_time = $3, created_by = $4 where import_file_id = $1`,
				id, name, s.now(), actor); err != nil {
				return err
			}
			if err := ProcessBank(ctx, tx, &id); err != nil {
				return err
			}
		}
		return nil
	})
	switch {
	case errors.Is(err, errRowErrors):
		first := sum.Errors[0]
		rows := fmt.Sprintf("%d rows are", sum.BadRows)
		if sum.BadRows == 1 {
			rows = "1 row is"
		}
		err = engine.Invalid("file", "%s: %s invalid, so nothing was loaded. The first: line %d, column %d: %s",
			name, rows, first.Line, first.Column, first.Message).
			With("import.badRows", "file", name, "count", sum.BadRows, "line", first.Line, "column", first.Column, "message", first.Message)
	case err != nil && engine.ErrorCode(err) != engine.CodeInvalid:
		var pe *engine.Error
		if errors.As(engine.TranslatePG(err), &pe) && pe.Code != engine.CodeInternal {
			err = engine.Invalid("file", "%s could not be loaded: %s", name, pe.Message).With("import.notLoaded", "file", name, "detail", pe.Message)
		} else if ctx.Err() == nil {
			s.log.Error("import failed", "import", id, "err", err)
			s.pool.Exec(context.WithoutCancel(ctx), `update import_file set status = 'queued' where id = $1`, id)
			return err // let the job queue retry
		}
	}
	sum.Repeated = repeated
	return s.finish(ctx, id, kind, name, actor, &sum, loaded, staged-loaded, err)
}

var errRowErrors = errors.New("rows with errors")

// finish records the outcome of an import and its extraction-log row.
func (s *Service) finish(ctx context.Context, id int64, kind Kind, name, actor string, sum *Summary, loaded, overlap int, failure error) error {
	ctx = context.WithoutCancel(ctx)
	status, logStatus := "succeeded", "Success"
	var rowErrors []byte
	read := 0
	repeated := 0
	if sum != nil {
		read, repeated = sum.RowsRead, sum.Repeated
		if len(sum.Errors) > 0 {
			rowErrors, _ = json.Marshal(sum.Errors)
		}
	}
	params := map[string]any{"file": name, "read": read, "loaded": loaded}
	desc := logText{Text: fmt.Sprintf("%s: %d rows read, %d loaded", name, read, loaded), Code: "log.loaded", Params: params}
	if repeated > 0 {
		desc.Text += fmt.Sprintf(", %d repeated within the file (same identifying fields, loaded once)", repeated)
		desc.Code, params["repeated"] = "log.loadedRepeated", repeated
	}
	if overlap-repeated > 0 {
		desc.Text += fmt.Sprintf(", %d already present from earlier files", overlap-repeated)
		params["overlap"] = overlap - repeated
		desc.Code = map[bool]string{false: "log.loadedOverlap", true: "log.loadedRepeatedOverlap"}[repeated > 0]
	}
	failed := errorText(failure)
	if failure != nil {
		status, logStatus, loaded = "failed", "Failed", 0
		desc = logText{Text: fmt.Sprintf("%s: %d rows read, nothing loaded", name, read), Code: "log.failed",
			Params: map[string]any{"file": name, "read": read}}
	}
	errText, errCode, errParams := failed.parts()
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		logID, err := insertLog(ctx, tx, targets[kind].module, logStatus, desc, failed, actor)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `update import_file set status = $2, rows_read = $3, rows_loaded = $4, rows_overlap = $5, error = $6, row_errors = $7,
			extraction_log_id = $8, finished_on = $9, content = null, error_code = $10, error_params = $11 where id = $1`,
			id, status, read, loaded, overlap, errText, rowErrors, logID, s.now(), errCode, errParams)
		return err
	})
}

// dbValues turns parsed values into what COPY writes: decimals as numerics.
func dbValues(kind Kind, vals []any) ([]any, error) {
	out := make([]any, len(vals))
	for i, f := range Fields(kind) {
		v := vals[i]
		if f.Type == TypeDecimal && v != nil {
			var n pgtype.Numeric
			if err := n.Scan(v.(string)); err != nil {
				return nil, err
			}
			v = n
		}
		out[i] = v
	}
	return out, nil
}

// copyBatch is how many rows go through the channel at once.
const copyBatch = 1000

// chanSource feeds COPY from the parser's channel of row batches.
type chanSource struct {
	ch    <-chan [][]any
	batch [][]any
	cur   []any
}

func (c *chanSource) Next() bool {
	for len(c.batch) == 0 {
		b, ok := <-c.ch
		if !ok {
			return false
		}
		c.batch = b
	}
	c.cur, c.batch = c.batch[0], c.batch[1:]
	return true
}
func (c *chanSource) Values() ([]any, error) { return c.cur, nil }
func (c *chanSource) Err() error             { return nil }

// ProcessBank enriches bank bookings into the processed bank-final record
// (the database function bank_booking_process, migration 00010, which the
// inline edit's recomputation shares): in/out by sign; actor, recon mapping,
// provider and the distribution flags from the first transaction provider (by
// priority) whose recon mapping occurs literally in the booking text; the USD
// rate of the booking currency on the booked date, else the latest earlier one,
// and the amounts in USD. Manual overrides stay, each on its own: a rate or a
// USD amount set by hand is kept, and the manual provider, creditor and
// comments are never touched. importID limits it to one file; nil processes
// every booking (reprocess).
func ProcessBank(ctx context.Context, tx pgx.Tx, importID *int64) error {
	_, err := tx.Exec(ctx, `select bank_booking_process($1, null)`, importID)
	return err
}

// ImportArgs is the job that loads one import.
type ImportArgs struct {
	ImportID int64 `json:"importId"`
}

// Kind names the job for the queue.
func (ImportArgs) Kind() string { return "import_file" }

// InsertOpts: a few tries, for a database that goes away mid-load.
func (ImportArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{MaxAttempts: 3} }

// ImportWorker runs import jobs.
type ImportWorker struct {
	river.WorkerDefaults[ImportArgs]
	Service *Service
}

// Work loads the import. When the last try fails too (the database kept
// going away), the import is closed as failed with its extraction-log row,
// so it neither stays queued forever nor blocks the same file's re-upload.
func (w *ImportWorker) Work(ctx context.Context, job *river.Job[ImportArgs]) error {
	err := w.Service.Run(ctx, job.Args.ImportID)
	if err != nil && job.Attempt >= job.MaxAttempts {
		if gaveUp := w.Service.giveUp(ctx, job.Args.ImportID, job.Attempt, err); gaveUp != nil {
			w.Service.log.Error("import: closing a failed import", "import", job.Args.ImportID, "err", gaveUp)
		}
	}
	return err
}

// giveUp closes an import whose job has no tries left.
func (s *Service) giveUp(ctx context.Context, id int64, tries int, cause error) error {
	ctx = context.WithoutCancel(ctx)
	var kind Kind
	var name, actor string
	err := s.pool.QueryRow(ctx, `select kind, file_name, created_by from import_file where id = $1 and status in ('queued', 'running')`, id).
		Scan(&kind, &name, &actor)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil // finished after all
	}
	if err != nil {
		return err
	}
	return s.finish(ctx, id, kind, name, actor, nil, 0, 0,
		engine.Unavailable("%s could not be loaded after %d tries: %s. Nothing was loaded; upload it again.", name, tries, engine.MessageOf(cause)).
			With("import.gaveUp", "file", name, "tries", tries, "detail", engine.MessageOf(cause)))
}

// RescueStuckJobsAfter is when the job queue takes a job whose worker went
// away (a crash, a kill) as stuck and runs it again: minutes, not river's
// default hour, so an import cut off by a crash finishes soon after.
const RescueStuckJobsAfter = 10 * time.Minute

// ImportTimeout bounds one try of an import (a million-row file takes
// seconds); below RescueStuckJobsAfter, so a slow import is never rescued,
// and run twice, while it is still working.
const ImportTimeout = 8 * time.Minute

// Timeout of one try.
func (w *ImportWorker) Timeout(*river.Job[ImportArgs]) time.Duration { return ImportTimeout }

var reprocessText = logText{Text: "Reprocessing of all bank bookings", Code: "log.reprocessed"}

// ReprocessArgs is the job that processes every bank booking again.
type ReprocessArgs struct{}

// Kind names the job for the queue.
func (ReprocessArgs) Kind() string { return "bank_reprocess" }

// InsertOpts: a few tries; the last failure is written to the extraction log.
func (ReprocessArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{MaxAttempts: 3} }

// ReprocessWorker runs reprocess jobs.
type ReprocessWorker struct {
	river.WorkerDefaults[ReprocessArgs]
	Pool *pgxpool.Pool
	Log  *slog.Logger
}

// Work processes every booking in one transaction and logs it.
func (w *ReprocessWorker) Work(ctx context.Context, job *river.Job[ReprocessArgs]) error {
	start := time.Now()
	err := pgx.BeginFunc(ctx, w.Pool, func(tx pgx.Tx) error {
		if err := ProcessBank(ctx, tx, nil); err != nil {
			return err
		}
		_, err := insertLog(ctx, tx, "Bank", "Success", reprocessText, nil, "system")
		return err
	})
	if err == nil {
		w.Log.Info("bank bookings reprocessed", "took", time.Since(start))
		return nil
	}
	w.Log.Error("bank reprocessing failed", "attempt", job.Attempt, "of", job.MaxAttempts, "err", err)
	if job.Attempt >= job.MaxAttempts { // no more tries: say so where people look
		failure := errorText(engine.TranslatePG(err))
		if _, logErr := insertLog(context.WithoutCancel(ctx), w.Pool, "Bank", "Failed", reprocessText, failure, "system"); logErr != nil {
			w.Log.Error("extraction log", "err", logErr)
		}
	}
	return err
}

// Reprocess queues the reprocessing of every bank booking.
func (s *Service) Reprocess(ctx context.Context) (int64, error) {
	if s.queue == nil {
		return 0, errors.New("the job queue is not running")
	}
	res, err := s.queue.Insert(ctx, ReprocessArgs{}, nil)
	if err != nil {
		return 0, err
	}
	if err := engine.Audit(ctx, s.pool, engine.AuditEntry{Action: "bank.reprocess", Entity: "bank_booking", EntityID: fmt.Sprint(res.Job.ID)}); err != nil {
		return 0, err
	}
	return res.Job.ID, nil
}
