package server

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	"ledgerdesk/engine"
)

// access says who may call a route: anyone, any signed-in user, or the
// holders of any of the screens (the screen table of DESIGN.md section 5).
type access struct {
	public   bool
	signedIn bool
	screens  []int
	// allOf: only a caller holding every one of these screens may call it.
	allOf []int
	// expand turns a route with parameters into the calls to make, each
	// with the screens that guard it (routes served from the metadata).
	expand func(md *engine.Metadata) []matrixCall
	// skipSignedIn leaves signed-in callers out (logout would end the session).
	skipSignedIn bool
}

// matrixCall is one request of the matrix: its path, body and guarding screens
// (nil: the route's own).
type matrixCall struct {
	path    string
	body    any
	screens []int
}

// routeAccess is every API route the server registers, by method and path
// as Fiber lists them. A route missing here fails the matrix test: whoever
// adds a route says who may call it.
var routeAccess = map[string]access{
	"GET /api/health":                {public: true},
	"POST /api/auth/login":           {public: true},
	"POST /api/auth/login/verify":    {public: true},
	"POST /api/auth/forgot-password": {public: true},
	"POST /api/auth/reset-password":  {public: true},
	"POST /api/auth/logout":          {signedIn: true, skipSignedIn: true},
	"GET /api/profile":               {signedIn: true},
	"PUT /api/profile":               {signedIn: true},
	"POST /api/profile/code":         {signedIn: true},
	"GET /api/meta/views":            {signedIn: true},
	"GET /api/meta/screens":          {signedIn: true},
	"GET /api/meta/labels/:lang": {signedIn: true, expand: func(*engine.Metadata) []matrixCall {
		return []matrixCall{{path: "/api/meta/labels/sv"}}
	}},
	"GET /api/Users/list":                                   {screens: []int{3, 4, 13, 14}},
	"GET /api/users":                                        {screens: []int{3}},
	"POST /api/users":                                       {screens: []int{4}},
	"GET /api/users/:id":                                    {screens: []int{4}},
	"PUT /api/users/:id":                                    {screens: []int{4}},
	"GET /api/users/:id/roles":                              {screens: []int{4}},
	"PUT /api/users/:id/roles":                              {screens: []int{4}},
	"POST /api/users/:id/unlock":                            {screens: []int{4}},
	"GET /api/roles":                                        {screens: []int{4, 5, 6}},
	"GET /api/roles/webscreens":                             {screens: []int{5, 6}},
	"POST /api/roles":                                       {screens: []int{6}},
	"GET /api/roles/:id":                                    {screens: []int{6}},
	"PUT /api/roles/:id":                                    {screens: []int{6}},
	"DELETE /api/roles/:id":                                 {screens: []int{6}},
	"GET /api/roles/:id/screens":                            {screens: []int{6}},
	"PUT /api/roles/:id/screens":                            {screens: []int{6}},
	"GET /api/roles/:id/permissions":                        {screens: []int{6}},
	"PUT /api/roles/:id/permissions":                        {screens: []int{6}},
	"GET /api/imports/layouts":                              {screens: []int{2}},
	"GET /api/imports":                                      {screens: []int{2}},
	"POST /api/imports":                                     {screens: []int{2}},
	"GET /api/imports/:id":                                  {screens: []int{2}},
	"POST /api/bank/reprocess":                              {screens: []int{7}},
	"POST /api/CurrencyExchangeRate/sync":                   {screens: []int{9}},
	"POST /api/MetaDataBankAccCurrency/sync-exchange-rates": {screens: []int{8}},
	"GET /api/recon/providers":                              {screens: []int{13}},
	"GET /api/recon/currencies":                             {screens: []int{13}},
	"GET /api/recon/runs":                                   {screens: []int{13}},
	"GET /api/recon/levels":                                 {screens: []int{13, 15, 17}},
	"GET /api/approvals":                                    {signedIn: true},
	"POST /api/approvals/:id/approve":                       {screens: []int{17}},
	"POST /api/approvals/:id/reject":                        {screens: []int{17}},
	"GET /api/periods":                                      {screens: []int{13, 15, 17}},
	"POST /api/periods/:month/close":                        {screens: []int{17}},
	"POST /api/periods/:month/reopen":                       {screens: []int{17}},
	"GET /api/recon/runs/:id":                               {screens: []int{13}},
	"GET /api/recon/chain/:kind/:id":                        {screens: []int{13}},
	"GET /api/recon/chain/:kind":                            {screens: []int{13}},
	"GET /api/recon/:level/why/:side/:id":                   {screens: []int{13}},
	"POST /api/recon/ticket-transaction/tickets":            {screens: []int{13}},
	"POST /api/recon/ticket-transaction/tickets/export":     {screens: []int{13}},
	"POST /api/recon/:level/report":                         {screens: []int{13}},
	"POST /api/recon/:level/report/export":                  {screens: []int{13}},
	"POST /api/recon/:level/auto":                           {screens: []int{13}},
	"POST /api/recon/:level/match":                          {screens: []int{13}},
	"POST /api/recon/:level/evaluate":                       {screens: []int{13}},
	"POST /api/recon/:level/writeoff":                       {screens: []int{13}},
	"POST /api/recon/:level/investigate":                    {screens: []int{13}},
	"POST /api/recon/open-items/assign":                     {screens: []int{13}},
	"POST /api/recon/open-items/investigate":                {screens: []int{13}},
	"POST /api/recon/open-items/uninvestigate":              {screens: []int{13}},
	"POST /api/recon/open-items/writeoff":                   {screens: []int{13}},
	"DELETE /api/recon/:level/match/:id":                    {screens: []int{13}},
	"POST /api/recon/:level/candidates":                     {screens: []int{13}},
	"POST /api/recon/:level/details":                        {screens: []int{13}},
	"GET /api/TaskTT":                                       {screens: []int{14}},
	"GET /api/TaskTT/:id":                                   {screens: []int{14}},
	"GET /api/TaskTT/:id/history":                           {screens: []int{14}},
	"GET /api/TaskTT/:id/relations":                         {screens: []int{14}},
	"GET /api/TaskTT/candidates":                            {allOf: []int{13, 14}}, // documents of any ticket: tasks and reconcile
	"GET /api/TaskTT/export":                                {screens: []int{14}},
	"GET /api/TaskTT/paged":                                 {screens: []int{14}},
	"PATCH /api/TaskTT/:id/field":                           {screens: []int{14}},
	"POST /api/TaskTT":                                      {screens: []int{14}},
	"POST /api/TaskTT/:id/manual-adjust":                    {screens: []int{14}},
	"POST /api/TaskTT/with-items":                           {screens: []int{14}},
	"PUT /api/TaskTT/:id":                                   {screens: []int{14}},
	"DELETE /api/TaskTT/:id/manual-adjust/:transactionId":   {screens: []int{14}},
	"GET /api/preferences/:key":                             {signedIn: true},
	"PUT /api/preferences/:key":                             {signedIn: true},
	"GET /api/home":                                         {screens: []int{1}},
	"POST /api/reports/bank-overview":                       {screens: []int{15}},
	"POST /api/reports/bank-overview/export":                {screens: []int{15}},
	"GET /api/meta/views/:name": {expand: func(md *engine.Metadata) []matrixCall {
		return eachView(md, func(name string, v *engine.View) *matrixCall { return &matrixCall{path: "/api/meta/views/" + name} })
	}},
	"POST /api/grid": {expand: func(md *engine.Metadata) []matrixCall {
		return eachView(md, func(name string, v *engine.View) *matrixCall {
			return &matrixCall{path: "/api/grid", body: map[string]any{"ViewName": name, "PageSize": 10}}
		})
	}},
	"POST /api/grid/export": {expand: func(md *engine.Metadata) []matrixCall {
		return eachView(md, func(name string, v *engine.View) *matrixCall {
			if v.Export == "" {
				return nil
			}
			return &matrixCall{path: "/api/grid/export", body: map[string]any{"ViewName": name, "Format": "csv"}}
		})
	}},
	"PUT /api/grid/row": {expand: func(md *engine.Metadata) []matrixCall {
		return eachView(md, func(name string, v *engine.View) *matrixCall {
			if v.EditName == "" {
				return nil
			}
			return &matrixCall{path: "/api/grid/row", body: map[string]any{"ViewName": name, "Key": 999999999, "Values": map[string]any{}}}
		})
	}},
	"GET /api/meta/forms/:name": {expand: func(md *engine.Metadata) []matrixCall {
		return eachForm(md, func(name string, f *engine.Form) []string { return []string{"/api/meta/forms/" + name} }, nil)
	}},
	"GET /api/meta/screens/:route": {expand: func(md *engine.Metadata) []matrixCall {
		var calls []matrixCall
		for route, s := range md.Screens {
			calls = append(calls, matrixCall{path: "/api/meta/screens/" + route, screens: []int{s.Screen}})
		}
		return calls
	}},
	"GET /api/:resource": {expand: func(md *engine.Metadata) []matrixCall {
		return eachForm(md, func(_ string, f *engine.Form) []string { return []string{"/api/" + f.Resource} }, nil)
	}},
	"POST /api/:resource": {expand: func(md *engine.Metadata) []matrixCall {
		return eachForm(md, func(_ string, f *engine.Form) []string { return []string{"/api/" + f.Resource} }, "{}")
	}},
	"POST /api/:resource/grid": {expand: func(md *engine.Metadata) []matrixCall {
		return eachForm(md, func(_ string, f *engine.Form) []string { return []string{"/api/" + f.Resource + "/grid"} }, "{}")
	}},
	"GET /api/:resource/:id": {expand: func(md *engine.Metadata) []matrixCall {
		return eachForm(md, func(_ string, f *engine.Form) []string {
			paths := []string{"/api/" + f.Resource + "/999999"}
			for _, l := range f.Lookups {
				paths = append(paths, "/api/"+f.Resource+"/"+l.Name)
			}
			return paths
		}, nil)
	}},
	"PUT /api/:resource/:id": {expand: func(md *engine.Metadata) []matrixCall {
		return eachForm(md, func(_ string, f *engine.Form) []string { return []string{"/api/" + f.Resource + "/999999"} }, "{}")
	}},
	"DELETE /api/:resource/:id": {expand: func(md *engine.Metadata) []matrixCall {
		return eachForm(md, func(_ string, f *engine.Form) []string { return []string{"/api/" + f.Resource + "/999999"} }, nil)
	}},
}

func eachView(md *engine.Metadata, make func(string, *engine.View) *matrixCall) []matrixCall {
	var calls []matrixCall
	for name, v := range md.Views {
		if c := make(name, v); c != nil {
			c.screens = []int{v.Screen}
			calls = append(calls, *c)
		}
	}
	return calls
}

func eachForm(md *engine.Metadata, paths func(string, *engine.Form) []string, body any) []matrixCall {
	var calls []matrixCall
	for name, f := range md.Forms {
		for _, p := range paths(name, f) {
			calls = append(calls, matrixCall{path: p, body: body, screens: []int{f.Screen}})
		}
	}
	return calls
}

// TestAuthorizationMatrix calls every registered API route with every verb
// as every kind of caller - nobody, a user holding one screen (each of the
// 15), an administrator - with other users' ids, and checks the answer
// against the screen table: no 2xx for a caller the table does not allow
// (401 for nobody, 403 for the signed in), never 401/403 for one it allows.
func TestAuthorizationMatrix(t *testing.T) {
	w := newWorld(t)
	md, err := engine.LoadMetadata(os.DirFS(".."))
	if err != nil {
		t.Fatal(err)
	}
	admin := w.login("admin", adminPassword)
	type caller struct {
		name    string
		token   string
		screens []int // nil: every screen (administrator)
	}
	callers := []caller{{name: "nobody"}, {name: "administrator", token: admin}}
	for s := 1; s <= 15; s++ {
		_, tok := w.addUser(admin, fmt.Sprintf("screen%02d", s), s)
		callers = append(callers, caller{name: fmt.Sprintf("screen %d", s), token: tok, screens: []int{s}})
	}
	// Someone else's id for every user route; holding only screen 4, so that
	// the screen-4 caller (a delegated administrator) may act on them.
	targetID, _ := w.addUser(admin, "target", 4)
	var targetRole int64
	w.pool.QueryRow(context.Background(), `select role_id from user_role where user_id = $1`, targetID).Scan(&targetRole)
	ids := strings.NewReplacer("/users/:id", fmt.Sprintf("/users/%d", targetID), "/roles/:id", fmt.Sprintf("/roles/%d", targetRole),
		"/imports/:id", "/imports/999999", "/recon/:level", "/recon/ticket-transaction", "/chain/:kind", "/chain/ticket",
		"/why/:side", "/why/left", "/preferences/:key", "/preferences/tasks", ":transactionId", "999999", ":id", "999999")
	bodies := map[string]any{"POST": "{}", "PUT": "{}"}

	routes := w.app.GetRoutes(true)
	sort.Slice(routes, func(i, j int) bool { return routes[i].Method+routes[i].Path < routes[j].Method+routes[j].Path })
	checked := 0
	for _, r := range routes {
		if !strings.HasPrefix(r.Path, "/api/") {
			continue // the UI and its configuration: public files
		}
		key := r.Method + " " + r.Path
		if r.Path == "/api/*" { // the catch-all: nothing behind it, for anybody
			for _, c := range callers {
				a := w.do(r.Method, "/api/no-such-route", c.token, bodies[r.Method])
				if a.status < 400 || a.status >= 500 {
					t.Errorf("%s as %s: %d, want a refusal", key, c.name, a.status)
				}
			}
			continue
		}
		acc, ok := routeAccess[key]
		if r.Method == "HEAD" { // Fiber adds one to every GET: the GET's guard
			acc, ok = routeAccess["GET "+r.Path]
		}
		if !ok {
			t.Errorf("%s is not in the authorization table (routeAccess): add who may call it", key)
			continue
		}
		calls := []matrixCall{{path: ids.Replace(r.Path), body: bodies[r.Method], screens: acc.screens}}
		if acc.expand != nil {
			calls = acc.expand(md)
		}
		for _, cl := range calls {
			for _, c := range callers {
				if acc.skipSignedIn && c.token != "" {
					continue
				}
				allowed := acc.public || acc.signedIn && c.token != "" || c.token != "" && (c.screens == nil || slices.ContainsFunc(cl.screens, func(s int) bool { return slices.Contains(c.screens, s) }))
				if len(acc.allOf) > 0 {
					allowed = c.token != "" && (c.screens == nil || !slices.ContainsFunc(acc.allOf, func(s int) bool { return !slices.Contains(c.screens, s) }))
				}
				a := w.do(r.Method, cl.path, c.token, cl.body)
				checked++
				switch {
				case a.status == 500:
					t.Errorf("%s %s as %s: 500: %s", r.Method, cl.path, c.name, a.body)
				case !allowed && a.status < 300:
					t.Errorf("%s %s as %s: unexpected %d (screens %v only): %s", r.Method, cl.path, c.name, a.status, cl.screens, a.body)
				case r.Method == "HEAD":
					// Only no 2xx: a HEAD of a metadata route meets the
					// catch-all's 404 before its own guard.
				case !allowed && c.token == "" && a.status != 401:
					t.Errorf("%s %s as nobody: %d, want 401", r.Method, cl.path, a.status)
				case !allowed && c.token != "" && a.status != 403:
					t.Errorf("%s %s as %s: %d, want 403", r.Method, cl.path, c.name, a.status)
				case allowed && !acc.public && (a.status == 401 || a.status == 403):
					t.Errorf("%s %s as %s: %d, but the table allows it: %s", r.Method, cl.path, c.name, a.status, a.body)
				}
			}
		}
	}
	t.Logf("%d calls checked", checked)
}

// TestPrivilegeGrantingCalls: no caller short of an administrator gets a
// 2xx for a call that would give them, or anyone, more than they have.
func TestPrivilegeGrantingCalls(t *testing.T) {
	w := newWorld(t)
	admin := w.login("admin", adminPassword)
	var adminID, adminRole int64
	w.pool.QueryRow(context.Background(), `select id from app_user where username = 'admin'`).Scan(&adminID)
	w.pool.QueryRow(context.Background(), `select id from role where is_admin`).Scan(&adminRole)
	adminUser := w.must(200, "GET", fmt.Sprintf("/api/users/%d", adminID), admin, nil)
	adminUser["email"] = "taken@example.com"
	adminRoleBody := w.must(200, "GET", fmt.Sprintf("/api/roles/%d", adminRole), admin, nil)
	adminRoleBody["roleName"] = "Taken"
	otherID, _ := w.addUser(admin, "other", 1)
	var otherRole int64
	w.pool.QueryRow(context.Background(), `select role_id from user_role where user_id = $1`, otherID).Scan(&otherRole)
	all := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}
	for _, screens := range [][]int{{3, 4}, {4}, {5, 6}, {6}, {3, 4, 5, 6}} {
		name := fmt.Sprintf("delegate%d", screens[len(screens)-1]*10+len(screens))
		id, tok := w.addUser(admin, name, screens...)
		var ownRole int64
		w.pool.QueryRow(context.Background(), `select role_id from user_role where user_id = $1`, id).Scan(&ownRole)
		for _, tt := range []struct {
			method, path string
			body         any
		}{
			{"PUT", fmt.Sprintf("/api/users/%d/roles", id), map[string]any{"roleIds": []int64{ownRole, adminRole}}},
			{"PUT", fmt.Sprintf("/api/users/%d/roles", otherID), map[string]any{"roleIds": []int64{adminRole}}},
			{"PUT", fmt.Sprintf("/api/users/%d/roles", otherID), map[string]any{"roleIds": []int64{ownRole}}},
			{"PUT", fmt.Sprintf("/api/users/%d/roles", adminID), map[string]any{"roleIds": []int64{otherRole}}},
			{"PUT", fmt.Sprintf("/api/users/%d", adminID), adminUser},
			{"POST", fmt.Sprintf("/api/users/%d/unlock", adminID), nil},
			{"PUT", fmt.Sprintf("/api/roles/%d/screens", ownRole), map[string]any{"screenIds": all}},
			{"PUT", fmt.Sprintf("/api/roles/%d/screens", otherRole), map[string]any{"screenIds": []int{1, 4}}},
			{"PUT", fmt.Sprintf("/api/roles/%d/permissions", otherRole), map[string]any{"permissions": []int{1, 6}}},
			{"PUT", fmt.Sprintf("/api/roles/%d", adminRole), adminRoleBody},
			{"DELETE", fmt.Sprintf("/api/roles/%d", adminRole), nil},
		} {
			if a := w.do(tt.method, tt.path, tok, tt.body); a.status < 300 {
				t.Errorf("%s %s by a holder of screens %v: %d", tt.method, tt.path, screens, a.status)
			}
		}
	}
	var admins int
	w.pool.QueryRow(context.Background(), `select count(*) from user_role where role_id = $1`, adminRole).Scan(&admins)
	if admins != 1 {
		t.Errorf("%d users hold the Administrator role, want 1", admins)
	}
}
