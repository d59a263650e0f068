package server

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"sync"

	"github.com/jackc/pgx/v5/pgxpool"

	"ledgerdesk/engine"
)

// routeScreens holds every screen id a route checks (screen(...)), filled as
// the app registers its routes.
var routeScreens sync.Map

// CheckRouteScreens makes sure every screen id an API route checks is a
// screen of the web_screen table, as engine.Validate does for the metadata's
// `screen:` values: a typo in an id would otherwise lock everyone but nobody
// out of a call. It registers the routes (an app nobody serves) to know them.
func CheckRouteScreens(ctx context.Context, pool *pgxpool.Pool, log *slog.Logger) error {
	New(Deps{Log: log})
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
