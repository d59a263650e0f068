package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Figure is one measured case of a benchmark as `bench all` sums it up: the
// figures the benchmark's own output shows, in one shape. Floors get no row
// of their own; a case measured against one carries the ratio. A zero field
// was not measured: it prints as "-" and is left out of the JSON.
type Figure struct {
	Bench string // the benchmark: grid, clicks, import, ...
	Case  string
	Count int // the calls, clicks or edits the percentiles are taken over

	Time          time.Duration // a case timed once: an import, an export, a reconciliation run
	P50, P95, Max time.Duration

	Throughput float64
	Unit       string // of Throughput: rows/s, matches/s, calls/s

	PeakMB float64 // peak memory in MiB, of what Memory says
	Memory string  // MemoryBench, MemoryRun or MemoryServer

	FloorRatio float64 // the case over its floor
	Floor      string  // what FloorRatio divides by

	Target string // as the benchmark states it, for the full sizes
	Met    *bool  // nil: no target, or not judged
	Note   string // what the row cannot hold (the slowest click's name, ...)
}

// What a Figure's PeakMB measures.
const (
	// MemoryBench is the benchmark process's Go heap (HeapInuse +
	// StackInuse), the peak over the whole benchmark (filled in by All).
	MemoryBench = "bench heap"
	// MemoryRun is the same heap over the case's own run (bench export
	// measures it per run).
	MemoryRun = "run heap"
	// MemoryServer is the resident memory of the server process the load
	// benchmark starts (VmRSS).
	MemoryServer = "server rss"
)

// met is a judged target.
func met(ok bool) *bool { return &ok }

// atMost judges a ratio against its limit; a ratio not measured is not judged.
func atMost(r, limit float64) *bool {
	if r == 0 {
		return nil
	}
	return met(r <= limit)
}

// allMet is two judgements of one target: met when both are.
func allMet(a, b *bool) *bool {
	if a == nil || b == nil {
		return nil
	}
	return met(*a && *b)
}

// ratioOf is a over b (0 when b was not measured).
func ratioOf(a, b time.Duration) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// perSecond is n over d (0 when d is).
func perSecond(n int, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

// BenchRun is one benchmark of a `bench all` run.
type BenchRun struct {
	Bench  string
	Took   time.Duration
	PeakMB float64 // the benchmark process's Go heap over the run (MemoryBench)
	Err    error
}

// Summary collects the Figures of the benchmarks `bench all` runs. The
// benchmarks find it in their context (record), so that each keeps its
// signature and its own output.
type Summary struct {
	Scale   int
	Sizes   Sizes
	Took    time.Duration
	Benches []BenchRun

	mu      sync.Mutex
	Figures []Figure
}

type summaryKey struct{}

func withSummary(ctx context.Context, s *Summary) context.Context {
	return context.WithValue(ctx, summaryKey{}, s)
}

// record adds f to the summary of the run, when there is one (the
// benchmarks run alone record nothing).
func record(ctx context.Context, f Figure) {
	if s, _ := ctx.Value(summaryKey{}).(*Summary); s != nil {
		s.mu.Lock()
		s.Figures = append(s.Figures, f)
		s.mu.Unlock()
	}
}

// run runs one benchmark, samples the Go heap meanwhile and gives that
// peak to the benchmark's figures that measured no memory of their own.
func (s *Summary) run(name string, fn func() error) {
	s.mu.Lock()
	first := len(s.Figures)
	s.mu.Unlock()
	runtime.GC() // what the benchmark before left is not this one's
	stop := sampleHeap(10 * time.Millisecond)
	start := time.Now()
	err := fn()
	took := time.Since(start)
	peak := mib(stop())
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := first; i < len(s.Figures); i++ {
		if f := &s.Figures[i]; f.PeakMB == 0 {
			f.PeakMB, f.Memory = peak, MemoryBench
		}
	}
	s.Benches = append(s.Benches, BenchRun{Bench: name, Took: took, PeakMB: peak, Err: err})
}

// Err names the benchmarks that failed, or is nil.
func (s *Summary) Err() error {
	var failed []string
	for _, b := range s.Benches {
		if b.Err != nil {
			failed = append(failed, b.Bench)
		}
	}
	if len(failed) == 0 {
		return nil
	}
	return fmt.Errorf("bench all: %d of %d benchmarks failed: %s", len(failed), len(s.Benches), strings.Join(failed, ", "))
}

// sampleHeap samples the Go heap in use (HeapInuse + StackInuse, what bench
// export has always reported) every interval until stop, which returns the
// peak in bytes. It reads runtime/metrics, which, unlike
// runtime.ReadMemStats, does not stop the world: the sampling does not show
// in the latencies measured meanwhile.
func sampleHeap(every time.Duration) (stop func() uint64) {
	samples := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/unused:bytes"},
		{Name: "/memory/classes/heap/stacks:bytes"}}
	var top uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			metrics.Read(samples)
			var v uint64
			for _, s := range samples {
				v += s.Value.Uint64()
			}
			top = max(top, v)
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		wg.Wait()
		return top
	}
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

// WriteTable prints the figures as one table, then what the table's
// columns cannot say: notes, the floors, the memory and the failures.
func (s *Summary) WriteTable(w io.Writer) {
	fmt.Fprintf(w, "bench all, scale %d (%s), %s\n\n", s.Scale, s.Sizes, s.Took.Round(time.Second))
	var rows [][]string
	for _, f := range s.Figures {
		count := "-"
		if f.Count > 0 {
			count = strconv.Itoa(f.Count)
		}
		rows = append(rows, []string{f.Bench, f.Case, count, timeCell(f.Time), msCell(f.P50), msCell(f.P95), msCell(f.Max),
			throughputCell(f.Throughput, f.Unit), memoryCell(f.PeakMB, f.Memory), ratioCell(f.FloorRatio), orDash(f.Target), metCell(f.Met)})
	}
	table(w, []string{"bench", "case", "n", "time", "p50", "p95", "max", "throughput", "peak MB", "vs floor", "target", "met"}, rows)

	var notes []string
	for _, f := range s.Figures {
		if f.Note != "" {
			notes = append(notes, fmt.Sprintf("  %s, %s: %s", f.Bench, f.Case, f.Note))
		}
	}
	if len(notes) > 0 {
		fmt.Fprintf(w, "\nnotes:\n%s\n", strings.Join(notes, "\n"))
	}
	fmt.Fprintln(w, "\nvs floor: the case over its floor, run in the same process and database:")
	seen := map[string]bool{}
	for _, f := range s.Figures {
		if key := f.Bench + "\x00" + f.Floor; f.Floor != "" && !seen[key] {
			seen[key] = true
			fmt.Fprintf(w, "  %s: %s\n", f.Bench, f.Floor)
		}
	}
	fmt.Fprintln(w, "peak MB: the benchmark process's Go heap in use (HeapInuse + StackInuse) over the whole benchmark;")
	fmt.Fprintln(w, "  export: over the case's own run (\"run\"); load: the server process's resident memory (\"rss\").")
	if s.Scale < FullScale {
		fmt.Fprintf(w, "targets are stated for the full sizes (--scale %d); at scale %d, met says only whether this run's figure is within it.\n", FullScale, s.Scale)
	}
	var took []string
	for _, b := range s.Benches {
		took = append(took, fmt.Sprintf("%s %s", b.Bench, b.Took.Round(time.Second)))
	}
	fmt.Fprintf(w, "took: %s\n", strings.Join(took, ", "))
	for _, b := range s.Benches {
		if b.Err != nil {
			fmt.Fprintf(w, "FAILED: %s: %v\n", b.Bench, b.Err)
		}
	}
}

// The JSON document of a summary (README, "Performance"): durations in
// milliseconds, what was not measured left out.
type summaryJSON struct {
	Scale    int          `json:"scale"`
	FullSize bool         `json:"full_size"`
	Sizes    Sizes        `json:"sizes"`
	TookS    float64      `json:"took_s"`
	Benches  []benchJSON  `json:"benches"`
	Figures  []figureJSON `json:"figures"`
}

type benchJSON struct {
	Bench      string  `json:"bench"`
	TookS      float64 `json:"took_s"`
	PeakHeapMB float64 `json:"peak_heap_mb"`
	Error      string  `json:"error,omitempty"`
}

type figureJSON struct {
	Bench      string  `json:"bench"`
	Case       string  `json:"case"`
	Count      int     `json:"count,omitempty"`
	TimeMS     float64 `json:"time_ms,omitempty"`
	P50MS      float64 `json:"p50_ms,omitempty"`
	P95MS      float64 `json:"p95_ms,omitempty"`
	MaxMS      float64 `json:"max_ms,omitempty"`
	Throughput float64 `json:"throughput,omitempty"`
	Unit       string  `json:"unit,omitempty"`
	PeakMB     float64 `json:"peak_memory_mb,omitempty"`
	Memory     string  `json:"memory_of,omitempty"`
	FloorRatio float64 `json:"floor_ratio,omitempty"`
	Floor      string  `json:"floor,omitempty"`
	Target     string  `json:"target,omitempty"`
	Met        *bool   `json:"met,omitempty"`
	Note       string  `json:"note,omitempty"`
}

// WriteJSON prints the summary as one JSON document.
func (s *Summary) WriteJSON(w io.Writer) error {
	doc := summaryJSON{Scale: s.Scale, FullSize: s.Scale >= FullScale, Sizes: s.Sizes, TookS: round(s.Took.Seconds(), 1),
		Benches: []benchJSON{}, Figures: []figureJSON{}}
	for _, b := range s.Benches {
		j := benchJSON{Bench: b.Bench, TookS: round(b.Took.Seconds(), 1), PeakHeapMB: round(b.PeakMB, 1)}
		if b.Err != nil {
			j.Error = b.Err.Error()
		}
		doc.Benches = append(doc.Benches, j)
	}
	msOf := func(d time.Duration) float64 { return round(float64(d.Microseconds())/1000, 3) }
	for _, f := range s.Figures {
		doc.Figures = append(doc.Figures, figureJSON{Bench: f.Bench, Case: f.Case, Count: f.Count, TimeMS: msOf(f.Time),
			P50MS: msOf(f.P50), P95MS: msOf(f.P95), MaxMS: msOf(f.Max), Throughput: round(f.Throughput, 1), Unit: f.Unit,
			PeakMB: round(f.PeakMB, 1), Memory: f.Memory, FloorRatio: round(f.FloorRatio, 3), Floor: f.Floor,
			Target: f.Target, Met: f.Met, Note: f.Note})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

func round(v float64, decimals int) float64 {
	p := math.Pow(10, float64(decimals))
	return math.Round(v*p) / p
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func msCell(d time.Duration) string {
	if d == 0 {
		return "-"
	}
	return ms(d)
}

func timeCell(d time.Duration) string {
	if d == 0 {
		return "-"
	}
	return seconds(d)
}

func ratioCell(r float64) string {
	if r == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx", r)
}

func metCell(m *bool) string {
	switch {
	case m == nil:
		return "-"
	case *m:
		return "yes"
	}
	return "no"
}

func throughputCell(v float64, unit string) string {
	if v == 0 {
		return "-"
	}
	n := fmt.Sprintf("%.1f", v)
	if v >= 100 {
		n = thousands(int64(math.Round(v)))
	}
	if unit == "" {
		return n
	}
	return n + " " + unit
}

func memoryCell(mb float64, of string) string {
	if mb == 0 {
		return "-"
	}
	cell := fmt.Sprintf("%.0f", mb)
	switch of {
	case MemoryRun:
		cell += " run"
	case MemoryServer:
		cell += " rss"
	}
	return cell
}

// thousands writes n with a comma between each group of three digits.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
