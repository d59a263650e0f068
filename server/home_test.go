package server

import (
	"strings"
	"testing"
)

// TestHomeAPI: GET /api/home for every kind of caller; each figure only
// with the screen that explains it.
func TestHomeAPI(t *testing.T) {
	w := newWorld(t)
	admin := w.login("admin", adminPassword)
	_, clerk := w.addUser(admin, "clerk", 1)
	_, lead := w.addUser(admin, "lead", 1, 13, 14)
	_, noHome := w.addUser(admin, "nohome", 13, 14, 15)
	tokens := map[string]string{"admin": admin, "clerk": clerk, "lead": lead, "nohome": noHome, "anonymous": ""}
	tests := []struct {
		name, user, method, path string
		body                     any
		status                   int
		contains, absent         string
	}{
		{"admin sees every figure", "admin", "GET", "/api/home?month=2026-03", nil, 200, `"levels":[{"level":1,"slug":"ticket-transaction"`, ""},
		{"admin: imports", "admin", "GET", "/api/home?month=2026-03", nil, 200, `"imports":[]`, ""},
		{"admin: bank", "admin", "GET", "/api/home?month=2026-03", nil, 200, `"bank":{"in":"0.00","out":"0.00","byActor":[]}`, ""},
		{"admin: tasks", "admin", "GET", "/api/home?month=2026-03", nil, 200, `"tasks":{"open":0`, ""},
		{"month bounds", "admin", "GET", "/api/home?month=2026-02", nil, 200, `"from":"2026-02-01","to":"2026-02-28"`, ""},
		{"home only: no figures", "clerk", "GET", "/api/home?month=2026-03", nil, 200, `"month":"2026-03"`, `"levels":[`},
		{"home only: no tasks", "clerk", "GET", "/api/home", nil, 200, `"tasks":null`, `"tasks":{`},
		{"reconcile and tasks", "lead", "GET", "/api/home?month=2026-03", nil, 200, `"tasks":{`, `"bank":{`},
		{"reconcile: last runs", "lead", "GET", "/api/home?month=2026-03", nil, 200, `"lastRuns":[],"ageing":{"open":0,"overdue":0,"buckets":[{"from":0,"to":2,"count":0}`, `"imports":[`},
		{"reconcile: trend", "lead", "GET", "/api/home?month=2026-03", nil, 200, `"unmatchedTrend":[{"date":"2026-03-01","levels":["0.00","0.00","0.00"]}`, `"oldestUnmatched":null`},
		{"bad month", "admin", "GET", "/api/home?month=2026-13", nil, 400, `"field":"month"`, ""},
		{"bad month code", "admin", "GET", "/api/home?month=soon", nil, 400, `"code":"home.badMonth"`, ""},
		{"no screen 1", "nohome", "GET", "/api/home", nil, 403, `permission`, ""},
		{"anonymous", "anonymous", "GET", "/api/home", nil, 401, `Sign in`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := w.do(tt.method, tt.path, tokens[tt.user], tt.body)
			body := string(a.body)
			if a.status != tt.status || !strings.Contains(body, tt.contains) || (tt.absent != "" && strings.Contains(body, tt.absent)) {
				t.Fatalf("status %d (want %d), body %s\nwant it to contain %s and not %q", a.status, tt.status, body, tt.contains, tt.absent)
			}
			if a.status >= 400 && (a.env.Succeeded || a.env.Error == "") {
				t.Errorf("an error answer needs succeeded=false and a message: %s", body)
			}
		})
	}
}
