package recon

import (
	"encoding/json"
	"reflect"
	"testing"
)

// The candidates' JSON, written with the rows as the database wrote them,
// says what encoding/json would (same fields, names and values).
func TestCandidatesAppendJSON(t *testing.T) {
	for _, c := range []Candidates{
		{Item1: json.RawMessage(`[{"id":1,"Amount":12.50}, 
 {"id":2,"Amount":-3}]`), Item2: json.RawMessage(`[]`), Item1Total: 2, Item2Total: 0, Limit: CandidateLimit},
		{Item1: json.RawMessage(`[]`), Item2: json.RawMessage(`[{"id":7,"Text":"a \"quoted\" é"}]`), Item1Total: 0, Item2Total: 4001, Limit: 2},
	} {
		want, err := json.Marshal(&c)
		if err != nil {
			t.Fatal(err)
		}
		got := c.AppendJSON([]byte("x"))
		if got[0] != 'x' {
			t.Fatalf("AppendJSON did not append: %s", got)
		}
		var w, g any
		if err := json.Unmarshal(want, &w); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(got[1:], &g); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, got[1:])
		}
		if !reflect.DeepEqual(w, g) {
			t.Errorf("AppendJSON\n%s\nwant what encoding/json writes\n%s", got[1:], want)
		}
	}
}
