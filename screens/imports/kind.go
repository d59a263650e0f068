package imports

import "slices"

// Kind is what a file holds; it decides the canonical fields of its rows.
type Kind string

// The four kinds of import file.
const (
	Bank        Kind = "bank"
	Transaction Kind = "transaction"
	Settlement  Kind = "settlement"
	Ticket      Kind = "ticket"
)

// Kinds lists every kind, in the order the reconciliation chain uses them.
var Kinds = []Kind{Ticket, Transaction, Settlement, Bank}

// FieldType says how a source value is checked and what Go type it becomes in
// a Row.
type FieldType string

// The field types. Decimals stay strings so that no amount ever passes
// through a float; the loader binds them to numeric columns as they are.
const (
	TypeText     FieldType = "text"     // string, as written (trimmed unless the descriptor says otherwise)
	TypeDate     FieldType = "date"     // time.Time at UTC midnight
	TypeDecimal  FieldType = "decimal"  // normalised decimal string: optional '-', digits, optional '.' and fraction
	TypeCurrency FieldType = "currency" // string of three upper-case letters (ISO 4217 shape; lower case is upper-cased)
	TypeTicket   FieldType = "ticket"   // string of exactly 13 digits
)

// Field is one canonical field of a kind.
type Field struct {
	Name     string
	Type     FieldType
	Required bool
}

// The required sets are what reconciliation cannot do without: the matching
// key, the date, the amount and its currency of each level (DESIGN.md section
// 6), plus the provider for transactions and settlements, which level 2
// matches on. Everything else may be empty and arrives as nil.
var fields = map[Kind][]Field{
	Ticket: {
		{"TicketNumber", TypeTicket, true},
		{"TransDate", TypeDate, true},
		{"PaymentType", TypeText, false},
		{"CountryCode", TypeText, false},
		{"Currency", TypeCurrency, true},
		{"TransactionCode", TypeText, false},
		{"SaleAmount", TypeDecimal, true},
	},
	Transaction: {
		{"ClientUniqueID", TypeText, true},
		{"ProcessingDate", TypeDate, true},
		{"ProviderActor", TypeText, true},
		{"AcquiringBank", TypeText, false},
		{"PaymentMethod", TypeText, false},
		{"Currency", TypeCurrency, true},
		{"TransactionAmount", TypeDecimal, true},
		{"TransactionType", TypeText, false},
	},
	Settlement: {
		{"PayoutID", TypeText, true},
		{"ClientUniqueID", TypeText, false},
		{"SettlementDate", TypeDate, true},
		{"ProviderActor", TypeText, true},
		{"AcquirerBank", TypeText, false},
		{"SettlementCurrency", TypeCurrency, true},
		{"GrossAmount", TypeDecimal, false},
		{"Fees", TypeDecimal, false},
		{"SettlementNet", TypeDecimal, true},
	},
	Bank: {
		{"BankAccount", TypeText, true},
		{"BookedDate", TypeDate, true},
		{"InterestDate", TypeDate, false},
		{"Text", TypeText, false},
		{"AmountLocal", TypeDecimal, true},
		{"Currency", TypeCurrency, true},
		{"BankArchiveReference", TypeText, false},
		{"Number", TypeText, false},
		{"BookedBalanceLocalCurrency", TypeDecimal, false},
	},
}

// Fields returns the canonical fields of kind in their fixed order (the order
// of Row.Values and of the default CSV/XLSX headers), or nil for an unknown
// kind. The slice is a copy; callers may keep it.
func Fields(kind Kind) []Field {
	return slices.Clone(fields[kind])
}

// Valid reports whether k is one of the four kinds.
func (k Kind) Valid() bool {
	_, ok := fields[k]
	return ok
}

// fieldIndex returns the position of name in kind's fields, or -1.
func fieldIndex(kind Kind, name string) int {
	for i, f := range fields[kind] {
		if f.Name == name {
			return i
		}
	}
	return -1
}

// formatsOf lists the formats each kind may arrive in: statements in the bank
// standards exist only for bank accounts.
var formatsOf = map[Kind][]string{
	Bank:        {FormatCSV, FormatXLSX, FormatCamt053, FormatMT940},
	Transaction: {FormatCSV, FormatXLSX},
	Settlement:  {FormatCSV, FormatXLSX},
	Ticket:      {FormatCSV, FormatXLSX},
}

// The file formats.
const (
	FormatCSV     = "csv"
	FormatXLSX    = "xlsx"
	FormatCamt053 = "camt053"
	FormatMT940   = "mt940"
)

// Formats returns the formats kind may arrive in.
func Formats(kind Kind) []string { return slices.Clone(formatsOf[kind]) }

// holders collects the distinct values of a file's holder field: the
// provider actor of transactions and settlements, the bank account of bank
// bookings (import_file.holders: an expected file has come when one of its
// kind holding its provider or account has loaded). At most maxHolders are
// kept; tickets have none.
type holders struct {
	at   int // index of the field in Fields(kind), -1: none
	seen map[string]bool
}

const maxHolders = 100

func newHolders(kind Kind) *holders {
	h := &holders{at: -1, seen: map[string]bool{}}
	for i, f := range fields[kind] {
		if f.Name == "ProviderActor" || f.Name == "BankAccount" {
			h.at = i
		}
	}
	return h
}

func (h *holders) add(vals []any) {
	if h.at < 0 || len(h.seen) >= maxHolders {
		return
	}
	if v, ok := vals[h.at].(string); ok && v != "" {
		h.seen[v] = true
	}
}

func (h *holders) list() []string {
	out := make([]string, 0, len(h.seen))
	for v := range h.seen {
		out = append(out, v)
	}
	slices.Sort(out)
	return out
}
