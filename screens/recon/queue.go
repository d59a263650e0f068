package recon

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"ledgerdesk/engine"
)

// The exception queue (views.yaml VW_ReconOpenItems over recon_open_item,
// migration 00031) lists every open record of every level. Its bulk
// actions act on the records chosen there: mark them for investigation,
// take the mark away, write them off. Assigning them to a task is the task
// service's (tasks.AssignRecords); the server joins the two.

// MaxQueueItems bounds one bulk action.
const MaxQueueItems = 500

// QueueItem is a record of the queue as its rows name it.
type QueueItem struct {
	Level    int
	Side     string
	RecordID int64
}

// UnmarshalJSON takes a queue row's fields: Level (a number, or the text an
// integer enum column is shown as), Side and RecordId.
func (q *QueueItem) UnmarshalJSON(b []byte) error {
	var raw struct {
		Level    json.Number `json:"Level"`
		Side     string      `json:"Side"`
		RecordID json.Number `json:"RecordId"`
	}
	d := json.NewDecoder(strings.NewReader(string(b)))
	d.UseNumber()
	if err := d.Decode(&raw); err != nil {
		return engine.Invalid("items", "Each item names a record of the queue: {Level, Side, RecordId}.").With("recon.queueItem")
	}
	level, errL := strconv.Atoi(string(raw.Level))
	id, errR := strconv.ParseInt(string(raw.RecordID), 10, 64)
	if errL != nil || errR != nil {
		return engine.Invalid("items", "Each item names a record of the queue: {Level, Side, RecordId}.").With("recon.queueItem")
	}
	*q = QueueItem{Level: level, Side: raw.Side, RecordID: id}
	return nil
}

// Kind is the kind of record the item is (recon.yaml's side name).
func (s *Service) Kind(q QueueItem) string {
	for _, l := range s.def.Levels {
		if l.N == q.Level {
			return l.side(q.Side).SideName
		}
	}
	return ""
}

// queueSet is the chosen records by level and side, checked.
type queueSet struct {
	levels []*Level // in number order (the order their locks are taken in)
	ids    map[int]map[string][]int64
}

func (s *Service) checkQueue(items []QueueItem) (*queueSet, error) {
	if len(items) == 0 {
		return nil, engine.Invalid("items", "Choose at least one item of the queue.").With("recon.queueEmpty")
	}
	if len(items) > MaxQueueItems {
		return nil, engine.Invalid("items", "Choose at most %d items at a time.", MaxQueueItems).With("recon.queueTooMany", "max", MaxQueueItems)
	}
	set := &queueSet{ids: map[int]map[string][]int64{}}
	for _, q := range items {
		var l *Level
		for _, x := range s.def.Levels {
			if x.N == q.Level {
				l = x
			}
		}
		if l == nil || q.Side != "left" && q.Side != "right" || q.RecordID <= 0 {
			return nil, engine.Invalid("items", "There is no record %d on side %q of level %d.", q.RecordID, q.Side, q.Level).
				With("recon.queueNoRecord", "id", q.RecordID, "side", q.Side, "level", q.Level)
		}
		if set.ids[l.N] == nil {
			set.ids[l.N] = map[string][]int64{}
			set.levels = append(set.levels, l)
		}
		if !slices.Contains(set.ids[l.N][q.Side], q.RecordID) {
			set.ids[l.N][q.Side] = append(set.ids[l.N][q.Side], q.RecordID)
		}
	}
	slices.SortFunc(set.levels, func(a, b *Level) int { return a.N - b.N })
	return set, nil
}

// each runs f for every chosen side of every level, in one transaction
// holding the levels' locks (taken in level order, as every writer does).
func (s *Service) eachQueued(ctx context.Context, set *queueSet, f func(tx pgx.Tx, l *Level, side string, ids []int64) error) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		for _, l := range set.levels {
			if err := lockLevel(ctx, tx, l, 5*time.Second); err != nil {
				return s.nameBusyRun(ctx, l, err)
			}
		}
		for _, l := range set.levels {
			for _, side := range []string{"left", "right"} {
				if ids := set.ids[l.N][side]; len(ids) > 0 {
					if err := f(tx, l, side, ids); err != nil {
						return err
					}
				}
			}
		}
		return nil
	})
}

// Marked tells what a bulk mark did.
type Marked struct {
	Marked  int `json:"marked"`
	Skipped int `json:"skipped"` // matched (a match is investigated from its level's tab) or no longer there
}

// Investigate marks the chosen records that have no live match for
// investigation, with the reason; the others are skipped and counted.
func (s *Service) Investigate(ctx context.Context, items []QueueItem, reason string) (*Marked, error) {
	reason = strings.TrimSpace(reason)
	if reason == "" {
		return nil, engine.Invalid("reason", "Say what is to be investigated.").With("recon.investigateReasonRequired")
	}
	if len(reason) > 1000 {
		return nil, engine.Invalid("reason", "The reason must be at most 1000 characters.").With("recon.reasonTooLong")
	}
	set, err := s.checkQueue(items)
	if err != nil {
		return nil, err
	}
	who := engine.ActorFrom(ctx).Username
	out := &Marked{}
	err = s.eachQueued(ctx, set, func(tx pgx.Tx, l *Level, side string, ids []int64) error {
		rows, err := tx.Query(ctx, fmt.Sprintf(`
			insert into recon_investigation (level, side, record_id, reason, created_by)
			select $1, $2, s.id, $4, $5 from %s s
			where s.id = any ($3) and s.counted and not s.manual
			  and not exists (select 1 from recon_match_live m where m.level = $1 and m.side = $2 and m.record_id = s.id)
			on conflict (level, side, record_id) do update set reason = excluded.reason, created_by = excluded.created_by, created_on = now()
			returning record_id`, pgx.Identifier{l.side(side).Source}.Sanitize()), l.N, side, ids, reason, who)
		if err != nil {
			return err
		}
		marked, err := pgx.CollectRows(rows, pgx.RowTo[int64])
		if err != nil {
			return err
		}
		out.Marked += len(marked)
		out.Skipped += len(ids) - len(marked)
		if len(marked) == 0 {
			return nil
		}
		return engine.Audit(ctx, tx, engine.AuditEntry{Action: "recon.investigate.mark", Entity: "recon_investigation",
			EntityID: fmt.Sprintf("%d/%s", l.N, side), After: map[string]any{"records": marked, "reason": reason}})
	})
	return out, err
}

// ClearInvestigation takes the marks of the chosen records away.
func (s *Service) ClearInvestigation(ctx context.Context, items []QueueItem) (*Marked, error) {
	set, err := s.checkQueue(items)
	if err != nil {
		return nil, err
	}
	out := &Marked{}
	err = s.eachQueued(ctx, set, func(tx pgx.Tx, l *Level, side string, ids []int64) error {
		rows, err := tx.Query(ctx, `delete from recon_investigation where level = $1 and side = $2 and record_id = any ($3) returning record_id`, l.N, side, ids)
		if err != nil {
			return err
		}
		cleared, err := pgx.CollectRows(rows, pgx.RowTo[int64])
		if err != nil {
			return err
		}
		out.Marked += len(cleared)
		out.Skipped += len(ids) - len(cleared)
		if len(cleared) == 0 {
			return nil
		}
		return engine.Audit(ctx, tx, engine.AuditEntry{Action: "recon.investigate.clear", Entity: "recon_investigation",
			EntityID: fmt.Sprintf("%d/%s", l.N, side), After: map[string]any{"records": cleared}})
	})
	return out, err
}

// WriteOffQueued writes each chosen record off on its own (a one-sided
// group each, held against the caller's limit one by one), all or none.
func (s *Service) WriteOffQueued(ctx context.Context, items []QueueItem, reason string) ([]*Match, error) {
	reason = strings.TrimSpace(reason)
	if reason == "" {
		return nil, engine.Invalid("reason", "Say why these records are written off.").With("recon.writeoffReasonRequired")
	}
	if len(reason) > 1000 {
		return nil, engine.Invalid("reason", "The reason must be at most 1000 characters.").With("recon.reasonTooLong")
	}
	set, err := s.checkQueue(items)
	if err != nil {
		return nil, err
	}
	var out []*Match
	err = s.eachQueued(ctx, set, func(tx pgx.Tx, l *Level, side string, ids []int64) error {
		for _, id := range ids {
			m, err := s.writeOff(ctx, tx, l, side, []int64{id}, reason,
				map[string]any{"op": "recon.writeoffQueued", "items": items, "reason": reason})
			if err != nil {
				return err
			}
			out = append(out, m)
		}
		return nil
	})
	return out, err
}
