package imports

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"ledgerdesk/engine"
	"ledgerdesk/internal/liveness"
)

// target describes where the rows of a kind go.
type target struct {
	table   string
	columns []string // in Fields(kind) order
	key     func(v []any) string
	module  string // extraction-log module
	// counted: equal keys within one file are distinct records, told apart
	// by their occurrence ("#1", "#2", in file order), so that two equal
	// bank lines of a day both load and the same file again loads neither.
	counted bool
	// derive, when set, is what the kind's processing adds to each row as it
	// is inserted: more columns, and a lateral function of the staged row
	// (alias s) giving them, in order. Such rows always go through staging,
	// so they are written once, processed.
	derive *derivation
}

type derivation struct {
	columns []string
	lateral string
}

// bankDerived is bank processing (migration 00028: bank_booking_derived),
// for a booking new from a file: no rate or USD amount set by hand yet.
var bankDerived = &derivation{
	columns: []string{"in_or_out", "actor", "recon_mapping", "provider", "dist_rvn_settle", "distr_driver", "affects_balance",
		"reconcile_local_currency", "reco_amount_in_local_currency", "exchange_rate", "amount_usd", "in_usd", "out_usd", "status"},
	lateral: "bank_booking_derived(s.text, s.currency, s.booked_date, s.amount_local, false, null, false, null)",
}

var targets = map[Kind]target{
	Ticket: {"ticket", []string{"ticket_number", "trans_date", "payment_type", "country_code", "currency", "transaction_code", "sale_amount"},
		func(v []any) string { return keyOf(v[0], v[5], v[1]) }, "Ticket", false, nil},
	Transaction: {"card_transaction", []string{"client_unique_id", "processing_date", "provider_actor", "acquiring_bank", "payment_method", "currency", "transaction_amount", "transaction_type"},
		func(v []any) string { return keyOf(v[2], v[0], v[7], v[1], v[6]) }, "Transaction", false, nil},
	Settlement: {"settlement", []string{"payout_id", "client_unique_id", "settlement_date", "provider_actor", "acquirer_bank", "settlement_currency", "gross_amount", "fees", "settlement_net"},
		func(v []any) string { return keyOf(v[3], v[0], v[1]) }, "Settlement", false, nil},
	// A bank booking of a CSV or XLSX export is all its values and its
	// occurrence among equal lines of the file: real banks repeat archive
	// references (NONREF, one reference on several lines), so no field alone
	// identifies a booking. A statement's entry (camt.053, MT940) is its
	// account, statement and position (Row.Identity).
	Bank: {"bank_booking", []string{"bank_account", "booked_date", "interest_date", "text", "amount_local", "currency", "bank_archive_reference", "number", "booked_balance_local_currency"},
		func(v []any) string {
			return keyOf(v[0], v[1], v[2], v[3], twoDecimals(v[4]), v[5], v[6], v[7], twoDecimals(v[8]))
		}, "Bank", true, bankDerived},
}

// twoDecimals writes an amount as the database shows a numeric(20, 2), so
// that a natural key can be built alike in SQL (migration 00020): "12.3"
// and "12.30" are one amount.
func twoDecimals(v any) any {
	s, ok := v.(string)
	if !ok {
		return v
	}
	whole, frac, _ := strings.Cut(s, ".")
	return whole + "." + (frac + "00")[:2]
}

// keyOf joins the identifying fields of a row into its natural key.
func keyOf(parts ...any) string {
	b := make([]byte, 0, 96) // one allocation for the key of a row, most times
	for i, p := range parts {
		if i > 0 {
			b = append(b, '|')
		}
		switch x := p.(type) {
		case nil:
		case string:
			b = append(b, x...)
		case time.Time:
			b = x.AppendFormat(b, "2006-01-02")
		default:
			b = fmt.Append(b, x)
		}
	}
	return string(b)
}

// progressEvery is how often a running import reports the rows it has
// read (at most; looked at every thousand rows). Each report is a write on
// another connection: every 5,000 rows, they cost a million-row import
// a tenth of its time.
const progressEvery = 500 * time.Millisecond

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
	// Only a queued import is taken: one running is another worker's (a job
	// the queue rescued from a dead worker after its import was queued
	// again, MarkCutOff), one ended is done.
	err := s.pool.QueryRow(ctx, `update import_file set status = 'running', started_on = $2 where id = $1 and status = 'queued'
		returning kind, file_name, format, descriptor, created_by, size_bytes`, id, s.now()).Scan(&kind, &name, &format, &layout, &actor, &size)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil // taken or finished already (a retried or rescued job)
	}
	if err != nil {
		return err
	}
	defer liveness.Beat(s.pool, liveness.Imports, id, s.log)() // alive while it runs (see MarkCutOff)
	if open == nil {
		open = func() (io.ReadCloser, error) { return openParts(ctx, s.pool, id, size) }
	}
	d := s.descriptors[layout]
	if d == nil {
		return s.finish(ctx, id, kind, name, actor, nil, 0, 0, nil, engine.Invalid("layout", "%s: the layout %s no longer exists on the server.", name, layout).
			With("import.layoutGone", "file", name, "layout", layout))
	}
	t := targets[kind]
	zones, err := s.accountZones(ctx, kind)
	if err != nil {
		return err
	}
	var sum Summary
	var loaded, staged, repeated int
	var warnings []RowNote
	lim := s.runLimits()
	holders := newHolders(kind)
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		cols := append(append([]string{}, t.columns...), "natural_key", "import_file_id")
		var provenance []any // a bank booking carries its file, when and by whom from the start
		if kind == Bank {
			cols = append(cols, "file_name", "import_date_time", "created_by")
			provenance = []any{name, s.now(), actor}
		}
		// copyRows parses the file and COPYs its good rows into table, the
		// parser and COPY running side by side, rows handed over in batches;
		// withLine adds each row's line (the staging table's last column).
		copyRows := func(table string, withLine bool) (int64, error) {
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
				read, reported := 0, time.Now()
				sum, err = ParseIn(parseCtx, d, name, src, lim, zones, func(r Row) error {
					read++
					vals, err := dbValues(kind, r.Values)
					if err != nil {
						return err
					}
					holders.add(r.Values)
					key := r.Identity
					if key == "" {
						key = t.key(r.Values)
						if t.counted {
							key += "#1" // the first of its equals; the staging path numbers the others
						}
					}
					row := append(append(vals, key, id), provenance...)
					if withLine {
						row = append(row, r.Line)
					}
					batch = append(batch, row)
					if len(batch) == copyBatch {
						if err := send(); err != nil {
							return err
						}
					}
					if read%1000 == 0 && time.Since(reported) >= progressEvery { // progress for GET /api/imports/{id}
						s.pool.Exec(context.WithoutCancel(ctx), `update import_file set rows_read = $2 where id = $1`, id, read)
						reported = time.Now()
					}
					return nil
				})
				if err == nil {
					err = send()
				}
				parseErr <- err
			}()
			copyCols := cols
			if withLine {
				copyCols = append(append([]string{}, cols...), "line")
			}
			n, copyErr := tx.CopyFrom(ctx, pgx.Identifier{table}, copyCols, &chanSource{ch: rows})
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
		// that COPY; then the file goes through a staging table, where equal
		// lines of a counted kind are numbered, and the rows already present
		// or repeated are named with their lines and skipped.
		// Rows processed as they are inserted (bank bookings) always go
		// through staging.
		start := time.Now()
		var n int64
		var err error
		viaStage := t.derive != nil
		if !viaStage {
			if _, err := tx.Exec(ctx, `savepoint direct_copy`); err != nil {
				return err
			}
			n, err = copyRows(t.table, false)
			loaded = int(n)
			if pe := (*pgconn.PgError)(nil); errors.As(err, &pe) && pe.Code == "23505" {
				if _, err := tx.Exec(ctx, `rollback to savepoint direct_copy`); err != nil {
					return err
				}
				viaStage = true
			}
		}
		if viaStage {
			if _, err := tx.Exec(ctx, fmt.Sprintf(`create temp table %s on commit drop as select %s, 0 as line from %s with no data`,
				stage, strings.Join(cols, ", "), t.table)); err != nil {
				return err
			}
			if n, err = copyRows(stage, true); err != nil {
				return err
			}
			loaded, repeated, err = s.moveStaged(ctx, tx, id, t, cols, &sum)
		}
		if err != nil {
			return err
		}
		staged = int(n)
		if sum.ErrorCount > 0 {
			return errRowErrors
		}
		// A statement without entries (a quiet day's camt.053) is a good
		// file that loads nothing; any other file without rows is refused.
		if sum.RowsEmitted == 0 && sum.Statements == 0 {
			return engine.Invalid("file", "%s holds no data rows.", name).With("import.noRows", "file", name)
		}
		s.log.Info("import loaded", "import", id, "rows", loaded, "overlap", staged-loaded, "took", time.Since(start))
		if kind == Bank { // processed as inserted (moveStaged); the statements chained now
			if warnings, err = chainStatements(ctx, tx, id, &sum); err != nil {
				return err
			}
		}
		_, err = tx.Exec(ctx, `update import_file set holders = $2 where id = $1`, id, holders.list())
		return err
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
	return s.finish(ctx, id, kind, name, actor, &sum, loaded, staged-loaded, warnings, err)
}

// chainStatements records the statements of a bank file and checks each
// new one against the account's previous statement: an opening balance
// that is not the previous closing balance, or a statement number that
// skips, is a warning on the statement's bookings, in the file's notes and
// on its extraction-log row; the file loads all the same. A statement
// loaded before (the same file again) is not checked again.
func chainStatements(ctx context.Context, tx pgx.Tx, importID int64, sum *Summary) ([]RowNote, error) {
	var warnings []RowNote
	for _, st := range sum.StatementList {
		if st.Account == "" {
			continue
		}
		var opening, closing *string
		if st.Opening != "" {
			opening = &st.Opening
		}
		if st.Closing != "" {
			closing = &st.Closing
		}
		var id int64
		err := tx.QueryRow(ctx, `insert into bank_statement (import_file_id, identity, account, reference, number, sequence, currency,
				opening_date, opening_balance, closing_date, closing_balance, entries)
			values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) on conflict (identity) do nothing returning id`,
			importID, st.Identity, st.Account, st.Reference, st.Number, st.Sequence, st.Currency,
			st.OpeningDate, opening, st.ClosingDate, closing, st.Entries).Scan(&id)
		if errors.Is(err, pgx.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, err
		}
		var prevRef, prevNumber, prevFile string
		var prevSeq *int64
		var prevClosing *string
		err = tx.QueryRow(ctx, `select b.reference, b.number, b.sequence, b.closing_balance::text, f.file_name
			from bank_statement b join import_file f on f.id = b.import_file_id
			where b.account = $1 and b.id <> $2 and b.closing_date <= $3
			order by b.closing_date desc, b.id desc limit 1`, st.Account, id, st.OpeningDate).Scan(&prevRef, &prevNumber, &prevSeq, &prevClosing, &prevFile)
		if errors.Is(err, pgx.ErrNoRows) || st.OpeningDate == nil {
			continue // the account's first statement
		}
		if err != nil {
			return nil, err
		}
		name := strings.TrimSpace(st.Reference + " " + st.Number)
		prevName := strings.TrimSpace(prevRef + " " + prevNumber)
		var w *RowNote
		switch {
		case prevClosing != nil && opening != nil && !decimalZero(addDecimal(*opening, negateDecimal(*prevClosing))):
			w = &RowNote{Line: st.Line, Code: "import.note.openingDiffers",
				Params:  map[string]any{"statement": name, "opening": *opening, "previous": prevName, "closing": *prevClosing, "file": prevFile},
				Message: fmt.Sprintf("statement %s of %s opens at %s, but the previous statement %s (%s) closed at %s: a statement is missing or differs", name, st.Account, *opening, prevName, prevFile, *prevClosing)}
		case prevSeq != nil && st.Sequence != nil && *st.Sequence != *prevSeq && *st.Sequence != *prevSeq+1 && *st.Sequence != 1:
			w = &RowNote{Line: st.Line, Code: "import.note.statementGap",
				Params:  map[string]any{"statement": name, "number": *st.Sequence, "previous": prevName, "previousNumber": *prevSeq, "file": prevFile},
				Message: fmt.Sprintf("statement %s of %s is number %d, but the previous one, %s (%s), is number %d: a statement is missing", name, st.Account, *st.Sequence, prevName, prevFile, *prevSeq)}
		}
		if w == nil {
			continue
		}
		sum.AddNote(*w)
		warnings = append(warnings, *w)
		if _, err := tx.Exec(ctx, `update bank_statement set warning = $2, warning_code = $3, warning_params = $4 where id = $1`, id, w.Message, w.Code, w.Params); err != nil {
			return nil, err
		}
		if _, err := tx.Exec(ctx, `update bank_booking set statement_warning = $3 where import_file_id = $1 and left(natural_key, length($2) + 1) = $2 || '|'`,
			importID, st.Identity, w.Message); err != nil {
			return nil, err
		}
	}
	return warnings, nil
}

var errRowErrors = errors.New("rows with errors")

// MaxCutOffs is how often an import whose process died is queued again
// before it fails: a file that kills its worker each time must end.
const MaxCutOffs = 2

// MarkCutOff handles each import still running whose heartbeat stopped
// more than liveness.StaleAfter ago: its process ended (killed, or its
// machine lost), and its one transaction with it, so nothing of it was
// loaded. It is queued again with a job of its own, so that any node
// finishes it from the stored upload, up to MaxCutOffs times; then (or
// without a job queue) it ends failed with its extraction-log row and a
// message saying so, and the same file may be uploaded again. When the job
// queue later rescues the dead worker's job, that job finds the import
// taken or done and leaves it. It returns how many it handled.
func (s *Service) MarkCutOff(ctx context.Context) (int, error) {
	type cut struct {
		id          int64
		kind        Kind
		name, actor string
		read        int
	}
	var failed []cut
	requeued := 0
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `select id, kind, file_name, created_by, rows_read, cut_offs from import_file
			where status = 'running' and coalesce(heartbeat_at, started_on, created_on) < now() - $1::interval
			order by id for update skip locked`, liveness.StaleAfter.String())
		if err != nil {
			return err
		}
		type stale struct {
			cut
			cutOffs int
		}
		found, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (stale, error) {
			var c stale
			return c, r.Scan(&c.id, &c.kind, &c.name, &c.actor, &c.read, &c.cutOffs)
		})
		if err != nil {
			return err
		}
		for _, c := range found {
			if c.cutOffs >= MaxCutOffs || s.queue == nil {
				if _, err := tx.Exec(ctx, `update import_file set status = 'failed', cut_offs = cut_offs + 1 where id = $1`, c.id); err != nil {
					return err
				}
				failed = append(failed, c.cut)
				continue
			}
			if _, err := tx.Exec(ctx, `update import_file set status = 'queued', cut_offs = cut_offs + 1, heartbeat_at = null,
				rows_read = 0 where id = $1`, c.id); err != nil {
				return err
			}
			if _, err := s.queue.InsertTx(ctx, tx, ImportArgs{ImportID: c.id}, nil); err != nil {
				return err
			}
			requeued++
			s.log.Warn("import cut off: its process ended; queued again", "import", c.id, "file", c.name, "time", c.cutOffs+1)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	for _, c := range failed {
		failure := engine.Invalid("file", "%s: the import stopped without finishing (its process ended); nothing of it was loaded. Upload the file again.", c.name).
			With("import.cutOff", "file", c.name)
		if err := s.finish(ctx, c.id, c.kind, c.name, c.actor, &Summary{RowsRead: c.read}, 0, 0, nil, failure); err != nil {
			return 0, err
		}
		s.log.Warn("import cut off: its process ended", "import", c.id, "file", c.name)
	}
	return requeued + len(failed), nil
}

// stage is the temporary table a file goes through when its rows overlap.
const stage = "import_stage"

// moveStaged moves the staged rows whose natural key is new into the
// target: equal lines of a counted kind numbered first, then every row not
// moved named in sum's notes with its reason (the same as an earlier line
// of the file, or already loaded by an earlier import, which is named). It
// returns the rows loaded and those repeated within the file.
func (s *Service) moveStaged(ctx context.Context, tx pgx.Tx, id int64, t target, cols []string, sum *Summary) (loaded, repeated int, err error) {
	if t.counted {
		// "#1" on every key so far; the n-th of equal lines becomes "#n".
		if _, err := tx.Exec(ctx, `update import_stage s set natural_key = left(s.natural_key, -2) || '#' || o.n
			from (select ctid as row, row_number() over (partition by natural_key order by line) as n from import_stage) o
			where s.ctid = o.row and o.n > 1`); err != nil {
			return 0, 0, err
		}
	}
	into, from, selected := strings.Join(cols, ", "), "import_stage s", "s."+strings.Join(cols, ", s.")
	if d := t.derive; d != nil {
		into += ", " + strings.Join(d.columns, ", ")
		from += " cross join lateral " + d.lateral + " d"
		selected += ", d." + strings.Join(d.columns, ", d.")
	}
	if err := tx.QueryRow(ctx, fmt.Sprintf(`with moved as (
			insert into %s (%s) select distinct on (s.natural_key) %s from %s order by s.natural_key, s.line
			on conflict (natural_key) do nothing returning 1)
		select count(*) from moved`, t.table, into, selected, from)).Scan(&loaded); err != nil {
		return 0, 0, err
	}
	rows, err := tx.Query(ctx, fmt.Sprintf(`select s.line, f.line, e.import_file_id, coalesce(i.file_name, '')
		from import_stage s
		join (select natural_key, min(line) as line from import_stage group by natural_key) f using (natural_key)
		left join %s e on e.natural_key = s.natural_key and e.import_file_id is distinct from $1
		left join import_file i on i.id = e.import_file_id
		where s.line > f.line or e.natural_key is not null
		order by s.line`, t.table), id)
	if err != nil {
		return 0, 0, err
	}
	defer rows.Close()
	for rows.Next() {
		var line, first int
		var earlier *int64
		var file string
		if err := rows.Scan(&line, &first, &earlier, &file); err != nil {
			return 0, 0, err
		}
		switch {
		case line > first:
			repeated++
			sum.AddNote(RowNote{Line: line, Skipped: true, Code: "import.skip.repeated", Params: map[string]any{"first": first},
				Message: fmt.Sprintf("the same record as line %d (equal identifying fields): loaded once", first)})
		case earlier != nil:
			sum.AddNote(RowNote{Line: line, Skipped: true, Code: "import.skip.present", Params: map[string]any{"importId": *earlier, "file": file},
				Message: fmt.Sprintf("already loaded by import %d (%s)", *earlier, file)})
		default:
			sum.AddNote(RowNote{Line: line, Skipped: true, Code: "import.skip.presentNoImport",
				Message: "already present (stored without an import)"})
		}
	}
	return loaded, repeated, rows.Err()
}

// accountZones reads the time zones of the bank accounts (Bank Settings)
// for a bank import: the day of a camt.053 date-time is taken in them.
func (s *Service) accountZones(ctx context.Context, kind Kind) (func(string) *time.Location, error) {
	if kind != Bank {
		return nil, nil
	}
	rows, err := s.pool.Query(ctx, `select distinct on (i_bank_no) i_bank_no, time_zone from bank_account_currency where time_zone is not null order by i_bank_no, id`)
	if err != nil {
		return nil, err
	}
	zones := map[string]*time.Location{}
	for rows.Next() {
		var account, zone string
		if err := rows.Scan(&account, &zone); err != nil {
			return nil, err
		}
		if z, err := time.LoadLocation(zone); err == nil {
			zones[normalizeAccount(account)] = z
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return func(account string) *time.Location { return zones[account] }, nil
}

// finish records the outcome of an import and its extraction-log row.
func (s *Service) finish(ctx context.Context, id int64, kind Kind, name, actor string, sum *Summary, loaded, overlap int, warnings []RowNote, failure error) error {
	ctx = context.WithoutCancel(ctx)
	status, logStatus := "succeeded", "Success"
	var rowErrors, rowNotes []byte
	read, repeated, notes := 0, 0, 0
	if sum != nil {
		read, repeated, notes = sum.RowsRead, sum.Repeated, sum.NoteCount
		if len(sum.Errors) > 0 {
			rowErrors, _ = json.Marshal(sum.Errors)
		}
		if len(sum.Notes) > 0 && failure == nil {
			rowNotes, _ = json.Marshal(sum.Notes)
		}
	}
	if failure != nil {
		notes = 0
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
	if failure == nil && len(warnings) > 0 {
		// The file loaded; its statements' breaks in the chain are the
		// extraction log's warning (the first; the import lists them all).
		logStatus = "Warning"
		failed = &logText{Text: warnings[0].Message, Code: warnings[0].Code, Params: warnings[0].Params}
		if len(warnings) > 1 {
			failed.Text += fmt.Sprintf(" (and %d more warnings)", len(warnings)-1)
		}
	}
	if failure != nil {
		status, logStatus, loaded = "failed", "Failed", 0
		desc = logText{Text: fmt.Sprintf("%s: %d rows read, nothing loaded", name, read), Code: "log.failed",
			Params: map[string]any{"file": name, "read": read}}
	}
	errText, errCode, errParams := errorText(failure).parts()
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		logID, err := insertLog(ctx, tx, targets[kind].module, logStatus, desc, failed, actor)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `update import_file set status = $2, rows_read = $3, rows_loaded = $4, rows_overlap = $5, error = $6, row_errors = $7,
			extraction_log_id = $8, finished_on = $9, error_code = $10, error_params = $11, row_notes = $12, note_count = $13 where id = $1`,
			id, status, read, loaded, overlap, errText, rowErrors, logID, s.now(), errCode, errParams, rowNotes, notes)
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
		if kind == Bank && i == bText && v == nil {
			v = "" // a booking without text has an empty one
		}
		if f.Type == TypeDecimal && v != nil {
			n, err := numericOf(v.(string))
			if err != nil {
				return nil, err
			}
			v = n
		}
		out[i] = v
	}
	return out, nil
}

// numericOf is the numeric of a normalised decimal ("-1234.5"): read as
// an int64 and its scale when it has at most 18 digits (every amount of a
// numeric(20, 2) column but the largest), without the big-number parse of
// pgtype's Scan that a million rows pay twice over.
func numericOf(s string) (pgtype.Numeric, error) {
	digits, neg := strings.CutPrefix(s, "-")
	intPart, frac, _ := strings.Cut(digits, ".")
	if len(intPart)+len(frac) > 18 || len(intPart)+len(frac) == 0 {
		var n pgtype.Numeric
		return n, n.Scan(s)
	}
	var u int64
	for _, part := range [2]string{intPart, frac} {
		for i := 0; i < len(part); i++ {
			c := part[i]
			if c < '0' || c > '9' {
				var n pgtype.Numeric
				return n, n.Scan(s)
			}
			u = u*10 + int64(c-'0')
		}
	}
	if neg {
		u = -u
	}
	return pgtype.Numeric{Int: big.NewInt(u), Exp: -int32(len(frac)), Valid: true}, nil
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
