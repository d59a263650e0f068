package imports

import (
	"bytes"
	"errors"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"ledgerdesk/engine"
)

// Detect sniffs the first bytes of an upload (SniffBytes are enough) and
// returns its format: a zip container is xlsx, XML holding a
// BkToCstmrStmt (or the camt.053 namespace) is camt053, text starting with a
// SWIFT block {1: or an MT940 field :20: is mt940, other text is csv. It
// refuses, with an *engine.Error naming the file, content that is none of
// these (legacy .xls, PDF, UTF-16, binary, other XML) and a format that kind
// cannot have, such as a camt.053 statement uploaded as tickets. A workbook
// or CSV of the wrong kind passes here and is caught at header matching.
func Detect(kind Kind, fileName string, head []byte) (string, error) {
	bad := func(code string, params map[string]any, format string, args ...any) (string, error) {
		return "", fileError(fileName, 0, 0, code, params, format, args...)
	}
	if !kind.Valid() {
		return "", engine.Invalid("kind", "unknown import kind %q (bank, transaction, settlement or ticket)", kind)
	}
	ext := strings.ToLower(path.Ext(fileName))
	var format string
	switch {
	case len(head) == 0:
		return bad("import.file.empty", nil, "the file is empty")
	case bytes.HasPrefix(head, []byte("PK\x03\x04")):
		name, content := zipEntry(head)
		if name == "" || isWorkbookPart(name) || ext == ".xlsx" || ext == ".xlsm" {
			format = FormatXLSX
			break
		}
		// A zip of statements is read as its statements' format (zipped.go).
		inner, err := Detect(Bank, name, content)
		if err != nil || inner != FormatCamt053 && inner != FormatMT940 {
			detail := "not a camt.053 or MT940 statement"
			var e *engine.Error
			if errors.As(err, &e) {
				detail = strings.TrimPrefix(e.Message, name+": ")
			}
			return bad("import.file.zipOfOther", map[string]any{"entry": name, "detail": detail},
				"the file is a zip archive holding %s, neither an XLSX workbook nor bank statements: %s", name, detail)
		}
		format = inner
	case bytes.HasPrefix(head, []byte("PK\x05\x06")):
		return bad("import.file.emptyZip", nil, "the file is an empty zip archive, not an XLSX workbook")
	case bytes.HasPrefix(head, []byte{0xD0, 0xCF, 0x11, 0xE0}):
		return bad("import.file.xls", nil, "the file is a legacy Excel .xls workbook or a password-protected one; save it as .xlsx without a password")
	case bytes.HasPrefix(head, []byte("%PDF")):
		return bad("import.file.pdf", nil, "the file is a PDF document; import the CSV, XLSX, camt.053 or MT940 export instead")
	case bytes.HasPrefix(head, []byte{0xFF, 0xFE}) || bytes.HasPrefix(head, []byte{0xFE, 0xFF}):
		return bad("import.file.utf16", nil, "the file is UTF-16 text; save it as UTF-8")
	case bytes.HasPrefix(head, []byte{0x1F, 0x8B}):
		return bad("import.file.gzip", nil, "the file is gzip-compressed; unpack it first")
	}
	if format == "" {
		if bytes.IndexByte(head, 0) >= 0 {
			return bad("import.file.binary", nil, "the file is binary, not text, XLSX or XML")
		}
		text := bytes.TrimLeft(bytes.TrimPrefix(head, utf8BOM), " \t\r\n")
		switch {
		case len(text) == 0:
			return bad("import.file.blank", nil, "the file holds only white space")
		case text[0] == '<':
			switch {
			case bytes.Contains(head, []byte("BkToCstmrStmt")) || bytes.Contains(head, []byte("camt.053")):
				format = FormatCamt053
			case bytes.Contains(head, []byte("BkToCstmrAcctRpt")) || bytes.Contains(head, []byte("camt.052")):
				return bad("import.file.camt052", nil, "the file is a camt.052 account report; import the camt.053 end-of-day statement instead")
			case bytes.Contains(head, []byte("BkToCstmrDbtCdtNtfctn")) || bytes.Contains(head, []byte("camt.054")):
				return bad("import.file.camt054", nil, "the file is a camt.054 debit/credit notification; import the camt.053 statement instead")
			case ext == ".xlsx":
				return bad("import.file.xlsxIsXml", nil, "the file is named .xlsx but holds XML, not a workbook")
			default:
				return bad("import.file.notCamt", nil, "the file is XML but not an ISO 20022 camt.053 bank statement (no BkToCstmrStmt)")
			}
		case looksMT940(text):
			format = FormatMT940
		default:
			if ext == ".xlsx" || ext == ".xlsm" {
				return bad("import.file.notWorkbook", map[string]any{"ext": ext}, "the file is named %s but is not a workbook (no zip container); it may be damaged", ext)
			}
			if ext == ".xml" {
				return bad("import.file.notXml", nil, "the file is named .xml but does not start with XML")
			}
			if !utf8.Valid(trimPartialRune(head)) && !mostlyText(head) {
				return bad("import.file.binary", nil, "the file is binary, not text, XLSX or XML")
			}
			format = FormatCSV
		}
	}
	if !slices.Contains(formatsOf[kind], format) {
		return bad("import.file.bankOnly", map[string]any{"format": formatName(format), "kind": string(kind)},
			"the file is %s, which holds bank bookings, not %s rows; choose the kind bank", formatName(format), kind)
	}
	return format, nil
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// looksMT940 accepts SWIFT text: a SWIFT block ({1: or {4:) or a field of
// MT940 (or MT942, refused by the parser with its name) at the start of a
// line, wherever it comes in the head: banks put headers, transmission
// preambles and control bytes before the first :20:, and a fragment
// without :20: must be told apart from CSV too.
func looksMT940(text []byte) bool {
	for _, line := range bytes.Split(text, []byte("\n")) {
		line = bytes.TrimLeft(line, " \t\x00\x01\x02\x03\x1a")
		if bytes.HasPrefix(line, []byte("{1:")) || bytes.HasPrefix(line, []byte("{4:")) {
			return true
		}
		if tag, _, ok := mtTag(string(line)); ok && swiftTags[tag] {
			return true
		}
	}
	return false
}

// swiftTags are the fields of MT940 and MT942 messages.
var swiftTags = map[string]bool{"20": true, "21": true, "25": true, "28": true, "28C": true, "60F": true, "60M": true, "61": true, "86": true,
	"62F": true, "62M": true, "64": true, "65": true, "13": true, "13D": true, "34F": true, "90D": true, "90C": true}

// trimPartialRune drops a rune cut off at the end of the sniffed head.
func trimPartialRune(b []byte) []byte {
	for i := 0; i < 3 && len(b) > 0; i++ {
		if utf8.Valid(b) {
			return b
		}
		r, _ := utf8.DecodeLastRune(b)
		if r != utf8.RuneError {
			return b
		}
		b = b[:len(b)-1]
	}
	return b
}

// mostlyText tells single-byte text (Windows-1252 CSV) from binary: control
// characters other than tab and line breaks are rare in the former.
func mostlyText(b []byte) bool {
	ctl := 0
	for _, c := range b {
		if c < 0x20 && c != '\t' && c != '\r' && c != '\n' || c == 0x7F {
			ctl++
		}
	}
	return ctl*100 <= len(b)
}
