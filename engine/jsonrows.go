package engine

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// Grid pages are written as JSON straight from the values on the wire: a
// decoded value per cell (pgx's Values) and a second encoding pass cost more
// CPU than the query itself on a 100-row page. Each column gets an appender
// for its PostgreSQL type in binary format; a result with any column the
// appenders do not know is read through Values and jsonValue instead, so the
// two paths answer the same JSON (engine tests compare them).

// appendFunc appends the JSON of one non-NULL wire value; ok is false when
// the value is one the fast path does not write (an infinite date, say).
type appendFunc func(buf []byte, raw []byte, c *Column) (out []byte, ok bool)

// wireAppenders are the fast appenders by type OID (binary format).
var wireAppenders = map[uint32]appendFunc{
	pgtype.TextOID:        appendText,
	pgtype.VarcharOID:     appendText,
	pgtype.BPCharOID:      appendText,
	pgtype.NameOID:        appendText,
	pgtype.Int2OID:        appendInt,
	pgtype.Int4OID:        appendInt,
	pgtype.Int8OID:        appendInt,
	pgtype.BoolOID:        appendBool,
	pgtype.NumericOID:     appendNumeric,
	pgtype.DateOID:        appendDate,
	pgtype.TimestamptzOID: appendTimestamp,
	pgtype.TimestampOID:   appendTimestamp,
}

var textOIDs = map[uint32]bool{pgtype.TextOID: true, pgtype.VarcharOID: true, pgtype.BPCharOID: true, pgtype.NameOID: true}

// writeRows appends rows as JSON objects ({"Field":value,...}, comma
// separated) to buf and returns it with the number of rows.
func (v *View) writeRows(buf []byte, rows pgx.Rows) ([]byte, int, error) {
	defer rows.Close()
	fields := rows.FieldDescriptions()
	appenders := make([]appendFunc, len(fields))
	for i, f := range fields {
		// Text comes as the same bytes in either format; the rest in binary.
		if f.Format == pgx.BinaryFormatCode || textOIDs[f.DataTypeOID] {
			appenders[i] = wireAppenders[f.DataTypeOID]
		}
		if appenders[i] == nil || i >= len(v.Columns) {
			return v.writeRowsDecoded(buf, rows)
		}
	}
	names := v.jsonNames()
	n := 0
	for rows.Next() {
		if n > 0 {
			buf = append(buf, ',')
		}
		mark := len(buf)
		buf = append(buf, '{')
		raws := rows.RawValues()
		fast := true
		for i, raw := range raws {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = append(buf, names[i]...)
			if raw == nil {
				buf = append(buf, "null"...)
				continue
			}
			if buf, fast = appenders[i](buf, raw, v.Columns[i]); !fast {
				break
			}
		}
		if !fast { // an odd value: this row the slow way
			vals, err := rows.Values()
			if err != nil {
				return buf, n, err
			}
			if buf, err = v.appendDecoded(buf[:mark], names, vals); err != nil {
				return buf, n, err
			}
		} else {
			buf = append(buf, '}')
		}
		n++
	}
	return buf, n, rows.Err()
}

// writeRowsDecoded is writeRows through pgx's decoded values.
func (v *View) writeRowsDecoded(buf []byte, rows pgx.Rows) ([]byte, int, error) {
	names := v.jsonNames()
	n := 0
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return buf, n, err
		}
		if n > 0 {
			buf = append(buf, ',')
		}
		if buf, err = v.appendDecoded(buf, names, vals); err != nil {
			return buf, n, err
		}
		n++
	}
	return buf, n, rows.Err()
}

// appendDecoded appends one row of decoded values as a JSON object.
func (v *View) appendDecoded(buf []byte, names [][]byte, vals []any) ([]byte, error) {
	buf = append(buf, '{')
	for i, c := range v.Columns {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, names[i]...)
		b, err := json.Marshal(c.jsonValue(vals[i]))
		if err != nil {
			return buf, err
		}
		buf = append(buf, b...)
	}
	return append(buf, '}'), nil
}

// jsonNames are the columns' `"Field":` prefixes.
func (v *View) jsonNames() [][]byte {
	names := make([][]byte, len(v.Columns))
	for i, c := range v.Columns {
		names[i] = append(appendJSONString(nil, c.Field), ':')
	}
	return names
}

func appendText(buf, raw []byte, c *Column) ([]byte, bool) {
	return appendJSONString(buf, raw), true
}

func appendInt(buf, raw []byte, c *Column) ([]byte, bool) {
	var n int64
	switch len(raw) {
	case 2:
		n = int64(int16(binary.BigEndian.Uint16(raw)))
	case 4:
		n = int64(int32(binary.BigEndian.Uint32(raw)))
	case 8:
		n = int64(binary.BigEndian.Uint64(raw))
	default:
		return buf, false
	}
	if c.EnumInt { // integer enums are shown as strings
		buf = append(buf, '"')
		return append(strconv.AppendInt(buf, n, 10), '"'), true
	}
	return strconv.AppendInt(buf, n, 10), true
}

func appendBool(buf, raw []byte, c *Column) ([]byte, bool) {
	if len(raw) != 1 {
		return buf, false
	}
	return strconv.AppendBool(buf, raw[0] != 0), true
}

// pgEpoch is where PostgreSQL's binary dates and timestamps count from.
var pgEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

func appendDate(buf, raw []byte, c *Column) ([]byte, bool) {
	if len(raw) != 4 {
		return buf, false
	}
	days := int32(binary.BigEndian.Uint32(raw))
	if days == math.MaxInt32 || days == math.MinInt32 { // infinity
		return buf, false
	}
	t := pgEpoch.AddDate(0, 0, int(days))
	if c.typ().Instant { // a date shown as a datetime column
		return appendTime(buf, t), true
	}
	buf = append(buf, '"')
	return append(t.AppendFormat(buf, "2006-01-02"), '"'), true
}

func appendTimestamp(buf, raw []byte, c *Column) ([]byte, bool) {
	if len(raw) != 8 {
		return buf, false
	}
	us := int64(binary.BigEndian.Uint64(raw))
	if us == math.MaxInt64 || us == math.MinInt64 { // infinity
		return buf, false
	}
	t := time.Unix(pgEpoch.Unix()+us/1e6, us%1e6*1e3).UTC()
	if !c.typ().Instant { // a timestamp shown as a date column
		buf = append(buf, '"')
		return append(t.AppendFormat(buf, "2006-01-02"), '"'), true
	}
	return appendTime(buf, t), true
}

func appendTime(buf []byte, t time.Time) []byte {
	buf = append(buf, '"')
	return append(t.AppendFormat(buf, time.RFC3339Nano), '"')
}

// appendNumeric writes a numeric from its binary form (base-10000 digits, a
// weight, a sign and a display scale) as a JSON string with the column's
// decimals, as numericString does.
func appendNumeric(buf, raw []byte, c *Column) ([]byte, bool) {
	if len(raw) < 8 {
		return buf, false
	}
	ndigits := int(binary.BigEndian.Uint16(raw))
	weight := int(int16(binary.BigEndian.Uint16(raw[2:])))
	sign := binary.BigEndian.Uint16(raw[4:])
	dscale := int(binary.BigEndian.Uint16(raw[6:]))
	if sign != 0 && sign != 0x4000 || len(raw) != 8+2*ndigits || dscale > 1000 {
		return buf, false // NaN, infinities: not finite
	}
	group := func(i int) int { // base-10000 digit i (0 = most significant)
		if i < 0 || i >= ndigits {
			return 0
		}
		return int(binary.BigEndian.Uint16(raw[8+2*i:]))
	}
	var digits [64]byte
	d := digits[:0]
	// Integer part: groups 0..weight, without leading zeros (PostgreSQL sends
	// none but a zero's weight may be anything).
	if weight < 0 || ndigits == 0 {
		d = append(d, '0')
	} else {
		d = strconv.AppendInt(d, int64(group(0)), 10)
		for i := 1; i <= weight; i++ {
			d = appendGroup(d, group(i))
		}
		for len(d) > 1 && d[0] == '0' {
			d = d[1:]
		}
	}
	intLen := len(d)
	// Fraction: dscale decimals (the digits past them are zero).
	for i := weight + 1; len(d)-intLen < dscale; i++ {
		d = appendGroup(d, group(i))
	}
	d = d[:intLen+dscale]
	scale := c.Scale
	if scale < dscale { // more decimals than shown: round half away from zero
		roundUp := d[intLen+scale] >= '5'
		d = d[:intLen+scale]
		if roundUp {
			d = incrementDigits(d)
			if len(d) > intLen+scale { // 9.99 -> 10.0: one more integer digit
				intLen++
			}
		}
	}
	for len(d)-intLen < scale {
		d = append(d, '0')
	}
	buf = append(buf, '"')
	if sign == 0x4000 && !allZero(d) {
		buf = append(buf, '-')
	}
	buf = append(buf, d[:intLen]...)
	if scale > 0 {
		buf = append(append(buf, '.'), d[intLen:]...)
	}
	return append(buf, '"'), true
}

// appendGroup appends a base-10000 digit as four decimal digits.
func appendGroup(d []byte, g int) []byte {
	return append(d, byte('0'+g/1000), byte('0'+g/100%10), byte('0'+g/10%10), byte('0'+g%10))
}

// incrementDigits adds one to the decimal digit string d (no point in it).
func incrementDigits(d []byte) []byte {
	for i := len(d) - 1; i >= 0; i-- {
		if d[i] < '9' {
			d[i]++
			return d
		}
		d[i] = '0'
	}
	return append([]byte{'1'}, d...)
}

func allZero(d []byte) bool {
	for _, b := range d {
		if b != '0' {
			return false
		}
	}
	return true
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string, escaped as encoding/json
// does (HTML characters and U+2028/U+2029 too; invalid UTF-8 as U+FFFD).
func appendJSONString[T string | []byte](buf []byte, s T) []byte {
	buf = append(buf, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&' {
				i++
				continue
			}
			buf = append(buf, s[start:i]...)
			switch b {
			case '"', '\\':
				buf = append(buf, '\\', b)
			case '\n':
				buf = append(buf, '\\', 'n')
			case '\r':
				buf = append(buf, '\\', 'r')
			case '\t':
				buf = append(buf, '\\', 't')
			case '\b':
				buf = append(buf, '\\', 'b')
			case '\f':
				buf = append(buf, '\\', 'f')
			default:
				buf = append(buf, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRune([]byte(s[i:min(i+utf8.UTFMax, len(s))]))
		if r == utf8.RuneError && size == 1 {
			buf = append(buf, s[start:i]...)
			buf = append(buf, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			buf = append(buf, s[start:i]...)
			buf = append(buf, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"')
}
