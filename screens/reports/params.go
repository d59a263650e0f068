// Package reports holds the hand-written report screens on top of the engine:
// the bank overview pivot (screen 15, spec 03 sections 2.4 and 3.6) and its
// Excel export. The pivot's columns are the actors found in the data, so it
// cannot be an engine view; its aggregation is one set-based SQL statement
// whose fragments come from fixed tables in this package and whose values
// are bound parameters.
package reports

import (
	"strings"

	"ledgerdesk/engine"
)

// Grouping is a date grouping of the bank overview: the rows' periods.
type Grouping string

const (
	Year     Grouping = "Year"
	HalfYear Grouping = "Half-Year"
	Quarter  Grouping = "Quarter"
	Month    Grouping = "Month"
	Week     Grouping = "Week" // ISO 8601 weeks, Monday to Sunday, in their ISO year
	Day      Grouping = "Day"
)

// Groupings lists every grouping, widest first.
var Groupings = []Grouping{Year, HalfYear, Quarter, Month, Week, Day}

// Params are the bank overview parameters of spec 03 section 3.6. The zero
// value of a field means its default (Defaults).
type Params struct {
	InOut          string   `json:"inOutFilter"`          // In or Out
	DistribRvn     string   `json:"distribRvnFilter"`     // Yes, No or All
	DistribDriver  string   `json:"distribDriverFilter"`  // All, Yes or No
	AffectsBalance string   `json:"affectsBalanceFilter"` // Yes, No or All
	DateGrouping   Grouping `json:"dateGroupingType"`
}

// Defaults are spec 03 section 9's: In, Yes, All, Yes, Month.
var Defaults = Params{InOut: "In", DistribRvn: "Yes", DistribDriver: "All", AffectsBalance: "Yes", DateGrouping: Month}

// Normalize fills defaults for missing values, spells every value the one
// way the spec does (case and separators do not matter: "half year" is
// Half-Year) and refuses anything else with a 400 naming the field.
func (p Params) Normalize() (Params, error) {
	var err error
	out := p
	if out.InOut, err = oneOf("inOutFilter", p.InOut, Defaults.InOut, "In", "Out"); err != nil {
		return p, err
	}
	if out.DistribRvn, err = oneOf("distribRvnFilter", p.DistribRvn, Defaults.DistribRvn, "Yes", "No", "All"); err != nil {
		return p, err
	}
	if out.DistribDriver, err = oneOf("distribDriverFilter", p.DistribDriver, Defaults.DistribDriver, "All", "Yes", "No"); err != nil {
		return p, err
	}
	if out.AffectsBalance, err = oneOf("affectsBalanceFilter", p.AffectsBalance, Defaults.AffectsBalance, "Yes", "No", "All"); err != nil {
		return p, err
	}
	names := make([]string, len(Groupings))
	for i, g := range Groupings {
		names[i] = string(g)
	}
	g, err := oneOf("dateGroupingType", string(p.DateGrouping), string(Defaults.DateGrouping), names...)
	if err != nil {
		return p, err
	}
	out.DateGrouping = Grouping(g)
	return out, nil
}

// Differing counts the parameters that differ from the defaults (the
// filter badge of the screen).
func (p Params) Differing() int {
	n := 0
	for _, d := range [][2]string{{p.InOut, Defaults.InOut}, {p.DistribRvn, Defaults.DistribRvn},
		{p.DistribDriver, Defaults.DistribDriver}, {p.AffectsBalance, Defaults.AffectsBalance},
		{string(p.DateGrouping), string(Defaults.DateGrouping)}} {
		if d[0] != d[1] {
			n++
		}
	}
	return n
}

// oneOf returns the allowed value v names, def when v is empty.
func oneOf(field, v, def string, allowed ...string) (string, error) {
	key := squash(v)
	if key == "" {
		return def, nil
	}
	for _, a := range allowed {
		if squash(a) == key {
			return a, nil
		}
	}
	list := strings.Join(allowed, ", ")
	return "", engine.Invalid(field, "%s must be one of %s, got %q.", field, list, v).
		With("reports.badParameter", "field", field, "allowed", list, "value", v)
}

// squash lowercases s and drops spaces, hyphens and underscores.
func squash(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '-', '_':
			return -1
		}
		return r
	}, strings.ToLower(strings.TrimSpace(s)))
}
