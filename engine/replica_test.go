package engine

import "testing"

// A WAL position reads as PostgreSQL writes it and orders as the log does;
// anything else is refused (it comes from a cookie).
func TestParseLSN(t *testing.T) {
	a, ok := ParseLSN("16/B374D848")
	if !ok || a != LSN(0x16<<32|0xB374D848) || a.String() != "16/B374D848" {
		t.Fatalf("16/B374D848 read as %v (%v)", a, ok)
	}
	b, _ := ParseLSN("17/0")
	c, _ := ParseLSN("16/B374D849")
	if !(a < c && c < b) {
		t.Errorf("positions out of order: %v %v %v", a, c, b)
	}
	for _, bad := range []string{"", "16", "/1", "1/", "x/1", "1/2/3", "123456789/0", "-1/0", "1/ 2"} {
		if l, ok := ParseLSN(bad); ok {
			t.Errorf("ParseLSN(%q) = %v, want refused", bad, l)
		}
	}
}
