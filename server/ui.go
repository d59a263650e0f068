package server

import (
	"io/fs"
	"path"
	"strings"

	"github.com/gofiber/fiber/v3"
	"github.com/gofiber/fiber/v3/middleware/static"
)

// notBuilt is the page served when the binary was compiled without the UI
// (a plain `go build`); `go tool task build` embeds it.
const notBuilt = `<!doctype html><title>Ledgerdesk</title>
<p>This Ledgerdesk binary was built without its web interface. Build it with <code>go tool task build</code>
(or run <code>go tool task up</code>). The API is available under /api.</p>`

// mountUI serves the built single-page application. Files are served as they
// are (hashed assets cached for a year); any other GET without a file
// extension gets index.html, so deep links and reloads work. A missing asset
// is a plain 404, never index.html, which the browser would try to run.
func mountUI(app *fiber.App, ui fs.FS) {
	if ui == nil {
		app.Get("/*", func(c fiber.Ctx) error {
			return c.Type("html").Status(fiber.StatusOK).SendString(notBuilt)
		})
		return
	}
	index, err := fs.ReadFile(ui, "index.html")
	if err != nil {
		index = []byte(notBuilt)
	}
	app.Get("/assets/*", static.New("assets", static.Config{
		FS:       ui,
		MaxAge:   365 * 24 * 3600,
		Compress: true,
	}))
	files := static.New("", static.Config{FS: ui, Compress: true, IndexNames: []string{"__none__"}})
	app.Get("/*", func(c fiber.Ctx) error {
		p := c.Path()
		if p == "/" || path.Ext(p) == "" {
			c.Set(fiber.HeaderCacheControl, "no-cache")
			return c.Type("html").Send(index)
		}
		if _, err := fs.Stat(ui, strings.TrimPrefix(p, "/")); err != nil {
			return fiber.NewError(fiber.StatusNotFound, "not found: "+p)
		}
		return files(c)
	})
}
