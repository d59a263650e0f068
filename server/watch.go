package server

import (
	"context"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/jackc/pgx/v5/pgxpool"

	"ledgerdesk/engine"
	"ledgerdesk/ui"
)

// LoadMetadata reads views.yaml, forms/ and labels/ and checks that every
// label the metadata shows has its text in each language, in its labels file
// or among the UI's own texts: every missing key at once, per language.
func LoadMetadata(fsys fs.FS) (*engine.Metadata, error) {
	md, err := engine.LoadMetadata(fsys)
	if err != nil {
		return nil, err
	}
	if missing := md.MissingLabels(ui.Texts); len(missing) > 0 {
		return nil, &engine.Error{Code: engine.CodeInvalid, Message: "labels missing:\n  " + strings.Join(missing, "\n  ")}
	}
	return md, nil
}

// WatchMetadata reloads views.yaml, forms/ and labels/ from dir whenever they change:
// the new set is loaded, validated against the database and swapped in; an
// invalid edit keeps the old metadata and logs why. The UI reads metadata
// when it opens a screen, so it sees the change on the next navigation.
func WatchMetadata(ctx context.Context, dir string, eng *engine.Engine, pool *pgxpool.Pool, log *slog.Logger) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	for _, d := range []string{dir, filepath.Join(dir, "forms"), filepath.Join(dir, "labels")} {
		if _, err := os.Stat(d); err != nil && d != dir {
			continue // no forms or labels folder: nothing there to watch
		}
		if err := w.Add(d); err != nil {
			w.Close()
			return err
		}
	}
	go func() {
		defer w.Close()
		var pending <-chan time.Time // editors write in bursts: reload once they settle
		for {
			select {
			case <-ctx.Done():
				return
			case ev, ok := <-w.Events:
				if !ok {
					return
				}
				if filepath.Base(ev.Name) == "views.yaml" || filepath.Ext(ev.Name) == ".yaml" {
					pending = time.After(200 * time.Millisecond)
				}
			case err, ok := <-w.Errors:
				if !ok {
					return
				}
				log.Warn("metadata watch", "err", err)
			case <-pending:
				pending = nil
				reloadMetadata(ctx, dir, eng, pool, log)
			}
		}
	}()
	log.Info("watching metadata for changes", "dir", dir)
	return nil
}

func reloadMetadata(ctx context.Context, dir string, eng *engine.Engine, pool *pgxpool.Pool, log *slog.Logger) {
	md, err := LoadMetadata(os.DirFS(dir))
	if err == nil {
		err = engine.Validate(ctx, pool, md)
	}
	if err != nil {
		log.Error("metadata reload refused; the previous metadata stays in use", "err", err)
		return
	}
	eng.SetMetadata(md)
	go ensureIndexes(ctx, pool, md, log)
	log.Info("metadata reloaded", "views", len(md.Views), "forms", len(md.Forms), "screens", len(md.Screens))
}

// ensureIndexes builds, in the background, the indexes the large views'
// sorts and filters need (engine.EnsureIndexes); until one is ready its
// clicks scan, and a failure is logged and recorded in grid_index.
func ensureIndexes(ctx context.Context, pool *pgxpool.Pool, md *engine.Metadata, log *slog.Logger) {
	if err := engine.EnsureIndexes(ctx, pool, md, log); err != nil && ctx.Err() == nil {
		log.Error("grid indexes not all built", "err", err)
	}
}
