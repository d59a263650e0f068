//go:build e2e

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// BenchmarkUI measures the UI targets of DESIGN.md section 7 in Chromium
// against the real binary: the initial JavaScript (gzipped), and the time
// to the first screen on localhost (sign-in form, then the home screen
// after signing in), the median of several cold loads. It reports; it does
// not assert (targets are met in benchmarks, not timed tests). Run it with
// `go tool task bench:ui`.
func BenchmarkUI(b *testing.B) {
	p := startProduct(b)
	for i := 0; i < b.N; i++ {
		node := exec.Command("node", filepath.Join(p.root, "ui", "e2e", "ui.bench.mjs"))
		node.Dir = filepath.Join(p.root, "ui")
		node.Env = append(os.Environ(), "BASE_URL="+p.baseURL, "ADMIN_PASSWORD="+adminPassword)
		out, err := node.CombinedOutput()
		b.Logf("\n%s", out)
		if err != nil {
			b.Fatalf("ui.bench.mjs: %v", err)
		}
	}
}
