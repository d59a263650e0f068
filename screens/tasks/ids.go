package tasks

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"ledgerdesk/engine"
)

// RawIDs is an id list as the client sent it: a JSON array of numbers or
// digit strings, or one string of comma-separated digits (the editor's text
// fields). Absent or null means "not sent".
type RawIDs json.RawMessage

// UnmarshalJSON keeps the raw value for parse, which names the field.
func (r *RawIDs) UnmarshalJSON(b []byte) error {
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		*r = nil
		return nil
	}
	*r = append((*r)[:0], b...)
	return nil
}

// parse reads the ids: each a positive whole number in digits, none twice.
func (r RawIDs) parse(field string) ([]int64, error) {
	if r == nil {
		return nil, nil
	}
	var items []string
	var list []json.RawMessage
	var text string
	switch {
	case json.Unmarshal(r, &list) == nil:
		for _, raw := range list {
			var s string
			if json.Unmarshal(raw, &s) != nil {
				s = string(raw) // a number: its literal, checked below
			}
			items = append(items, s)
		}
	case json.Unmarshal(r, &text) == nil:
		if strings.TrimSpace(text) != "" {
			items = strings.Split(text, ",")
		}
	default:
		return nil, badIDs(field, string(r))
	}
	if len(items) > maxLinks {
		return nil, engine.Invalid(field, "%s: at most %d ids.", field, maxLinks).With("tasks.tooManyIds", "field", field, "max", maxLinks)
	}
	ids := make([]int64, 0, len(items))
	seen := make(map[int64]bool, len(items))
	for _, item := range items {
		s := strings.TrimSpace(item)
		id, err := strconv.ParseInt(s, 10, 64)
		if err != nil || id <= 0 || strings.Trim(s, "0123456789") != "" {
			return nil, badIDs(field, s)
		}
		if seen[id] {
			return nil, engine.Invalid(field, "%s: %d is listed twice.", field, id).With("tasks.duplicateId", "field", field, "id", id)
		}
		seen[id] = true
		ids = append(ids, id)
	}
	return ids, nil
}

func badIDs(field, value string) error {
	return engine.Invalid(field, "%s must be ids of digits only, separated by commas; %q is not.", field, value).
		With("tasks.badIds", "field", field, "value", value)
}

func joinIDs(ids []int64) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.FormatInt(id, 10)
	}
	return strings.Join(s, ", ")
}
