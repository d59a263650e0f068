package server

import (
	"io"
	"strconv"

	"github.com/gofiber/fiber/v3"

	"ledgerdesk/engine"
	"ledgerdesk/screens/imports"
)

// screenDataImport guards the data-import calls (DESIGN.md section 5).
const screenDataImport = 2

// importHandlers serve the Data Import screen: uploads, their progress and
// the known layouts, and bank reprocessing.
type importHandlers struct {
	imports *imports.Service
}

func (h *importHandlers) mount(r fiber.Router, auth fiber.Handler) {
	r.Get("/imports/layouts", auth, screen(screenDataImport), h.layouts)
	r.Get("/imports", auth, screen(screenDataImport), h.recent)
	r.Post("/imports", auth, screen(screenDataImport), h.submit)
	r.Get("/imports/:id", auth, screen(screenDataImport), h.get)
	r.Post("/bank/reprocess", auth, screen(screenProcessedBank), h.reprocess)
}

func (h *importHandlers) layouts(c fiber.Ctx) error {
	return ok(c, h.imports.Layouts())
}

func (h *importHandlers) recent(c fiber.Ctx) error {
	list, err := h.imports.Recent(c.Context(), 50)
	if err != nil {
		return err
	}
	return ok(c, list)
}

func (h *importHandlers) get(c fiber.Ctx) error {
	id, err := idParam(c, "id")
	if err != nil {
		return err
	}
	f, err := h.imports.Get(c.Context(), id)
	if err != nil {
		return err
	}
	return ok(c, f)
}

// submit takes one multipart upload: kind, file and an optional layout.
func (h *importHandlers) submit(c fiber.Ctx) error {
	fh, err := c.FormFile("file")
	if err != nil {
		return engine.Invalid("file", "Send the file as multipart/form-data in the field \"file\", with the field \"kind\".").With("import.multipart")
	}
	f, err := fh.Open()
	if err != nil {
		return engine.Invalid("file", "The uploaded file could not be read.").With("import.unreadable")
	}
	defer f.Close()
	content, err := io.ReadAll(f)
	if err != nil {
		return engine.Invalid("file", "The uploaded file could not be read.").With("import.unreadable")
	}
	res, err := h.imports.Submit(c.Context(), imports.Upload{
		Kind:     imports.Kind(c.FormValue("kind")),
		Format:   c.FormValue("format"),
		Layout:   c.FormValue("layout"),
		FileName: fh.Filename,
		Content:  content,
	})
	if err != nil {
		return err
	}
	return created(c, res)
}

func (h *importHandlers) reprocess(c fiber.Ctx) error {
	id, err := h.imports.Reprocess(c.Context())
	if err != nil {
		return err
	}
	return ok(c, map[string]string{"jobId": strconv.FormatInt(id, 10), "message": "Reprocessing of the bank files was triggered."})
}

// limitBodies holds every call but uploads to the general body limit; the
// server itself accepts bodies up to the upload limit.
func limitBodies(general int) fiber.Handler {
	return func(c fiber.Ctx) error {
		if len(c.Request().Body()) > general && !(c.Method() == fiber.MethodPost && c.Path() == "/api/imports") {
			return fiber.ErrRequestEntityTooLarge
		}
		return c.Next()
	}
}
