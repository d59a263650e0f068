package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/xuri/excelize/v2"

	"ledgerdesk/engine"
	"ledgerdesk/server"
)

// exportColumns is the 50-column layout of the export benchmark: the mix of
// types a bank-final export has.
func exportColumns() []*engine.Column {
	cols := []*engine.Column{{Field: "Id", Column: "id", Type: "int"}}
	add := func(n int, prefix, typ string, scale int) {
		for i := 1; i <= n; i++ {
			name := fmt.Sprintf("%s%02d", prefix, i)
			cols = append(cols, &engine.Column{Field: name, Column: name, Type: typ, Scale: scale})
		}
	}
	add(15, "txt", "text", 0)
	add(15, "amt", "decimal", 2)
	add(8, "num", "int", 0)
	add(8, "day", "date", 0)
	add(3, "ts", "datetime", 0)
	return cols
}

func seedExport(ctx context.Context, pool *pgxpool.Pool, rows int, out io.Writer) error {
	var have int
	if err := pool.QueryRow(ctx, `select count(*) from bench_export`).Scan(&have); err == nil && have == rows {
		return nil
	}
	fmt.Fprintf(out, "generating the %d-row, 50-column export table ...\n", rows)
	ddl := "drop table if exists bench_export; create table bench_export (id bigint primary key"
	sel := "select i"
	for _, c := range exportColumns()[1:] {
		switch c.Type {
		case "text":
			ddl += ", " + c.Column + " text"
			sel += ", 'Text ' || md5(i::text || '" + c.Column + "')"
		case "decimal":
			ddl += ", " + c.Column + " numeric(20,2)"
			sel += ", round((random() * 100000 - 20000)::numeric, 2)"
		case "int":
			ddl += ", " + c.Column + " integer"
			sel += ", (i * 7) % 100000"
		case "date":
			ddl += ", " + c.Column + " date"
			sel += ", date '2024-01-01' + (i % 1000)"
		case "datetime":
			ddl += ", " + c.Column + " timestamptz"
			sel += ", timestamptz '2024-01-01' + make_interval(secs => i)"
		}
	}
	ddl += ")"
	if _, err := pool.Exec(ctx, ddl); err != nil {
		return err
	}
	_, err := pool.Exec(ctx, "insert into bench_export "+sel+" from generate_series(1, $1) i", rows)
	return err
}

// peak samples the Go heap while fn runs and returns fn's time and the peak.
func peak(fn func() error) (time.Duration, uint64, error) {
	runtime.GC()
	stop := sampleHeap(5 * time.Millisecond)
	start := time.Now()
	err := fn()
	d := time.Since(start)
	return d, stop(), err
}

// Export runs the export benchmark: the engine's XLSX and CSV export of the
// table against a bare excelize StreamWriter over the same rows.
func Export(ctx context.Context, dbURL string, cfg server.Config, rows int, out io.Writer) error {
	pool, _, err := Open(ctx, dbURL, cfg, out)
	if err != nil {
		return err
	}
	defer pool.Close()
	if err := seedExport(ctx, pool, rows, out); err != nil {
		return err
	}
	md := &engine.Metadata{Views: map[string]*engine.View{"VW_BenchExport": {
		Name: "VW_BenchExport", Source: "bench_export", Key: "Id", Screen: 7, Export: "Bench",
		DefaultSort: engine.SortSpec{Field: "Id", Order: "asc"}, Columns: exportColumns(),
	}}, Forms: map[string]*engine.Form{}, Screens: map[string]*engine.Screen{}}
	if err := engine.Validate(ctx, pool, md); err != nil {
		return err
	}
	eng := engine.New(engine.Options{Pool: pool, Metadata: md})
	actor := engine.WithActor(ctx, &engine.Actor{Username: "bench", Screens: map[int]bool{7: true}})

	export := func(format string) (time.Duration, uint64, error) {
		x, err := eng.PrepareExport(actor, engine.ExportRequest{GridRequest: engine.GridRequest{ViewName: "VW_BenchExport"}, Format: format}, "DD-MM-YYYY HH:mm:ss")
		if err != nil {
			return 0, 0, err
		}
		return peak(func() error { return x.WriteTo(actor, io.Discard) })
	}
	bare := func() (time.Duration, uint64, error) {
		return peak(func() error { return bareXLSX(ctx, pool, io.Discard) })
	}

	bareT, bareM, err := bare()
	if err != nil {
		return err
	}
	stopProfile := func() {}
	if path := os.Getenv("BENCH_CPUPROFILE"); path != "" { // where the XLSX export's own time goes
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		pprof.StartCPUProfile(f)
		stopProfile = func() { pprof.StopCPUProfile(); f.Close() }
	}
	xT, xM, err := export("xlsx")
	stopProfile()
	if err != nil {
		return err
	}
	cT, cM, err := export("csv")
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "\nexport of %d rows x 50 columns\n\n", rows)
	mb := func(b uint64) string { return fmt.Sprintf("%.0f MB", float64(b)/(1<<20)) }
	table(out, []string{"run", "time", "peak Go memory", "vs bare"}, [][]string{
		{"bare excelize StreamWriter", bareT.Round(time.Millisecond).String(), mb(bareM), "1.00x"},
		{"engine XLSX export", xT.Round(time.Millisecond).String(), mb(xM), ratio(xT, bareT)},
		{"engine CSV export", cT.Round(time.Millisecond).String(), mb(cM), "-"},
	})
	fmt.Fprintln(out, "\ntargets (DESIGN.md 7): XLSX at most 1.3x the bare writer, peak memory under 250 MB; CSV at most 3 s.")
	xlsx := Figure{Bench: "export", Case: fmt.Sprintf("XLSX, %s rows x 50 columns", thousands(int64(rows))), Time: xT,
		Throughput: perSecond(rows, xT), Unit: "rows/s", PeakMB: mib(xM), Memory: MemoryRun,
		FloorRatio: ratioOf(xT, bareT), Floor: "a bare excelize StreamWriter over the same rows", Target: "<= 1.3x bare, < 250 MB"}
	xlsx.Met = allMet(atMost(xlsx.FloorRatio, 1.3), met(mib(xM) < 250))
	record(ctx, xlsx)
	record(ctx, Figure{Bench: "export", Case: fmt.Sprintf("CSV, %s rows x 50 columns", thousands(int64(rows))), Time: cT,
		Throughput: perSecond(rows, cT), Unit: "rows/s", PeakMB: mib(cM), Memory: MemoryRun, Target: "< 3 s", Met: met(cT < 3*time.Second)})
	return nil
}

// bareXLSX writes the same rows with no engine: typed values straight from
// pgx into a StreamWriter, the floor the export is measured against.
func bareXLSX(ctx context.Context, pool *pgxpool.Pool, w io.Writer) error {
	f := excelize.NewFile()
	defer f.Close()
	sw, err := f.NewStreamWriter("Sheet1")
	if err != nil {
		return err
	}
	cols := exportColumns()
	header := make([]any, len(cols))
	for i, c := range cols {
		header[i] = c.Field
	}
	sw.SetRow("A1", header)
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, "select * from bench_export order by id")
		if err != nil {
			return err
		}
		defer rows.Close()
		r := 2
		for rows.Next() {
			vals, err := rows.Values()
			if err != nil {
				return err
			}
			cells := make([]any, len(vals))
			for i, v := range vals {
				if n, ok := v.(pgtype.Numeric); ok {
					fl, _ := n.Float64Value()
					cells[i] = fl.Float64
				} else {
					cells[i] = v
				}
			}
			cell, _ := excelize.CoordinatesToCellName(1, r)
			if err := sw.SetRow(cell, cells); err != nil {
				return err
			}
			r++
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if err := sw.Flush(); err != nil {
			return err
		}
		return f.Write(w)
	})
}
