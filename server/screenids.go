package server

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"ledgerdesk/engine"
	"ledgerdesk/internal/screenids"
)

// routeScreens holds every screen id a route checks (screen(...)), filled as
// the app registers its routes.
var routeScreens sync.Map

// CheckRouteScreens makes sure the web_screen table holds exactly the
// screens internal/screenids declares (id, name and route: the one place
// both the server and the migrations answer to), and that every screen id an
// API route checks is one of them, as engine.Validate does for the
// metadata's `screen:` values: a typo in an id would otherwise lock everyone
// but nobody out of a call. It registers the routes (an app nobody serves)
// to know them.
func CheckRouteScreens(ctx context.Context, pool *pgxpool.Pool, log *slog.Logger) error {
	New(Deps{Log: log})
	if err := checkScreenTable(ctx, pool); err != nil {
		return err
	}
	known, err := engine.ScreenIDs(ctx, pool)
	if err != nil {
		return err
	}
	var unknown []int
	routeScreens.Range(func(key, _ any) bool {
		if id := key.(int); !known[id] {
			unknown = append(unknown, id)
		}
		return true
	})
	if len(unknown) > 0 {
		sort.Ints(unknown)
		return fmt.Errorf("API routes check screen ids %v that the web_screen table does not have", unknown)
	}
	return nil
}

// checkScreenTable names every difference between the web_screen table and
// screenids.All.
func checkScreenTable(ctx context.Context, pool *pgxpool.Pool) error {
	rows, err := pool.Query(ctx, `select id, screen_name, route from web_screen order by id`)
	if err != nil {
		return fmt.Errorf("read the screens: %w", err)
	}
	have, err := pgx.CollectRows(rows, pgx.RowToStructByPos[screenids.Screen])
	if err != nil {
		return fmt.Errorf("read the screens: %w", err)
	}
	byID := map[int]screenids.Screen{}
	for _, s := range have {
		byID[s.ID] = s
	}
	var problems []string
	for _, want := range screenids.All {
		got, ok := byID[want.ID]
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("screen %d (%s) is missing", want.ID, want.Name))
		case got != want:
			problems = append(problems, fmt.Sprintf("screen %d is %q at %s, internal/screenids says %q at %s", want.ID, got.Name, got.Route, want.Name, want.Route))
		}
		delete(byID, want.ID)
	}
	for id, s := range byID {
		problems = append(problems, fmt.Sprintf("screen %d (%s) is not in internal/screenids", id, s.Name))
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		return fmt.Errorf("the web_screen table and internal/screenids differ:\n  %s", strings.Join(problems, "\n  "))
	}
	return nil
}
