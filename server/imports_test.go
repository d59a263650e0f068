package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v3"
)

func multipartBody(t *testing.T, fields map[string]string, fileName string, content []byte) (*bytes.Buffer, string) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for k, v := range fields {
		w.WriteField(k, v)
	}
	if fileName != "" {
		fw, _ := w.CreateFormFile("file", fileName)
		fw.Write(content)
	}
	w.Close()
	return &buf, w.FormDataContentType()
}

func TestUploadThroughTheAPI(t *testing.T) {
	w := newWorld(t)
	admin := w.login("admin", adminPassword)
	content, err := os.ReadFile("../screens/imports/testdata/files/bank.csv")
	if err != nil {
		t.Fatal(err)
	}
	upload := func(fields map[string]string, name string, content []byte) answer {
		body, ctype := multipartBody(t, fields, name, content)
		req := httptest.NewRequest("POST", "/api/imports", body)
		req.Header.Set("Content-Type", ctype)
		req.Header.Set("Authorization", "Bearer "+admin)
		res, err := w.app.Test(req, fiber.TestConfig{Timeout: 0})
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		a := answer{status: res.StatusCode, body: b}
		json.Unmarshal(b, &a.env)
		return a
	}
	a := upload(map[string]string{"kind": "bank", "format": "csv"}, "bank.csv", content)
	if a.status != 201 {
		t.Fatalf("upload: %d %s", a.status, a.body)
	}
	id := int64(a.env.Data.(map[string]any)["importId"].(float64))
	if err := w.imp.Run(context.Background(), id); err != nil { // the job, run here
		t.Fatal(err)
	}
	got := w.must(200, "GET", fmt.Sprintf("/api/imports/%d", id), admin, nil)
	if got["status"] != "succeeded" || got["rowsLoaded"].(float64) != 3 || got["extractionLogId"] == nil {
		t.Fatalf("import %v", got)
	}
	if a := upload(map[string]string{"kind": "bank"}, "again.csv", content); a.status != 409 || !strings.Contains(a.env.Error, "already imported") {
		t.Errorf("same file again: %d %s", a.status, a.body)
	}
	for _, bad := range []struct {
		fields map[string]string
		name   string
		body   []byte
		field  string
	}{
		{map[string]string{"kind": "invoice"}, "x.csv", []byte("a,b\n"), "kind"},
		{map[string]string{"kind": "bank"}, "", nil, "file"},
		{map[string]string{"kind": "bank"}, "empty.csv", []byte{}, "file"},
		{map[string]string{"kind": "bank", "layout": "nope"}, "b.csv", content, "layout"},
		// DESIGN.md section 4: an optional format; a file that is not that format is refused.
		{map[string]string{"kind": "bank", "format": "mt940"}, "b.csv", content, "format"},
		{map[string]string{"kind": "ticket", "format": "camt053"}, "b.csv", content, "format"},
	} {
		if a := upload(bad.fields, bad.name, bad.body); a.status != 400 || a.env.Field != bad.field {
			t.Errorf("%v %q: %d %s", bad.fields, bad.name, a.status, a.body)
		}
	}
	// The bank rows are on the processed bank files grid.
	page := w.must(200, "POST", "/api/grid", admin, `{"ViewName":"VW_BankFinal","Filters":[{"field":"Text","op":"contains","value":"nuvei"}]}`)
	if page["totalCount"].(float64) != 1 {
		t.Errorf("grid after import: %v", page)
	}
}

// An upload past UPLOAD_MAX_BYTES is refused by the server before it reaches
// a handler, with the envelope, and the server goes on serving.
func TestUploadTooLarge(t *testing.T) {
	cfg := testConfig(t)
	cfg.UploadMaxBytes = 64 << 10
	ln := listen(t, New(Deps{Config: cfg, Log: discardLog()}))
	// Announce a 2 GB body and send its first 16 KB: the answer comes from
	// the headers (the server reads ahead at most 8 KB), and a client
	// streaming the rest of the body sees the connection close.
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /api/imports HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: %d\r\n\r\n%s", int64(2)<<30, strings.Repeat("x", 16<<10))
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 413 || !strings.Contains(string(b), `"error":"the file is too large: files of up to 64 KB can be imported (UPLOAD_MAX_BYTES)","field":"file"`) {
		t.Fatalf("got %d %s", res.StatusCode, b)
	}
	res, err = http.Get("http://" + ln.Addr().String() + "/assets/app-config.json")
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("the server after a huge upload: %v %v", res, err)
	}
}

// listen serves app on a free local port until the test ends.
func listen(t *testing.T, app *fiber.App) net.Listener {
	t.Helper()
	ln, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go app.Listener(ln, fiber.ListenConfig{DisableStartupMessage: true})
	t.Cleanup(func() { app.Shutdown() })
	return ln
}

func discardLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
