package recon

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.yaml.in/yaml/v3"

	"ledgerdesk/engine"
)

// File is the name of the level definitions beside views.yaml.
const File = "recon.yaml"

// Side is a kind of record reconciliation pairs: a canonical SQL source
// with the columns of sideColumns (recon.yaml documents them).
type Side struct {
	Name         string   `yaml:"-" json:"kind"`
	Source       string   `yaml:"source" json:"-"`
	Label        string   `yaml:"label" json:"label"`
	TicketFilter bool     `yaml:"ticketFilter" json:"-"`
	Members      *Members `yaml:"members" json:"-"`
}

// Members are the records a side groups: a payout's settlements are the
// settlements whose Column holds the payout's ref.
type Members struct {
	Side   string `yaml:"side"`
	Column string `yaml:"column"`
}

// sideColumns are the columns every source has.
var sideColumns = []string{"id", "ref", "amount", "currency", "date", "provider_key", "provider", "counted", "manual"}

// Column is a column of a side a dialog shows: the field name the API
// gives it, the source column, its type.
type Column struct {
	Field  string `yaml:"field" json:"field"`
	Column string `yaml:"column" json:"-"`
	Type   string `yaml:"type" json:"type"`
}

// LevelSide is one side of a level: its kind, the field naming its id in a
// manual-match body, and the manual dialog's columns. Source, when given,
// is the level's own source of the kind (a subset: level 2 reads the
// imported card transactions, not a task's adjustments); else the kind's.
type LevelSide struct {
	SideName string   `yaml:"side" json:"-"`
	Field    string   `yaml:"field" json:"field"`
	Columns  []Column `yaml:"columns" json:"columns"`
	Source   string   `yaml:"source" json:"-"`
	*Side    `yaml:"-"`
}

// Tolerance names the config_setting rows of a level: those of the
// provider of Side, with transaction type Type (the level's number when
// not given).
type Tolerance struct {
	Side string `yaml:"side"`
	Type int    `yaml:"type"`
}

// UnmarshalYAML takes `tolerance: right` or `tolerance: {side: right, type: 2}`.
func (t *Tolerance) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		t.Side = n.Value
		return nil
	}
	type plain Tolerance
	return n.Decode((*plain)(t))
}

// Report names the views.yaml views of a level's tab.
type Report struct {
	View   string `yaml:"view"`
	Lookup string `yaml:"lookup"`
}

// ChainFrom is a report row field that opens the chain of a record.
type ChainFrom struct {
	Field string `yaml:"field" json:"field"`
	Side  string `yaml:"side" json:"side"`
	By    string `yaml:"by" json:"by"` // id or ref
}

// Status is an entry of a level's legend.
type Status struct {
	Value    string `yaml:"value" json:"value"`
	Label    string `yaml:"label" json:"label"`
	Severity string `yaml:"severity" json:"severity"`
}

// Level is one reconciliation level as recon.yaml declares it. Every query
// of the level (pairs, counts, candidates, records, why) is derived from it.
type Level struct {
	Slug        string      `yaml:"slug"`
	N           int         `yaml:"number"`
	Name        string      `yaml:"name"` // translation key
	Left        LevelSide   `yaml:"left"`
	Right       LevelSide   `yaml:"right"`
	Key         []string    `yaml:"key"`
	Window      string      `yaml:"window"` // key or day
	Tolerance   Tolerance   `yaml:"tolerance"`
	Carry       []string    `yaml:"carry"`
	AfterRun    string      `yaml:"afterRun"`
	Splits      *Splits     `yaml:"splits"`
	Report      Report      `yaml:"report"`
	Dialog      string      `yaml:"dialog"` // left or right: the dialog's first grid
	Investigate bool        `yaml:"investigate"`
	Details     bool        `yaml:"details"`
	Filters     []string    `yaml:"filters"`
	ChainFrom   []ChainFrom `yaml:"chainFrom"`
	Statuses    []Status    `yaml:"statuses"`
	Hint        string      `yaml:"hint"`
}

// Splits let automatic runs match one record (of the anchor side) with
// several of the other side sharing its key: a ticket paid by several card
// payments, a transaction settled in parts, a booking paying several
// payouts. At most Max records join one anchor. Without Search an anchor
// takes all its key-mates or none; with it, an anchor with at most Search
// key-mates takes the one subset of them that fits (splits.go, subsetsSQL).
type Splits struct {
	Anchor string `yaml:"anchor"` // left or right
	Max    int    `yaml:"max"`
	Search int    `yaml:"search"`
}

// MaxSearch bounds the subset search: an anchor's subsets of up to 5 of
// 16 key-mates are 6,884; the search's cost grows with its power.
const MaxSearch, MaxSearchGroup = 16, 5

// side returns the level's side by "left" or "right".
func (l *Level) side(which string) *LevelSide {
	if which == "left" {
		return &l.Left
	}
	return &l.Right
}

// other is the side opposite which.
func other(which string) string {
	if which == "left" {
		return "right"
	}
	return "left"
}

// toleranceType is the config_setting transaction type of the level's tolerances.
func (l *Level) toleranceType() int {
	if l.Tolerance.Type != 0 {
		return l.Tolerance.Type
	}
	return l.N
}

// Definition is recon.yaml: the sides and the levels in tab order.
type Definition struct {
	Sides  map[string]*Side `yaml:"sides"`
	Levels []*Level         `yaml:"levels"`
	Ageing Ageing           `yaml:"ageing"`
}

// Ageing sorts open items by age for Home and the exception queue: Buckets
// are the last day of each bucket but the last (2, 7, 30: 0-2, 3-7, 8-30
// and over 30 days).
type Ageing struct {
	Buckets []int `yaml:"buckets"`
}

// DefaultAgeBuckets are the buckets when recon.yaml names none.
var DefaultAgeBuckets = []int{2, 7, 30}

var (
	identifier = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)
	slugRule   = regexp.MustCompile(`^[a-z][a-z0-9-]*[a-z0-9]$`)
	fieldRule  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// Load reads and checks recon.yaml from fsys (the metadata folder or the
// copy built into the binary). Every problem is named with its level.
func Load(fsys fs.FS) (*Definition, error) {
	raw, err := fs.ReadFile(fsys, File)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", File, err)
	}
	return Parse(raw)
}

// Parse reads and checks a recon.yaml document.
func Parse(raw []byte) (*Definition, error) {
	var d Definition
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(true)
	if err := dec.Decode(&d); err != nil {
		return nil, fmt.Errorf("%s: %w", File, err)
	}
	if errs := d.check(); len(errs) > 0 {
		return nil, fmt.Errorf("%s:\n  %s", File, strings.Join(errs, "\n  "))
	}
	return &d, nil
}

// check validates the definition by itself (the catalogue is checked by
// Validate) and links each level's sides.
func (d *Definition) check() []string {
	var errs []string
	bad := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	names := make([]string, 0, len(d.Sides))
	for name := range d.Sides {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		s := d.Sides[name]
		s.Name = name
		if !identifier.MatchString(s.Source) {
			bad("side %s: source %q must be a lower-case SQL name", name, s.Source)
		}
		if s.Members != nil && (d.Sides[s.Members.Side] == nil || !identifier.MatchString(s.Members.Column)) {
			bad("side %s: members needs a declared side and a column", name)
		}
	}
	if len(d.Levels) == 0 {
		bad("no levels declared")
	}
	if len(d.Ageing.Buckets) == 0 {
		d.Ageing.Buckets = DefaultAgeBuckets
	}
	for i, b := range d.Ageing.Buckets {
		if b < 0 || b > 3650 || i > 0 && b <= d.Ageing.Buckets[i-1] {
			bad("ageing: buckets must be rising whole numbers of days from 0 to 3650, got %v", d.Ageing.Buckets)
			break
		}
	}
	seen := map[string]bool{}
	for i, l := range d.Levels {
		at := fmt.Sprintf("level %d (%s)", i+1, l.Slug)
		if !slugRule.MatchString(l.Slug) || seen[l.Slug] {
			bad("%s: slug must be unique, lower case with dashes", at)
		}
		seen[l.Slug] = true
		if seen[fmt.Sprint("#", l.N)] || l.N < 1 || l.N > 99 {
			bad("%s: number must be unique, 1 to 99", at)
		}
		seen[fmt.Sprint("#", l.N)] = true
		for _, which := range []string{"left", "right"} {
			ls := l.side(which)
			ls.Side = d.Sides[ls.SideName]
			if ls.Side == nil {
				bad("%s: %s side %q is not declared under sides", at, which, ls.SideName)
				continue
			}
			if ls.Source == "" {
				ls.Source = ls.Side.Source
			}
			if !identifier.MatchString(ls.Source) {
				bad("%s: %s source %q must be a lower-case SQL name", at, which, ls.Source)
			}
			if !fieldRule.MatchString(ls.Field) {
				bad("%s: %s needs a field (the id's name in a manual-match body)", at, which)
			}
			for _, c := range ls.Columns {
				if !fieldRule.MatchString(c.Field) || !identifier.MatchString(c.Column) || engine.Types[c.Type] == nil {
					bad("%s: %s column %+v needs a field, a column and a known type", at, which, c)
				}
			}
		}
		if len(l.Key) == 0 {
			bad("%s: key needs at least one column", at)
		}
		for _, k := range l.Key {
			if !identifier.MatchString(k) {
				bad("%s: key column %q is not a column name", at, k)
			}
		}
		if l.Window != "key" && l.Window != "day" {
			bad("%s: window is key or day, not %q", at, l.Window)
		}
		if l.Tolerance.Side != "left" && l.Tolerance.Side != "right" {
			bad("%s: tolerance is left or right, not %q", at, l.Tolerance.Side)
		}
		for _, c := range l.Carry {
			if p, col, ok := strings.Cut(c, "."); !ok || (p != "l" && p != "r") || !identifier.MatchString(col) {
				bad("%s: carry %q must be l.<column> or r.<column>", at, c)
			}
		}
		if l.AfterRun != "" && !identifier.MatchString(l.AfterRun) {
			bad("%s: afterRun %q must be a SQL function name", at, l.AfterRun)
		}
		if sp := l.Splits; sp != nil && ((sp.Anchor != "left" && sp.Anchor != "right") || sp.Max < 2 || sp.Max > MaxGroup) {
			bad("%s: splits needs an anchor (left or right) and a max of 2 to %d", at, MaxGroup)
		}
		if sp := l.Splits; sp != nil && sp.Search != 0 && (sp.Search < sp.Max || sp.Search > MaxSearch || sp.Max > MaxSearchGroup) {
			bad("%s: splits.search, the key-mates searched for a subset that fits, must be from max (%d) to %d, with a max of at most %d",
				at, sp.Max, MaxSearch, MaxSearchGroup)
		}
		if l.Report.View == "" {
			bad("%s: report.view is required", at)
		}
		if l.Dialog == "" {
			l.Dialog = "left"
		}
		if l.Dialog != "left" && l.Dialog != "right" {
			bad("%s: dialog is left or right", at)
		}
		for _, f := range l.Filters {
			if f != "provider" && f != "ticket" {
				bad("%s: filter %q is provider or ticket", at, f)
			}
		}
		for _, c := range l.ChainFrom {
			if d.Sides[c.Side] == nil || (c.By != "id" && c.By != "ref") {
				bad("%s: chainFrom %+v needs a declared side and by id or ref", at, c)
			}
		}
		if l.Name == "" {
			bad("%s: name (a translation key) is required", at)
		}
	}
	return errs
}

// Level returns the level of an API path segment, or an Invalid error.
func (d *Definition) Level(slug string) (*Level, error) {
	for _, l := range d.Levels {
		if l.Slug == slug {
			return l, nil
		}
	}
	names := make([]string, len(d.Levels))
	for i, l := range d.Levels {
		names[i] = l.Slug
	}
	return nil, engine.Invalid("level", "Unknown reconciliation level %q: use %s.", slug, strings.Join(names, ", ")).
		With("recon.unknownLevel", "level", slug)
}

// ImportKinds are the kinds of import file feeding the level's sides (a
// side grouping members, like a payout, is fed by its members' side).
func (d *Definition) ImportKinds(l *Level) []string {
	var kinds []string
	for _, side := range []string{l.Left.SideName, l.Right.SideName} {
		if m := d.Sides[side].Members; m != nil {
			side = m.Side
		}
		if !slices.Contains(kinds, side) {
			kinds = append(kinds, side)
		}
	}
	return kinds
}

// ByNumber returns the level stored as n in recon_match and recon_run.
func (d *Definition) ByNumber(n int) *Level {
	for _, l := range d.Levels {
		if l.N == n {
			return l
		}
	}
	return nil
}

// slugOf names level n for the API ("level-n" for a level no longer declared).
func (d *Definition) slugOf(n int) string {
	if l := d.ByNumber(n); l != nil {
		return l.Slug
	}
	return fmt.Sprint("level-", n)
}

// Validate checks the definition against the database: every source a
// relation with the canonical columns and every column the levels name,
// every afterRun function present, every report view in views (the
// engine's). One line per problem.
func (d *Definition) Validate(ctx context.Context, pool *pgxpool.Pool, views func(string) bool) error {
	var errs []string
	bad := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	columns := func(rel string) (map[string]bool, error) {
		rows, err := pool.Query(ctx, `select a.attname from pg_attribute a
			where a.attrelid = to_regclass($1) and a.attnum > 0 and not a.attisdropped`, rel)
		if err != nil {
			return nil, err
		}
		names, err := pgx.CollectRows(rows, pgx.RowTo[string])
		out := map[string]bool{}
		for _, n := range names {
			out[n] = true
		}
		return out, err
	}
	have := map[string]map[string]bool{}
	for name, s := range d.Sides {
		cols, err := columns(s.Source)
		if err != nil {
			return err
		}
		if len(cols) == 0 {
			bad("side %s: source %s does not exist", name, s.Source)
			continue
		}
		for _, c := range sideColumns {
			if !cols[c] {
				bad("side %s: source %s has no column %s", name, s.Source, c)
			}
		}
		have[name] = cols
	}
	for _, s := range d.Sides {
		if s.Members != nil && have[s.Members.Side] != nil && !have[s.Members.Side][s.Members.Column] {
			bad("side %s: members column %s is not in %s", s.Name, s.Members.Column, d.Sides[s.Members.Side].Source)
		}
	}
	for _, l := range d.Levels {
		for _, which := range []string{"left", "right"} {
			ls := l.side(which)
			cols := have[ls.SideName]
			if ls.Source != ls.Side.Source {
				own, err := columns(ls.Source)
				if err != nil {
					return err
				}
				if len(own) == 0 {
					bad("level %s: %s source %s does not exist", l.Slug, which, ls.Source)
					continue
				}
				for _, c := range sideColumns {
					if !own[c] {
						bad("level %s: %s source %s has no column %s", l.Slug, which, ls.Source, c)
					}
				}
				cols = own
			}
			if cols == nil {
				continue
			}
			for _, c := range ls.Columns {
				if !cols[c.Column] {
					bad("level %s: %s column %s is not in %s", l.Slug, which, c.Column, ls.Source)
				}
			}
			for _, k := range l.Key {
				if !cols[k] {
					bad("level %s: key column %s is not in %s", l.Slug, k, ls.Source)
				}
			}
		}
		for _, c := range l.Carry {
			p, col, _ := strings.Cut(c, ".")
			s := l.Left.SideName
			if p == "r" {
				s = l.Right.SideName
			}
			if have[s] != nil && !have[s][col] {
				bad("level %s: carry column %s is not in %s", l.Slug, col, d.Sides[s].Source)
			}
		}
		if l.AfterRun != "" {
			var ok bool
			if err := pool.QueryRow(ctx, `select exists (select 1 from pg_proc where proname = $1)`, l.AfterRun).Scan(&ok); err != nil {
				return err
			}
			if !ok {
				bad("level %s: afterRun function %s does not exist", l.Slug, l.AfterRun)
			}
		}
		for _, v := range []string{l.Report.View, l.Report.Lookup} {
			if v != "" && views != nil && !views(v) {
				bad("level %s: report view %s is not in views.yaml", l.Slug, v)
			}
		}
	}
	if len(errs) > 0 {
		slices.Sort(errs)
		return fmt.Errorf("%s does not fit the database:\n  %s", File, strings.Join(errs, "\n  "))
	}
	return nil
}

// Sync writes the levels into recon_level, where the triggers that keep
// live matches and the open items in line with their records read them. A
// level that reads another source or tolerance than before has the open
// items it holds computed again (recon_open_rebuild; a new level holds none
// until its first run); those of a level no longer declared go.
func (d *Definition) Sync(ctx context.Context, pool *pgxpool.Pool) error {
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `lock table recon_level in exclusive mode`); err != nil {
			return err
		}
		before := map[int]string{}
		rows, err := tx.Query(ctx, `select number, concat_ws('|', left_source, right_source, left_kind, right_kind, tolerance_type) from recon_level`)
		if err != nil {
			return err
		}
		for rows.Next() {
			var n int
			var shape string
			if err := rows.Scan(&n, &shape); err != nil {
				return err
			}
			before[n] = shape
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `delete from recon_level`); err != nil {
			return err
		}
		var rebuild []int
		for _, l := range d.Levels {
			if _, err := tx.Exec(ctx, `insert into recon_level (number, slug, left_source, right_source, tolerance_side, tolerance_type, left_kind, right_kind)
				values ($1, $2, $3, $4, $5, $6, $7, $8)`, l.N, l.Slug, l.Left.Source, l.Right.Source, l.Tolerance.Side, l.toleranceType(),
				l.Left.SideName, l.Right.SideName); err != nil {
				return fmt.Errorf("recon_level %s: %w", l.Slug, err)
			}
			shape := strings.Join([]string{l.Left.Source, l.Right.Source, l.Left.SideName, l.Right.SideName, strconv.Itoa(l.toleranceType())}, "|")
			if before[l.N] != shape {
				rebuild = append(rebuild, l.N)
			}
			delete(before, l.N)
		}
		if len(before) > 0 {
			if _, err := tx.Exec(ctx, `delete from recon_open_item where level not in (select number from recon_level)`); err != nil {
				return err
			}
		}
		for _, n := range rebuild {
			if _, err := tx.Exec(ctx, `select recon_open_rebuild($1)`, n); err != nil {
				return fmt.Errorf("open items of level %d: %w", n, err)
			}
		}
		return nil
	})
}

// errNoDefinition is returned by a service made without levels.
var errNoDefinition = errors.New("recon: no level definition (recon.yaml)")

// LevelInfo is a level as GET /api/recon/levels describes it to the
// dashboard: what it needs to render the level's tab, legend, dialogs and
// row actions.
type LevelInfo struct {
	Slug        string      `json:"slug"`
	Number      int         `json:"number"`
	Name        string      `json:"name"`
	Left        SideInfo    `json:"left"`
	Right       SideInfo    `json:"right"`
	ReportView  string      `json:"reportView"`
	LookupView  *string     `json:"lookupView"`
	Dialog      string      `json:"dialog"`
	Investigate bool        `json:"investigate"`
	Details     bool        `json:"details"`
	Filters     []string    `json:"filters"`
	ChainFrom   []ChainFrom `json:"chainFrom"`
	Statuses    []Status    `json:"statuses"`
	Hint        string      `json:"hint"`
}

// SideInfo is one side of a level for the dashboard.
type SideInfo struct {
	Kind    string   `json:"kind"`
	Field   string   `json:"field"`
	Label   string   `json:"label"`
	Columns []Column `json:"columns"`
	// AmountField and CurrencyField name the dialog columns holding the
	// amount matching compares and its currency ("" when not shown), for
	// the running sums of a group being ticked.
	AmountField   string `json:"amountField"`
	CurrencyField string `json:"currencyField"`
	// RefField names the dialog column holding the reference people know
	// a record by (ticket number, client id, payout id; "" when not shown).
	RefField string `json:"refField"`
}

// Describe is the levels as the API gives them, in tab order.
func Describe(levels []*Level) []LevelInfo {
	out := make([]LevelInfo, len(levels))
	side := func(s LevelSide) SideInfo {
		info := SideInfo{Kind: s.Name, Field: s.Field, Label: s.Label, Columns: append([]Column{}, s.Columns...)}
		for _, c := range s.Columns {
			switch c.Column {
			case "amount":
				info.AmountField = c.Field
			case "currency":
				info.CurrencyField = c.Field
			case "ref":
				info.RefField = c.Field
			}
		}
		return info
	}
	for i, l := range levels {
		info := LevelInfo{Slug: l.Slug, Number: l.N, Name: l.Name, Left: side(l.Left), Right: side(l.Right), ReportView: l.Report.View,
			Dialog: l.Dialog, Investigate: l.Investigate, Details: l.Details, Filters: append([]string{}, l.Filters...),
			ChainFrom: append([]ChainFrom{}, l.ChainFrom...), Statuses: append([]Status{}, l.Statuses...), Hint: l.Hint}
		if l.Report.Lookup != "" {
			lookup := l.Report.Lookup
			info.LookupView = &lookup
		}
		out[i] = info
	}
	return out
}
