package server

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v3"
	"github.com/jackc/pgx/v5/pgxpool"

	"ledgerdesk/engine"
	"ledgerdesk/internal/pgtest"
	"ledgerdesk/internal/smtptest"
	"ledgerdesk/screens/identity"
)

// TestHole2RefusalsCarryRetryAfter: a throttled sign-in is a 429 that says
// when to come back.
func TestHole2RefusalsCarryRetryAfter(t *testing.T) {
	w := newWorld(t)
	var last answer
	for i := 0; i < 6; i++ {
		last = w.do("POST", "/api/auth/login", "", map[string]string{"username": "admin", "password": "Wrong#pass1"})
	}
	if last.status != 429 || last.env.Code != "auth.backoff" {
		t.Fatalf("sixth wrong password: %d %s", last.status, last.body)
	}
	if n, err := strconv.Atoi(last.header.Get("Retry-After")); err != nil || n < 1 {
		t.Errorf("Retry-After %q", last.header.Get("Retry-After"))
	}
}

// TestHole4PrivilegeEscalation: only Administrator holders grant the
// Administrator role or screens 4 and 6, or change an Administrator user or
// the Administrator role; nobody changes their own roles or their own role's
// screens.
func TestHole4PrivilegeEscalation(t *testing.T) {
	w := newWorld(t)
	admin := w.login("admin", adminPassword)
	clerkID, _ := w.addUser(admin, "clerk", 1)
	userAdminID, userAdmin := w.addUser(admin, "useradmin", 1, 3, 4)
	roleAdminID, roleAdmin := w.addUser(admin, "roleadmin", 5, 6)
	reconcilerID, _ := w.addUser(admin, "reconciler", 1, 13)
	roleOf := func(user string) int64 {
		var id int64
		w.pool.QueryRow(context.Background(), `select ur.role_id from user_role ur join app_user u on u.id = ur.user_id where u.username = $1`, user).Scan(&id)
		return id
	}
	adminRole, clerkRole, roleAdminRole, userAdminRole := roleOf("admin"), roleOf("clerk"), roleOf("roleadmin"), roleOf("useradmin")
	reconcilerRole := roleOf("reconciler")
	resetOf := func(id int64) map[string]any { // the user as read, with a new password
		u := w.must(200, "GET", fmt.Sprintf("/api/users/%d", id), admin, nil)
		u["changePassword"], u["newPassword"] = true, "Taken#Over2026x"
		return u
	}
	var adminID int64
	w.pool.QueryRow(context.Background(), `select id from app_user where username = 'admin'`).Scan(&adminID)
	adminUser := w.must(200, "GET", fmt.Sprintf("/api/users/%d", adminID), admin, nil)
	adminUser["email"] = "attacker@example.com"
	all := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}

	tests := []struct {
		name, who, method, path string
		body                    any
		status                  int
	}{
		{"screen 4 gives itself Administrator", "useradmin", "PUT", fmt.Sprintf("/api/users/%d/roles", userAdminID), map[string]any{"roleIds": []int64{userAdminRole, adminRole}}, 403},
		{"screen 4 changes its own roles", "useradmin", "PUT", fmt.Sprintf("/api/users/%d/roles", userAdminID), map[string]any{"roleIds": []int64{userAdminRole, clerkRole}}, 403},
		{"screen 4 gives another Administrator", "useradmin", "PUT", fmt.Sprintf("/api/users/%d/roles", clerkID), map[string]any{"roleIds": []int64{adminRole}}, 403},
		{"screen 4 grants screen 6 through a role", "useradmin", "PUT", fmt.Sprintf("/api/users/%d/roles", clerkID), map[string]any{"roleIds": []int64{roleAdminRole}}, 403},
		{"screen 4 changes the admin's email", "useradmin", "PUT", fmt.Sprintf("/api/users/%d", adminID), adminUser, 403},
		{"screen 4 takes the admin's roles", "useradmin", "PUT", fmt.Sprintf("/api/users/%d/roles", adminID), map[string]any{"roleIds": []int64{clerkRole}}, 403},
		{"screen 4 unlocks the admin", "useradmin", "POST", fmt.Sprintf("/api/users/%d/unlock", adminID), nil, 403},
		{"screen 4 gives a plain role", "useradmin", "PUT", fmt.Sprintf("/api/users/%d/roles", clerkID), map[string]any{"roleIds": []int64{clerkRole}}, 200},
		// Round 3, hole 4: a delegated administrator acts only within the screens they hold.
		{"screen 4 resets the password of a role editor", "useradmin", "PUT", fmt.Sprintf("/api/users/%d", roleAdminID), resetOf(roleAdminID), 403},
		{"screen 4 unlocks a user holding screen 13", "useradmin", "POST", fmt.Sprintf("/api/users/%d/unlock", reconcilerID), nil, 403},
		{"screen 4 gives a role with screen 13", "useradmin", "PUT", fmt.Sprintf("/api/users/%d/roles", clerkID), map[string]any{"roleIds": []int64{clerkRole, reconcilerRole}}, 403},
		{"screen 4 resets the password of a user within its screens", "useradmin", "PUT", fmt.Sprintf("/api/users/%d", clerkID), resetOf(clerkID), 200},
		{"screen 6 grants its own role every screen", "roleadmin", "PUT", fmt.Sprintf("/api/roles/%d/screens", roleAdminRole), map[string]any{"screenIds": all}, 403},
		{"screen 6 grants screen 4", "roleadmin", "PUT", fmt.Sprintf("/api/roles/%d/screens", clerkRole), map[string]any{"screenIds": []int{1, 4}}, 403},
		{"screen 6 grants screen 6", "roleadmin", "PUT", fmt.Sprintf("/api/roles/%d/permissions", clerkRole), map[string]any{"permissions": []int{1, 6}}, 403},
		{"screen 6 renames Administrator", "roleadmin", "PUT", fmt.Sprintf("/api/roles/%d", adminRole), map[string]any{"roleName": "Nobody"}, 403},
		{"screen 6 grants plain screens", "roleadmin", "PUT", fmt.Sprintf("/api/roles/%d/screens", clerkRole), map[string]any{"screenIds": []int{1, 2}}, 200},
		{"admin changes its own roles", "admin", "PUT", fmt.Sprintf("/api/users/%d/roles", adminID), map[string]any{"roleIds": []int64{adminRole, clerkRole}}, 403},
		{"admin grants screens 4 and 6", "admin", "PUT", fmt.Sprintf("/api/roles/%d/screens", clerkRole), map[string]any{"screenIds": []int{1, 4, 6}}, 200},
		{"admin gives Administrator", "admin", "PUT", fmt.Sprintf("/api/users/%d/roles", clerkID), map[string]any{"roleIds": []int64{adminRole}}, 200},
	}
	tokens := map[string]string{"admin": admin, "useradmin": userAdmin, "roleadmin": roleAdmin}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if a := w.do(tt.method, tt.path, tokens[tt.who], tt.body); a.status != tt.status {
				t.Fatalf("status %d, want %d: %s", a.status, tt.status, a.body)
			}
		})
	}
	var email, name string
	w.pool.QueryRow(context.Background(), `select email from app_user where id = $1`, adminID).Scan(&email)
	w.pool.QueryRow(context.Background(), `select role_name from role where id = $1`, adminRole).Scan(&name)
	if email != "admin@ledgerdesk.local" || name != "Administrator" {
		t.Errorf("admin email %q, admin role %q", email, name)
	}
}

// TestHole5EmailChangeNeedsPassword: with only a stolen token nobody can move
// the account's email (where reset and sign-in codes go) or turn two-factor
// off: both need the current password, and a code for a two-factor user;
// the old address is told.
func TestHole5EmailChangeNeedsPassword(t *testing.T) {
	w := newWorld(t)
	admin := w.login("admin", adminPassword)
	_, victim := w.addUser(admin, "victim", 1)
	me := w.must(200, "GET", "/api/profile", victim, nil)
	me["email"] = "thief@example.com"
	for _, tt := range []struct {
		name, current string
	}{{"no password", ""}, {"wrong password", "Wrong#pass1"}} {
		me["currentPassword"] = tt.current
		if a := w.do("PUT", "/api/profile", victim, me); a.status != 400 || a.env.Field != "currentPassword" {
			t.Fatalf("%s: %d %s", tt.name, a.status, a.body)
		}
	}
	me["currentPassword"] = "Passw0rd!v"
	w.must(200, "PUT", "/api/profile", victim, me)
	if m := w.smtp.Next(t, "victim@example.com"); !strings.Contains(m.Data, "thief@example.com") {
		t.Errorf("the old address must be told of the change: %q", m.Data)
	}

	// A two-factor user also needs a code sent to the current channel.
	id, _ := w.addUser(admin, "guarded", 1)
	user := w.must(200, "GET", fmt.Sprintf("/api/users/%d", id), admin, nil)
	user["enableTwoFactor"], user["twoFactorType"] = true, 1
	w.must(200, "PUT", fmt.Sprintf("/api/users/%d", id), admin, user)
	ch := w.must(200, "POST", "/api/auth/login", "", map[string]string{"username": "guarded", "password": "Passw0rd!g"})
	code := w.smtp.Next(t, "guarded@example.com").Code(t)
	signed := w.must(200, "POST", "/api/auth/login/verify", "", map[string]any{"challengeId": ch["challengeId"], "code": code})
	guarded := signed["token"].(string)
	me = w.must(200, "GET", "/api/profile", guarded, nil)
	me["email"], me["currentPassword"] = "thief2@example.com", "Passw0rd!g"
	if a := w.do("PUT", "/api/profile", guarded, me); a.status != 400 || a.env.Field != "code" {
		t.Fatalf("two-factor user without a code: %d %s", a.status, a.body)
	}
	confirm := w.must(200, "POST", "/api/profile/code", guarded, nil)
	me["challengeId"], me["code"] = confirm["challengeId"], w.smtp.Next(t, "guarded@example.com").Code(t)
	w.must(200, "PUT", "/api/profile", guarded, me)
	w.smtp.Next(t, "guarded@example.com") // the notice

	// The user form on oneself: the same rules for email and two-factor off.
	selfID, self := w.addUser(admin, "selfedit", 3, 4)
	form := w.must(200, "GET", fmt.Sprintf("/api/users/%d", selfID), self, nil)
	form["email"] = "thief3@example.com"
	if a := w.do("PUT", fmt.Sprintf("/api/users/%d", selfID), self, form); a.status != 400 || a.env.Field != "currentPassword" {
		t.Fatalf("own email through the user form: %d %s", a.status, a.body)
	}
}

// TestProfilePasswordChange: a user changes their own password in the
// profile with the current one; their other sessions end, this one stays.
func TestProfilePasswordChange(t *testing.T) {
	w := newWorld(t)
	admin := w.login("admin", adminPassword)
	_, tok := w.addUser(admin, "changer", 1)
	other := w.login("changer", "Passw0rd!c")
	me := w.must(200, "GET", "/api/profile", tok, nil)
	me["newPassword"] = "Brand#new22"
	if a := w.do("PUT", "/api/profile", tok, me); a.status != 400 || a.env.Field != "currentPassword" {
		t.Fatalf("without the current password: %d %s", a.status, a.body)
	}
	me["currentPassword"], me["newPassword"] = "Passw0rd!c", "weak"
	if a := w.do("PUT", "/api/profile", tok, me); a.status != 400 || a.env.Field != "newPassword" {
		t.Fatalf("a weak new password: %d %s", a.status, a.body)
	}
	me["newPassword"] = "Brand#new22"
	w.must(200, "PUT", "/api/profile", tok, me)
	w.must(200, "GET", "/api/profile", tok, nil)
	w.must(401, "GET", "/api/profile", other, nil)
	w.login("changer", "Brand#new22")
}

// TestHole3BodyLimits: a body over its route's limit is refused from its
// declared length, before it is read, and an upload is not read before its
// sender is authenticated. The client below sends the headers and the first
// 16 KB only (the server reads ahead at most 8 KB): the answer can come only
// from a server that does not wait for the rest of the body.
func TestHole3BodyLimits(t *testing.T) {
	ln := listen(t, New(Deps{Config: testConfig(t), Log: discardLog()}))
	headersOnly := func(t *testing.T, head string) int {
		conn, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		conn.SetDeadline(time.Now().Add(20 * time.Second)) // a server waiting for the body never answers
		fmt.Fprint(conn, head+strings.Repeat("x", 16<<10))
		res, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("no answer before the body: %v", err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	t.Run("95 MB to the sign-in", func(t *testing.T) {
		if st := headersOnly(t, "POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 99614720\r\n\r\n"); st != 413 {
			t.Fatalf("status %d, want 413", st)
		}
	})
	t.Run("an upload without a token", func(t *testing.T) {
		if st := headersOnly(t, "POST /api/imports HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: 52428800\r\n\r\n"); st != 401 {
			t.Fatalf("status %d, want 401", st)
		}
	})
	t.Run("a chunked body past the limit", func(t *testing.T) {
		conn, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		conn.SetDeadline(time.Now().Add(30 * time.Second))
		go func() {
			fmt.Fprint(conn, "POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
			chunk := strings.Repeat("x", 64<<10)
			for i := 0; i < 32; i++ { // 2 MiB, past the 1 MiB limit
				if _, err := fmt.Fprintf(conn, "%x\r\n%s\r\n", len(chunk), chunk); err != nil {
					return // the server answered and closed
				}
			}
			fmt.Fprint(conn, "0\r\n\r\n")
		}()
		res, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 413 {
			t.Fatalf("status %d, want 413", res.StatusCode)
		}
	})
}

// TestHole3UploadsNotHeldInMemory: an upload is streamed from the request
// into the database, never held whole in memory. A 40 MB file goes through
// the real HTTP server; what the whole process allocates meanwhile (the
// client, which generates the file as it sends it, included) stays a small
// part of the file's size, and the stored parts hold the file exactly.
func TestHole3UploadsNotHeldInMemory(t *testing.T) {
	w := newWorld(t)
	admin := w.login("admin", adminPassword)
	ln := listen(t, w.app)

	// The upload: multipart with a transaction CSV of 40 MB, written row by
	// row into a reused buffer, so that sending it allocates next to nothing.
	const rows = 620_000
	const boundary = "upload-boundary-0123456789"
	// file sees the CSV alone.
	send := func(to, file io.Writer) error {
		mw := multipart.NewWriter(to)
		mw.SetBoundary(boundary)
		mw.WriteField("kind", "transaction")
		part, err := mw.CreateFormFile("file", "big-transactions.csv")
		if err != nil {
			return err
		}
		bw := bufio.NewWriterSize(io.MultiWriter(part, file), 64<<10)
		bw.WriteString("ClientUniqueID,ProcessingDate,ProviderActor,AcquiringBank,PaymentMethod,Currency,TransactionAmount,TransactionType\n")
		line := make([]byte, 0, 128)
		for i := range rows {
			line = strconv.AppendInt(append(line[:0], "99"...), int64(10_000_000_000+i), 10)
			line = append(line, ",2026-11-02,Nuvei,Nuvei Acquiring,Visa,SEK,"...)
			line = strconv.AppendInt(line, int64(100+i%900), 10)
			line = append(line, ".50,Sale\n"...)
			if _, err := bw.Write(line); err != nil {
				return err
			}
		}
		if err := bw.Flush(); err != nil {
			return err
		}
		return mw.Close()
	}
	// A first pass tells the request's length and the file's size and hash.
	var body, file countWriter
	sum := sha256.New()
	if err := send(&body, io.MultiWriter(&file, sum)); err != nil {
		t.Fatal(err)
	}
	if file.n < 40<<20 {
		t.Fatalf("the test file is %d bytes, want 40 MB", file.n)
	}

	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(send(pw, io.Discard)) }()
	req, err := http.NewRequest("POST", "http://"+ln.Addr().String()+"/api/imports", pr)
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = body.n
	req.Header.Set("Content-Type", "multipart/form-data; boundary="+boundary)
	req.Header.Set("Authorization", "Bearer "+admin)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	answer, _ := io.ReadAll(res.Body)
	res.Body.Close()
	runtime.ReadMemStats(&after)
	if res.StatusCode != 201 {
		t.Fatalf("upload: %d %s", res.StatusCode, answer)
	}
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("a %d MB upload allocated %.1f MB", file.n>>20, float64(allocated)/(1<<20))
	if allocated > uint64(file.n/4) {
		t.Errorf("the upload of %d bytes allocated %d bytes: it is held in memory", file.n, allocated)
	}

	// The import is queued with the file stored exactly, in parts.
	var env struct {
		Data struct {
			ImportID int64  `json:"importId"`
			Status   string `json:"status"`
		} `json:"data"`
	}
	if err := json.Unmarshal(answer, &env); err != nil || env.Data.Status != "queued" {
		t.Fatalf("answer %s (%v)", answer, err)
	}
	var parts int
	var size int64
	var hash, stored string
	err = w.pool.QueryRow(context.Background(), `select f.size_bytes, f.sha256, count(p.seq),
			encode(sha256(string_agg(p.data, ''::bytea order by p.seq)), 'hex')
		from import_file f join import_file_part p on p.import_file_id = f.id where f.id = $1 group by f.id`,
		env.Data.ImportID).Scan(&size, &hash, &parts, &stored)
	if err != nil {
		t.Fatal(err)
	}
	want := hex.EncodeToString(sum.Sum(nil))
	if size != file.n || hash != want || stored != want || parts != int((file.n+1<<20-1)>>20) {
		t.Errorf("stored %d bytes in %d parts, hash %s, content hash %s; sent %d bytes, hash %s", size, parts, hash, stored, file.n, want)
	}
}

// countWriter counts what is written to it.
type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return len(p), nil
}

// TestHole7NumbersOutOfRange: a whole number past its column's range in a
// grid filter or an inline edit is a 400 naming the field, not a 500.
func TestHole7NumbersOutOfRange(t *testing.T) {
	w := newWorld(t)
	admin := w.login("admin", adminPassword)
	w.must(201, "POST", "/api/ConfigSettings", admin, map[string]any{"providerName": "Nuvei", "transactionType": "1",
		"providerActor": "Nuvei", "dateThreshold": 3})
	page := w.must(200, "POST", "/api/grid", admin, map[string]any{"ViewName": "VW_ConfigSettings", "PageSize": 10})
	row := page["dataList"].([]any)[0].(map[string]any)
	id, version := row["Id"], row["UpdatedOn"]
	tests := []struct {
		name, method, path string
		body               any
		field              string
	}{
		{"grid filter", "POST", "/api/grid", `{"ViewName":"VW_ConfigSettings","Filters":[{"field":"DateThreshold","op":"equals","value":99999999999}]}`, "DateThreshold"},
		{"grid filter, negative", "POST", "/api/grid", `{"ViewName":"VW_ConfigSettings","Filters":[{"field":"DateThreshold","op":"gt","value":-99999999999}]}`, "DateThreshold"},
		{"grid filter, key", "POST", "/api/grid", `{"ViewName":"VW_ConfigSettings","Filters":[{"field":"Id","op":"in","value":[1, 99999999999999999999]}]}`, "Id"},
		{"inline edit", "PUT", "/api/grid/row", map[string]any{"ViewName": "VW_ConfigSettings", "Key": id, "Version": version,
			"Values": map[string]any{"DateThreshold": 99999999999}}, "DateThreshold"},
		{"inline edit, decimal", "PUT", "/api/grid/row", map[string]any{"ViewName": "VW_ConfigSettings", "Key": id, "Version": version,
			"Values": map[string]any{"CurrencyThreshold": "123456789012345678901234"}}, "CurrencyThreshold"},
		{"form, decimal", "POST", "/api/ConfigSettings", map[string]any{"providerName": "Nuvei", "transactionType": "2",
			"providerActor": "Nuvei", "amountThreshold": "123456789012345678901234"}, "amountThreshold"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if a := w.do(tt.method, tt.path, admin, tt.body); a.status != 400 || a.env.Field != tt.field {
				t.Fatalf("status %d field %q, want 400 %q: %s", a.status, a.env.Field, tt.field, a.body)
			}
		})
	}
}

// TestHole7DatabaseDownIs503: a request that cannot reach the database is a
// 503 with Retry-After, not a 500.
func TestHole7DatabaseDownIs503(t *testing.T) {
	pool, err := pgxpool.New(context.Background(), "postgres://postgres@127.0.0.1:1/gone?connect_timeout=2")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	secret := []byte(strings.Repeat("s", 32))
	ident := identity.New(identity.Options{Pool: pool, Secret: secret, Log: discardLog()})
	app := New(Deps{Config: testConfig(t), Pool: pool, Log: discardLog(), Identity: ident})
	w := &world{t: t, app: app}
	token, _, err := identity.NewTokens(secret, time.Hour, time.Now).Issue(1, "5f0c6f0e-1111-4111-8111-111111111111")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		method, path, token string
		body                any
	}{
		{"POST", "/api/auth/login", "", map[string]string{"username": "admin", "password": "Whatever#1"}},
		{"GET", "/api/profile", token, nil},
	} {
		a := w.do(tt.method, tt.path, tt.token, tt.body)
		if a.status != 503 || a.header.Get("Retry-After") == "" {
			t.Errorf("%s %s: %d Retry-After %q: %s", tt.method, tt.path, a.status, a.header.Get("Retry-After"), a.body)
		}
	}
}

// TestHole8LostUpdates: a PUT on a form resource, a user or a role carries
// the version it read; a save over someone else's newer save is a 409 and
// leaves their save in place.
func TestHole8LostUpdates(t *testing.T) {
	w := newWorld(t)
	admin := w.login("admin", adminPassword)
	country := w.must(201, "POST", "/api/Country", admin, map[string]any{"countryCode": "SE", "countryName": "Sweden"})
	userID, _ := w.addUser(admin, "editee", 1)
	role := w.must(201, "POST", "/api/roles", admin, map[string]any{"roleName": "Editors"})
	paths := map[string]string{
		"form resource": fmt.Sprintf("/api/Country/%v", country["CountryID"]),
		"user":          fmt.Sprintf("/api/users/%d", userID),
		"role":          fmt.Sprintf("/api/roles/%v", role["id"]),
	}
	rename := map[string][2]string{"form resource": {"countryName", "Sverige"}, "user": {"firstName", "Renamed"}, "role": {"roleName", "Writers"}}
	for name, path := range paths {
		t.Run(name, func(t *testing.T) {
			read := w.must(200, "GET", path, admin, nil)
			if read["version"] == nil {
				t.Fatalf("no version in %v", read)
			}
			first, second := map[string]any{}, map[string]any{}
			for k, v := range read {
				first[k], second[k] = v, v
			}
			first[rename[name][0]] = rename[name][1]
			w.must(200, "PUT", path, admin, first)
			second[rename[name][0]] = "Lost"
			a := w.do("PUT", path, admin, second)
			if a.status != 409 || a.env.Code != "record.changed" {
				t.Fatalf("a save from a stale read: %d %s", a.status, a.body)
			}
			delete(second, "version")
			if a := w.do("PUT", path, admin, second); a.status != 400 || a.env.Field != "version" {
				t.Fatalf("a save without a version: %d %s", a.status, a.body)
			}
			if now := w.must(200, "GET", path, admin, nil); now[rename[name][0]] != rename[name][1] {
				t.Fatalf("the first save was lost: %v", now)
			}
		})
	}
}

// TestHole9NoStore: no API answer may be kept by a browser or proxy cache
// (the sign-in answer carries the token).
func TestHole9NoStore(t *testing.T) {
	w := newWorld(t)
	for _, tt := range []struct {
		method, path string
		body         any
	}{
		{"POST", "/api/auth/login", map[string]string{"username": "admin", "password": adminPassword}},
		{"POST", "/api/auth/login", map[string]string{"username": "admin", "password": "Wrong#pass1"}},
		{"GET", "/api/health", nil},
		{"GET", "/api/profile", nil},
		{"GET", "/api/no-such-thing", nil},
		{"POST", "/api/auth/login", strings.Repeat("x", 8192)}, // refused before any route
	} {
		if a := w.do(tt.method, tt.path, "", tt.body); a.header.Get("Cache-Control") != "no-store" {
			t.Errorf("%s %s (%d): Cache-Control %q", tt.method, tt.path, a.status, a.header.Get("Cache-Control"))
		}
	}
}

// TestHole9OutboxCodesMasked: with no SMTP server, codes wait in the outbox
// masked; the table alone does not give them away, `ledgerdesk outbox`
// (which holds the server secret) shows them.
func TestHole9OutboxCodesMasked(t *testing.T) {
	pool := pgtest.New(t)
	cfg := testConfig(t)
	ident, sender, err := NewIdentity(context.Background(), cfg, pool, discardLog())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ident.EnsureAdmin(context.Background(), adminPassword); err != nil {
		t.Fatal(err)
	}
	if err := ident.ForgotPassword(context.Background(), "admin@ledgerdesk.local"); err != nil {
		t.Fatal(err)
	}
	var body string
	for body == "" { // the lookup and the mail run after the answer
		time.Sleep(10 * time.Millisecond)
		sender.Wait()
		pool.QueryRow(context.Background(), `select body from mail_outbox order by id desc limit 1`).Scan(&body)
	}
	if code := (smtptest.Mail{Data: "\r\n\r\n" + body}).FindCode(); code != "" {
		t.Fatalf("the code %s is in clear in the outbox table: %q", code, body)
	}
	var out strings.Builder
	if err := PrintOutbox(context.Background(), pool, cfg, 5, &out); err != nil {
		t.Fatal(err)
	}
	if code := (smtptest.Mail{Data: "\r\n\r\n" + out.String()}).FindCode(); code == "" {
		t.Fatalf("ledgerdesk outbox must show the code: %q", out.String())
	}
}

// TestRound3Hole5NULIsA400: a NUL character (raw or as \u0000) or text
// that is not UTF-8 is refused where the request is read, whatever the
// route: 400 with a code, never a 500 from the database.
func TestRound3Hole5NULIsA400(t *testing.T) {
	w := newWorld(t)
	admin := w.login("admin", adminPassword)
	nul := `"a\u0000b"`
	for _, tt := range []struct {
		method, path, body, code string
	}{
		{"POST", "/api/TaskTT/with-items", `{"name": ` + nul + `, "ticketIds": [1]}`, "request.nul"},
		{"PATCH", "/api/TaskTT/1/field?field=remarks", nul, "request.nul"},
		{"POST", "/api/recon/ticket-transaction/details", `{"leftId": 1, "note": ` + nul + `}`, "request.nul"},
		{"POST", "/api/recon/settlement-bank/match", `{"settlement": {"PayoutID": ` + nul + `}, "bank": {"Id": 1}}`, "request.nul"},
		{"DELETE", "/api/recon/ticket-transaction/match/1", `{"reason": ` + nul + `}`, "request.nul"},
		{"DELETE", "/api/recon/ticket-transaction/match/1?reason=a%00b", "", "request.nul"},
		{"PUT", "/api/preferences/grid", `{"x": ` + nul + `}`, "request.nul"},
		{"POST", "/api/grid", `{"ViewName": "VW_TblMasterCountry", "Filters": [{"Field": "Country", "Value": ` + nul + `}]}`, "request.nul"},
		{"PUT", "/api/preferences/grid", "{\"x\": \"caf\xe9\"}", "request.encoding"},
		{"GET", "/api/TaskTT/paged?search=%ff", "", "request.encoding"},
	} {
		a := w.do(tt.method, tt.path, admin, tt.body)
		if a.status != 400 || a.env.Code != tt.code {
			t.Errorf("%s %s: %d %s, want 400 %s", tt.method, tt.path, a.status, a.env.Code, tt.code)
		}
	}
	// An escaped backslash before "u0000" is text, not a NUL.
	if a := w.do("PUT", "/api/preferences/grid", admin, `{"x": "C:\\u0000"}`); a.status != 204 {
		t.Errorf("a literal backslash-u0000: %d %s", a.status, a.body)
	}
}

// TestRound3Hole6NoStoreWhateverTheCase: /API/ is routed like /api/, so it
// is not cached either; an answer to headers too large carries no-store and
// a code of its own.
func TestRound3Hole6NoStoreWhateverTheCase(t *testing.T) {
	w := newWorld(t)
	a := w.do("POST", "/API/auth/login", "", map[string]string{"username": "admin", "password": adminPassword})
	if a.status != 200 || a.header.Get("Cache-Control") != "no-store" {
		t.Errorf("/API/auth/login: %d, Cache-Control %q", a.status, a.header.Get("Cache-Control"))
	}
	// Headers past the server's read buffer, on a real connection.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go w.app.Listener(ln, fiber.ListenConfig{DisableStartupMessage: true})
	defer w.app.Shutdown()
	req, _ := http.NewRequest("GET", "http://"+ln.Addr().String()+"/api/health", nil)
	req.Header.Set("X-Filler", strings.Repeat("x", 64<<10))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var env struct {
		Code string `json:"code"`
	}
	json.NewDecoder(res.Body).Decode(&env)
	if res.StatusCode != 431 || res.Header.Get("Cache-Control") != "no-store" || env.Code != "error.too_large" {
		t.Errorf("headers too large: %d, Cache-Control %q, code %q", res.StatusCode, res.Header.Get("Cache-Control"), env.Code)
	}
}

// TestRound3Hole3PreferencesBounded: a user keeps at most PREFERENCE_KEYS
// keys and PREFERENCE_BYTES bytes of preferences; past either is a 400 with
// a code, and rewriting a key already kept stays possible at the bound.
func TestRound3Hole3PreferencesBounded(t *testing.T) {
	w := newWorld(t, func(c *Config) { c.PreferenceKeys, c.PreferenceBytes = 20, 64<<10 })
	_, user := w.addUser(w.login("admin", adminPassword), "homeonly", 1)
	value := `{"v": "` + strings.Repeat("x", 3900) + `"}`
	stored := 0
	for i := 0; ; i++ {
		a := w.do("PUT", fmt.Sprintf("/api/preferences/k%d", i), user, value)
		if a.status == 204 {
			stored++
			continue
		}
		if a.status != 400 || a.env.Code != "prefs.tooMuch" {
			t.Fatalf("key %d: %d %s", i, a.status, a.body)
		}
		break
	}
	if stored < 14 || stored > 17 { // 64 KiB of about 3,900 bytes each, as jsonb writes them
		t.Errorf("stored %d keys of %d bytes under a 64 KiB bound", stored, len(value))
	}
	if a := w.do("PUT", "/api/preferences/k0", user, `{"v": 1}`); a.status != 204 {
		t.Errorf("rewriting a kept key: %d %s", a.status, a.body)
	}
	for i := stored; i < 20; i++ {
		if a := w.do("PUT", fmt.Sprintf("/api/preferences/small%d", i), user, `{}`); a.status != 204 {
			t.Fatalf("small key %d: %d %s", i, a.status, a.body)
		}
	}
	if a := w.do("PUT", "/api/preferences/one-more", user, `{}`); a.status != 400 || a.env.Code != "prefs.tooManyKeys" {
		t.Errorf("key 21: %d %s", a.status, a.body)
	}
}

// TestRound3Hole8ReadingThroughTasks: who reads which documents through
// tasks. Linking tickets and transactions to a task (which reads those of
// the caller's choosing) and looking documents up by ticket number need the
// Reconcile screen as well as Tasks; a tasks-only user keeps a task's other
// fields and reads the documents a reconciler linked. The assignee list
// shows email addresses only to those who administer users.
func TestRound3Hole8ReadingThroughTasks(t *testing.T) {
	w := newWorld(t)
	admin := w.login("admin", adminPassword)
	_, tasker := w.addUser(admin, "tasker", 14)
	_, userAdmin := w.addUser(admin, "useradmin", 3, 4, 14)
	tk, tx := taskFixture(t, w)

	if a := w.do("POST", "/api/TaskTT/with-items", tasker, map[string]any{"taskName": "Read them all", "ticketIds": []int64{tk[0]}}); a.status != 403 || a.env.Code != "tasks.linkNeedsReconcile" {
		t.Errorf("a tasks-only user links a ticket: %d %s", a.status, a.body)
	}
	plain := w.must(201, "POST", "/api/TaskTT", tasker, map[string]any{"taskName": "Call the provider"})
	id := int64(plain["id"].(float64))
	plain["ticketIds"] = []int64{tk[0], tk[1]}
	if a := w.do("PUT", fmt.Sprintf("/api/TaskTT/%d", id), tasker, plain); a.status != 403 || a.env.Code != "tasks.linkNeedsReconcile" {
		t.Errorf("a tasks-only user adds links: %d %s", a.status, a.body)
	}
	if n := w.count(`select count(*) from task_ticket where task_id = $1`, id); n != 0 {
		t.Errorf("%d links stored by a refused update", n)
	}
	linked := w.must(201, "POST", "/api/TaskTT/with-items", admin, map[string]any{"taskName": "Linked by a reconciler", "ticketIds": []int64{tk[0]}, "transactionIds": []int64{tx[0]}})
	lid := int64(linked["id"].(float64))
	linked["remarks"] = "followed up"
	if a := w.do("PUT", fmt.Sprintf("/api/TaskTT/%d", lid), tasker, linked); a.status != 200 {
		t.Errorf("a tasks-only user saves a linked task's remarks: %d %s", a.status, a.body)
	}
	if a := w.do("GET", fmt.Sprintf("/api/TaskTT/%d/relations", lid), tasker, nil); a.status != 200 || !strings.Contains(string(a.body), fmt.Sprint(tk[0])) {
		t.Errorf("a tasks-only user reads what a reconciler linked: %d %s", a.status, a.body)
	}
	if a := w.do("GET", "/api/TaskTT/candidates?ticketNumber=1234567890100", tasker, nil); a.status != 403 {
		t.Errorf("a tasks-only user looks documents up: %d", a.status)
	}
	if a := w.do("GET", "/api/Users/list", tasker, nil); a.status != 200 || strings.Contains(string(a.body), "@") {
		t.Errorf("the assignee list shows a tasks user email addresses: %s", a.body)
	}
	if a := w.do("GET", "/api/Users/list", userAdmin, nil); !strings.Contains(string(a.body), "admin@ledgerdesk.local") {
		t.Errorf("the assignee list hides email addresses from a user administrator: %s", a.body)
	}
}

// TestRound3Hole1OverviewExportBounded: the bank overview export takes each
// period once, so the worst body of the probe (85,000 times "RowTotal", 1 MB)
// is a quick 400 instead of a workbook of gigabytes; the file is streamed.
func TestRound3Hole1OverviewExportBounded(t *testing.T) {
	w := newWorld(t, func(c *Config) { c.BodyLimitBytes = 2 << 20 })
	admin := w.login("admin", adminPassword)
	if _, err := w.pool.Exec(context.Background(), `insert into bank_booking
		(bank_account, booked_date, in_or_out, amount_local, currency, actor, dist_rvn_settle, distr_driver, affects_balance, in_usd, status)
		values ('A', '2026-01-30', 'IN', 10, 'USD', 'Card', 'Yes', 'No', 'Yes', 10, 'Processed')`); err != nil {
		t.Fatal(err)
	}
	worst, _ := json.Marshal(map[string]any{"dateGroupingType": "Day", "periods": slices.Repeat([]string{"RowTotal"}, 85000)})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	a := w.do("POST", "/api/reports/bank-overview/export", admin, string(worst))
	runtime.ReadMemStats(&after)
	if a.status != 400 || a.env.Code != "reports.repeatedPeriod" {
		t.Fatalf("the worst body: %d %s", a.status, a.body)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
		t.Errorf("the worst body allocated %d MB", grew>>20)
	}
	a = w.do("POST", "/api/reports/bank-overview/export", admin, `{"dateGroupingType":"Day","periods":["2026-01-30","RowTotal"]}`)
	if a.status != 200 || !bytes.HasPrefix(a.body, []byte("PK")) {
		t.Errorf("a good export: %d %s", a.status, a.body[:min(len(a.body), 200)])
	}
}

// TestRound3Hole2PivotBounded: a grouping that would give more rows than
// PIVOT_MAX_PERIODS is a 400 asking for a wider one, decided before the
// rows are built; a wide enough one answers.
func TestRound3Hole2PivotBounded(t *testing.T) {
	w := newWorld(t)
	admin := w.login("admin", adminPassword)
	if _, err := w.pool.Exec(context.Background(), `insert into bank_booking
		(bank_account, booked_date, in_or_out, amount_local, currency, actor, dist_rvn_settle, distr_driver, affects_balance, in_usd, status)
		values ('A', '1900-01-01', 'IN', 1, 'USD', 'Card', 'Yes', 'No', 'Yes', 1, 'Processed'),
		       ('A', '2999-12-31', 'IN', 1, 'USD', 'Card', 'Yes', 'No', 'Yes', 1, 'Processed')`); err != nil {
		t.Fatal(err)
	}
	for _, g := range []string{"Day", "Week", "Month", "Quarter"} {
		a := w.do("POST", "/api/reports/bank-overview", admin, `{"dateGroupingType":"`+g+`"}`)
		if a.status != 400 || a.env.Code != "reports.tooManyPeriods" || a.env.Field != "dateGroupingType" {
			t.Errorf("%s over 1900 to 2999: %d %s", g, a.status, a.body[:min(len(a.body), 300)])
		}
	}
	if a := w.do("POST", "/api/reports/bank-overview", admin, `{"dateGroupingType":"Year"}`); a.status != 200 {
		t.Errorf("Year over 1900 to 2999 (1,100 rows): %d", a.status)
	}
}

// TestRound3ExportGate: a user streams at most EXPORTS_PER_USER downloads at
// once and everybody together EXPORTS_TOTAL; one more is a 429 that says
// when to come back, and a finished download gives its place back.
func TestRound3ExportGate(t *testing.T) {
	g := newExportGate(2, 3)
	r1, err := g.takeFor(1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.takeFor(1); err != nil {
		t.Fatal(err)
	}
	if _, err := g.takeFor(1); engine.ErrorCode(err) != engine.CodeRateLimited {
		t.Errorf("a third download of one user: %v", err)
	}
	if _, err := g.takeFor(2); err != nil {
		t.Fatal(err)
	}
	if _, err := g.takeFor(3); engine.ErrorCode(err) != engine.CodeRateLimited {
		t.Errorf("a fourth download in all: %v", err)
	}
	r1()
	r1() // giving back twice gives back once
	if _, err := g.takeFor(3); err != nil {
		t.Errorf("after one ended: %v", err)
	}
	if _, err := g.takeFor(3); engine.ErrorCode(err) != engine.CodeRateLimited {
		t.Errorf("the total again: %v", err)
	}
}
