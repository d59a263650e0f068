package recon

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// PeriodFigure is one line of a period's summary: the records of one side
// of a level dated in the month, by status and currency.
type PeriodFigure struct {
	Level    string `json:"level"` // slug
	Side     string `json:"side"`  // left or right
	Kind     string `json:"kind"`  // ticket, transaction, ...
	Status   string `json:"status"`
	Currency string `json:"currency"`
	Count    int64  `json:"count"`
	Amount   string `json:"amount"`
}

// PeriodSummary counts and sums the records of level l (every level when
// nil) dated in the month starting at month, by side, status (the live
// match's, else unmatched) and currency: what a closing keeps as it was.
func (s *Service) PeriodSummary(ctx context.Context, tx pgx.Tx, month time.Time, l *Level) ([]PeriodFigure, error) {
	levels := s.def.Levels
	if l != nil {
		levels = []*Level{l}
	}
	out := []PeriodFigure{}
	for _, lv := range levels {
		for _, which := range []string{"left", "right"} {
			side := lv.side(which)
			rows, err := tx.Query(ctx, fmt.Sprintf(`
				select coalesce(st.status, 'unmatched'), coalesce(s.currency, ''), count(*), coalesce(sum(s.amount), 0)::text
				from %[1]s s
				left join lateral (
					select m.status from recon_match m where m.level = %[2]d and m.%[3]s_id = s.id and m.undone_on is null
					union all
					select m.status from recon_match_member g join recon_match m on m.id = g.match_id
					where g.level = %[2]d and g.side = '%[3]s' and g.record_id = s.id and g.live
					limit 1) st on true
				where s.counted and s.date >= $1::date and s.date < ($1::date + interval '1 month')
				group by 1, 2 order by 1, 2`, side.Source, lv.N, which), month)
			if err != nil {
				return nil, fmt.Errorf("summary of %s %s: %w", lv.Slug, which, err)
			}
			for rows.Next() {
				f := PeriodFigure{Level: lv.Slug, Side: which, Kind: side.Name}
				if err := rows.Scan(&f.Status, &f.Currency, &f.Count, &f.Amount); err != nil {
					rows.Close()
					return nil, err
				}
				out = append(out, f)
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}
