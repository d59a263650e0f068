package imports

import (
	"archive/zip"
	"bufio"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"io"
	"path"
	"slices"
	"strings"
)

// Banks hand out a month of daily camt.053 (or MT940) statements as one zip.
// Such a zip is read entry by entry, in name order, as if the statements
// were one file: every entry must be a statement of the same format, and
// the file names in messages are "<zip>/<entry>". A zip that is neither a
// workbook nor a zip of statements is refused with what it holds.

// maxZipStatements bounds the entries of a zip of statements.
const maxZipStatements = 5000

// zipEntry is the first file of a zip as its head shows it (folders and
// what macOS adds passed over): the name and, when it is stored or
// deflated, the start of its content.
func zipEntry(head []byte) (name string, content []byte) {
	const fixed = 30
	for at := 0; at+fixed <= len(head) && bytes.HasPrefix(head[at:], []byte("PK\x03\x04")); {
		h := head[at:]
		flags := binary.LittleEndian.Uint16(h[6:])
		method := binary.LittleEndian.Uint16(h[8:])
		packed := int(binary.LittleEndian.Uint32(h[18:]))
		nameLen := int(binary.LittleEndian.Uint16(h[26:]))
		extraLen := int(binary.LittleEndian.Uint16(h[28:]))
		if fixed+nameLen > len(h) {
			return "", nil
		}
		name = string(h[fixed : fixed+nameLen])
		start := fixed + nameLen + extraLen
		if skippedEntry(name) { // on to the next entry: after its known size, else at the next header
			if flags&0x8 == 0 {
				at += start + packed
				continue
			}
			next := bytes.Index(h[min(start, len(h)):], []byte("PK\x03\x04"))
			if next < 0 {
				return "", nil
			}
			at += min(start, len(h)) + next
			continue
		}
		if start >= len(h) {
			return name, nil
		}
		switch method {
		case zip.Store:
			return name, h[start:]
		case zip.Deflate:
			buf := make([]byte, 1024)
			n, _ := io.ReadFull(flate.NewReader(bytes.NewReader(h[start:])), buf)
			return name, buf[:n]
		}
		return name, nil
	}
	return name, nil
}

// isWorkbookPart tells the parts an XLSX container starts with.
func isWorkbookPart(name string) bool {
	for _, p := range []string{"[Content_Types].xml", "_rels/", "docProps/", "xl/"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// skippedEntry is a zip entry that is no statement and no problem: a
// folder or what macOS and Windows add.
func skippedEntry(name string) bool {
	base := path.Base(name)
	return strings.HasSuffix(name, "/") || strings.HasPrefix(name, "__MACOSX/") || strings.HasPrefix(base, ".") || strings.EqualFold(base, "Thumbs.db")
}

// zipped parses a zip of statements of the layout's format.
func (p *parser) zipped(r io.Reader) error {
	file, size, err := spool(r)
	if err != nil {
		return err
	}
	defer removeSpool(file)
	zr, err := zip.NewReader(file, size)
	if err != nil {
		return fileError(p.file, 0, 0, "import.file.zipDamaged", map[string]any{"detail": err.Error()}, "the zip archive is damaged and cannot be read (%v)", err)
	}
	var entries []*zip.File
	var unzipped uint64
	for _, f := range zr.File {
		if skippedEntry(f.Name) {
			continue
		}
		entries = append(entries, f)
		unzipped += f.UncompressedSize64
		if unzipped > uint64(p.lim.MaxUnzipBytes) {
			return p.zipBomb()
		}
	}
	if len(entries) > maxZipStatements {
		return fileError(p.file, 0, 0, "import.file.zipFiles", map[string]any{"count": len(entries), "max": maxZipStatements},
			"the zip holds %d files, more than the %d an import may have", len(entries), maxZipStatements)
	}
	if len(entries) == 0 {
		return fileError(p.file, 0, 0, "import.file.zipEmpty", nil, "the zip archive holds no files")
	}
	slices.SortFunc(entries, func(a, b *zip.File) int { return strings.Compare(a.Name, b.Name) })
	outer := p.file
	defer func() { p.file = outer }()
	for _, f := range entries {
		p.file = outer + "/" + f.Name
		if err := p.zipEntryParse(f); err != nil {
			return err
		}
	}
	return nil
}

func (p *parser) zipEntryParse(f *zip.File) error {
	rc, err := f.Open()
	if err != nil {
		return fileError(p.file, 0, 0, "import.file.zipDamaged", map[string]any{"detail": err.Error()}, "the zip archive is damaged and cannot be read (%v)", err)
	}
	defer rc.Close()
	br := bufio.NewReaderSize(rc, 64<<10)
	head, _ := br.Peek(SniffBytes)
	if bytes.HasPrefix(head, []byte("PK")) {
		return fileError(p.file, 0, 0, "import.file.zipInZip", nil, "a zip inside the zip: unpack it first")
	}
	format, err := Detect(Bank, f.Name, head)
	if err != nil {
		return err
	}
	if format != p.c.d.Format {
		return fileError(p.file, 0, 0, "import.file.zipMixed", map[string]any{"format": formatName(format), "layoutFormat": formatName(p.c.d.Format)},
			"the file is %s, but the zip's first statement, and so its layout, is %s: a zip holds statements of one format", formatName(format), formatName(p.c.d.Format))
	}
	switch format {
	case FormatCamt053:
		return p.camt053(br)
	case FormatMT940:
		return p.mt940(br)
	}
	return nil
}
