package imports

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"ledgerdesk/engine"
)

// Content is an uploaded file, never held whole in memory: its size and a
// way to read it from the start, which may be called more than once (the
// HTTP server hands over a multipart part it spooled to a temporary file).
type Content struct {
	Size int64
	Open func() (io.ReadCloser, error)
}

// ContentOf is the content of a file already in memory (tools and tests).
func ContentOf(b []byte) Content {
	return Content{Size: int64(len(b)), Open: func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(b)), nil
	}}
}

// partBytes is the size of one stored part of an upload (import_file_part):
// an upload is written to the database, and read back by its job, a part at
// a time, so neither holds the file whole.
const partBytes = 1 << 20

// storeParts writes the upload r as the parts of import id, hashing it on
// the way, and returns its size and SHA-256. More than limit bytes is
// refused as too large, nothing at all as empty.
func storeParts(ctx context.Context, tx pgx.Tx, id int64, name string, r io.Reader, limit int64) (size int64, hash string, err error) {
	h := sha256.New()
	buf := make([]byte, partBytes)
	for seq := 0; ; seq++ {
		n, readErr := io.ReadFull(r, buf)
		if n > 0 {
			if size += int64(n); size > limit {
				return 0, "", tooLarge(name, limit)
			}
			h.Write(buf[:n])
			if _, err := tx.Exec(ctx, `insert into import_file_part (import_file_id, seq, data) values ($1, $2, $3)`, id, seq, buf[:n]); err != nil {
				return 0, "", err
			}
		}
		if errors.Is(readErr, io.EOF) || errors.Is(readErr, io.ErrUnexpectedEOF) {
			break
		}
		if readErr != nil {
			return 0, "", unreadable()
		}
	}
	if size == 0 {
		return 0, "", empty(name)
	}
	return size, hex.EncodeToString(h.Sum(nil)), nil
}

func tooLarge(name string, limit int64) error {
	return &engine.Error{Code: engine.CodeTooLarge, Field: "file", Message: fmt.Sprintf("%s is larger than the %d MB limit.", name, limit>>20)}
}

func empty(name string) error {
	return engine.Invalid("file", "%s is empty.", name).With("import.empty", "file", name)
}

func unreadable() error {
	return engine.Invalid("file", "The uploaded file could not be read.").With("import.unreadable")
}

// openParts reads the stored upload of import id, size bytes, as one stream
// over a single query: a part at a time, each dropped once read.
func openParts(ctx context.Context, pool *pgxpool.Pool, id, size int64) (io.ReadCloser, error) {
	rows, err := pool.Query(ctx, `select data from import_file_part where import_file_id = $1 order by seq`,
		pgx.QueryResultFormats{pgx.BinaryFormatCode}, id)
	if err != nil {
		return nil, err
	}
	return &partsReader{rows: rows, size: size}, nil
}

// partsReader is the stream of openParts.
type partsReader struct {
	rows pgx.Rows
	cur  []byte // the unread rest of the current part (pgx's buffer, valid until the next row)
	read int64  // bytes of the parts fetched so far
	size int64
	err  error
}

// partsError is a failure to read the stored upload (the database, not the
// file): the load is retried rather than the file refused.
type partsError struct{ err error }

func (e *partsError) Error() string { return "reading the stored upload: " + e.err.Error() }
func (e *partsError) Unwrap() error { return e.err }

func (r *partsReader) Read(p []byte) (int, error) {
	for len(r.cur) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		if !r.rows.Next() {
			r.err = io.EOF
			if err := r.rows.Err(); err != nil {
				r.err = &partsError{err}
			} else if r.read != r.size {
				r.err = &partsError{fmt.Errorf("%d of its %d bytes are stored", r.read, r.size)}
			}
			continue
		}
		r.cur = r.rows.RawValues()[0]
		r.read += int64(len(r.cur))
	}
	n := copy(p, r.cur)
	r.cur = r.cur[n:]
	return n, nil
}

func (r *partsReader) Close() error {
	r.rows.Close()
	return nil
}
