package home

import (
	"context"
	"fmt"
	"strings"
	"time"

	"ledgerdesk/screens/recon"
)

// Ageing is how old the open items of every level are today (the exception
// queue, recon_open_item): a count per age bucket, and how many are past
// their SLA. It is not a figure of the month: what is open is open now.
type Ageing struct {
	Open    int64       `json:"open"`
	Overdue int64       `json:"overdue"` // past the day their SLA ran out
	Buckets []AgeBucket `json:"buckets"`
}

// AgeBucket counts the open items from From to To days old (To null: From
// days and older). The first bucket also holds items dated ahead of today.
type AgeBucket struct {
	From  int   `json:"from"`
	To    *int  `json:"to"`
	Count int64 `json:"count"`
}

// ageing counts the open items by age in one pass over the queue.
func (s *Service) ageing(ctx context.Context, now time.Time) (*Ageing, error) {
	limits := s.AgeBuckets
	if len(limits) == 0 {
		limits = recon.DefaultAgeBuckets
	}
	out := &Ageing{Buckets: make([]AgeBucket, len(limits)+1)}
	cols := []string{"count(*)", "count(*) filter (where due_on < $1::date)"}
	from := 0
	for i, to := range limits {
		// age = today - date: from..to days is date between today - to and today - from
		if i == 0 {
			cols = append(cols, fmt.Sprintf("count(*) filter (where date >= $1::date - %d)", to))
		} else {
			cols = append(cols, fmt.Sprintf("count(*) filter (where date between $1::date - %d and $1::date - %d)", to, from))
		}
		out.Buckets[i] = AgeBucket{From: from, To: &limits[i]}
		from = to + 1
	}
	cols = append(cols, fmt.Sprintf("count(*) filter (where date <= $1::date - %d)", from))
	out.Buckets[len(limits)] = AgeBucket{From: from}
	dest := []any{&out.Open, &out.Overdue}
	for i := range out.Buckets {
		dest = append(dest, &out.Buckets[i].Count)
	}
	today := now.Format(time.DateOnly)
	if err := s.pool.QueryRow(ctx, `select `+strings.Join(cols, ", ")+` from recon_open_item`, today).Scan(dest...); err != nil {
		return nil, err
	}
	return out, nil
}
