package imports

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"ledgerdesk/engine"
)

// Descriptor is one import layout: how a file of some source becomes rows of
// a kind. It is written in YAML (see testdata/descriptors for examples) and
// decoded strictly, so a misspelt key is an error rather than a silently
// ignored option.
//
// The table options (Delimiter through Encoding) apply to csv and xlsx only;
// camt053 and mt940 have a fixed structure and accept only Defaults.
type Descriptor struct {
	// Name identifies the layout (the import screen offers it); it defaults
	// to the file name without .yaml.
	Name string `yaml:"name"`
	// Kind is bank, transaction, settlement or ticket.
	Kind Kind `yaml:"kind"`
	// Format is csv, xlsx, camt053 or mt940.
	Format string `yaml:"format"`
	// Description is free text for people choosing a layout.
	Description string `yaml:"description"`

	// Delimiter separates CSV fields: one character, "tab" or "\t" for a tab;
	// default ",".
	Delimiter string `yaml:"delimiter"`
	// Encoding of a CSV file: utf-8, windows-1252 or auto (the default: UTF-8,
	// switching to Windows-1252 when the file turns out not to be UTF-8).
	// Of an MT940 file: auto (UTF-8, else the single-byte code page that
	// reads it most plausibly), utf-8, windows-1252 (iso-8859-1), cp850,
	// cp852, windows-1250 or iso-8859-2.
	Encoding string `yaml:"encoding"`
	// Sheet is the XLSX worksheet to read; default the first one.
	Sheet string `yaml:"sheet"`
	// HeaderRow is the 1-based row holding the column headers (rows above it
	// are a preamble and ignored); default 1. 0 means the file has no header
	// row and every column is referred to by position ("#3").
	HeaderRow *int `yaml:"headerRow"`
	// SkipRows is the number of rows right after the header to ignore (a
	// second header line, units, an opening-balance line).
	SkipRows int `yaml:"skipRows"`
	// FooterRows is the number of rows at the end of the file to ignore
	// (totals); at most 100.
	FooterRows int `yaml:"footerRows"`
	// DateFormat is the user-style format of every date column: yyyy, yy,
	// MMM, MM, M, dd, d, HH, mm, ss and literals, e.g. dd.MM.yyyy,
	// MM/dd/yyyy, yyyyMMdd; default yyyy-MM-dd.
	DateFormat string `yaml:"dateFormat"`
	// DecimalSeparator is "." (default) or ",".
	DecimalSeparator string `yaml:"decimalSeparator"`
	// ThousandsSeparator is empty (default), ",", ".", " ", "'" or a
	// non-breaking space; when set, digit groups are checked.
	ThousandsSeparator string `yaml:"thousandsSeparator"`
	// Columns maps a canonical field to its source column: a header (matched
	// ignoring case and surrounding spaces) or "#N" for the N-th column.
	// Omitted: every field of the kind under its own name (the default layout).
	Columns map[string]string `yaml:"columns"`
	// Defaults gives constant values (written in canonical form: yyyy-MM-dd,
	// decimal point) for fields the source lacks or leaves empty, such as the
	// BankAccount of a statement export or the Currency of a one-currency
	// provider.
	Defaults map[string]string `yaml:"defaults"`
	// Trim removes surrounding white space from every value; default true.
	Trim *bool `yaml:"trim"`
	// Strict refuses files with header columns that are neither mapped nor
	// listed in IgnoreColumns; default true, so that a file of another
	// layout is caught at the header rather than half-imported.
	Strict *bool `yaml:"strict"`
	// IgnoreColumns lists source headers that are known and not imported.
	IgnoreColumns []string `yaml:"ignoreColumns"`
	// DebitCredit reads one signed amount from two columns, as many bank
	// exports write it: money out in one, money in in the other.
	DebitCredit *DebitCredit `yaml:"debitCredit"`
}

// DebitCredit maps a decimal field to a debit and a credit column (headers
// or "#N"). In each row one of them holds the amount and the other is empty
// or zero; a debit is stored negative and a credit positive, whatever sign
// the export writes them with.
type DebitCredit struct {
	Field  string `yaml:"field"`
	Debit  string `yaml:"debit"`
	Credit string `yaml:"credit"`
}

// maxFooterRows bounds FooterRows, whose rows are held back in memory.
const maxFooterRows = 100

// compiled is a descriptor checked and prepared for parsing.
type compiled struct {
	d        *Descriptor
	fields   []Field
	comma    rune
	encoding string
	header   int
	date     *dateLayout
	dec      byte
	th       string
	trim     bool
	strict   bool
	source   []string // per field: source header or "#N"; "" when not read from the file
	defaults []any    // per field: typed default or nil
	ignore   map[string]bool
	dc       *debitCredit
}

// debitCredit is DebitCredit compiled: the field index and its two sources.
type debitCredit struct {
	field  int
	source [2]string // debit, credit
}

var thousandsOK = []string{"", ",", ".", " ", "'", "\u00a0", "\u202f"}

// compile checks d and prepares it; it returns every problem found.
func (d *Descriptor) compile() (*compiled, []string) {
	var p []string
	add := func(format string, args ...any) { p = append(p, fmt.Sprintf(format, args...)) }
	c := &compiled{d: d, comma: ',', encoding: "auto", header: 1, dec: '.', trim: true, strict: true}
	if d.Name == "" {
		add("name: required")
	}
	if !d.Kind.Valid() {
		add("kind: %q is not one of bank, transaction, settlement, ticket", d.Kind)
		return nil, p
	}
	c.fields = fields[d.Kind]
	if !slices.Contains(formatsOf[d.Kind], d.Format) {
		add("format: %q is not one of %s for kind %s", d.Format, strings.Join(formatsOf[d.Kind], ", "), d.Kind)
		return nil, p
	}
	table := d.Format == FormatCSV || d.Format == FormatXLSX
	if !table {
		var set []string
		for _, o := range []struct {
			name string
			set  bool
		}{
			{"delimiter", d.Delimiter != ""}, {"encoding", d.Encoding != "" && d.Format != FormatMT940}, {"sheet", d.Sheet != ""},
			{"headerRow", d.HeaderRow != nil}, {"skipRows", d.SkipRows != 0}, {"footerRows", d.FooterRows != 0},
			{"dateFormat", d.DateFormat != ""}, {"decimalSeparator", d.DecimalSeparator != ""},
			{"thousandsSeparator", d.ThousandsSeparator != ""}, {"columns", d.Columns != nil},
			{"trim", d.Trim != nil}, {"strict", d.Strict != nil}, {"ignoreColumns", d.IgnoreColumns != nil},
			{"debitCredit", d.DebitCredit != nil},
		} {
			if o.set {
				set = append(set, o.name)
			}
		}
		if len(set) > 0 {
			add("%s: not an option of format %s (it has a fixed structure; only defaults apply)", strings.Join(set, ", "), d.Format)
		}
	}
	if d.Format != FormatCSV && (d.Delimiter != "" || d.Encoding != "") && table {
		add("delimiter and encoding apply to csv only")
	}
	if d.Format != FormatXLSX && d.Sheet != "" && table {
		add("sheet applies to xlsx only")
	}
	switch d.Delimiter {
	case "":
	case "tab", "\t", `\t`:
		c.comma = '\t'
	default:
		r, n := utf8.DecodeRuneInString(d.Delimiter)
		if n != len(d.Delimiter) || r == '"' || r == '\r' || r == '\n' || r == utf8.RuneError || r == 0xFEFF {
			add("delimiter: %q must be a single character other than a quote or line break", d.Delimiter)
		} else {
			c.comma = r
		}
	}
	if d.Format == FormatMT940 && d.Encoding != "" {
		if e := strings.ToLower(d.Encoding); e != "auto" && e != "utf-8" && e != "utf8" && singleByte[e] == nil {
			add("encoding: %q is not one of utf-8, windows-1252, iso-8859-1, cp850, cp852, windows-1250, iso-8859-2, auto", d.Encoding)
		}
		c.encoding = strings.ToLower(d.Encoding)
	} else {
		c.encoding = c.tableEncoding(d.Encoding, add)
	}
	if d.HeaderRow != nil {
		c.header = *d.HeaderRow
		if c.header < 0 || c.header > 1000 {
			add("headerRow: %d must be between 0 (no header) and 1000", c.header)
		}
	}
	if d.SkipRows < 0 || d.SkipRows > 1000 {
		add("skipRows: %d must be between 0 and 1000", d.SkipRows)
	}
	if d.FooterRows < 0 || d.FooterRows > maxFooterRows {
		add("footerRows: %d must be between 0 and %d", d.FooterRows, maxFooterRows)
	}
	c.date = isoDate
	if d.DateFormat != "" {
		l, err := compileDate(d.DateFormat)
		if err != nil {
			add("dateFormat: %v", err)
		} else {
			c.date = l
		}
	}
	switch d.DecimalSeparator {
	case "", ".":
	case ",":
		c.dec = ','
	default:
		add("decimalSeparator: %q must be \".\" or \",\"", d.DecimalSeparator)
	}
	if !slices.Contains(thousandsOK, d.ThousandsSeparator) {
		add("thousandsSeparator: %q must be empty, \",\", \".\", \" \", \"'\" or a non-breaking space", d.ThousandsSeparator)
	} else if d.ThousandsSeparator == string(c.dec) {
		add("thousandsSeparator: %q is also the decimal separator", d.ThousandsSeparator)
	}
	c.th = d.ThousandsSeparator
	if d.Trim != nil {
		c.trim = *d.Trim
	}
	if d.Strict != nil {
		c.strict = *d.Strict
	}
	c.ignore = map[string]bool{}
	for _, h := range d.IgnoreColumns {
		c.ignore[normHeader(h)] = true
	}

	c.source = make([]string, len(c.fields))
	c.defaults = make([]any, len(c.fields))
	if table {
		if d.Columns == nil {
			for i, f := range c.fields {
				c.source[i] = f.Name
			}
		}
		for _, name := range sortedKeys(d.Columns) {
			src := strings.TrimSpace(d.Columns[name])
			i := fieldIndex(d.Kind, name)
			switch {
			case i < 0:
				add("columns: %q is not a field of kind %s (fields: %s)", name, d.Kind, fieldNames(d.Kind))
			case src == "":
				add("columns: %s: empty source column", name)
			case strings.HasPrefix(src, "#"):
				if n, err := strconv.Atoi(src[1:]); err != nil || n < 1 || n > 16384 {
					add("columns: %s: %q is not a column position like #3", name, src)
				}
				c.source[i] = src
			case c.header == 0:
				add("columns: %s: with headerRow 0 the file has no headers; refer to the column by position (#N)", name)
			default:
				c.source[i] = src
			}
		}
	}
	if dc := d.DebitCredit; dc != nil && table {
		i := fieldIndex(d.Kind, dc.Field)
		debit, credit := strings.TrimSpace(dc.Debit), strings.TrimSpace(dc.Credit)
		switch {
		case i < 0:
			add("debitCredit: field %q is not a field of kind %s (fields: %s)", dc.Field, d.Kind, fieldNames(d.Kind))
		case c.fields[i].Type != TypeDecimal:
			add("debitCredit: field %s is not an amount", dc.Field)
		case c.source[i] != "" && d.Columns != nil:
			add("debitCredit: field %s is also mapped in columns; map it in one place", dc.Field)
		case debit == "" || credit == "":
			add("debitCredit: both debit and credit need a source column")
		case normHeader(debit) == normHeader(credit):
			add("debitCredit: debit and credit are the same column %q", debit)
		default:
			for _, src := range []string{debit, credit} {
				if strings.HasPrefix(src, "#") {
					if n, err := strconv.Atoi(src[1:]); err != nil || n < 1 || n > 16384 {
						add("debitCredit: %q is not a column position like #3", src)
					}
				} else if c.header == 0 {
					add("debitCredit: with headerRow 0 the file has no headers; refer to %q by position (#N)", src)
				}
			}
			c.source[i] = "" // read from the pair, not from one column
			c.dc = &debitCredit{field: i, source: [2]string{debit, credit}}
		}
	}
	for _, name := range sortedKeys(d.Defaults) {
		i := fieldIndex(d.Kind, name)
		if i < 0 {
			add("defaults: %q is not a field of kind %s", name, d.Kind)
			continue
		}
		v, msg := canonicalValue(c.fields[i].Type, d.Defaults[name])
		if msg != "" {
			add("defaults: %s: %s", name, msg)
			continue
		}
		c.defaults[i] = v
	}
	if table {
		for i, f := range c.fields {
			if f.Required && c.source[i] == "" && c.defaults[i] == nil && (c.dc == nil || c.dc.field != i) {
				add("required field %s has neither a column nor a default", f.Name)
			}
		}
	}
	if len(p) > 0 {
		return nil, p
	}
	return c, nil
}

// canonicalValue parses a value written the canonical way (descriptor
// defaults; the bank standards after their own decoding).
func canonicalValue(t FieldType, s string) (any, string) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, "empty value"
	}
	switch t {
	case TypeDate:
		if v, ok := isoDate.parse(s); ok {
			return v, ""
		}
		return nil, fmt.Sprintf("%q is not a date yyyy-MM-dd", s)
	case TypeDecimal:
		if v, ok := parseDecimal(s, '.', ""); ok {
			return v, ""
		}
		return nil, fmt.Sprintf("%q is not a decimal number like -1234.50", s)
	case TypeCurrency:
		if v, ok := checkCurrency(s); ok {
			return v, ""
		}
		return nil, fmt.Sprintf("%q is not a three-letter currency code", s)
	case TypeTicket:
		if v, ok := checkTicket(s); ok {
			return v, ""
		}
		return nil, fmt.Sprintf("%q is not a 13-digit ticket number", s)
	}
	return s, ""
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func fieldNames(kind Kind) string {
	names := make([]string, 0, len(fields[kind]))
	for _, f := range fields[kind] {
		names = append(names, f.Name)
	}
	return strings.Join(names, ", ")
}

// Check validates d and returns an *engine.Error (invalid) listing every
// problem, or nil. LoadDescriptors and Parse call it; code that builds a
// descriptor by hand may call it early.
func (d *Descriptor) Check() error {
	if d == nil {
		return engine.Invalid("descriptor", "no import descriptor")
	}
	if _, p := d.compile(); len(p) > 0 {
		return engine.Invalid("descriptor", "import descriptor %q: %s", d.Name, strings.Join(p, "; "))
	}
	return nil
}

// DescriptorDir is the folder of METADATA_DIR that holds import descriptors.
const DescriptorDir = "imports"

// LoadDescriptors reads every imports/*.yaml of fsys, strictly, checks each
// and returns them by name. A missing imports folder is no error (the
// built-in default layouts remain). Problems come back together in one
// *engine.Error, one line each, naming the file.
func LoadDescriptors(fsys fs.FS) (map[string]*Descriptor, error) {
	out := map[string]*Descriptor{}
	var problems []string
	files, err := fs.Glob(fsys, DescriptorDir+"/*.yaml")
	if err != nil {
		return nil, engine.Invalid("", "import descriptors: %v", err)
	}
	from := map[string]string{}
	for _, file := range files {
		d, errs := decodeDescriptor(fsys, file)
		if len(errs) > 0 {
			for _, e := range errs {
				problems = append(problems, file+": "+e)
			}
			continue
		}
		if d.Name == "" {
			d.Name = strings.TrimSuffix(path.Base(file), ".yaml")
		}
		if _, p := d.compile(); len(p) > 0 {
			for _, x := range p {
				problems = append(problems, file+": "+x)
			}
			continue
		}
		if other, dup := from[d.Name]; dup {
			problems = append(problems, fmt.Sprintf("%s: name %q is also used by %s", file, d.Name, other))
			continue
		}
		from[d.Name] = file
		out[d.Name] = d
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		return nil, engine.Invalid("", "invalid import descriptors:\n  %s", strings.Join(problems, "\n  "))
	}
	return out, nil
}

// unknownField rewrites yaml's message for a misspelt key.
var unknownField = regexp.MustCompile(`field (\S+) not found in type \S+`)

// decodeDescriptor decodes one file strictly; it returns one message per
// problem yaml reports.
func decodeDescriptor(fsys fs.FS, file string) (*Descriptor, []string) {
	b, err := fs.ReadFile(fsys, file)
	if err != nil {
		return nil, []string{err.Error()}
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	d := &Descriptor{}
	err = dec.Decode(d)
	var te *yaml.TypeError
	switch {
	case err == nil:
		return d, nil
	case errors.Is(err, io.EOF):
		return nil, []string{"empty file"}
	case errors.As(err, &te):
		out := make([]string, len(te.Errors))
		for i, e := range te.Errors {
			out[i] = unknownField.ReplaceAllString(e, `unknown key "$1"`)
		}
		return nil, out
	}
	return nil, []string{strings.TrimPrefix(err.Error(), "yaml: ")}
}

// DefaultDescriptor returns the built-in layout of kind in format: for csv
// and xlsx the headers of DESIGN.md section 5 (first row, ISO dates, decimal
// point, comma-separated), for camt053 and mt940 (bank only) the standard
// itself. It returns an *engine.Error for a combination that does not exist.
func DefaultDescriptor(kind Kind, format string) (*Descriptor, error) {
	if !kind.Valid() {
		return nil, engine.Invalid("kind", "unknown import kind %q (bank, transaction, settlement or ticket)", kind)
	}
	if !slices.Contains(formatsOf[kind], format) {
		return nil, engine.Invalid("format", "a %s file cannot be %s (it can be %s)", kind, formatName(format), strings.Join(formatsOf[kind], ", "))
	}
	return &Descriptor{Name: string(kind) + "-" + format, Kind: kind, Format: format,
		Description: "Ledgerdesk default " + string(kind) + " layout (" + format + ")"}, nil
}

// formatName is how messages call a format.
func formatName(format string) string {
	switch format {
	case FormatCSV:
		return "CSV"
	case FormatXLSX:
		return "an XLSX workbook"
	case FormatCamt053:
		return "a camt.053 statement"
	case FormatMT940:
		return "an MT940 statement"
	}
	return strconv.Quote(format)
}

// tableEncoding checks a CSV layout's encoding and returns its compiled name.
func (c *compiled) tableEncoding(name string, add func(string, ...any)) string {
	switch strings.ToLower(name) {
	case "", "auto":
		return "auto"
	case "utf-8", "utf8":
		return "utf-8"
	case "windows-1252", "cp1252", "iso-8859-1", "latin1", "latin-1":
		// ISO-8859-1 text is Windows-1252 text outside 0x80-0x9F, where
		// Latin-1 has only control characters no export uses.
		return "windows-1252"
	}
	add("encoding: %q is not one of utf-8, windows-1252, auto", name)
	return "auto"
}
