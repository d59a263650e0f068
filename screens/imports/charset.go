package imports

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
)

// Bank statements in SWIFT text are meant to be ASCII, but banks write their
// customers' names and texts in whatever their systems use: UTF-8 mostly,
// Windows-1252 (ISO 8859-1) in Western Europe, the DOS code pages 850 and
// 852 in older German, Polish, Czech and Hungarian exports, and Windows-1250
// or ISO 8859-2 in Central Europe. A layout may name the encoding; otherwise
// text is UTF-8 until a line proves otherwise, and that line decides, for
// the rest of the file, which single-byte encoding reads it most plausibly
// (plausibleScore).

// singleByte are the single-byte encodings a layout may name, by the names
// it may use.
var singleByte = map[string]*charmap.Charmap{
	"windows-1252": charmap.Windows1252, "cp1252": charmap.Windows1252,
	"iso-8859-1": charmap.Windows1252, "latin1": charmap.Windows1252, "latin-1": charmap.Windows1252,
	"cp850": charmap.CodePage850, "ibm850": charmap.CodePage850,
	"cp852": charmap.CodePage852, "ibm852": charmap.CodePage852,
	"windows-1250": charmap.Windows1250, "cp1250": charmap.Windows1250,
	"iso-8859-2": charmap.ISO8859_2, "latin2": charmap.ISO8859_2,
}

// guessOrder is the order in which detection tries the single-byte
// encodings; on a tie the earlier one wins.
var guessOrder = []*charmap.Charmap{charmap.Windows1252, charmap.CodePage850, charmap.CodePage852, charmap.Windows1250}

// lineDecoder turns lines of a text file into UTF-8.
type lineDecoder struct {
	named bool             // the layout named the encoding
	cm    *charmap.Charmap // nil: UTF-8 so far
}

// newLineDecoder returns the decoder for a layout's encoding ("" or "auto"
// detects; "utf-8" reads UTF-8 and, as auto does, a stray non-UTF-8 line by
// detection).
func newLineDecoder(name string) *lineDecoder {
	if cm := singleByte[strings.ToLower(name)]; cm != nil {
		return &lineDecoder{named: true, cm: cm}
	}
	return &lineDecoder{}
}

// decode returns line as UTF-8.
func (d *lineDecoder) decode(line string) string {
	if d.cm == nil {
		if utf8.ValidString(line) {
			return line
		}
		d.cm = guessCharmap(line)
	}
	if !d.named && utf8.ValidString(line) {
		return line // a file mixing UTF-8 lines in (some banks do) keeps them
	}
	out, err := d.cm.NewDecoder().String(line)
	if err != nil {
		return decode1252(line)
	}
	return out
}

// guessCharmap picks the single-byte encoding that reads s most plausibly.
func guessCharmap(s string) *charmap.Charmap {
	best, bestScore := guessOrder[0], -1<<31
	for _, cm := range guessOrder {
		text, err := cm.NewDecoder().String(s)
		if err != nil {
			continue
		}
		if score := plausibleScore(text); score > bestScore {
			best, bestScore = cm, score
		}
	}
	return best
}

// plausibleScore rates decoded text by its non-ASCII characters: a Latin
// letter scores, a symbol, box-drawing or control character costs, and so
// does a capital letter inside a lower-case word (the telltale of a wrong
// code page: "UrzÑd" read in code page 850 instead of 852's "Urząd").
func plausibleScore(text string) int {
	score := 0
	prev := ' '
	for _, r := range text {
		if r >= utf8.RuneSelf {
			switch {
			case !unicode.IsLetter(r):
				score -= 2
			case r < 0xC0 || r > 0x24F:
				score-- // letters outside the Latin blocks are rare in bank text
			case unicode.IsUpper(r) && unicode.IsLower(prev):
				score -= 2
			default:
				score++
			}
		}
		prev = r
	}
	return score
}

// stripControls drops the control characters (other than tab) that SWIFT
// transmissions wrap around messages (SOH, ETX) or leave in text.
func stripControls(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 && c != '\t' || c == 0x7F {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\t' || r == 0x7F {
			return -1
		}
		return r
	}, s)
}
