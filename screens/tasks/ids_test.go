package tasks

import (
	"encoding/json"
	"testing"
)

func TestIDLists(t *testing.T) {
	for raw, want := range map[string]int{`[1, "2", 3]`: 3, `"4, 5"`: 2, `""`: 0, `[]`: 0} {
		ids, err := RawIDs(raw).parse("ticketIds")
		if err != nil || len(ids) != want {
			t.Errorf("%s: %v %v", raw, ids, err)
		}
	}
	for _, raw := range []string{`[1, 1]`, `"1,x"`, `[0]`, `[1.5]`, `{"a":1}`, `"+1"`, `[true]`} {
		if _, err := RawIDs(raw).parse("ticketIds"); err == nil {
			t.Errorf("%s: accepted", raw)
		}
	}
	var in Input
	if err := json.Unmarshal([]byte(`{"ticketIds":null}`), &in); err != nil || in.TicketIDs != nil {
		t.Errorf("null ids: %v %v", in.TicketIDs, err)
	}
}

func TestAmounts(t *testing.T) {
	for raw, ok := range map[string]bool{`12`: true, `"12.50"`: true, `0.01`: true, `-1`: false, `1.005`: false, `"abc"`: false, `0`: false, `null`: false, `1e3`: false} {
		if _, err := parseAmount(json.RawMessage(raw)); (err == nil) != ok {
			t.Errorf("%s: %v", raw, err)
		}
	}
}
