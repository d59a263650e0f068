package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"math/rand/v2"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"ledgerdesk/engine"
	"ledgerdesk/internal/demo"
	"ledgerdesk/screens/identity"
	"ledgerdesk/screens/imports"
	"ledgerdesk/server"
)

// LoadDatabase holds the load benchmark's demo data and users.
const LoadDatabase = "ledgerdesk_bench_load"

// LoadOptions size the load benchmark.
type LoadOptions struct {
	Users    int           // concurrent users, each signed in as itself (50)
	Duration time.Duration // how long they work (2 minutes)
	Scale    int           // demo scale: about 1,000 tickets a unit (with their documents)
	Database string        // "" is LoadDatabase
	// Binary is the ledgerdesk binary to serve: the benchmark runs it as
	// deployed, in a process of its own, so its memory is its own.
	Binary string
}

// loadPassword is every benchmark user's password.
const loadPassword = "Bench#Load2026"

// call is one kind of request the users make.
type call struct {
	name   string
	weight int
	do     func(ctx context.Context, u *loadUser) (status int, err error)
}

type loadUser struct {
	base, token string
	client      *http.Client
	rnd         *rand.Rand
	n           int // calls made
}

func (u *loadUser) send(ctx context.Context, method, path, contentType string, body io.Reader) (int, error) {
	req, _ := http.NewRequestWithContext(ctx, method, u.base+path, body)
	req.Header.Set("Authorization", "Bearer "+u.token)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	res, err := u.client.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	answer, err := io.ReadAll(res.Body)
	if err == nil && res.StatusCode >= 400 {
		err = fmt.Errorf("%s %s: %d %.200s", method, path, res.StatusCode, answer)
	}
	return res.StatusCode, err
}

func (u *loadUser) postJSON(ctx context.Context, path string, body any) (int, error) {
	b, _ := json.Marshal(body)
	return u.send(ctx, "POST", path, "application/json", bytes.NewReader(b))
}

// Load runs the realistic mix of DESIGN.md section 7 against the real
// server: Users users at once for Duration, over the demo data, each call
// chosen by weight: grid pages of every view (a sort or a filter now and
// then), exports, the reconciliation reports, Home, the bank overview, the
// tasks, an import, an automatic run. It prints p50 and p95 per call,
// the errors (a 429, 409 or 503 that says to wait is a refusal by a bound,
// counted apart) and the server's memory through the run.
func Load(ctx context.Context, dbURL string, cfg server.Config, o LoadOptions, meta fs.FS, out io.Writer) error {
	name := o.Database
	if name == "" {
		// A run adds imports and matches: each starts from the demo data
		// alone, so that runs compare.
		name = LoadDatabase
		if err := dropDatabase(ctx, dbURL, name); err != nil {
			return err
		}
	}
	pool, benchURL, err := OpenNamed(ctx, dbURL, name, cfg, out)
	if err != nil {
		return err
	}
	defer pool.Close()
	md, err := engine.LoadMetadata(meta)
	if err != nil {
		return err
	}
	set, err := seedLoad(ctx, pool, meta, o.Scale, out)
	if err != nil {
		return err
	}
	base, pid, stop, err := serveBinary(ctx, o.Binary, benchURL)
	if err != nil {
		return err
	}
	defer stop()
	if err := ensureLoadUsers(ctx, pool, o.Users); err != nil { // once serve has made the Administrator role
		return err
	}

	from, to := set.Options.Start, set.Options.Start.AddDate(0, 0, 30)
	month := from.Format("2006-01")
	dates := map[string]string{"fromDate": from.Format("2006-01-02"), "toDate": to.Format("2006-01-02")}
	var grids []*engine.View
	for _, n := range sortedViewNames(md) {
		grids = append(grids, md.Views[n])
	}
	var imported sync.Mutex
	imports := 0
	run := time.Now().Unix() % 100000 // the files of each run are new to the database
	calls := []call{
		{"grid page", 50, func(ctx context.Context, u *loadUser) (int, error) {
			v := grids[u.rnd.IntN(len(grids))]
			r := engine.GridRequest{ViewName: v.Name, PageSize: 100}
			if len(v.Params) > 0 {
				r.Params = map[string]any{}
				for _, p := range v.Params {
					if d, ok := dates[p.Name]; ok {
						r.Params[p.Name] = d
					}
				}
			}
			var sortable []*engine.Column
			for _, c := range v.Columns {
				if !c.Hidden && c.IsSortable() {
					sortable = append(sortable, c)
				}
			}
			if len(sortable) > 0 && u.rnd.IntN(3) == 0 {
				c := sortable[u.rnd.IntN(len(sortable))]
				r.SortField, r.SortOrder = c.Field, []string{"asc", "desc"}[u.rnd.IntN(2)]
			}
			if u.rnd.IntN(4) == 0 {
				r.PageNumber = 100
			}
			return u.postJSON(ctx, "/api/grid", r)
		}},
		{"reconcile report", 12, func(ctx context.Context, u *loadUser) (int, error) {
			level := []string{"ticket-transaction", "transaction-settlement", "settlement-bank"}[u.rnd.IntN(3)]
			return u.postJSON(ctx, "/api/recon/"+level+"/report", map[string]any{"fromDate": dates["fromDate"], "toDate": dates["toDate"], "PageSize": 100})
		}},
		{"home", 10, func(ctx context.Context, u *loadUser) (int, error) {
			return u.send(ctx, "GET", "/api/home?month="+month, "", nil)
		}},
		{"bank overview", 8, func(ctx context.Context, u *loadUser) (int, error) {
			g := []string{"Month", "Week", "Day", "Quarter"}[u.rnd.IntN(4)]
			return u.postJSON(ctx, "/api/reports/bank-overview", map[string]any{"dateGroupingType": g})
		}},
		{"tasks", 8, func(ctx context.Context, u *loadUser) (int, error) {
			return u.send(ctx, "GET", "/api/TaskTT/paged?page=1&pageSize=50", "", nil)
		}},
		{"export (CSV)", 5, func(ctx context.Context, u *loadUser) (int, error) {
			v := []string{"VW_BankFinal", "VW_TransactionExtractionLog", "VW_CurrencyExchangeRate"}[u.rnd.IntN(3)]
			return u.postJSON(ctx, "/api/grid/export", map[string]any{"ViewName": v, "Format": "csv"})
		}},
		{"import (200 transactions)", 2, func(ctx context.Context, u *loadUser) (int, error) {
			imported.Lock()
			imports++
			n := imports
			imported.Unlock()
			var body bytes.Buffer
			mw := multipart.NewWriter(&body)
			mw.WriteField("kind", "transaction")
			fw, _ := mw.CreateFormFile("file", fmt.Sprintf("load-%d.csv", n))
			fmt.Fprintln(fw, "ClientUniqueID,ProcessingDate,ProviderActor,AcquiringBank,PaymentMethod,Currency,TransactionAmount,TransactionType")
			for i := range 200 {
				fmt.Fprintf(fw, "9%05d%04d%04d,%s,Amex,Acquirer,Visa,EUR,%d.%02d,Sale\n", run, n, i, dates["fromDate"], 10+i, i%100)
			}
			mw.Close()
			return u.send(ctx, "POST", "/api/imports", mw.FormDataContentType(), &body)
		}},
		{"automatic run", 1, func(ctx context.Context, u *loadUser) (int, error) {
			level := []string{"ticket-transaction", "transaction-settlement", "settlement-bank"}[u.rnd.IntN(3)]
			return u.postJSON(ctx, "/api/recon/"+level+"/auto", map[string]any{})
		}},
	}
	total := 0
	for _, c := range calls {
		total += c.weight
	}

	users := make([]*loadUser, o.Users)
	for i := range users {
		token, err := signIn(ctx, base, fmt.Sprintf("load%03d", i))
		if err != nil {
			return err
		}
		users[i] = &loadUser{base: base, token: token, client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}},
			rnd: rand.New(rand.NewPCG(uint64(i), 7))}
	}

	type stat struct {
		took             []time.Duration
		errors, refusals int
		firstErr         error
		firstRefusal     error
	}
	stats := make([]stat, len(calls))
	var mu sync.Mutex
	var memory []int64 // the server's resident memory, a sample a second
	sampled := make(chan struct{})
	runCtx, cancel := context.WithTimeout(ctx, o.Duration)
	defer cancel()
	go func() {
		defer close(sampled)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			if kb, err := residentKB(pid); err == nil {
				memory = append(memory, kb)
			}
			select {
			case <-runCtx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	fmt.Fprintf(out, "\nload: %d users for %s over the demo data (scale %d), the real server in its own process\n\n", o.Users, o.Duration, o.Scale)
	var wg sync.WaitGroup
	for _, u := range users {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for runCtx.Err() == nil {
				pick := u.rnd.IntN(total)
				i := 0
				for pick >= calls[i].weight {
					pick -= calls[i].weight
					i++
				}
				start := time.Now()
				status, err := calls[i].do(runCtx, u)
				took := time.Since(start)
				if runCtx.Err() != nil {
					return // cut by the end of the run, not an answer
				}
				mu.Lock()
				s := &stats[i]
				s.took = append(s.took, took)
				switch {
				case status == 429 || status == 409 || status == 503: // a bound saying to wait
					s.refusals++
					if s.firstRefusal == nil {
						s.firstRefusal = err
					}
				case err != nil:
					s.errors++
					if s.firstErr == nil {
						s.firstErr = err
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	<-sampled

	var rows [][]string
	var figures []Figure
	var all, errs, refusals int
	var firstErr error
	for i, c := range calls {
		s := stats[i]
		all += len(s.took)
		errs += s.errors
		refusals += s.refusals
		if firstErr == nil {
			firstErr = s.firstErr
		}
		rows = append(rows, []string{c.name, strconv.Itoa(len(s.took)), ms(percentile(s.took, 50)), ms(percentile(s.took, 95)),
			ms(percentile(s.took, 100)), strconv.Itoa(s.errors), strconv.Itoa(s.refusals)})
		f := Figure{Bench: "load", Case: c.name, Count: len(s.took), P50: percentile(s.took, 50), P95: percentile(s.took, 95),
			Max: percentile(s.took, 100)}
		if s.errors > 0 || s.refusals > 0 {
			f.Note = fmt.Sprintf("%d errors, %d refused by a bound", s.errors, s.refusals)
		}
		figures = append(figures, f)
	}
	figures = append(figures, Figure{Bench: "load", Case: fmt.Sprintf("all calls, %d users for %s", o.Users, o.Duration), Count: all,
		Throughput: perSecond(all, o.Duration), Unit: "calls/s", Target: "0 errors", Met: met(errs == 0),
		Note: fmt.Sprintf("%d errors, %d refused by a bound", errs, refusals)})
	// The server's memory is the one that matters here: every row carries its peak.
	var peakKB int64
	for _, m := range memory {
		peakKB = max(peakKB, m)
	}
	for _, f := range figures {
		if peakKB > 0 {
			f.PeakMB, f.Memory = float64(peakKB)/1024, MemoryServer
		}
		record(ctx, f)
	}
	table(out, []string{"call", "calls", "p50", "p95", "max", "errors", "refused by a bound"}, rows)
	fmt.Fprintf(out, "\n%d calls, %.0f a second, %d errors\n", all, float64(all)/o.Duration.Seconds(), errs)
	if firstErr != nil {
		fmt.Fprintf(out, "first error: %v\n", firstErr)
	}
	for i, c := range calls {
		if r := stats[i].firstRefusal; r != nil {
			fmt.Fprintf(out, "refused, %s, for example: %v\n", c.name, r)
		}
	}
	if len(memory) > 2 {
		peak := memory[0]
		for _, m := range memory {
			peak = max(peak, m)
		}
		third := len(memory) / 3
		avg := func(ms []int64) int64 {
			var sum int64
			for _, m := range ms {
				sum += m
			}
			return sum / int64(len(ms))
		}
		fmt.Fprintf(out, "server memory (resident): first third %d MB, last third %d MB, peak %d MB\n",
			avg(memory[:max(third, 1)])>>10, avg(memory[len(memory)-max(third, 1):])>>10, peak>>10)
	}
	fmt.Fprintln(out, "targets (issue: load): 0 errors, memory flat, p95 per call as above.")
	if errs > 0 {
		return fmt.Errorf("load: %d errors, the first: %w", errs, firstErr)
	}
	return nil
}

func dropDatabase(ctx context.Context, dbURL, name string) error {
	admin, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return err
	}
	defer admin.Close(ctx)
	_, err = admin.Exec(ctx, "drop database if exists "+pgx.Identifier{name}.Sanitize()+" with (force)")
	return err
}

func sortedViewNames(md *engine.Metadata) []string {
	var names []string
	for n := range md.Views {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// seedLoad loads the demo data at the scale unless the database has it.
func seedLoad(ctx context.Context, pool *pgxpool.Pool, meta fs.FS, scale int, out io.Writer) (*demo.Set, error) {
	set := demo.Generate(demo.Options{Seed: 1, Scale: scale})
	var n int
	if err := pool.QueryRow(ctx, `select count(*) from import_file`).Scan(&n); err != nil {
		return nil, err
	}
	if n > 0 {
		return set, nil
	}
	fmt.Fprintf(out, "loading the demo data at scale %d ...\n", scale)
	dir, err := os.MkdirTemp("", "ledgerdesk-load-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	files, err := demo.WriteFiles(set, dir)
	if err != nil {
		return nil, err
	}
	layouts, err := imports.LoadDescriptors(meta)
	if err != nil {
		return nil, err
	}
	importer := imports.NewService(pool, layouts, 1<<30, slog.New(slog.NewTextHandler(io.Discard, nil)))
	importer.SetDateWindow(100, 10)
	if _, err := demo.Load(engine.WithActor(ctx, &engine.Actor{Username: "bench"}), pool, set, files, importer); err != nil {
		return nil, err
	}
	return set, nil
}

// ensureLoadUsers makes users load000.. with the Administrator role.
func ensureLoadUsers(ctx context.Context, pool *pgxpool.Pool, n int) error {
	hash, err := identity.HashPassword(loadPassword)
	if err != nil {
		return err
	}
	if _, err := pool.Exec(ctx, `insert into app_user (username, first_name, last_name, email, password_hash)
		select 'load' || lpad(i::text, 3, '0'), 'Load', 'User ' || i, 'load' || i || '@bench.local', $2
		from generate_series(0, $1 - 1) i
		on conflict do nothing`, n, hash); err != nil {
		return err
	}
	_, err = pool.Exec(ctx, `insert into user_role (user_id, role_id)
		select u.id, r.id from app_user u, role r where u.username like 'load%' and r.is_admin
		on conflict do nothing`)
	return err
}

// serveBinary starts `bin serve` on the database and waits until it
// answers; stop ends it.
func serveBinary(ctx context.Context, bin, dbURL string) (base string, pid int, stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", 0, nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	dataDir, err := os.MkdirTemp("", "ledgerdesk-load-data-")
	if err != nil {
		return "", 0, nil, err
	}
	cmd := exec.CommandContext(ctx, bin, "serve")
	cmd.Env = append(os.Environ(), "DATABASE_URL="+dbURL, "LISTEN_ADDR="+addr, "DATA_DIR="+dataDir,
		"LEDGERDESK_ADMIN_PASSWORD="+loadPassword, "LOG_LEVEL=error")
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		return "", 0, nil, err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stop = func() {
		cmd.Process.Kill()
		<-exited
		os.RemoveAll(dataDir)
	}
	base = "http://" + addr
	deadline := time.Now().Add(2 * time.Minute)
	for {
		res, err := http.Get(base + "/api/health")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return base, cmd.Process.Pid, stop, nil
			}
		}
		select {
		case err := <-exited:
			return "", 0, nil, fmt.Errorf("the server ended: %v\n%s", err, logs.String())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			stop()
			return "", 0, nil, errors.New("the server did not answer within 2 minutes:\n" + logs.String())
		}
	}
}

func signIn(ctx context.Context, base, user string) (string, error) {
	body, _ := json.Marshal(map[string]string{"username": user, "password": loadPassword})
	req, _ := http.NewRequestWithContext(ctx, "POST", base+"/api/auth/login", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	var env struct {
		Data struct {
			Token string `json:"token"`
		} `json:"data"`
	}
	if err := json.NewDecoder(res.Body).Decode(&env); err != nil || env.Data.Token == "" {
		return "", fmt.Errorf("sign in %s: %d %v", user, res.StatusCode, err)
	}
	return env.Data.Token, nil
}

// residentKB is a process's resident memory (VmRSS) in KiB.
func residentKB(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		}
	}
	return 0, errors.New("no VmRSS")
}
