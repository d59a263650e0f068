// Package imports is the file-format layer of Ledgerdesk's data import: it
// turns an uploaded bank statement, card-provider export, settlement report or
// ticket-sales file into typed rows of one of four kinds (bank, transaction,
// settlement, ticket), and nothing more - the loader that writes rows to
// PostgreSQL, the jobs and the HTTP handler live elsewhere and call Parse.
//
// Each kind has a fixed list of canonical fields (Fields), and every layout a
// source can send is an import descriptor in YAML (Descriptor): which format
// (csv, xlsx, camt053, mt940), which source column feeds which field, the date
// and decimal conventions, and constant defaults for what the source lacks.
// Supporting a new bank or provider layout is therefore a YAML edit; the
// default layouts of DESIGN.md section 5 are built in (DefaultDescriptor).
//
// Parse streams: CSV records, worksheet rows, camt.053 entries and MT940
// statement lines are converted and handed to a callback one at a time, so a
// million-row file never sits in memory, as rows or as bytes (an XLSX
// workbook's zip container needs random access, so it is spooled to a
// temporary file and opened from there while its sheet is streamed). The
// loader stores an upload in the database in parts and hands Parse one stream
// over them. Problems are split in two on purpose. A bad value in one row (a
// malformed date or amount, a missing required value, a ticket number that is
// not 13 digits) is a RowError collected in the Summary while parsing goes on,
// so the user sees every bad row of a file at once instead of fixing them one
// upload at a time; such rows are not emitted. A problem with the file as a
// whole (wrong format or kind, missing columns, truncated XML, an empty,
// oversized or zip-bomb file) stops the parse with an *engine.Error of code
// invalid whose message names the file and, where known, the line and column.
// Because a file-level error can arrive after rows were emitted, the caller
// must treat the parse as all-or-nothing (the loader runs it inside one
// transaction).
//
// Uploads are untrusted: the content is sniffed (Detect) and must agree with
// the descriptor and the kind, every reader is bounded (Limits: total bytes,
// CSV line length and field count, unzipped XLSX size), XML is read with
// encoding/xml, which expands no entities, and every parser is fuzzed.
package imports
