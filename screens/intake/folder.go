package intake

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"ledgerdesk/engine"
	"ledgerdesk/internal/screenids"
	"ledgerdesk/screens/imports"
)

// The drop folder's layout under INBOX_DIR: a folder per kind to drop files
// into, claimed/ holding the files being imported (named
// <kind>/<claim time>-<name>), and done/ and failed/ where they end, each
// with <name>.result.json beside it.
const (
	claimedDir = ".claimed"
	doneDir    = "done"
	failedDir  = "failed"
)

// ignored names are files still being written by a tool that renames them
// when done (or hidden files).
func ignored(name string) bool {
	if strings.HasPrefix(name, ".") || strings.HasPrefix(name, "~") {
		return true
	}
	lower := strings.ToLower(name)
	for _, suffix := range []string{".part", ".partial", ".tmp", ".filepart", ".crdownload", ".result.json"} {
		if strings.HasSuffix(lower, suffix) {
			return true
		}
	}
	return false
}

// PrepareFolder makes the drop folder's sub-folders.
func (s *Service) PrepareFolder() error {
	for _, k := range imports.Kinds {
		for _, dir := range []string{string(k), filepath.Join(claimedDir, string(k))} {
			if err := os.MkdirAll(filepath.Join(s.Inbox, dir), 0o750); err != nil {
				return fmt.Errorf("INBOX_DIR: %w", err)
			}
		}
	}
	for _, dir := range []string{doneDir, failedDir} {
		if err := os.MkdirAll(filepath.Join(s.Inbox, dir), 0o750); err != nil {
			return fmt.Errorf("INBOX_DIR: %w", err)
		}
	}
	return nil
}

// WatchFolder looks at the drop folder every poll of intake.yaml until ctx ends.
func (s *Service) WatchFolder(ctx context.Context) {
	t := time.NewTicker(time.Duration(s.Config.Folder.Poll))
	defer t.Stop()
	for {
		if err := s.ScanFolder(ctx); err != nil && ctx.Err() == nil {
			s.Log.Error("drop folder", "dir", s.Inbox, "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// ScanFolder is one look at the drop folder. First the claimed files: one
// whose import has ended moves to done/ or failed/ with its result, one not
// submitted yet (the process stopped in between) is submitted. Then the
// kind folders: a file the previous look found with the same size and time
// of change is claimed (moved under claimed/, which only one look of one
// node can do) and submitted as an import of its kind by the system user;
// the import itself is a job any node may take.
func (s *Service) ScanFolder(ctx context.Context) error {
	ctx = system(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, k := range imports.Kinds {
		dir := filepath.Join(s.Inbox, claimedDir, string(k))
		entries, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if e.Type().IsRegular() {
				if err := s.settle(ctx, k, e.Name()); err != nil {
					return err
				}
			}
		}
	}
	looked := map[string]stamp{}
	for _, k := range imports.Kinds {
		dir := filepath.Join(s.Inbox, string(k))
		entries, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if !e.Type().IsRegular() || ignored(e.Name()) {
				continue
			}
			info, err := e.Info()
			if err != nil {
				continue // renamed or removed since the listing
			}
			key := filepath.Join(string(k), e.Name())
			now := stamp{info.Size(), info.ModTime()}
			looked[key] = now
			if before, ok := s.looked[key]; !ok || before != now {
				continue // new, or still being written
			}
			delete(looked, key)
			if err := s.claim(ctx, k, e.Name()); err != nil {
				return err
			}
		}
	}
	s.looked = looked
	return nil
}

// claim moves a dropped file under claimed/ and submits it.
func (s *Service) claim(ctx context.Context, k imports.Kind, name string) error {
	claimed := fmt.Sprintf("%d-%s", time.Now().UnixNano(), name)
	err := os.Rename(filepath.Join(s.Inbox, string(k), name), filepath.Join(s.Inbox, claimedDir, string(k), claimed))
	if errors.Is(err, fs.ErrNotExist) {
		return nil // renamed, removed or claimed by another node since the look
	}
	if err != nil {
		return err
	}
	return s.settle(ctx, k, claimed)
}

// originalName is the dropped file's name of a claimed one.
func originalName(claimed string) string {
	if _, name, ok := strings.Cut(claimed, "-"); ok {
		return name
	}
	return claimed
}

// settle moves a claimed file on: submitted if it is not yet, to done/ or
// failed/ once its import has ended, refused files at once to failed/.
func (s *Service) settle(ctx context.Context, k imports.Kind, claimed string) error {
	origin := "folder:" + string(k) + "/" + claimed
	f, err := s.Imports.ByOrigin(ctx, origin)
	if err != nil {
		return err
	}
	path := filepath.Join(s.Inbox, claimedDir, string(k), claimed)
	name := originalName(claimed)
	if f == nil {
		info, err := os.Stat(path)
		if err != nil {
			return nil // moved on by another node
		}
		f, err = s.Imports.Submit(ctx, imports.Upload{Kind: k, FileName: name, Origin: origin,
			Content: imports.Content{Size: info.Size(), Open: func() (io.ReadCloser, error) { return os.Open(path) }}})
		var e *engine.Error
		switch {
		case errors.As(err, &e) && e.Key == "import.inProgress":
			return nil // the same content is being imported: look again next time
		case errors.As(err, &e) && (e.Code == engine.CodeInvalid || e.Code == engine.CodeTooLarge || e.Code == engine.CodeConflict):
			if again, _ := s.Imports.ByOrigin(ctx, origin); again != nil {
				return nil // another node submitted it meanwhile
			}
			s.Log.Info("drop folder: file refused", "file", name, "kind", k, "reason", e.Message)
			if err := raise(ctx, s.Pool, "refused:"+origin, AlertIntakeFailed, screenids.DataImport,
				message{Text: name + ": " + e.Message, Code: e.Key, Params: e.Params}.with("file", name, "kind", string(k))); err != nil {
				return err
			}
			return s.finishFile(path, failedDir, name, result{File: name, Kind: k, Outcome: "refused",
				Error: e.Message, ErrorCode: e.Key, ErrorParams: e.Params})
		case err != nil:
			s.Log.Warn("drop folder: submitting a file, will try again", "file", name, "err", err)
			return nil
		}
	}
	switch f.Status {
	case "succeeded":
		s.Log.Info("drop folder: file imported", "file", name, "kind", k, "import", f.ImportID, "rows", f.RowsLoaded)
		return s.finishFile(path, doneDir, name, resultOf(f, "loaded"))
	case "failed":
		s.Log.Info("drop folder: file failed", "file", name, "kind", k, "import", f.ImportID)
		return s.finishFile(path, failedDir, name, resultOf(f, "failed"))
	}
	return nil // queued or running: look again next time
}

// result is what <name>.result.json says of a file.
type result struct {
	File        string         `json:"file"`
	Kind        imports.Kind   `json:"kind"`
	Outcome     string         `json:"outcome"` // loaded, failed (the import), refused (not imported)
	Error       string         `json:"error,omitempty"`
	ErrorCode   string         `json:"errorCode,omitempty"`
	ErrorParams map[string]any `json:"errorParams,omitempty"`
	Import      *imports.File  `json:"import,omitempty"`
}

func resultOf(f *imports.File, outcome string) result {
	r := result{File: f.FileName, Kind: f.Kind, Outcome: outcome, Import: f}
	if f.Error != nil {
		r.Error = *f.Error
	}
	if f.ErrorCode != nil {
		r.ErrorCode, r.ErrorParams = *f.ErrorCode, f.ErrorParams
	}
	return r
}

// finishFile writes the result beside the file's place in dir (done or
// failed) and moves it there; a name taken there gets a number.
func (s *Service) finishFile(path, dir, name string, r result) error {
	target := filepath.Join(s.Inbox, dir, name)
	ext := filepath.Ext(name)
	for n := 2; ; n++ {
		if _, err := os.Lstat(target); errors.Is(err, fs.ErrNotExist) {
			break
		}
		target = filepath.Join(s.Inbox, dir, fmt.Sprintf("%s (%d)%s", strings.TrimSuffix(name, ext), n, ext))
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(target+".result.json", append(b, '\n'), 0o640); err != nil {
		return err
	}
	if err := os.Rename(path, target); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
