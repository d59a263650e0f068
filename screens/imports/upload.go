package imports

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"ledgerdesk/engine"
)

// Upload is one file a user sends.
type Upload struct {
	Kind     Kind
	Format   string // optional: csv, xlsx, camt053 or mt940; default: detected from the content
	Layout   string // optional descriptor name; default: the format's default layout
	FileName string
	Content  Content
	// Origin says where a file no user sent came from (intake: the drop
	// folder or an SFTP source); one import per origin (ByOrigin finds it).
	Origin string
}

// Submit checks an upload (kind, size, content against the kind and layout,
// not imported before), stores it (streamed into its parts, storeParts) and
// queues its import job, in one transaction. It answers at once; the job
// loads the rows.
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

// ImportNow checks, stores and loads an upload in the calling goroutine, with
// no job: for tools (the demo loader) that run without a queue.
func (s *Service) ImportNow(ctx context.Context, u Upload) (*File, error) {
	f, err := s.submit(ctx, u, false)
	if err != nil {
		return nil, err
	}
	if err := s.run(ctx, f.ImportID, u.Content.Open); err != nil {
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
	if u.Content.Size <= 0 || u.Content.Open == nil {
		return nil, empty(name)
	}
	if u.Content.Size > s.limits.MaxBytes {
		return nil, tooLarge(name, s.limits.MaxBytes)
	}
	src, err := u.Content.Open()
	if err != nil {
		return nil, unreadable()
	}
	defer src.Close()
	head := make([]byte, min(u.Content.Size, SniffBytes))
	n, err := io.ReadFull(src, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, unreadable()
	}
	head = head[:n]
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
	actor := engine.ActorFrom(ctx).Username

	var id int64
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// The row first, its hash not known yet; then the content, streamed
		// into its parts and hashed on the way.
		err := tx.QueryRow(ctx, `insert into import_file (kind, file_name, format, descriptor, sha256, size_bytes, created_by, created_on, origin)
			values ($1, $2, $3, $4, $5, $6, $7, $8, nullif($9, '')) returning id`,
			u.Kind, name, format, d.Name, unhashed, u.Content.Size, actor, s.now(), u.Origin).Scan(&id)
		if err != nil {
			return err
		}
		size, hash, err := storeParts(ctx, tx, id, name, io.MultiReader(bytes.NewReader(head), src), s.limits.MaxBytes)
		if err != nil {
			return err
		}
		// One upload of the same content at a time decides whether it is a duplicate.
		if _, err := tx.Exec(ctx, `select pg_advisory_xact_lock(hashtextextended($1, 0))`, "import_file:"+string(u.Kind)+":"+hash); err != nil {
			return err
		}
		if dup := duplicateOf(ctx, tx, u.Kind, hash); dup != nil {
			return dup
		}
		if _, err := tx.Exec(ctx, `update import_file set sha256 = $2, size_bytes = $3 where id = $1`, id, hash, size); err != nil {
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
			After: map[string]any{"kind": u.Kind, "fileName": name, "format": format, "layout": d.Name, "sha256": hash, "origin": u.Origin}})
	})
	if err != nil {
		return nil, fmt.Errorf("import %s: %w", name, engine.TranslatePG(err))
	}
	return s.Get(ctx, id)
}

// unhashed stands for the hash of an upload while its content is stored.
const unhashed = "0000000000000000000000000000000000000000000000000000000000000000"

// duplicateOf refuses content already imported, or queued or running to
// be. An import running for longer than ImportTimeout was cut off by a
// crash (it would have timed out): no duplicate, as a failed one is not.
func duplicateOf(ctx context.Context, tx pgx.Tx, kind Kind, hash string) error {
	var id int64
	var when time.Time
	var name, status string
	err := tx.QueryRow(ctx, `select id, created_on, file_name, status from import_file where kind = $1 and sha256 = $2
			and (status in ('queued', 'succeeded') or status = 'running' and started_on > now() - $3::interval)
		order by status = 'succeeded' desc, id limit 1`, kind, hash, ImportTimeout.String()).Scan(&id, &when, &name, &status)
	if err != nil {
		return nil
	}
	if status != "succeeded" {
		return engine.Conflict("This file is being imported now as import #%d (%s), uploaded %s; wait for it to finish.",
			id, name, when.UTC().Format("2006-01-02 15:04 UTC")).
			With("import.inProgress", "when", when.UTC().Format(time.RFC3339), "id", id, "file", name)
	}
	return engine.Conflict("This file was already imported on %s as import #%d (%s); importing the same content again would add nothing.",
		when.UTC().Format("2006-01-02 15:04 UTC"), id, name).
		With("import.duplicate", "when", when.UTC().Format(time.RFC3339), "id", id, "file", name)
}
