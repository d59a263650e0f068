package server

import (
	"context"
	"fmt"
	"strconv"
	"testing"
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
	userAdminID, userAdmin := w.addUser(admin, "useradmin", 3, 4)
	_, roleAdmin := w.addUser(admin, "roleadmin", 5, 6)
	roleOf := func(user string) int64 {
		var id int64
		w.pool.QueryRow(context.Background(), `select ur.role_id from user_role ur join app_user u on u.id = ur.user_id where u.username = $1`, user).Scan(&id)
		return id
	}
	adminRole, clerkRole, roleAdminRole, userAdminRole := roleOf("admin"), roleOf("clerk"), roleOf("roleadmin"), roleOf("useradmin")
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
