package server

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v3"

	"ledgerdesk/engine"
)

// gridHandlers serve the metadata engine: grids, inline edit, export, the
// metadata the UI renders from, and every form's REST resource.
type gridHandlers struct {
	engine *engine.Engine
	log    *slog.Logger
	// dateFormat is the caller's date format, for dates in exports.
	dateFormat func(c fiber.Ctx) string
}

func (h *gridHandlers) mount(r fiber.Router, auth fiber.Handler) {
	r.Get("/meta/views", auth, h.views)
	r.Get("/meta/views/:name", auth, h.view)
	r.Get("/meta/forms/:name", auth, h.form)
	r.Get("/meta/screens", auth, h.screens)
	r.Get("/meta/screens/:route", auth, h.screen)
	r.Get("/meta/labels/:lang", auth, h.labels)
	r.Post("/grid", auth, stopWhenClientGoes, h.page)
	r.Post("/grid/export", auth, h.export)
	r.Put("/grid/row", auth, h.editRow)
}

// mountResources registers the generic form resources. They come last among
// the API routes: fixed routes of the same shape win.
func (h *gridHandlers) mountResources(r fiber.Router, auth fiber.Handler) {
	r.Get("/:resource", auth, h.list)
	r.Post("/:resource", auth, h.create)
	r.Post("/:resource/grid", auth, stopWhenClientGoes, h.resourceGrid)
	r.Get("/:resource/:id", auth, h.getOrLookup)
	r.Put("/:resource/:id", auth, h.update)
	r.Delete("/:resource/:id", auth, h.remove)
}

func (h *gridHandlers) views(c fiber.Ctx) error {
	return ok(c, h.engine.Views(c.Context()))
}

func (h *gridHandlers) view(c fiber.Ctx) error {
	v, err := h.engine.View(c.Context(), c.Params("name"))
	if err != nil {
		if engine.ErrorCode(err) == engine.CodeInvalid {
			return engine.NotFound("Unknown view %q.", c.Params("name")).With("grid.unknownView", "view", c.Params("name"))
		}
		return err
	}
	return ok(c, v.Meta())
}

func (h *gridHandlers) form(c fiber.Ctx) error {
	f, err := h.engine.FormByName(c.Context(), c.Params("name"))
	if err != nil {
		return err
	}
	return ok(c, f.Meta())
}

func (h *gridHandlers) screens(c fiber.Ctx) error {
	return ok(c, h.engine.Screens(c.Context()))
}

func (h *gridHandlers) screen(c fiber.Ctx) error {
	sc, err := h.engine.ScreenByRoute(c.Context(), c.Params("route"))
	if err != nil {
		return err
	}
	return ok(c, sc)
}

// labels answers a language's metadata labels (labels/<lang>.yaml) as the
// nested tree the UI merges into its translations. They change only with the
// metadata, so the answer carries an ETag and a browser that has them gets a
// 304.
func (h *gridHandlers) labels(c fiber.Ctx) error {
	lang := c.Params("lang")
	if !slices.Contains(engine.Languages, lang) {
		return engine.NotFound("No labels for language %q (%s).", lang, strings.Join(engine.Languages, ", ")).With("labels.language", "lang", lang)
	}
	body, err := json.Marshal(map[string]any{"succeeded": true, "data": h.engine.Metadata().LabelsTree(lang)})
	if err != nil {
		return err
	}
	sum := sha256.Sum256(body)
	etag := `"` + hex.EncodeToString(sum[:12]) + `"`
	c.Set(fiber.HeaderCacheControl, "private, no-cache")
	c.Set(fiber.HeaderETag, etag)
	if c.Get(fiber.HeaderIfNoneMatch) == etag {
		return c.SendStatus(fiber.StatusNotModified)
	}
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSONCharsetUTF8)
	return c.Send(body)
}

func (h *gridHandlers) page(c fiber.Ctx) error {
	var req engine.GridRequest
	if err := decodeStrictNumbers(c, &req); err != nil {
		return err
	}
	p, err := h.engine.Page(c.Context(), req)
	if err != nil {
		return err
	}
	return okPage(c, p)
}

// okPage writes a grid page in the envelope, in one buffer: the rows' JSON
// was written as they were read and is copied once, not encoded again.
func okPage(c fiber.Ctx, p *engine.GridPage) error {
	const head = `{"succeeded":true,"data":`
	buf := append(make([]byte, 0, len(head)+p.JSONSize()+1), head...)
	buf = append(p.AppendJSON(buf), '}')
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSONCharsetUTF8)
	return c.Send(buf)
}

func (h *gridHandlers) editRow(c fiber.Ctx) error {
	var req engine.RowEdit
	if err := decodeStrictNumbers(c, &req); err != nil {
		return err
	}
	row, err := h.engine.UpdateRow(c.Context(), req)
	if err != nil {
		return err
	}
	return ok(c, row)
}

// export validates the request fully, then streams the file. A failure
// after the first byte can only cut the download short; it is logged.
func (h *gridHandlers) export(c fiber.Ctx) error {
	var req engine.ExportRequest
	if err := decodeStrictNumbers(c, &req); err != nil {
		return err
	}
	x, err := h.engine.PrepareExport(c.Context(), req, h.dateFormat(c))
	if err != nil {
		return err
	}
	return sendExport(c, h.log, x)
}

// sendExport streams a prepared grid export, saying when the file is cut.
func sendExport(c fiber.Ctx, log *slog.Logger, x *engine.Export) error {
	if x.CutAt > 0 {
		c.Set("X-Export-Cut-At", strconv.Itoa(x.CutAt)) // the client says the file holds only these rows
	}
	return sendFile(c, log, x.FileName, x.ContentType, x.WriteTo)
}

// exportHoldMax is the longest a download keeps its place (the server's
// write timeout is 5 minutes).
const exportHoldMax = 6 * time.Minute

// sendFile streams a download; a failure after the first byte can only cut
// it short, so it is logged.
func sendFile(c fiber.Ctx, log *slog.Logger, name, contentType string, write func(context.Context, io.Writer) error) error {
	release, err := takeExport(c) // a place among the downloads streaming at once
	if err != nil {
		return err
	}
	// Given back when the stream ends, or at the latest when it could no
	// longer be writing (a response never written must not hold it).
	timer := time.AfterFunc(exportHoldMax, release)
	ctx := c.Context()
	c.Set(fiber.HeaderContentType, contentType)
	c.Set(fiber.HeaderContentDisposition, fmt.Sprintf(`attachment; filename="%s"`, name))
	c.Set(fiber.HeaderCacheControl, "no-store")
	return c.SendStreamWriter(func(w *bufio.Writer) {
		defer func() {
			timer.Stop()
			release()
		}()
		if err := write(ctx, w); err != nil {
			log.Error("export failed while streaming", "file", name, "err", err)
		}
		w.Flush()
	})
}

func (h *gridHandlers) resource(c fiber.Ctx) (*engine.Form, error) {
	f, err := h.engine.FormByResource(c.Context(), c.Params("resource"))
	if engine.ErrorCode(err) == engine.CodeNotFound {
		return nil, fiber.NewError(fiber.StatusNotFound, "no such API endpoint: "+c.Method()+" "+c.Path())
	}
	return f, err
}

func (h *gridHandlers) list(c fiber.Ctx) error {
	f, err := h.resource(c)
	if err != nil {
		return err
	}
	list, err := h.engine.List(c.Context(), f)
	if err != nil {
		return err
	}
	return ok(c, list)
}

// getOrLookup answers GET /{resource}/{id} with a record, and
// GET /{resource}/{lookup} (a name, not a number) with a lookup list.
func (h *gridHandlers) getOrLookup(c fiber.Ctx) error {
	f, err := h.resource(c)
	if err != nil {
		return err
	}
	id, err := f.ParseID(c.Params("id"))
	if err != nil {
		list, lerr := h.engine.LookupList(c.Context(), f, c.Params("id"))
		if engine.ErrorCode(lerr) == engine.CodeNotFound {
			return fiber.NewError(fiber.StatusNotFound, "no such API endpoint: "+c.Method()+" "+c.Path())
		}
		if lerr != nil {
			return lerr
		}
		return ok(c, list)
	}
	rec, err := h.engine.Get(c.Context(), f, id)
	if err != nil {
		return err
	}
	return ok(c, rec)
}

func (h *gridHandlers) create(c fiber.Ctx) error {
	f, err := h.resource(c)
	if err != nil {
		return err
	}
	body, err := decodeRecord(c)
	if err != nil {
		return err
	}
	rec, err := h.engine.Create(c.Context(), f, body)
	if err != nil {
		return err
	}
	return created(c, rec)
}

func (h *gridHandlers) update(c fiber.Ctx) error {
	f, err := h.resource(c)
	if err != nil {
		return err
	}
	id, err := f.ParseID(c.Params("id"))
	if err != nil {
		return err
	}
	body, err := decodeRecord(c)
	if err != nil {
		return err
	}
	rec, err := h.engine.Update(c.Context(), f, id, body)
	if err != nil {
		return err
	}
	return ok(c, rec)
}

func (h *gridHandlers) remove(c fiber.Ctx) error {
	f, err := h.resource(c)
	if err != nil {
		return err
	}
	id, err := f.ParseID(c.Params("id"))
	if err != nil {
		return err
	}
	if err := h.engine.Delete(c.Context(), f, id); err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
}

// resourceGrid is POST /{resource}/grid (the spec's Country/grid): the grid
// of the view the form belongs to.
func (h *gridHandlers) resourceGrid(c fiber.Ctx) error {
	f, err := h.resource(c)
	if err != nil {
		return err
	}
	if f.View == "" {
		return fiber.NewError(fiber.StatusNotFound, "no such API endpoint: "+c.Method()+" "+c.Path())
	}
	var req engine.GridRequest
	if len(bytes.TrimSpace(c.Body())) > 0 {
		if err := decodeStrictNumbers(c, &req); err != nil {
			return err
		}
	}
	req.ViewName = f.View
	p, err := h.engine.Page(c.Context(), req)
	if err != nil {
		return err
	}
	return okPage(c, p)
}

// decodeRecord reads a record body, keeping numbers exact (json.Number).
func decodeRecord(c fiber.Ctx) (map[string]any, error) {
	var body map[string]any
	if err := decodeStrictNumbers(c, &body); err != nil {
		return nil, err
	}
	return body, nil
}

// decodeStrictNumbers is decode with numbers kept as json.Number, so
// decimals reach the type registry exactly as the client wrote them.
func decodeStrictNumbers(c fiber.Ctx, v any) error {
	body, err := requestBody(c)
	if err != nil {
		return err
	}
	if len(body) == 0 || body[0] != '{' {
		return engine.Invalid("", "The request body must be a JSON object.").With("request.notObject")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return engine.Invalid(te.Field, "%s has the wrong type (expected %s).", te.Field, te.Type.String()).With("request.type", "field", te.Field, "type", te.Type.String())
		}
		return engine.Invalid("", "The request body is not valid JSON.").With("request.json")
	}
	return nil
}
