package imports

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"ledgerdesk/engine"
)

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

// run is Run with a way to read the upload when the caller still has it
// (it is then not read back from the database); nil reads the stored parts.
func (s *Service) run(ctx context.Context, id int64, open func() (io.ReadCloser, error)) error {
	var kind Kind
	var name, format, layout, actor string
	var size int64
	err := s.pool.QueryRow(ctx, `update import_file set status = 'running', started_on = $2 where id = $1 and status in ('queued', 'running')
		returning kind, file_name, format, descriptor, created_by, size_bytes`, id, s.now()).Scan(&kind, &name, &format, &layout, &actor, &size)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil // finished already (a retried job)
	}
	if err != nil {
		return err
	}
	if open == nil {
		open = func() (io.ReadCloser, error) { return openParts(ctx, s.pool, id, size) }
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
			src, err := open()
			if err != nil {
				return 0, err
			}
			defer src.Close()
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
				sum, err = Parse(parseCtx, d, name, src, s.limits, func(r Row) error {
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
				if stored := (*partsError)(nil); errors.As(err, &stored) {
					return 0, stored.err // the database, not the file: retried
				}
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
			extraction_log_id = $8, finished_on = $9, error_code = $10, error_params = $11 where id = $1`,
			id, status, read, loaded, overlap, errText, rowErrors, logID, s.now(), errCode, errParams)
		if err != nil {
			return err
		}
		// The upload is not kept once its import is over, loaded or not.
		_, err = tx.Exec(ctx, `delete from import_file_part where import_file_id = $1`, id)
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
