package engine

import (
	"context"
	"encoding/json"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgtype"

	"ledgerdesk/internal/pgtest"
)

// The wire-value JSON writer must answer exactly what decoding each value
// with pgx and encoding it with encoding/json answers, for every type and
// the awkward values of each.
func TestWriteRowsMatchesDecodedValues(t *testing.T) {
	pool := pgtest.New(t)
	ctx := context.Background()
	if _, err := pool.Exec(ctx, `
		create table wire (
			id int primary key, t text, v varchar(20), c char(4), i2 smallint, i4 int, i8 bigint, b boolean,
			n numeric, n2 numeric(20, 2), n6 numeric(20, 6), d date, ts timestamptz, tn timestamp);
		insert into wire values
			(1, 'plain', 'x', 'ab', 1, 2, 3, true, 1.5, 12.34, 1.234567, '2024-02-29', '2024-02-29 13:45:07.123456+00', '2024-02-29 13:45:07'),
			(2, E'quote " back \\ tab \t nl \n cr \r bell \x07 <b>&amp;</b> \u2028 \u2029 é 日本 🎉', '', '', -32768, -2147483648, -9223372036854775808, false,
			    -0.005, -0.01, -0.000001, '0001-01-01', '1970-01-01 00:00:00+00', '1999-12-31 23:59:59.999999'),
			(3, null, null, null, null, null, null, null, null, null, null, null, null, null),
			(4, 'big', 'y', 'z', 32767, 2147483647, 9223372036854775807, true,
			    123456789012345678901234567890.123456789, 999999999999999999.99, 99999999999999.999999, '9999-12-31', '2262-04-11 23:47:16.854775+00', '1900-01-01'),
			(5, 'zeros', 'z', 'z', 0, 0, 0, false, 0, 0, 0, '2000-01-01', '2000-01-01 00:00:00+00', '2000-01-01 00:00:00'),
			(6, 'exp', 'e', 'e', 0, 0, 0, false, 10000, 100000000, 0.5, 'infinity', 'infinity', '-infinity'),
			(7, 'nan', 'n', 'n', 0, 0, 0, false, 'NaN', 0.995, 9.9999995, '-infinity', '-infinity', 'infinity'),
			(8, 'tiny', 't', 't', 0, 0, 0, false, 0.00000001, 0.05, 0.0000005, '1999-12-31', '1999-12-31 23:59:59.5+00', '2000-01-01 00:00:00.000001'),
			(9, 'far', 'f', 'f', 0, 0, 0, false, -99999.99999, -0.5, -0.0000005, '4000-06-30', '9999-12-31 23:59:59.999999+00', '0001-01-01 00:00:00'),
			(10, 'past', 'p', 'p', 0, 0, 0, false, 1e-20, 0.01, 1, '1582-10-15', '1066-10-14 09:00:00+00', '1500-03-01 12:00:00.5');
		-- many random amounts at many scales
		insert into wire (id, n, n2, n6)
			select 100 + i, round(((random() - 0.5) * 10 ^ (i % 15))::numeric, i % 9), round(((random() - 0.5) * 10 ^ (i % 12))::numeric, 2),
			       round(((random() - 0.5) * 10 ^ (i % 10))::numeric, 6)
			from generate_series(1, 3000) i;`); err != nil {
		t.Fatal(err)
	}
	cols := func(scale int, decimal string) []*Column {
		return []*Column{
			{Field: "Id", Column: "id", Type: "int"}, {Field: "T", Column: "t", Type: "text"}, {Field: "V", Column: "v", Type: "text"},
			{Field: "C", Column: "c", Type: "text"}, {Field: "I2", Column: "i2", Type: "enum", EnumInt: true}, {Field: "I4", Column: "i4", Type: "int"},
			{Field: "I8", Column: "i8", Type: "int"}, {Field: "B", Column: "b", Type: "bool"},
			{Field: "N", Column: "n", Type: decimal, Scale: scale}, {Field: "N2", Column: "n2", Type: decimal, Scale: scale},
			{Field: "N6", Column: "n6", Type: decimal, Scale: scale}, {Field: "D", Column: "d", Type: "date"},
			{Field: "Ts", Column: "ts", Type: "datetime"}, {Field: "Tn", Column: "tn", Type: "datetime"},
		}
	}
	for _, scale := range []int{0, 1, 2, 4, 6, 9} {
		v := &View{Name: "wire", Columns: cols(scale, "decimal")}
		sql := `select id, t, v, c, i2, i4, i8, b, n, n2, n6, d, ts, tn from wire order by id`
		rows, err := pool.Query(ctx, sql)
		if err != nil {
			t.Fatal(err)
		}
		fast, n, err := v.writeRows(nil, rows)
		if err != nil {
			t.Fatal(err)
		}
		rows, _ = pool.Query(ctx, sql)
		slow, m, err := v.writeRowsDecoded(nil, rows)
		if err != nil {
			t.Fatal(err)
		}
		if n != 3010 || m != n {
			t.Fatalf("scale %d: %d and %d rows", scale, n, m)
		}
		if !json.Valid(append(append([]byte{'['}, fast...), ']')) {
			t.Fatalf("scale %d: invalid JSON: %.300s", scale, fast)
		}
		var fr, sr []map[string]any
		json.Unmarshal(append(append([]byte{'['}, fast...), ']'), &fr)
		json.Unmarshal(append(append([]byte{'['}, slow...), ']'), &sr)
		for i := range fr {
			for k, fv := range fr[i] {
				sv := sr[i][k]
				// pgx decodes a zero numeric without its display scale
				// (0.00 becomes 0); the wire path keeps it, as psql shows it.
				if f, ok := fv.(string); ok && scale == 0 && sv == "0" && strings.Trim(f, "0.") == "" {
					continue
				}
				if fv != sv {
					t.Fatalf("scale %d, row %d, %s: wire %#v, decoded %#v", scale, i, k, fv, sv)
				}
			}
		}
		if scale > 0 && string(fast) != string(slow) {
			t.Fatalf("scale %d: the JSON differs beyond values (escaping, order)", scale)
		}
	}

	// A few values spelled out, so both paths cannot be wrong together.
	v := &View{Name: "wire", Columns: cols(2, "decimal")}
	rows, _ := pool.Query(ctx, `select id, t, v, c, i2, i4, i8, b, n, n2, n6, d, ts, tn from wire where id in (1, 2, 7) order by id`)
	out, _, err := v.writeRows(nil, rows)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`{"Id":1,"T":"plain","V":"x","C":"ab  ","I2":"1","I4":2,"I8":3,"B":true,"N":"1.50","N2":"12.34","N6":"1.23","D":"2024-02-29","Ts":"2024-02-29T13:45:07.123456Z","Tn":"2024-02-29T13:45:07Z"}`,
		`"T":"quote \" back \\ tab \t nl \n cr \r bell \u0007 \u003cb\u003e\u0026amp;\u003c/b\u003e \u2028 \u2029 é 日本 🎉"`,
		`"N":"-0.01","N2":"-0.01","N6":"0.00","D":"0001-01-01","Ts":"1970-01-01T00:00:00Z","Tn":"1999-12-31T23:59:59.999999Z"`,
		`"N":null,"N2":"1.00","N6":"10.00","D":"-infinity"`,
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("missing %s\nin %s", want, out)
		}
	}
}

// appendJSONString must escape exactly as encoding/json does, for any bytes.
func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "plain", `quote " back \ slash`, "tab\tnl\ncr\r\x00\x1f\x7f", "<b>&amp;</b>", "\u2028\u2029", "é日本🎉", "\xff\xfe bad utf-8 \xc3", "\xed\xa0\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := appendJSONString(nil, s); string(got) != string(want) {
			t.Errorf("%q: got %s, want %s", s, got, want)
		}
		if got := appendJSONString(nil, []byte(s)); string(got) != string(want) {
			t.Errorf("%q as bytes: got %s, want %s", s, got, want)
		}
	})
}

// appendNumeric reads PostgreSQL's binary numeric and rounds to the column's
// decimals exactly as numericString does from the decoded value.
func FuzzAppendNumeric(f *testing.F) {
	for _, seed := range []struct {
		m          int64
		exp, scale int8
	}{{0, 0, 2}, {0, -2, 0}, {-5, -3, 2}, {995, -3, 2}, {-995, -3, 2}, {9999, -4, 0}, {1, 4, 2}, {123456789, -6, 6}, {-1, -9, 2}, {math.MaxInt64, -18, 2}, {math.MinInt64, 3, 0}} {
		f.Add(seed.m, seed.exp, seed.scale)
	}
	types := pgtype.NewMap()
	f.Fuzz(func(t *testing.T, m int64, exp, scale int8) {
		exp, scale = exp%24, scale%12
		if scale < 0 {
			scale = -scale
		}
		n := pgtype.Numeric{Int: big.NewInt(m), Exp: int32(exp), Valid: true}
		raw, err := types.Encode(pgtype.NumericOID, pgtype.BinaryFormatCode, n, nil)
		if err != nil {
			t.Skip(err)
		}
		c := &Column{Field: "N", Type: "decimal", Scale: int(scale)}
		got, ok := appendNumeric(nil, raw, c)
		want, _ := json.Marshal(numericString(n, int(scale)))
		if !ok || string(got) != string(want) {
			t.Errorf("%de%d at scale %d: got %s (%v), want %s", m, exp, scale, got, ok, want)
		}
	})
}
