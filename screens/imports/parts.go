package imports

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
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
// refused as too large, nothing at all as empty. The parts go in one binary
// COPY fed straight from r: each part passes through one buffer, never
// copied into a query's parameters.
func storeParts(ctx context.Context, tx pgx.Tx, id int64, name string, r io.Reader, limit int64) (size int64, hash string, err error) {
	src := &partsCopy{src: r, id: id, limit: limit, name: name, hash: sha256.New(), buf: make([]byte, partHeader+partBytes, partHeader+partBytes+2),
		pending: []byte("PGCOPY\n\xff\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00")}
	_, err = tx.Conn().PgConn().CopyFrom(ctx, src, `copy import_file_part (import_file_id, seq, data) from stdin with (format binary)`)
	if src.err != nil { // the upload's own failure, which ended the COPY
		return 0, "", src.err
	}
	if err != nil {
		return 0, "", err
	}
	if src.size == 0 {
		return 0, "", empty(name)
	}
	return src.size, hex.EncodeToString(src.hash.Sum(nil)), nil
}

// partHeader is what precedes a part's bytes in binary COPY: the field
// count, then each field's length and value (id, seq), then data's length.
const partHeader = 2 + 4 + 8 + 4 + 4 + 4

// partsCopy is the binary COPY stream of an upload's parts.
type partsCopy struct {
	src     io.Reader
	id      int64
	limit   int64
	name    string
	hash    hash.Hash
	buf     []byte // one part behind its header, and room for the trailer
	pending []byte // what is left to send of the header, part or trailer
	seq     int32
	size    int64
	done    bool
	err     error
}

func (c *partsCopy) Read(p []byte) (int, error) {
	for len(c.pending) == 0 {
		if c.done {
			return 0, io.EOF
		}
		n, err := io.ReadFull(c.src, c.buf[partHeader:partHeader+partBytes])
		if n > 0 {
			if c.size += int64(n); c.size > c.limit {
				c.err = tooLarge(c.name, c.limit)
				return 0, c.err
			}
			c.hash.Write(c.buf[partHeader : partHeader+n])
			h := c.buf[:0]
			h = binary.BigEndian.AppendUint16(h, 3)
			h = binary.BigEndian.AppendUint32(h, 8)
			h = binary.BigEndian.AppendUint64(h, uint64(c.id))
			h = binary.BigEndian.AppendUint32(h, 4)
			h = binary.BigEndian.AppendUint32(h, uint32(c.seq))
			binary.BigEndian.AppendUint32(h, uint32(n))
			c.pending = c.buf[:partHeader+n]
			c.seq++
		}
		switch {
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
			c.done = true
			c.pending = append(c.pending, 0xff, 0xff) // the trailer (buf has room for it)
		case err != nil:
			c.err = unreadable()
			return 0, c.err
		}
	}
	n := copy(p, c.pending)
	c.pending = c.pending[n:]
	return n, nil
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
