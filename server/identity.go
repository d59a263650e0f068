package server

import (
	"github.com/gofiber/fiber/v3"

	"ledgerdesk/engine"
	"ledgerdesk/internal/screenids"
	"ledgerdesk/screens/identity"
)

// apiHandlers holds what the API handlers share.
type apiHandlers struct {
	identity *identity.Service
}

func (s *apiHandlers) mountIdentity(r fiber.Router) {
	auth := r.Group("/auth")
	auth.Post("/login", s.login)
	auth.Post("/login/verify", s.loginVerify)
	auth.Post("/forgot-password", s.forgotPassword)
	auth.Post("/reset-password", s.resetPassword)
	auth.Post("/logout", s.authenticate, s.logout)

	r.Get("/profile", s.authenticate, s.getProfile)
	r.Put("/profile", s.authenticate, s.putProfile)
	r.Post("/profile/code", s.authenticate, s.profileCode)

	// Users/list before users/:id: routes are case-insensitive.
	r.Get("/Users/list", s.authenticate, screen(screenids.UsersList, screenids.UserEdit, screenids.Reconcile, screenids.Tasks), s.userOptions)
	r.Get("/users", s.authenticate, screen(screenids.UsersList), s.listUsers)
	r.Post("/users", s.authenticate, screen(screenids.UserEdit), s.createUser)
	r.Get("/users/:id", s.authenticate, screen(screenids.UserEdit), s.getUser)
	r.Put("/users/:id", s.authenticate, screen(screenids.UserEdit), s.updateUser)
	r.Get("/users/:id/roles", s.authenticate, screen(screenids.UserEdit), s.getUserRoles)
	r.Put("/users/:id/roles", s.authenticate, screen(screenids.UserEdit), s.putUserRoles)
	r.Post("/users/:id/unlock", s.authenticate, screen(screenids.UserEdit), s.unlockUser)

	// The user form lists roles too, so the role list is open to screen 4.
	r.Get("/roles", s.authenticate, screen(screenids.RolesList, screenids.RoleEdit, screenids.UserEdit), s.listRoles)
	r.Get("/roles/webscreens", s.authenticate, screen(screenids.RolesList, screenids.RoleEdit), s.webScreens)
	r.Post("/roles", s.authenticate, screen(screenids.RoleEdit), s.createRole)
	r.Get("/roles/:id", s.authenticate, screen(screenids.RoleEdit), s.getRole)
	r.Put("/roles/:id", s.authenticate, screen(screenids.RoleEdit), s.updateRole)
	r.Delete("/roles/:id", s.authenticate, screen(screenids.RoleEdit), s.deleteRole)
	for _, sub := range []string{"screens", "permissions"} { // the spec names both; they are one mapping
		r.Get("/roles/:id/"+sub, s.authenticate, screen(screenids.RoleEdit), s.getRoleScreens)
		r.Put("/roles/:id/"+sub, s.authenticate, screen(screenids.RoleEdit), s.putRoleScreens)
	}
}

func client(c fiber.Ctx) identity.Client {
	return identity.Client{IP: c.IP(), UserAgent: c.Get(fiber.HeaderUserAgent)}
}

func (s *apiHandlers) login(c fiber.Ctx) error {
	anonymousActor(c)
	var in struct {
		Username string `json:"username"`
		Password string `json:"password"`
	}
	if err := decode(c, &in); err != nil {
		return err
	}
	res, err := s.identity.Login(c.Context(), in.Username, in.Password, client(c))
	if err != nil {
		return err
	}
	return ok(c, res)
}

func (s *apiHandlers) loginVerify(c fiber.Ctx) error {
	anonymousActor(c)
	var in struct {
		ChallengeID string `json:"challengeId"`
		Code        string `json:"code"`
	}
	if err := decode(c, &in); err != nil {
		return err
	}
	res, err := s.identity.VerifyLogin(c.Context(), in.ChallengeID, in.Code, client(c))
	if err != nil {
		return err
	}
	return ok(c, res)
}

func (s *apiHandlers) logout(c fiber.Ctx) error {
	if err := s.identity.Logout(c.Context()); err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
}

func (s *apiHandlers) forgotPassword(c fiber.Ctx) error {
	anonymousActor(c)
	var in struct {
		Email string `json:"email"`
	}
	if err := decode(c, &in); err != nil {
		return err
	}
	if err := s.identity.ForgotPassword(c.Context(), in.Email); err != nil {
		return err
	}
	return ok(c, map[string]string{"message": "If the address belongs to an account, a reset code is on its way."})
}

func (s *apiHandlers) resetPassword(c fiber.Ctx) error {
	anonymousActor(c)
	var in struct {
		Email       string `json:"email"`
		Code        string `json:"code"`
		NewPassword string `json:"newPassword"`
	}
	if err := decode(c, &in); err != nil {
		return err
	}
	if err := s.identity.ResetPassword(c.Context(), in.Email, in.Code, in.NewPassword, client(c)); err != nil {
		return err
	}
	return ok(c, map[string]string{"message": "Password has been reset."})
}

func (s *apiHandlers) getProfile(c fiber.Ctx) error {
	p, err := s.identity.GetProfile(c.Context())
	if err != nil {
		return err
	}
	return ok(c, p)
}

func (s *apiHandlers) putProfile(c fiber.Ctx) error {
	var in identity.ProfileInput
	if err := decode(c, &in); err != nil {
		return err
	}
	p, err := s.identity.UpdateProfile(c.Context(), in)
	if err != nil {
		return err
	}
	return ok(c, p)
}

func (s *apiHandlers) profileCode(c fiber.Ctx) error {
	ch, err := s.identity.SendConfirmCode(c.Context())
	if err != nil {
		return err
	}
	return ok(c, ch)
}

// userOptions lists the users for the assignee dropdowns of reconcile and
// tasks; their email addresses only to those who administer users.
func (s *apiHandlers) userOptions(c fiber.Ctx) error {
	users, err := s.identity.UserOptions(c.Context())
	if err != nil {
		return err
	}
	if !engine.ActorFrom(c.Context()).Can(screenids.UsersList, screenids.UserEdit) {
		for i := range users {
			users[i].Email = ""
		}
	}
	return ok(c, users)
}

func (s *apiHandlers) listUsers(c fiber.Ctx) error {
	users, err := s.identity.ListUsers(c.Context())
	if err != nil {
		return err
	}
	return ok(c, users)
}

func (s *apiHandlers) getUser(c fiber.Ctx) error {
	id, err := idParam(c, "id")
	if err != nil {
		return err
	}
	u, err := s.identity.GetUser(c.Context(), id)
	if err != nil {
		return err
	}
	return ok(c, u)
}

func (s *apiHandlers) createUser(c fiber.Ctx) error {
	var in identity.UserInput
	if err := decode(c, &in); err != nil {
		return err
	}
	u, err := s.identity.CreateUser(c.Context(), in)
	if err != nil {
		return err
	}
	return created(c, map[string]any{"user": u})
}

func (s *apiHandlers) updateUser(c fiber.Ctx) error {
	id, err := idParam(c, "id")
	if err != nil {
		return err
	}
	var in identity.UserInput
	if err := decode(c, &in); err != nil {
		return err
	}
	u, err := s.identity.UpdateUser(c.Context(), id, in)
	if err != nil {
		return err
	}
	return ok(c, u)
}

func (s *apiHandlers) unlockUser(c fiber.Ctx) error {
	id, err := idParam(c, "id")
	if err != nil {
		return err
	}
	if err := s.identity.Unlock(c.Context(), id); err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
}

func (s *apiHandlers) getUserRoles(c fiber.Ctx) error {
	id, err := idParam(c, "id")
	if err != nil {
		return err
	}
	roles, err := s.identity.UserRoles(c.Context(), id)
	if err != nil {
		return err
	}
	return ok(c, roles)
}

func (s *apiHandlers) putUserRoles(c fiber.Ctx) error {
	id, err := idParam(c, "id")
	if err != nil {
		return err
	}
	var in struct {
		RoleIDs []int64 `json:"roleIds"`
	}
	if err := decode(c, &in); err != nil {
		return err
	}
	roles, err := s.identity.SetUserRoles(c.Context(), id, in.RoleIDs)
	if err != nil {
		return err
	}
	return ok(c, roles)
}

func (s *apiHandlers) listRoles(c fiber.Ctx) error {
	roles, err := s.identity.ListRoles(c.Context())
	if err != nil {
		return err
	}
	return ok(c, roles)
}

func (s *apiHandlers) webScreens(c fiber.Ctx) error {
	screens, err := s.identity.WebScreens(c.Context())
	if err != nil {
		return err
	}
	return ok(c, screens)
}

func (s *apiHandlers) getRole(c fiber.Ctx) error {
	id, err := idParam(c, "id")
	if err != nil {
		return err
	}
	r, err := s.identity.GetRole(c.Context(), id)
	if err != nil {
		return err
	}
	return ok(c, r)
}

func (s *apiHandlers) createRole(c fiber.Ctx) error {
	var in identity.RoleInput
	if err := decode(c, &in); err != nil {
		return err
	}
	r, err := s.identity.CreateRole(c.Context(), in)
	if err != nil {
		return err
	}
	return created(c, r)
}

func (s *apiHandlers) updateRole(c fiber.Ctx) error {
	id, err := idParam(c, "id")
	if err != nil {
		return err
	}
	var in identity.RoleInput
	if err := decode(c, &in); err != nil {
		return err
	}
	r, err := s.identity.UpdateRole(c.Context(), id, in)
	if err != nil {
		return err
	}
	return ok(c, r)
}

func (s *apiHandlers) deleteRole(c fiber.Ctx) error {
	id, err := idParam(c, "id")
	if err != nil {
		return err
	}
	if err := s.identity.DeleteRole(c.Context(), id); err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
}

func (s *apiHandlers) getRoleScreens(c fiber.Ctx) error {
	id, err := idParam(c, "id")
	if err != nil {
		return err
	}
	screens, err := s.identity.RoleScreens(c.Context(), id)
	if err != nil {
		return err
	}
	return ok(c, screens)
}

func (s *apiHandlers) putRoleScreens(c fiber.Ctx) error {
	id, err := idParam(c, "id")
	if err != nil {
		return err
	}
	var in struct {
		ScreenIDs   []int `json:"screenIds"`
		Permissions []int `json:"permissions"`
	}
	if err := decode(c, &in); err != nil {
		return err
	}
	ids := in.ScreenIDs
	if ids == nil {
		ids = in.Permissions
	}
	if ids == nil {
		return engine.Invalid("screenIds", "screenIds is required (an array of screen ids; empty to grant none).").With("roles.screenIdsRequired")
	}
	screens, err := s.identity.SetRoleScreens(c.Context(), id, ids)
	if err != nil {
		return err
	}
	return ok(c, screens)
}

// dateFormat is the caller's date format (for dates written into exports).
func (s *apiHandlers) dateFormat(c fiber.Ctx) string {
	p, err := s.identity.GetProfile(c.Context())
	if err != nil {
		return identity.DefaultDateFormat
	}
	return p.DateFormat
}
