package imports

import (
	"testing"

	"github.com/jackc/pgx/v5/pgtype"
)

// numericOf reads a normalised decimal as pgtype's own Scan does.
func TestNumericOfIsScan(t *testing.T) {
	for _, s := range []string{"0", "1", "-1", "12.5", "-1234.56", "0.01", "-0.10", "100", "123456789012345678", "1234567890123456.78",
		"-9999999999999999.99", "123456789012345678.9", "1234567890123456789", "12.", ".5", "1e5", "1,5"} {
		var want pgtype.Numeric
		wantErr := want.Scan(s)
		got, err := numericOf(s)
		if (err == nil) != (wantErr == nil) {
			t.Errorf("%q: error %v, Scan's %v", s, err, wantErr)
			continue
		}
		if err != nil {
			continue
		}
		wv, _ := want.Value()
		gv, _ := got.Value()
		if wv != gv || got.Valid != want.Valid {
			t.Errorf("%q: %v, Scan gives %v", s, gv, wv)
		}
	}
}
