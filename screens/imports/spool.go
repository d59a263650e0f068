package imports

import (
	"io"
	"os"
)

// spool copies r into a temporary file, for a reader that needs random
// access (a workbook's zip container) without holding the file in memory.
// removeSpool deletes it.
func spool(r io.Reader) (*os.File, int64, error) {
	f, err := os.CreateTemp("", "ledgerdesk-upload-*")
	if err != nil {
		return nil, 0, err
	}
	size, err := io.Copy(f, r)
	if err != nil {
		removeSpool(f)
		return nil, 0, err
	}
	return f, size, nil
}

func removeSpool(f *os.File) {
	f.Close()
	os.Remove(f.Name())
}
