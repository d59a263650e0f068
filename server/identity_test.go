package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v3"
	"github.com/golang-jwt/jwt/v5"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"ledgerdesk/engine"
	"ledgerdesk/internal/mail"
	"ledgerdesk/internal/pgtest"
	"ledgerdesk/internal/smtptest"
	"ledgerdesk/screens/identity"
	"ledgerdesk/screens/imports"
	"ledgerdesk/screens/rates"
	"ledgerdesk/screens/recon"
	"ledgerdesk/ui"
)

const adminPassword = "Admin#2026pass"

// world is a running API on a fresh database with a real SMTP server.
type world struct {
	t      *testing.T
	app    *fiber.App
	pool   *pgxpool.Pool
	smtp   *smtptest.Server
	sender *mail.Sender
	ident  *identity.Service
	imp    *imports.Service
	recon  *recon.Service
}

func newWorld(t *testing.T, settings ...func(*Config)) *world {
	t.Helper()
	pool := pgtest.New(t)
	smtp := smtptest.Start(t)
	cfg := testConfig(t)
	cfg.SMTPURL = smtp.URL
	for _, set := range settings {
		set(&cfg)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	ident, sender, err := NewIdentity(context.Background(), cfg, pool, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sender.Wait)
	if _, err := ident.EnsureAdmin(context.Background(), adminPassword); err != nil {
		t.Fatal(err)
	}
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close() // a rate feed that is down
	importer := imports.NewService(pool, nil, cfg.UploadMaxBytes, log)
	// The job queue works rate syncs and auto reconciles: import jobs stay queued here.
	levels, err := recon.Load(os.DirFS(".."))
	if err != nil {
		t.Fatal(err)
	}
	if err := levels.Sync(context.Background(), pool); err != nil {
		t.Fatal(err)
	}
	reconciler := recon.NewService(pool, levels, log)
	workers := river.NewWorkers()
	river.AddWorker(workers, &rates.SyncWorker{Syncer: &rates.Syncer{Pool: pool, URL: down.URL, Log: log}})
	river.AddWorker(workers, &recon.AutoWorker{Service: reconciler})
	queue, err := river.NewClient(riverpgxv5.New(pool), &river.Config{Queues: map[string]river.QueueConfig{rates.Queue: {MaxWorkers: 1}, recon.Queue: {MaxWorkers: 1}},
		Workers: workers, SkipUnknownJobCheck: true, FetchCooldown: 20 * time.Millisecond, FetchPollInterval: 100 * time.Millisecond, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	if err := queue.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { queue.Stop(context.Background()) })
	importer.SetQueue(queue)
	reconciler.SetQueue(queue)
	app := New(Deps{Config: cfg, Pool: pool, Log: log, Version: "test", Identity: ident, Engine: repoEngine(t, pool),
		Rates: &rates.Runner{Queue: queue, Wait: 20 * time.Second}, Imports: importer, Recon: reconciler})
	return &world{t: t, app: app, pool: pool, smtp: smtp, sender: sender, ident: ident, imp: importer, recon: reconciler}
}

// do calls the API with an optional token and a JSON body (a string or a value).
func (w *world) do(method, path, token string, body any) answer {
	w.t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		r = strings.NewReader(b)
	default:
		j, _ := json.Marshal(b)
		r = strings.NewReader(string(j))
	}
	req := httptest.NewRequest(method, path, r)
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := w.app.Test(req, fiber.TestConfig{Timeout: 0})
	if err != nil {
		w.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	a := answer{status: res.StatusCode, header: res.Header, body: b}
	json.Unmarshal(b, &a.env)
	return a
}

// must is do that fails the test unless the status is want; it returns data.
func (w *world) must(want int, method, path, token string, body any) map[string]any {
	w.t.Helper()
	a := w.do(method, path, token, body)
	if a.status != want {
		w.t.Fatalf("%s %s: status %d, want %d: %s", method, path, a.status, want, a.body)
	}
	m, _ := a.env.Data.(map[string]any)
	return m
}

func (w *world) login(user, pass string) string {
	w.t.Helper()
	d := w.must(200, "POST", "/api/auth/login", "", map[string]string{"username": user, "password": pass})
	tok, _ := d["token"].(string)
	if tok == "" {
		w.t.Fatalf("login %s: no token in %v", user, d)
	}
	return tok
}

// addUser creates a user holding a new role that grants screens, and signs in.
func (w *world) addUser(admin, name string, screens ...int) (id int64, token string) {
	w.t.Helper()
	role := w.must(201, "POST", "/api/roles", admin, map[string]string{"roleName": name + " role", "description": "test"})
	roleID := int64(role["id"].(float64))
	w.must(200, "PUT", fmt.Sprintf("/api/roles/%d/screens", roleID), admin, map[string]any{"screenIds": screens})
	u := w.must(201, "POST", "/api/users", admin, map[string]any{
		"username": name, "firstName": strings.ToUpper(name[:1]) + name[1:], "lastName": "Tester",
		"email": name + "@example.com", "password": "Passw0rd!" + name[:1],
	})
	id = int64(u["user"].(map[string]any)["userId"].(float64))
	w.must(200, "PUT", fmt.Sprintf("/api/users/%d/roles", id), admin, map[string]any{"roleIds": []int64{roleID}})
	return id, w.login(name, "Passw0rd!"+name[:1])
}

func TestPermissionMatrix(t *testing.T) {
	w := newWorld(t)
	admin := w.login("admin", adminPassword)
	clerkID, clerk := w.addUser(admin, "clerk", 1)
	_, userAdmin := w.addUser(admin, "useradmin", 1, 3, 4) // acts on users within its own screens (the clerk)
	_, roleAdmin := w.addUser(admin, "roleadmin", 5, 6)
	var clerkRole int64
	w.pool.QueryRow(context.Background(), `select role_id from user_role where user_id = $1`, clerkID).Scan(&clerkRole)

	tokens := map[string]string{"admin": admin, "clerk": clerk, "useradmin": userAdmin, "roleadmin": roleAdmin, "anonymous": ""}
	users := []string{"admin", "useradmin", "roleadmin", "clerk", "anonymous"}
	u := fmt.Sprintf("/api/users/%d", clerkID)
	r := fmt.Sprintf("/api/roles/%d", clerkRole)
	// Each row: method, path, body, then the status for admin, useradmin, roleadmin, clerk, anonymous.
	// Bodies that pass the permission check but not validation answer 400,
	// which proves the call reached the handler.
	tests := []struct {
		method, path string
		body         any
		want         [5]int
	}{
		{"GET", "/api/users", nil, [5]int{200, 200, 403, 403, 401}},
		{"POST", "/api/users", "{}", [5]int{400, 400, 403, 403, 401}},
		{"GET", u, nil, [5]int{200, 200, 403, 403, 401}},
		{"PUT", u, "{}", [5]int{400, 400, 403, 403, 401}},
		{"GET", u + "/roles", nil, [5]int{200, 200, 403, 403, 401}},
		{"PUT", u + "/roles", `{"roleIds":[999999]}`, [5]int{400, 400, 403, 403, 401}},
		{"GET", "/api/users/999999", nil, [5]int{404, 404, 403, 403, 401}},
		{"POST", "/api/users/999999/unlock", nil, [5]int{404, 404, 403, 403, 401}},
		{"POST", u + "/unlock", nil, [5]int{204, 204, 403, 403, 401}},
		{"GET", "/api/users/abc", nil, [5]int{400, 400, 403, 403, 401}},
		{"GET", "/api/Users/list", nil, [5]int{200, 200, 403, 403, 401}},
		{"GET", "/api/roles", nil, [5]int{200, 200, 200, 403, 401}},
		{"POST", "/api/roles", "{}", [5]int{400, 403, 400, 403, 401}},
		{"GET", "/api/roles/webscreens", nil, [5]int{200, 403, 200, 403, 401}},
		{"GET", r, nil, [5]int{200, 403, 200, 403, 401}},
		{"PUT", r, "{}", [5]int{400, 403, 400, 403, 401}},
		{"DELETE", "/api/roles/999999", nil, [5]int{404, 403, 404, 403, 401}},
		{"GET", r + "/screens", nil, [5]int{200, 403, 200, 403, 401}},
		{"PUT", r + "/screens", "{}", [5]int{400, 403, 400, 403, 401}},
		{"GET", r + "/permissions", nil, [5]int{200, 403, 200, 403, 401}},
		{"PUT", r + "/permissions", `{"permissions":[99]}`, [5]int{400, 403, 400, 403, 401}},
		{"GET", "/api/profile", nil, [5]int{200, 200, 200, 200, 401}},
		{"PUT", "/api/profile", "{}", [5]int{400, 400, 400, 400, 401}},
		{"POST", "/api/auth/login", "{}", [5]int{400, 400, 400, 400, 400}},
		{"POST", "/api/auth/login/verify", "{}", [5]int{400, 400, 400, 400, 400}},
		{"POST", "/api/auth/forgot-password", "{}", [5]int{400, 400, 400, 400, 400}},
		{"POST", "/api/auth/reset-password", "{}", [5]int{400, 400, 400, 400, 400}},
		{"GET", "/api/health", nil, [5]int{200, 200, 200, 200, 200}},
		{"GET", "/api/no-such-thing", nil, [5]int{404, 404, 404, 404, 401}},
		// The metadata engine: views, grids, forms and resources follow the screens too.
		{"GET", "/api/meta/views", nil, [5]int{200, 200, 200, 200, 401}},
		{"GET", "/api/meta/views/VW_UserList", nil, [5]int{200, 200, 403, 403, 401}},
		{"GET", "/api/meta/views/VW_Nope", nil, [5]int{404, 404, 404, 404, 401}},
		{"GET", "/api/meta/screens/userslist", nil, [5]int{200, 200, 403, 403, 401}},
		{"GET", "/api/meta/screens/bank-settings", nil, [5]int{200, 403, 403, 403, 401}},
		{"POST", "/api/grid", `{"ViewName":"VW_UserList"}`, [5]int{200, 200, 403, 403, 401}},
		{"POST", "/api/grid", `{"ViewName":"VW_RolesList"}`, [5]int{200, 403, 200, 403, 401}},
		{"POST", "/api/grid", `{"ViewName":"VW_BankFinal","PageSize":10}`, [5]int{200, 403, 403, 403, 401}},
		{"POST", "/api/grid", `{"ViewName":"VW_BankFinal","PageSize":100000}`, [5]int{400, 403, 403, 403, 401}},
		{"POST", "/api/grid", `{"ViewName":"VW_Nope"}`, [5]int{400, 400, 400, 400, 401}},
		{"PUT", "/api/grid/row", `{"ViewName":"VW_UserList","Key":1,"Values":{"Username":"x"}}`, [5]int{400, 400, 403, 403, 401}},
		{"POST", "/api/grid/export", `{"ViewName":"VW_TblMasterCountry","Format":"csv"}`, [5]int{200, 403, 403, 403, 401}},
		{"GET", "/api/meta/forms/country", nil, [5]int{200, 403, 403, 403, 401}},
		{"GET", "/api/Country", nil, [5]int{200, 403, 403, 403, 401}},
		{"POST", "/api/Country", "{}", [5]int{400, 403, 403, 403, 401}},
		{"GET", "/api/Country/999999", nil, [5]int{404, 403, 403, 403, 401}},
		{"POST", "/api/Country/grid", "{}", [5]int{200, 403, 403, 403, 401}},
		{"GET", "/api/ConfigSettings/GetDistinctCurrency", nil, [5]int{200, 403, 403, 403, 401}},
		{"GET", "/api/ConfigSettings/GetNothing", nil, [5]int{404, 403, 403, 403, 401}},
		{"DELETE", "/api/TransactionProviders/999999", nil, [5]int{404, 403, 403, 403, 401}},
		{"POST", "/api/CurrencyExchangeRate/sync", nil, [5]int{503, 403, 403, 403, 401}},
		{"POST", "/api/MetaDataBankAccCurrency/sync-exchange-rates", nil, [5]int{503, 403, 403, 403, 401}},
		{"POST", "/api/bank/reprocess", nil, [5]int{200, 403, 403, 403, 401}},
		{"GET", "/api/imports/layouts", nil, [5]int{200, 403, 403, 403, 401}},
		{"GET", "/api/imports", nil, [5]int{200, 403, 403, 403, 401}},
		{"GET", "/api/imports/999999", nil, [5]int{404, 403, 403, 403, 401}},
		{"POST", "/api/imports", "{}", [5]int{400, 403, 403, 403, 401}},
		{"POST", "/api/no-such-thing/1", nil, [5]int{404, 404, 404, 404, 404}},
	}
	for _, tt := range tests {
		for i, who := range users {
			t.Run(fmt.Sprintf("%s %s as %s", tt.method, tt.path, who), func(t *testing.T) {
				a := w.do(tt.method, tt.path, tokens[who], tt.body)
				if a.status != tt.want[i] {
					t.Fatalf("status %d, want %d: %s", a.status, tt.want[i], a.body)
				}
				if a.status >= 400 && (a.env.Succeeded || a.env.Error == "") {
					t.Errorf("an error answer needs succeeded=false and a message: %s", a.body)
				}
			})
		}
	}
	// Logout is last: it ends the session.
	w.must(204, "POST", "/api/auth/logout", clerk, nil)
	w.must(401, "GET", "/api/profile", clerk, nil)
	w.must(401, "POST", "/api/auth/logout", "", nil)
}

func TestLogin(t *testing.T) {
	w := newWorld(t)
	res := w.must(200, "POST", "/api/auth/login", "", map[string]string{"username": "ADMIN", "password": adminPassword})
	user := res["user"].(map[string]any)
	if user["username"] != "admin" || user["languageCode"] != "en" || user["dateFormat"] != "DD-MM-YYYY HH:mm:ss" {
		t.Errorf("user %v", user)
	}
	if ids := res["screenIds"].([]any); len(ids) != 17 {
		t.Errorf("the Administrator must hold all 17 screens, got %v", ids)
	}
	if roles := res["roles"].([]any); len(roles) != 1 || roles[0].(map[string]any)["roleName"] != "Administrator" {
		t.Errorf("roles %v", roles)
	}
	if exp, err := time.Parse(time.RFC3339, res["expiresAt"].(string)); err != nil || time.Until(exp) < time.Hour {
		t.Errorf("expiresAt %v", res["expiresAt"])
	}

	wrong := w.do("POST", "/api/auth/login", "", map[string]string{"username": "admin", "password": "nope"})
	unknown := w.do("POST", "/api/auth/login", "", map[string]string{"username": "ghost", "password": "nope"})
	if wrong.status != 401 || unknown.status != 401 || wrong.env.Error != unknown.env.Error {
		t.Errorf("wrong password %d %q vs unknown user %d %q: must be the same answer", wrong.status, wrong.env.Error, unknown.status, unknown.env.Error)
	}
	bad := w.do("POST", "/api/auth/login", "", `{"username": 5}`)
	if bad.status != 400 || bad.env.Field != "username" {
		t.Errorf("wrong type: %d %s", bad.status, bad.body)
	}
	if a := w.do("POST", "/api/auth/login", "", `not json`); a.status != 400 {
		t.Errorf("not JSON: %d", a.status)
	}
}

// The UI's route guards and menu take every screen's id from the app
// configuration's screens, matched by route: they come from web_screen.
func TestAppConfigListsTheScreens(t *testing.T) {
	w := newWorld(t)
	a := w.do("GET", "/assets/app-config.json", "", nil)
	var cfg struct {
		Screens []struct {
			ID    int    `json:"id"`
			Route string `json:"route"`
		} `json:"screens"`
	}
	if err := json.Unmarshal(a.body, &cfg); a.status != 200 || err != nil {
		t.Fatalf("status %d, %v: %s", a.status, err, a.body)
	}
	rows, _ := w.pool.Query(context.Background(), `select id || ' ' || route from web_screen order by id`)
	want, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(want) != 17 {
		t.Fatalf("web_screen: %v %v", want, err)
	}
	var got []string
	for _, s := range cfg.Screens {
		got = append(got, fmt.Sprint(s.ID, " ", s.Route))
	}
	if strings.Join(got, ",") != strings.Join(want, ",") || !strings.Contains(strings.Join(got, ","), "13 dashboard/bank-settlement") {
		t.Errorf("screens %v, want %v", got, want)
	}
}

func TestForgedTokensAreRefused(t *testing.T) {
	w := newWorld(t)
	good := w.login("admin", adminPassword)
	var secret string
	w.pool.QueryRow(context.Background(), `select value from app_setting where key = 'jwt_secret'`).Scan(&secret)
	claims := jwt.MapClaims{}
	jwt.NewParser().ParseUnverified(good, claims)

	sign := func(method jwt.SigningMethod, key any, edit func(jwt.MapClaims)) string {
		c := jwt.MapClaims{}
		for k, v := range claims {
			c[k] = v
		}
		edit(c)
		s, err := jwt.NewWithClaims(method, c).SignedString(key)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	same := func(jwt.MapClaims) {}
	tests := map[string]string{
		"alg none":       sign(jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, same),
		"wrong key":      sign(jwt.SigningMethodHS256, []byte(strings.Repeat("x", 32)), same),
		"no exp":         sign(jwt.SigningMethodHS256, []byte(secret), func(c jwt.MapClaims) { delete(c, "exp") }),
		"expired":        sign(jwt.SigningMethodHS256, []byte(secret), func(c jwt.MapClaims) { c["exp"] = time.Now().Add(-time.Minute).Unix() }),
		"wrong audience": sign(jwt.SigningMethodHS256, []byte(secret), func(c jwt.MapClaims) { c["aud"] = "someone-else" }),
		"wrong issuer":   sign(jwt.SigningMethodHS256, []byte(secret), func(c jwt.MapClaims) { c["iss"] = "evil" }),
		"unknown jti":    sign(jwt.SigningMethodHS256, []byte(secret), func(c jwt.MapClaims) { c["jti"] = "5f0c6f0e-1111-4111-8111-111111111111" }),
		"other subject":  sign(jwt.SigningMethodHS256, []byte(secret), func(c jwt.MapClaims) { c["sub"] = "999" }),
		"HS512":          sign(jwt.SigningMethodHS512, []byte(secret), same),
		"garbage":        "not.a.token",
	}
	for name, tok := range tests {
		t.Run(name, func(t *testing.T) {
			if a := w.do("GET", "/api/profile", tok, nil); a.status != 401 {
				t.Fatalf("status %d: %s", a.status, a.body)
			}
		})
	}
	// The untouched token still works: the refusals above are about the edits.
	w.must(200, "GET", "/api/profile", good, nil)
	if a := w.do("GET", "/api/profile", sign(jwt.SigningMethodHS256, []byte(secret), same), nil); a.status != 200 {
		t.Fatalf("a correctly re-signed copy should pass: %d", a.status)
	}
}

func TestPasswordReset(t *testing.T) {
	w := newWorld(t)
	admin := w.login("admin", adminPassword)
	_, old := w.addUser(admin, "resetme", 1)

	known := w.must(200, "POST", "/api/auth/forgot-password", "", map[string]string{"email": "RESETME@example.com"})
	unknown := w.must(200, "POST", "/api/auth/forgot-password", "", map[string]string{"email": "nobody@example.com"})
	if known["message"] != unknown["message"] {
		t.Errorf("known and unknown addresses must get the same answer: %v / %v", known, unknown)
	}
	code := w.smtp.Next(t, "resetme@example.com").Code(t)
	w.smtp.None(t, 300*time.Millisecond) // nothing for the unknown address

	reset := func(code, pass string) answer {
		return w.do("POST", "/api/auth/reset-password", "", map[string]string{"email": "resetme@example.com", "code": code, "newPassword": pass})
	}
	if a := reset(code, "weak"); a.status != 400 || a.env.Field != "newPassword" {
		t.Fatalf("weak password: %d %s", a.status, a.body)
	}
	// Each refusal says why, with a code the UI translates: the rule broken
	// (a password the old meter called strong), a wrong code.
	if a := reset(code, "Password2026"); a.status != 400 || a.env.Code != "password.special" ||
		a.env.Params["specials"] != identity.PasswordSpecials || !strings.Contains(a.env.Error, "special character") {
		t.Fatalf("no special character: %d %s", a.status, a.body)
	}
	wrong := fmt.Sprintf("%06d", (atoi(code)+1)%1000000)
	for i := 0; i < 5; i++ {
		if a := reset(wrong, "N3w!Passw0rd"); a.status != 400 || a.env.Field != "code" || a.env.Code != "reset.badCode" ||
			!strings.Contains(a.env.Error, "wrong") {
			t.Fatalf("wrong code %d: %d %s", i, a.status, a.body)
		}
	}
	if a := reset(code, "N3w!Passw0rd"); a.status != 400 {
		t.Fatalf("after 5 wrong tries the right code must be dead: %d %s", a.status, a.body)
	}

	w.must(200, "POST", "/api/auth/forgot-password", "", map[string]string{"email": "resetme@example.com"})
	code = w.smtp.Next(t, "resetme@example.com").Code(t)
	w.must(200, "POST", "/api/auth/reset-password", "", map[string]string{"email": "resetme@example.com", "code": code, "newPassword": "N3w!Passw0rd"})
	if a := reset(code, "An0ther!Pass"); a.status != 400 {
		t.Errorf("a code is single use: %d", a.status)
	}
	w.must(401, "GET", "/api/profile", old, nil) // sessions end with a reset
	w.must(401, "POST", "/api/auth/login", "", map[string]string{"username": "resetme", "password": "Passw0rd!r"})
	w.login("resetme", "N3w!Passw0rd")

	var audited int
	w.pool.QueryRow(context.Background(), `select count(*) from audit_log where action = 'password.reset' and actor = 'resetme'`).Scan(&audited)
	if audited != 1 {
		t.Errorf("password.reset audit rows: %d", audited)
	}
}

func TestTwoFactor(t *testing.T) {
	w := newWorld(t)
	admin := w.login("admin", adminPassword)
	id, _ := w.addUser(admin, "twofa", 1)
	user := w.must(200, "GET", fmt.Sprintf("/api/users/%d", id), admin, nil)
	user["enableTwoFactor"] = true
	user["twoFactorType"] = 0 // on with None becomes Email
	saved := w.must(200, "PUT", fmt.Sprintf("/api/users/%d", id), admin, user)
	if saved["twoFactorType"].(float64) != 1 {
		t.Fatalf("two-factor on with type None must become Email: %v", saved["twoFactorType"])
	}
	user["version"] = saved["version"] // the next save builds on this one

	ch := w.must(200, "POST", "/api/auth/login", "", map[string]string{"username": "twofa", "password": "Passw0rd!t"})
	if ch["twoFactorRequired"] != true || ch["token"] != nil || ch["channel"] != "email" {
		t.Fatalf("expected a challenge without a token: %v", ch)
	}
	code := w.smtp.Next(t, "twofa@example.com").Code(t)
	verify := func(c string) answer {
		return w.do("POST", "/api/auth/login/verify", "", map[string]any{"challengeId": ch["challengeId"], "code": c})
	}
	if a := verify(fmt.Sprintf("%06d", (atoi(code)+1)%1000000)); a.status != 401 {
		t.Fatalf("wrong code: %d", a.status)
	}
	if a := verify("12ab"); a.status != 400 || a.env.Field != "code" {
		t.Fatalf("malformed code: %d %s", a.status, a.body)
	}
	ok := verify(code)
	if ok.status != 200 || ok.env.Data.(map[string]any)["token"] == "" {
		t.Fatalf("right code: %d %s", ok.status, ok.body)
	}
	if a := verify(code); a.status != 401 {
		t.Errorf("a code is single use: %d", a.status)
	}

	// Mobile: without a provider the code goes to the outbox.
	user["twoFactorType"] = 2
	if a := w.do("PUT", fmt.Sprintf("/api/users/%d", id), admin, user); a.status != 400 || a.env.Field != "mobileNumber" {
		t.Fatalf("mobile two-factor without a number: %d %s", a.status, a.body)
	}
	user["mobileNumber"] = "+46 70 123 45 67"
	w.must(200, "PUT", fmt.Sprintf("/api/users/%d", id), admin, user)
	ch = w.must(200, "POST", "/api/auth/login", "", map[string]string{"username": "twofa", "password": "Passw0rd!t"})
	if ch["channel"] != "mobile" {
		t.Fatalf("channel %v", ch["channel"])
	}
	w.sender.Wait()
	var out strings.Builder // the outbox masks codes; the outbox command shows them
	if err := PrintOutbox(context.Background(), w.pool, testConfig(t), 1, &out); err != nil {
		t.Fatal(err)
	}
	body := out.String()
	code = (smtptest.Mail{Data: "\r\n\r\n" + body}).Code(t)
	if verify := w.do("POST", "/api/auth/login/verify", "", map[string]any{"challengeId": ch["challengeId"], "code": code}); verify.status != 200 {
		t.Fatalf("mobile code: %d %s", verify.status, verify.body)
	}
}

func TestChangesTakeEffectOnTheNextRequest(t *testing.T) {
	w := newWorld(t)
	admin := w.login("admin", adminPassword)
	id, tok := w.addUser(admin, "mover", 3, 4)
	w.must(200, "GET", "/api/users", tok, nil)

	var roleID int64
	w.pool.QueryRow(context.Background(), `select role_id from user_role where user_id = $1`, id).Scan(&roleID)
	w.must(200, "PUT", fmt.Sprintf("/api/roles/%d/screens", roleID), admin, map[string]any{"screenIds": []int{4}})
	w.must(403, "GET", "/api/users", tok, nil) // screen 3 gone

	user := w.must(200, "GET", fmt.Sprintf("/api/users/%d", id), admin, nil)
	user["changePassword"], user["newPassword"] = true, "Chang3d!pass"
	saved := w.must(200, "PUT", fmt.Sprintf("/api/users/%d", id), admin, user)
	w.must(401, "GET", "/api/profile", tok, nil) // password change ends sessions
	user["version"] = saved["version"]

	tok = w.login("mover", "Chang3d!pass")
	user["changePassword"], user["isActive"] = false, false
	w.must(200, "PUT", fmt.Sprintf("/api/users/%d", id), admin, user)
	w.must(401, "GET", "/api/profile", tok, nil) // disabled
	w.must(401, "POST", "/api/auth/login", "", map[string]string{"username": "mover", "password": "Chang3d!pass"})
}

func TestNoMassAssignment(t *testing.T) {
	w := newWorld(t)
	admin := w.login("admin", adminPassword)
	id, tok := w.addUser(admin, "plain", 1)
	var hashBefore string
	if err := w.pool.QueryRow(context.Background(), `select password_hash from app_user where id = $1`, id).Scan(&hashBefore); err != nil {
		t.Fatal(err)
	}

	// The profile is always the caller's own.
	var adminID int64
	if err := w.pool.QueryRow(context.Background(), `select id from app_user where username = 'admin'`).Scan(&adminID); err != nil {
		t.Fatal(err)
	}
	w.must(403, "PUT", "/api/profile", tok, map[string]any{"userId": adminID, "firstName": "Evil", "lastName": "X", "email": "evil@example.com"})
	me := w.must(200, "GET", "/api/profile", tok, nil)
	if me["username"] != "plain" {
		t.Fatalf("profile of %v", me["username"])
	}

	// Fields outside the form are ignored: not the hash, not the username, not roles.
	me["password_hash"], me["passwordHash"], me["username"], me["is_admin"], me["roleIds"] = "x", "x", "hacker", true, []int{1}
	me["firstName"] = "Plainer"
	got := w.must(200, "PUT", "/api/profile", tok, me)
	if got["firstName"] != "Plainer" || got["username"] != "plain" {
		t.Errorf("profile after update %v", got)
	}
	var hashAfter string
	var roles int
	if err := w.pool.QueryRow(context.Background(), `select password_hash from app_user where id = $1`, id).Scan(&hashAfter); err != nil {
		t.Fatal(err)
	}
	if err := w.pool.QueryRow(context.Background(), `select count(*) from user_role ur join role r on r.id = ur.role_id where ur.user_id = $1 and r.is_admin`, id).Scan(&roles); err != nil {
		t.Fatal(err)
	}
	if hashAfter != hashBefore || roles != 0 {
		t.Error("a field outside the form was written")
	}
}

func TestUserAndRoleRules(t *testing.T) {
	w := newWorld(t)
	admin := w.login("admin", adminPassword)
	valid := func() map[string]any {
		return map[string]any{"username": "rules", "firstName": "R", "lastName": "U", "email": "rules@example.com", "password": "Passw0rd!x"}
	}
	with := func(k string, v any) map[string]any {
		m := valid()
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	tomorrow := time.Now().AddDate(0, 0, 1).Format("2006-01-02")
	tests := []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"username required", with("username", nil), "username"},
		{"first name required", with("firstName", " "), "firstName"},
		{"last name required", with("lastName", nil), "lastName"},
		{"email required", with("email", nil), "email"},
		{"email valid", with("email", "not-an-email"), "email"},
		{"password required", with("password", nil), "password"},
		{"password too short", with("password", "Pa0!"), "password"},
		{"password too long", with("password", "Passw0rd!Passw0rd!xyz"), "password"},
		{"password needs a special", with("password", "Passw0rdxx"), "password"},
		{"password needs a digit", with("password", "Password!x"), "password"},
		{"date of birth before 1900", with("dateOfBirth", "1899-12-31"), "dateOfBirth"},
		{"date of birth in the future", with("dateOfBirth", tomorrow), "dateOfBirth"},
		{"date of birth format", with("dateOfBirth", "31/12/1990"), "dateOfBirth"},
		{"date format", with("dateFormat", "DD.MM.YYYY"), "dateFormat"},
		{"language", with("languageCode", "de"), "languageCode"},
		{"two-factor type", with("twoFactorType", 7), "twoFactorType"},
		{"wrong JSON type", with("enableTwoFactor", "yes"), "enableTwoFactor"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := w.do("POST", "/api/users", admin, tt.body)
			if a.status != 400 || a.env.Field != tt.field {
				t.Fatalf("got %d field %q (%s), want 400 %q", a.status, a.env.Field, a.env.Error, tt.field)
			}
		})
	}
	w.must(201, "POST", "/api/users", admin, with("dateOfBirth", "1900-01-01"))
	dup := w.do("POST", "/api/users", admin, with("email", "other@example.com"))
	if dup.status != 409 || dup.env.Field != "username" {
		t.Errorf("duplicate username: %d %s", dup.status, dup.body)
	}

	long := w.do("POST", "/api/roles", admin, map[string]string{"roleName": strings.Repeat("r", 51)})
	desc := w.do("POST", "/api/roles", admin, map[string]string{"roleName": "ok", "description": strings.Repeat("d", 201)})
	if long.env.Field != "roleName" || desc.env.Field != "description" || long.status != 400 || desc.status != 400 {
		t.Errorf("role limits: %s / %s", long.body, desc.body)
	}
	role := w.must(201, "POST", "/api/roles", admin, map[string]string{"roleName": strings.Repeat("r", 50)})
	if a := w.do("POST", "/api/roles", admin, map[string]string{"roleName": strings.Repeat("R", 50)}); a.status != 409 || a.env.Field != "roleName" {
		t.Errorf("duplicate role name (case-insensitive): %d %s", a.status, a.body)
	}
	roleID := int64(role["id"].(float64))
	var adminRole, adminID int64
	w.pool.QueryRow(context.Background(), `select id from role where is_admin`).Scan(&adminRole)
	w.pool.QueryRow(context.Background(), `select id from app_user where username = 'admin'`).Scan(&adminID)
	if a := w.do("DELETE", fmt.Sprintf("/api/roles/%d", adminRole), admin, nil); a.status != 409 {
		t.Errorf("deleting Administrator: %d", a.status)
	}
	if a := w.do("PUT", fmt.Sprintf("/api/users/%d/roles", adminID), admin, map[string]any{"roleIds": []int64{roleID}}); a.status != 403 {
		t.Errorf("an administrator removing their own Administrator role: %d %s", a.status, a.body)
	}
	rules := w.must(200, "GET", "/api/users", admin, nil)
	_ = rules
	var ruleID int64
	w.pool.QueryRow(context.Background(), `select id from app_user where username = 'rules'`).Scan(&ruleID)
	w.must(200, "PUT", fmt.Sprintf("/api/users/%d/roles", ruleID), admin, map[string]any{"roleIds": []int64{roleID}})
	if a := w.do("DELETE", fmt.Sprintf("/api/roles/%d", roleID), admin, nil); a.status != 409 {
		t.Errorf("deleting a role in use: %d", a.status)
	}
	w.must(200, "PUT", fmt.Sprintf("/api/users/%d/roles", ruleID), admin, map[string]any{"roleIds": []int64{}})
	w.must(204, "DELETE", fmt.Sprintf("/api/roles/%d", roleID), admin, nil)

	// Every change above is in the audit log with who and what.
	for _, action := range []string{"user.create", "user.roles", "role.create", "role.delete", "login.succeeded"} {
		var n int
		w.pool.QueryRow(context.Background(), `select count(*) from audit_log where action = $1 and actor <> ''`, action).Scan(&n)
		if n == 0 {
			t.Errorf("no audit row for %s", action)
		}
	}
	var before, after string
	w.pool.QueryRow(context.Background(), `select before::text, after::text from audit_log where action = 'user.roles' order by id desc limit 1`).Scan(&before, &after)
	if !strings.Contains(before, fmt.Sprint(roleID)) || !strings.Contains(after, "[]") {
		t.Errorf("user.roles audit before %s after %s", before, after)
	}
}

func atoi(s string) int {
	n := 0
	fmt.Sscan(s, &n)
	return n
}

// repoEngine is the engine over the repository's own views.yaml and forms/,
// validated against the test database like the server does at start.
func repoEngine(t *testing.T, pool *pgxpool.Pool) *engine.Engine {
	t.Helper()
	md, err := engine.LoadMetadata(os.DirFS(".."))
	if err != nil {
		t.Fatal(err)
	}
	if err := engine.Validate(context.Background(), pool, md); err != nil {
		t.Fatal(err)
	}
	// The UI's texts, as the server has them (run.go).
	return engine.New(engine.Options{Pool: pool, Metadata: md, Messages: ui.ServerMessages, Texts: ui.Texts})
}

// TestRoleWriteOffLimit: a role's write-off limit (USD) is kept, shown,
// refused when it is not an amount, and cleared with null.
func TestRoleWriteOffLimit(t *testing.T) {
	w := newWorld(t)
	admin := w.login("admin", adminPassword)
	role := w.must(201, "POST", "/api/roles", admin, map[string]any{"roleName": "Controllers", "writeOffLimit": "250.00"})
	if role["writeOffLimit"] != "250.00" {
		t.Fatalf("created: %v", role)
	}
	path := fmt.Sprintf("/api/roles/%d", int64(role["id"].(float64)))
	for _, bad := range []any{"1.234", "-5", "ten", 1e30} {
		a := w.do("PUT", path, admin, map[string]any{"roleName": "Controllers", "writeOffLimit": bad, "version": role["version"]})
		if a.status != 400 || a.env.Field != "writeOffLimit" {
			t.Errorf("limit %v: %d %s", bad, a.status, a.body)
		}
	}
	role = w.must(200, "PUT", path, admin, map[string]any{"roleName": "Controllers", "writeOffLimit": 75.5, "version": role["version"]})
	if role["writeOffLimit"] != "75.50" {
		t.Errorf("a number: %v", role["writeOffLimit"])
	}
	role = w.must(200, "PUT", path, admin, map[string]any{"roleName": "Controllers", "writeOffLimit": nil, "version": role["version"]})
	if role["writeOffLimit"] != nil {
		t.Errorf("cleared: %v", role["writeOffLimit"])
	}
	// A role editor who is no Administrator may not raise the limit of a
	// role they hold; of another role, yes.
	_, editor := w.addUser(admin, "limits", 6)
	var listed struct {
		Data []map[string]any `json:"data"`
	}
	if err := json.Unmarshal(w.do("GET", "/api/roles", admin, nil).body, &listed); err != nil {
		t.Fatal(err)
	}
	var own map[string]any
	for _, r := range listed.Data {
		if r["roleName"] == "limits role" {
			own = r
		}
	}
	if own == nil {
		t.Fatal("no role of the editor")
	}
	ownPath := fmt.Sprintf("/api/roles/%d", int64(own["id"].(float64)))
	if a := w.do("PUT", ownPath, editor, map[string]any{"roleName": "limits role", "writeOffLimit": "1000000.00", "version": own["version"]}); a.status != 403 ||
		a.env.Code != "roles.ownWriteOffLimit" {
		t.Errorf("raising one's own limit: %d %s", a.status, a.body)
	}
	if a := w.do("PUT", ownPath, editor, map[string]any{"roleName": "limits role", "description": "renamed only", "version": own["version"]}); a.status != 200 {
		t.Errorf("editing one's own role without its limit: %d %s", a.status, a.body)
	}
	if a := w.do("PUT", path, editor, map[string]any{"roleName": "Controllers", "writeOffLimit": "10.00", "version": role["version"]}); a.status != 200 {
		t.Errorf("another role's limit: %d %s", a.status, a.body)
	}
}
