package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"
)

// summaryFigures are a figure of each shape the benchmarks record, with
// the table row each must print.
var summaryFigures = []struct {
	name string
	f    Figure
	row  []string
}{
	{"latencies against a floor, met",
		Figure{Bench: "grid", Case: "a) no filter, 8 clients", Count: 800, P50: 2300 * time.Microsecond, P95: 20400 * time.Microsecond,
			Throughput: 1234.4, Unit: "calls/s", PeakMB: 61.4, Memory: MemoryBench, FloorRatio: 1.447, Floor: "SQL alone (p95)",
			Target: "p95 <= 1.5x SQL", Met: met(true)},
		[]string{"grid", "a) no filter, 8 clients", "800", "-", "2.3 ms", "20.4 ms", "-", "1,234 calls/s", "61", "1.45x", "p95 <= 1.5x SQL", "yes"}},
	{"a run timed once, not met",
		Figure{Bench: "import", Case: "CSV, 1,000,000 card transactions", Time: 7600 * time.Millisecond, Throughput: 131578.9, Unit: "rows/s",
			FloorRatio: 5.2, Floor: "bare COPY", Target: ">= 100,000 rows/s, <= 2x COPY", Met: met(false)},
		[]string{"import", "CSV, 1,000,000 card transactions", "-", "7.60 s", "-", "-", "-", "131,579 rows/s", "-", "5.20x", ">= 100,000 rows/s, <= 2x COPY", "no"}},
	{"memory of its own run",
		Figure{Bench: "export", Case: "CSV", Time: 2300 * time.Millisecond, PeakMB: 12.6, Memory: MemoryRun, Target: "< 3 s", Met: met(true)},
		[]string{"export", "CSV", "-", "2.30 s", "-", "-", "-", "-", "13 run", "-", "< 3 s", "yes"}},
	{"the server's memory, a slow throughput",
		Figure{Bench: "load", Case: "all calls", Count: 65507, Throughput: 54.54, Unit: "calls/s", PeakMB: 89, Memory: MemoryServer,
			Target: "0 errors", Met: met(true), Note: "0 errors, 112 refused by a bound"},
		[]string{"load", "all calls", "65507", "-", "-", "-", "-", "54.5 calls/s", "89 rss", "-", "0 errors", "yes"}},
	{"a summary row with the slowest",
		Figure{Bench: "clicks", Case: "every click: 189 clicks, 5 over 100.0 ms", Count: 189, P50: 2200 * time.Microsecond, Max: 2201800 * time.Microsecond,
			Target: "none over 100.0 ms", Met: met(false), Note: "slowest: Currency equals NOK, sort AmountUSD desc"},
		[]string{"clicks", "every click: 189 clicks, 5 over 100.0 ms", "189", "-", "2.2 ms", "-", "2201.8 ms", "-", "-", "-", "none over 100.0 ms", "no"}},
	{"nothing measured but its name",
		Figure{Bench: "home", Case: "nothing"},
		[]string{"home", "nothing", "-", "-", "-", "-", "-", "-", "-", "-", "-", "-"}},
}

func testSummary() *Summary {
	s := &Summary{Scale: 1, Sizes: SizesFor(1), Took: 7 * time.Minute,
		Benches: []BenchRun{{Bench: "grid", Took: time.Minute, PeakMB: 61.4}, {Bench: "load", Took: 40 * time.Second, PeakMB: 20, Err: errors.New("load: 2 errors")}}}
	for _, c := range summaryFigures {
		s.Figures = append(s.Figures, c.f)
	}
	return s
}

// The table prints each figure in one row, "-" for what was not measured,
// yes or no for a target judged; then the notes, the floors and the failures.
func TestSummaryTable(t *testing.T) {
	var out bytes.Buffer
	testSummary().WriteTable(&out)
	lines := strings.Split(out.String(), "\n")
	cells := func(line string) []string {
		parts := strings.Split(strings.Trim(line, "|"), "|")
		for i := range parts {
			parts[i] = strings.TrimSpace(parts[i])
		}
		return parts
	}
	if got, want := cells(lines[2]), []string{"bench", "case", "n", "time", "p50", "p95", "max", "throughput", "peak MB", "vs floor", "target", "met"}; !slices.Equal(got, want) {
		t.Errorf("header %q, want %q", got, want)
	}
	for i, c := range summaryFigures {
		t.Run(c.name, func(t *testing.T) {
			if got := cells(lines[4+i]); !slices.Equal(got, c.row) {
				t.Errorf("row\n got %q\nwant %q", got, c.row)
			}
		})
	}
	outputHas(t, out.String(),
		"load, all calls: 0 errors, 112 refused by a bound",
		"clicks, every click: 189 clicks, 5 over 100.0 ms: slowest: Currency equals NOK",
		"  grid: SQL alone (p95)\n", "  import: bare COPY\n",
		"targets are stated for the full sizes (--scale 20)",
		"took: grid 1m0s, load 40s",
		"FAILED: load: load: 2 errors")
}

// The JSON document has stable field names, durations in milliseconds, and
// leaves out what was not measured; a target not met is false, one not
// judged absent.
func TestSummaryJSON(t *testing.T) {
	var out bytes.Buffer
	if err := testSummary().WriteJSON(&out); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if got, want := slices.Sorted(maps.Keys(doc)), []string{"benches", "figures", "full_size", "scale", "sizes", "took_s"}; !slices.Equal(got, want) {
		t.Errorf("document fields %q, want %q", got, want)
	}
	if doc["scale"] != 1.0 || doc["full_size"] != false || doc["took_s"] != 420.0 {
		t.Errorf("scale %v, full_size %v, took_s %v", doc["scale"], doc["full_size"], doc["took_s"])
	}
	if got := doc["sizes"].(map[string]any)["grid_rows"]; got != 100000.0 {
		t.Errorf("sizes.grid_rows %v", got)
	}
	benches := doc["benches"].([]any)
	if got, want := benches[1], map[string]any{"bench": "load", "took_s": 40.0, "peak_heap_mb": 20.0, "error": "load: 2 errors"}; !equalJSON(got, want) {
		t.Errorf("benches[1] %v, want %v", got, want)
	}
	if _, ok := benches[0].(map[string]any)["error"]; ok {
		t.Errorf("a benchmark that ran has an error: %v", benches[0])
	}
	figures := doc["figures"].([]any)
	for i, want := range []map[string]any{
		{"bench": "grid", "case": "a) no filter, 8 clients", "count": 800.0, "p50_ms": 2.3, "p95_ms": 20.4, "throughput": 1234.4,
			"unit": "calls/s", "peak_memory_mb": 61.4, "memory_of": "bench heap", "floor_ratio": 1.447, "floor": "SQL alone (p95)",
			"target": "p95 <= 1.5x SQL", "met": true},
		{"bench": "import", "case": "CSV, 1,000,000 card transactions", "time_ms": 7600.0, "throughput": 131578.9, "unit": "rows/s",
			"floor_ratio": 5.2, "floor": "bare COPY", "target": ">= 100,000 rows/s, <= 2x COPY", "met": false},
		{"bench": "export", "case": "CSV", "time_ms": 2300.0, "peak_memory_mb": 12.6, "memory_of": "run heap", "target": "< 3 s", "met": true},
		{"bench": "load", "case": "all calls", "count": 65507.0, "throughput": 54.5, "unit": "calls/s", "peak_memory_mb": 89.0,
			"memory_of": "server rss", "target": "0 errors", "met": true, "note": "0 errors, 112 refused by a bound"},
		{"bench": "clicks", "case": "every click: 189 clicks, 5 over 100.0 ms", "count": 189.0, "p50_ms": 2.2, "max_ms": 2201.8,
			"target": "none over 100.0 ms", "met": false, "note": "slowest: Currency equals NOK, sort AmountUSD desc"},
		{"bench": "home", "case": "nothing"},
	} {
		if !equalJSON(figures[i], want) {
			t.Errorf("figures[%d]\n got %v\nwant %v", i, figures[i], want)
		}
	}
}

func equalJSON(got any, want map[string]any) bool {
	m, ok := got.(map[string]any)
	return ok && maps.Equal(m, want)
}

// A benchmark run by bench all gets the peak of the Go heap on each of its
// figures that measured no memory of its own; run alone, it records nothing.
func TestSummaryRun(t *testing.T) {
	record(context.Background(), Figure{Bench: "grid", Case: "alone"}) // no summary: nothing to do
	s := &Summary{}
	ctx := withSummary(context.Background(), s)
	s.run("export", func() error {
		record(ctx, Figure{Bench: "export", Case: "XLSX", PeakMB: 137, Memory: MemoryRun})
		record(ctx, Figure{Bench: "export", Case: "bare"})
		return nil
	})
	s.run("load", func() error { return errors.New("2 errors") })
	if len(s.Figures) != 2 || s.Figures[0].PeakMB != 137 || s.Figures[0].Memory != MemoryRun {
		t.Fatalf("figures %+v", s.Figures)
	}
	if f := s.Figures[1]; f.PeakMB <= 0 || f.Memory != MemoryBench || f.PeakMB != s.Benches[0].PeakMB {
		t.Errorf("the figure without memory got %v MB of %q; the benchmark's peak %v MB", f.PeakMB, f.Memory, s.Benches[0].PeakMB)
	}
	if err := s.Err(); err == nil || err.Error() != "bench all: 1 of 2 benchmarks failed: load" {
		t.Errorf("Err() = %v", err)
	}
}

// The sizes at scale 20 are the README's; smaller scales shrink them, down
// to the floors of the load benchmark, the isolation rounds and the edits.
func TestSizesFor(t *testing.T) {
	for _, c := range []struct {
		scale int
		want  Sizes
	}{
		{20, Sizes{GridRows: 2_000_000, ClickRows: 2_000_000, ImportRows: 1_000_000, ExportRows: 100_000, ReconcileRows: 1_000_000,
			PivotRows: 2_000_000, HomeRows: 1_000_000, AuditEdits: 6_000, LoadUsers: 50, LoadSeconds: 120, IsolationSeconds: 10}},
		{1, Sizes{GridRows: 100_000, ClickRows: 100_000, ImportRows: 50_000, ExportRows: 5_000, ReconcileRows: 50_000,
			PivotRows: 100_000, HomeRows: 50_000, AuditEdits: 1_200, LoadUsers: 2, LoadSeconds: 20, IsolationSeconds: 3}},
		{5, Sizes{GridRows: 500_000, ClickRows: 500_000, ImportRows: 250_000, ExportRows: 25_000, ReconcileRows: 250_000,
			PivotRows: 500_000, HomeRows: 250_000, AuditEdits: 1_500, LoadUsers: 12, LoadSeconds: 30, IsolationSeconds: 3}},
	} {
		if got := SizesFor(c.scale); got != c.want {
			t.Errorf("SizesFor(%d) = %+v, want %+v", c.scale, got, c.want)
		}
	}
}
