package demo

import (
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/xuri/excelize/v2"

	"ledgerdesk/screens/imports"
)

// File is one written demo file and how it is imported.
type File struct {
	Kind imports.Kind
	Path string
}

// WriteFiles writes the set into dir in every supported format: tickets as
// CSV and XLSX, transactions and settlements as CSV (Nuvei, USARC) and XLSX
// (Amex), bank statements as camt.053 (SEK, NOK, DKK accounts), MT940 (EUR,
// GBP) and CSV (USD). Every record is in exactly one file.
func WriteFiles(s *Set, dir string) ([]File, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var files []File
	add := func(kind imports.Kind, name string, write func(path string) error) error {
		path := filepath.Join(dir, name)
		if err := write(path); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		files = append(files, File{kind, path})
		return nil
	}
	d := func(t time.Time) string { return t.Format("2006-01-02") }

	half := len(s.Tickets) / 2
	ticketRows := func(ts []Ticket) [][]string {
		rows := [][]string{{"TicketNumber", "TransDate", "PaymentType", "CountryCode", "Currency", "TransactionCode", "SaleAmount"}}
		for _, t := range ts {
			rows = append(rows, []string{t.Number, d(t.Date), t.Payment, t.Country, t.Currency, t.Code, money(t.Cents)})
		}
		return rows
	}
	txRows := func(amex bool) [][]string {
		rows := [][]string{{"ClientUniqueID", "ProcessingDate", "ProviderActor", "AcquiringBank", "PaymentMethod", "Currency", "TransactionAmount", "TransactionType"}}
		for _, t := range s.Transactions {
			if (t.Provider == "Amex") == amex {
				rows = append(rows, []string{t.ClientID, d(t.Date), t.Provider, t.Acquirer, t.Method, t.Currency, money(t.Cents), t.Type})
			}
		}
		return rows
	}
	stRows := func(amex bool) [][]string {
		rows := [][]string{{"PayoutID", "ClientUniqueID", "SettlementDate", "ProviderActor", "AcquirerBank", "SettlementCurrency", "GrossAmount", "Fees", "SettlementNet"}}
		for _, st := range s.Settlements {
			if (st.Provider == "Amex") == amex {
				rows = append(rows, []string{st.PayoutID, st.ClientID, d(st.Date), st.Provider, st.Acquirer, st.Currency, money(st.Gross), money(st.Fees), money(st.Net)})
			}
		}
		return rows
	}
	steps := []error{
		add(imports.Ticket, "tickets-1.csv", func(p string) error { return writeCSV(p, ticketRows(s.Tickets[:half])) }),
		add(imports.Ticket, "tickets-2.xlsx", func(p string) error { return writeXLSX(p, ticketRows(s.Tickets[half:])) }),
		add(imports.Transaction, "transactions-nuvei-usarc.csv", func(p string) error { return writeCSV(p, txRows(false)) }),
		add(imports.Transaction, "transactions-amex.xlsx", func(p string) error { return writeXLSX(p, txRows(true)) }),
		add(imports.Settlement, "settlements-nuvei-usarc.csv", func(p string) error { return writeCSV(p, stRows(false)) }),
		add(imports.Settlement, "settlements-amex.xlsx", func(p string) error { return writeXLSX(p, stRows(true)) }),
		add(imports.Bank, "bank-nordic.camt053.xml", func(p string) error { return os.WriteFile(p, []byte(camt053(s, "camt053")), 0o644) }),
		add(imports.Bank, "bank-eur-gbp.mt940.sta", func(p string) error { return os.WriteFile(p, []byte(mt940(s, "mt940")), 0o644) }),
		add(imports.Bank, "bank-usd.csv", func(p string) error {
			rows := [][]string{{"BankAccount", "BookedDate", "InterestDate", "Text", "AmountLocal", "Currency", "BankArchiveReference", "Number", "BookedBalanceLocalCurrency"}}
			for i, b := range bookingsOf(s, "csv") {
				rows = append(rows, []string{b.Account, d(b.Booked), d(b.Value), b.Text, money(b.Cents), b.Currency, b.Reference, fmt.Sprint(i + 1), ""})
			}
			return writeCSV(p, rows)
		}),
	}
	for _, err := range steps {
		if err != nil {
			return nil, err
		}
	}
	return files, nil
}

func bookingsOf(s *Set, format string) []Booking {
	var out []Booking
	for _, a := range Accounts {
		if a.Format != format {
			continue
		}
		for _, b := range s.Bookings {
			if b.Account == a.IBAN {
				out = append(out, b)
			}
		}
	}
	return out
}

const openingCents = 10_000_000 // every demo account opens at 100,000.00

// camt053 writes one statement per account, with balances that add up.
func camt053(s *Set, format string) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02">
  <BkToCstmrStmt>
    <GrpHdr><MsgId>LEDGERDESK-DEMO</MsgId><CreDtTm>2026-11-20T06:00:00Z</CreDtTm></GrpHdr>
`)
	for _, a := range Accounts {
		if a.Format != format {
			continue
		}
		var entries []Booking
		total := int64(openingCents)
		for _, bk := range s.Bookings {
			if bk.Account == a.IBAN {
				entries = append(entries, bk)
				total += bk.Cents
			}
		}
		fmt.Fprintf(&b, `    <Stmt>
      <Id>DEMO-%s</Id>
      <Acct><Id><IBAN>%s</IBAN></Id><Ccy>%s</Ccy></Acct>
      <Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="%s">%s</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>%s</Dt></Dt></Bal>
      <Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="%s">%s</Amt><CdtDbtInd>%s</CdtDbtInd><Dt><Dt>%s</Dt></Dt></Bal>
`, a.Currency, a.IBAN, a.Currency, a.Currency, money(openingCents), s.Options.Start.Format("2006-01-02"),
			a.Currency, money(abs(total)), creditDebit(total), s.Options.Start.AddDate(0, 0, s.Options.Days+5).Format("2006-01-02"))
		for _, e := range entries {
			fmt.Fprintf(&b, `      <Ntry>
        <Amt Ccy="%s">%s</Amt><CdtDbtInd>%s</CdtDbtInd><Sts>BOOK</Sts>
        <BookgDt><Dt>%s</Dt></BookgDt><ValDt><Dt>%s</Dt></ValDt>
        <AcctSvcrRef>%s</AcctSvcrRef>
        <AddtlNtryInf>%s</AddtlNtryInf>
      </Ntry>
`, e.Currency, money(abs(e.Cents)), creditDebit(e.Cents), e.Booked.Format("2006-01-02"), e.Value.Format("2006-01-02"), e.Reference, e.Text)
		}
		b.WriteString("    </Stmt>\n")
	}
	b.WriteString("  </BkToCstmrStmt>\n</Document>\n")
	return b.String()
}

func creditDebit(cents int64) string {
	if cents < 0 {
		return "DBIT"
	}
	return "CRDT"
}

// mt940 writes one statement per account (no SWIFT envelope), decimal comma.
func mt940(s *Set, format string) string {
	var b strings.Builder
	amt := func(c int64) string { return strings.Replace(money(abs(c)), ".", ",", 1) }
	dc := func(c int64) string {
		if c < 0 {
			return "D"
		}
		return "C"
	}
	n := 0
	for _, a := range Accounts {
		if a.Format != format {
			continue
		}
		n++
		total := int64(openingCents)
		fmt.Fprintf(&b, ":20:DEMO-%s\n:25:%s\n:28C:%d/1\n:60F:C%s%s%s\n", a.Currency, a.IBAN, n, s.Options.Start.Format("060102"), a.Currency, amt(openingCents))
		last := s.Options.Start
		for _, e := range s.Bookings {
			if e.Account != a.IBAN {
				continue
			}
			total += e.Cents
			last = e.Booked
			fmt.Fprintf(&b, ":61:%s%s%s%sNTRF%s\n:86:%s\n", e.Value.Format("060102"), e.Booked.Format("0102"), dc(e.Cents), amt(e.Cents), e.Reference, e.Text)
		}
		fmt.Fprintf(&b, ":62F:%s%s%s%s\n-\n", dc(total), last.Format("060102"), a.Currency, amt(total))
	}
	return b.String()
}

func writeCSV(path string, rows [][]string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	w.WriteAll(rows)
	if err := w.Error(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func writeXLSX(path string, rows [][]string) error {
	x := excelize.NewFile()
	defer x.Close()
	sw, err := x.NewStreamWriter("Sheet1")
	if err != nil {
		return err
	}
	for i, r := range rows {
		cells := make([]any, len(r))
		for j, v := range r {
			cells[j] = v
		}
		cell, _ := excelize.CoordinatesToCellName(1, i+1)
		if err := sw.SetRow(cell, cells); err != nil {
			return err
		}
	}
	if err := sw.Flush(); err != nil {
		return err
	}
	return x.SaveAs(path)
}

// Load stores the reference data (idempotently) and imports every file
// through the import service, as a user's upload would be.
func Load(ctx context.Context, pool *pgxpool.Pool, s *Set, files []File, importer *imports.Service) ([]*imports.File, error) {
	if err := loadReference(ctx, pool, s); err != nil {
		return nil, fmt.Errorf("demo reference data: %w", err)
	}
	var out []*imports.File
	for _, f := range files {
		content, err := os.ReadFile(f.Path)
		if err != nil {
			return nil, err
		}
		res, err := importer.ImportNow(ctx, imports.Upload{Kind: f.Kind, FileName: filepath.Base(f.Path), Content: imports.ContentOf(content)})
		if err != nil {
			return nil, fmt.Errorf("demo import %s: %w", filepath.Base(f.Path), err)
		}
		out = append(out, res)
	}
	return out, nil
}

func loadReference(ctx context.Context, pool *pgxpool.Pool, s *Set) error {
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		exec := func(sql string, args ...any) error {
			_, err := tx.Exec(ctx, sql, args...)
			return err
		}
		// Each provider is an actor of its own, so the bank overview shows a column per provider.
		for i, p := range Providers {
			if err := exec(`insert into transaction_provider (trans, providers, priority, in_out, distr_rvn_settle, distr_driver, affects_balance, recon_mapping, created_by, updated_by)
				values ($1, $1, $2, 'IN', 'Yes', 'No', 'Yes', $3, 'demo', 'demo') on conflict do nothing`, p.Name, i+1, p.Mapping); err != nil {
				return err
			}
		}
		if err := exec(`insert into transaction_provider (trans, providers, priority, in_out, distr_rvn_settle, distr_driver, affects_balance, recon_mapping, created_by, updated_by)
			values ('Bank', 'Bank charges', 90, 'OUT', 'No', 'No', 'Yes', 'Bank charge', 'demo', 'demo') on conflict do nothing`); err != nil {
			return err
		}
		for _, a := range Accounts {
			if err := exec(`insert into bank_account_currency (i_bank_no, currency_code, bank_name, created_by, updated_by) values ($1, $2, $3, 'demo', 'demo') on conflict do nothing`,
				a.IBAN, a.Currency, a.Bank); err != nil {
				return err
			}
		}
		for _, c := range [][]string{{"US", "USA", "United States", "1"}, {"DE", "DEU", "Germany", "49"}, {"SE", "SWE", "Sweden", "46"},
			{"NO", "NOR", "Norway", "47"}, {"DK", "DNK", "Denmark", "45"}, {"GB", "GBR", "United Kingdom", "44"}, {"FI", "FIN", "Finland", "358"},
			{"ES", "ESP", "Spain", "34"}, {"PT", "PRT", "Portugal", "351"}, {"BR", "BRA", "Brazil", "55"}} {
			if err := exec(`insert into country (country_code, trigram, country_name, country_tel_code, created_by, updated_by) values ($1, $2, $3, $4, 'demo', 'demo') on conflict do nothing`,
				c[0], c[1], c[2], c[3]); err != nil {
				return err
			}
		}
		end := s.Options.End()
		for day := s.Options.Start.AddDate(0, 0, -7); !day.After(end); day = day.AddDate(0, 0, 1) {
			for cur := range Currencies {
				usd := Rate(cur, s.Options.Start, day)
				in := func(target string) float64 { return usd / Rate(target, s.Options.Start, day) }
				if err := exec(`insert into currency_exchange_rate (exchange_rate_on, code, currency, dkk, eur, usd, sek, nok, gbp, created_by, updated_by)
					values ($1, $2, $3, round($4::numeric, 8), round($5::numeric, 8), round($6::numeric, 8), round($7::numeric, 8), round($8::numeric, 8),
					        round($9::numeric, 8), 'demo', 'demo')
					on conflict do nothing`, day, cur, currencyNames[cur], in("DKK"), in("EUR"), usd, in("SEK"), in("NOK"), in("GBP")); err != nil {
					return err
				}
			}
		}
		// Tolerances: 1.00 and two days everywhere; settlements may come in
		// another currency (Amex pays GBP out in USD) within 1 %.
		for _, p := range Providers {
			for level := 1; level <= 3; level++ {
				currency := "0"
				if level == 2 {
					currency = "1.00"
				}
				if err := exec(`insert into config_setting (provider_name, transaction_type, provider_actor, currency_threshold, date_threshold, amount_threshold, created_by, updated_by)
					values ($1, $2, $1, $3::numeric, 2, 1.00, 'demo', 'demo') on conflict do nothing`, p.Name, level, currency); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

var currencyNames = map[string]string{"USD": "US dollar", "EUR": "Euro", "SEK": "Swedish krona", "NOK": "Norwegian krone", "DKK": "Danish krone", "GBP": "Pound sterling"}
