package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"ledgerdesk/engine"
)

// PostGraphileDir is where `go tool task bench:postgraphile` installs
// PostGraphile 4 and its connection-filter plugin (git-ignored).
const PostGraphileDir = ".bench/postgraphile"

// postGraphile is PostGraphile 4 serving the benchmark database: the second
// floor of the grid target (DESIGN.md section 7).
type postGraphile struct {
	cmd *exec.Cmd
	url string
}

// findPostGraphile returns the PostGraphile command (POSTGRAPHILE, else the
// one under PostGraphileDir), or "" when it is not installed.
func findPostGraphile() string {
	if p := os.Getenv("POSTGRAPHILE"); p != "" {
		return p
	}
	p := filepath.Join(PostGraphileDir, "node_modules", ".bin", "postgraphile")
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	abs, _ := filepath.Abs(p)
	return abs
}

// startPostGraphile runs bin over dbURL on a free loopback port with the
// connection-filter plugin (for "contains") and waits until it answers.
func startPostGraphile(ctx context.Context, bin, dbURL string, poolSize int) (*postGraphile, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := fmt.Sprint(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	cmd := exec.Command(bin, "-c", dbURL, "--schema", "public", "--host", "127.0.0.1", "--port", port,
		"--append-plugins", "postgraphile-plugin-connection-filter", "--disable-default-mutations",
		"--disable-query-log", "--max-pool-size", fmt.Sprint(poolSize))
	// The plugin is resolved from the install directory's node_modules.
	cmd.Dir = filepath.Dir(filepath.Dir(filepath.Dir(bin)))
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start PostGraphile: %w", err)
	}
	p := &postGraphile{cmd: cmd, url: "http://127.0.0.1:" + port + "/graphql"}
	deadline := time.Now().Add(60 * time.Second)
	for {
		res, err := http.Post(p.url, "application/json", strings.NewReader(`{"query":"{__typename}"}`))
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return p, nil
			}
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			p.stop()
			return nil, fmt.Errorf("PostGraphile did not start: %.500s", logs.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func (p *postGraphile) stop() {
	syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM)
	p.cmd.Wait()
}

// graphQL is the GraphQL request of a grid case: the same columns, filter,
// order (key last, as the engine adds it), offset and total.
func graphQL(v *engine.View, args string) string {
	fields := make([]string, len(v.Columns))
	for i, c := range v.Columns {
		fields[i] = camel(c.Column)
	}
	q := fmt.Sprintf("{ allBankBookings(%s) { totalCount nodes { %s } } }", args, strings.Join(fields, " "))
	body, _ := json.Marshal(map[string]string{"query": q})
	return string(body)
}

// camel is PostGraphile's field name of a column (bank_account: bankAccount).
func camel(column string) string {
	parts := strings.Split(column, "_")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}

// query posts one GraphQL request and checks it answered rows, not errors.
func (p *postGraphile) query(ctx context.Context, client *http.Client, body string) (time.Duration, error) {
	start := time.Now()
	req, _ := http.NewRequestWithContext(ctx, "POST", p.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	res, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	answer, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err == nil && (!bytes.HasPrefix(answer, []byte(`{"data":{"allBankBookings":{`)) || bytes.Contains(answer, []byte(`"errors"`))) {
		err = errors.New("PostGraphile: " + string(answer[:min(len(answer), 300)]))
	}
	return time.Since(start), err
}
