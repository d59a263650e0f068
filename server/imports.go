package server

import (
	"context"
	"errors"
	"io"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v3"
	"github.com/valyala/fasthttp"

	"ledgerdesk/engine"
	"ledgerdesk/internal/screenids"
	"ledgerdesk/screens/imports"
)

// importHandlers serve the Data Import screen: uploads, their progress and
// the known layouts, and bank reprocessing.
type importHandlers struct {
	imports  *imports.Service
	maxBytes int64         // UPLOAD_MAX_BYTES
	slots    chan struct{} // uploads being read at once
}

// uploadSlots bounds the uploads being read and stored at once (each up to
// UPLOAD_MAX_BYTES); more wait, and after uploadWait get a 503.
const (
	uploadSlots = 2
	uploadWait  = time.Minute
)

func (h *importHandlers) uploadSlot(ctx context.Context) (release func(), err error) {
	wait := time.NewTimer(uploadWait)
	defer wait.Stop()
	select {
	case h.slots <- struct{}{}:
		return func() { <-h.slots }, nil
	case <-wait.C:
		return nil, &engine.Error{Code: engine.CodeUnavailable, RetryAfter: 30 * time.Second,
			Message: "Other files are being uploaded; try again in a moment."}
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (h *importHandlers) mount(r fiber.Router, auth fiber.Handler) {
	r.Get("/imports/layouts", auth, screen(screenids.DataImport), h.layouts)
	r.Get("/imports", auth, screen(screenids.DataImport), h.recent)
	r.Post("/imports", auth, screen(screenids.DataImport), h.submit)
	r.Get("/imports/:id", auth, screen(screenids.DataImport), h.get)
	r.Post("/bank/reprocess", auth, screen(screenids.ProcessedBank), h.reprocess)
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

// submit takes one multipart upload: kind, file and an optional layout. It
// runs after authentication; only then is the body read, streamed into a
// temporary file (anything past 8 KB), from which the import service
// streams the file into the database; it is never held whole in memory. At
// most uploadSlots uploads are read at once.
func (h *importHandlers) submit(c fiber.Ctx) error {
	release, err := h.uploadSlot(c.Context())
	if err != nil {
		return err
	}
	defer release()
	form, err := c.Request().MultipartFormWithLimit(int(h.maxBytes + multipartSlack))
	if errors.Is(err, fasthttp.ErrBodyTooLarge) {
		c.Response().SetConnectionClose()
		return fiber.ErrRequestEntityTooLarge
	}
	if err != nil || len(form.File["file"]) == 0 {
		return engine.Invalid("file", "Send the file as multipart/form-data in the field \"file\", with the field \"kind\".").With("import.multipart")
	}
	fh := form.File["file"][0]
	field := func(name string) string {
		if v := form.Value[name]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	res, err := h.imports.Submit(c.Context(), imports.Upload{
		Kind:     imports.Kind(field("kind")),
		Format:   field("format"),
		Layout:   field("layout"),
		FileName: fh.Filename,
		Content: imports.Content{Size: fh.Size, Open: func() (io.ReadCloser, error) {
			return fh.Open()
		}},
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

// limitBodies refuses a body over its route's limit before reading it. The
// server streams request bodies (StreamRequestBody), so nothing is read yet:
// a declared Content-Length over the limit is answered from the headers
// alone, and a chunked body is read only up to the limit. Uploads (POST
// /api/imports) may be up to uploadMax plus the multipart framing, and are
// left unread for their handler, which runs after authentication.
func limitBodies(general int, uploadMax int64) fiber.Handler {
	return func(c fiber.Ctx) error {
		upload := c.Method() == fiber.MethodPost && c.Path() == "/api/imports"
		limit := int64(general)
		if upload {
			limit = uploadMax + multipartSlack
		}
		if n := c.Request().Header.ContentLength(); int64(n) > limit {
			c.Response().SetConnectionClose() // the unread body is not drained
			return fiber.ErrRequestEntityTooLarge
		}
		stream := c.Request().BodyStream()
		if upload || stream == nil {
			return c.Next()
		}
		body, err := io.ReadAll(io.LimitReader(stream, limit+1))
		if err != nil {
			c.Response().SetConnectionClose()
			return engine.Invalid("", "The request body could not be read.")
		}
		if int64(len(body)) > limit {
			c.Response().SetConnectionClose()
			return fiber.ErrRequestEntityTooLarge
		}
		c.Request().SetBody(body)
		return c.Next()
	}
}

// multipartSlack is what an upload may carry beyond the file: the multipart
// framing and the small form fields.
const multipartSlack = 1 << 20
