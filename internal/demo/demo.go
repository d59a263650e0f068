// Package demo generates Ledgerdesk's demo data set: a deterministic (seed,
// scale), internally consistent chain of ticket sales, card-provider
// transactions, provider settlements with fees and bank bookings, in several
// currencies and providers, with a known mix of what reconciliation meets -
// exact matches, small and large amount differences, date lags, missing
// counterparts, refunds, fees and bank charges. It writes the FILES in every
// supported format (CSV, XLSX, camt.053, MT940) and can load them, with the
// reference data, through the same import path users take.
package demo

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"time"
)

// Options choose the data set.
type Options struct {
	Seed  uint64
	Scale int       // tickets per day and currency; 1 makes about 1,000 tickets
	Start time.Time // first sales day
	Days  int
}

// trailDays is how far the data runs past the last sales day: payouts,
// settlements and bank bookings follow the sales, rates cover them all.
const trailDays = 10

// End is the last day the data set has anything on (rates included).
func (o Options) End() time.Time { return o.Start.AddDate(0, 0, o.Days+trailDays) }

// Defaults: a month and a half of sales, ending so that nothing is dated
// after today (bookings and rates in the future confuse a first look).
func (o Options) withDefaults() Options {
	if o.Seed == 0 {
		o.Seed = 1
	}
	if o.Scale <= 0 {
		o.Scale = 1
	}
	if o.Days <= 0 {
		o.Days = 45
	}
	if o.Start.IsZero() {
		today := time.Now().UTC().Truncate(24 * time.Hour)
		o.Start = today.AddDate(0, 0, -(o.Days + trailDays))
	}
	return o
}

// Provider is a card acquirer of the demo.
type Provider struct {
	Name       string  // ProviderActor
	Mapping    string  // text its payouts carry on bank statements (recon mapping)
	FeeRate    float64 // share of the gross withheld as fees
	Acquirer   string
	Currencies []string
}

// Providers of the demo.
var Providers = []Provider{
	{"Nuvei", "NUVEI", 0.025, "Nuvei Financial Services", []string{"USD", "EUR", "SEK", "NOK", "DKK", "GBP"}},
	{"Amex", "AMEX", 0.035, "American Express", []string{"USD", "EUR", "GBP"}},
	{"USARC", "USARC", 0.02, "US Airlines Reporting", []string{"USD"}},
}

// Currencies and the USD value of one unit on the first day.
var Currencies = map[string]float64{"USD": 1, "EUR": 1.0512, "SEK": 0.0914, "NOK": 0.0896, "DKK": 0.1409, "GBP": 1.2602}

var countryOf = map[string]string{"USD": "US", "EUR": "DE", "SEK": "SE", "NOK": "NO", "DKK": "DK", "GBP": "GB"}

// Accounts: one bank account per currency, and the format its statements come in.
var Accounts = []struct{ IBAN, Currency, Bank, Format string }{
	{"SE4550000000058398257466", "SEK", "SEB", "camt053"},
	{"NO9386011117947", "NOK", "DNB", "camt053"},
	{"DK5000400440116243", "DKK", "Danske Bank", "camt053"},
	{"DE89370400440532013000", "EUR", "Commerzbank", "mt940"},
	{"GB29NWBK60161331926819", "GBP", "NatWest", "mt940"},
	{"US64SVBKUS6S3300958879", "USD", "Silicon Valley Bank", "csv"},
}

// Ticket, Transaction, Settlement and Booking are the generated records
// (amounts in cents, so sums are exact).
type Ticket struct {
	Number, Payment, Country, Currency, Code string
	Date                                     time.Time
	Cents                                    int64
}

type Transaction struct {
	ClientID, Provider, Acquirer, Method, Currency, Type string
	Date                                                 time.Time
	Cents                                                int64
}

type Settlement struct {
	PayoutID, ClientID, Provider, Acquirer, Currency string
	Date                                             time.Time
	Gross, Fees, Net                                 int64
}

type Booking struct {
	Account, Currency, Text, Reference string
	Booked, Value                      time.Time
	Cents                              int64
}

// Set is a whole demo data set.
type Set struct {
	Options      Options
	Tickets      []Ticket
	Transactions []Transaction
	Settlements  []Settlement
	Bookings     []Booking
	// Mix counts the deliberate anomalies, for the README and the tests.
	Mix map[string]int
}

// Generate builds the data set for o; the same options give the same set.
func Generate(o Options) *Set {
	o = o.withDefaults()
	r := rand.New(rand.NewPCG(o.Seed, o.Seed^0x9e3779b97f4a7c15))
	s := &Set{Options: o, Mix: map[string]int{}}
	seq := 0
	type payoutKey struct {
		provider, currency string
		date               time.Time
	}
	payouts := map[payoutKey][]Settlement{}

	for day := 0; day < o.Days; day++ {
		date := o.Start.AddDate(0, 0, day)
		for _, p := range Providers {
			for _, cur := range p.Currencies {
				for i := 0; i < o.Scale*2; i++ {
					seq++
					t := Ticket{Number: fmt.Sprintf("125%010d", 4400000000+seq), Payment: "CC", Country: countryOf[cur], Currency: cur,
						Code: "TKTT", Date: date, Cents: int64(5000 + r.IntN(245000))}
					if r.IntN(100) < 3 { // a refund of an earlier sale
						t.Code, t.Cents = "RFND", -t.Cents/2
						s.Mix["refunds"]++
					}
					s.Tickets = append(s.Tickets, t)

					if r.IntN(100) < 3 {
						s.Mix["ticket without transaction"]++
						continue
					}
					tx := Transaction{ClientID: t.Number, Provider: p.Name, Acquirer: p.Acquirer, Method: "Visa", Currency: cur,
						Type: "Sale", Date: date, Cents: t.Cents}
					if t.Cents < 0 {
						tx.Type = "Refund"
					}
					if r.IntN(2) == 0 {
						tx.Method = "Mastercard"
					}
					switch n := r.IntN(100); {
					case n < 5:
						tx.Cents += int64(1 + r.IntN(50)) // inside a 1.00 tolerance
						s.Mix["amount difference inside tolerance"]++
					case n < 7:
						tx.Cents += int64(500 + r.IntN(1500))
						s.Mix["amount difference outside tolerance"]++
					}
					switch n := r.IntN(100); {
					case n < 10:
						tx.Date = date.AddDate(0, 0, 1+r.IntN(2))
						s.Mix["date lag inside tolerance"]++
					case n < 12:
						tx.Date = date.AddDate(0, 0, 5)
						s.Mix["date lag outside tolerance"]++
					}
					s.Transactions = append(s.Transactions, tx)

					if r.IntN(100) < 2 {
						s.Mix["transaction without settlement"]++
						continue
					}
					sd := tx.Date.AddDate(0, 0, 2)
					// Amex pays its GBP sales out in USD: the settlement carries
					// the converted amounts (FX through the exchange-rate table).
					payCur, gross := cur, tx.Cents
					if p.Name == "Amex" && cur == "GBP" {
						payCur = "USD"
						gross = int64(math.Round(float64(tx.Cents) * Rate("GBP", o.Start, sd)))
						s.Mix["settled in another currency (FX)"]++
					}
					fees := int64(math.Round(float64(abs(gross)) * p.FeeRate))
					st := Settlement{PayoutID: fmt.Sprintf("PO-%s-%s-%s", p.Mapping, sd.Format("20060102"), payCur), ClientID: tx.ClientID,
						Provider: p.Name, Acquirer: p.Acquirer, Currency: payCur, Date: sd, Gross: gross, Fees: fees, Net: gross - fees}
					s.Settlements = append(s.Settlements, st)
					k := payoutKey{p.Name, payCur, sd}
					payouts[k] = append(payouts[k], st)
				}
			}
		}
	}

	// Each payout reaches the bank account of its currency one or two days later.
	keys := make([]payoutKey, 0, len(payouts))
	for k := range payouts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if !a.date.Equal(b.date) {
			return a.date.Before(b.date)
		}
		if a.provider != b.provider {
			return a.provider < b.provider
		}
		return a.currency < b.currency
	})
	ref := 0
	for _, k := range keys {
		var net int64
		for _, st := range payouts[k] {
			net += st.Net
		}
		if r.IntN(100) < 3 {
			s.Mix["payout missing in the bank"]++
			continue
		}
		var mapping string
		for _, p := range Providers {
			if p.Name == k.provider {
				mapping = p.Mapping
			}
		}
		ref++
		booked := k.date.AddDate(0, 0, 1+r.IntN(2))
		s.Bookings = append(s.Bookings, Booking{Account: accountOf(k.currency), Currency: k.currency, Booked: booked, Value: booked,
			Text: fmt.Sprintf("%s PAYOUT %s", mapping, payouts[k][0].PayoutID), Reference: fmt.Sprintf("ARCH-%06d", ref), Cents: net})
	}
	// A monthly bank charge on every account.
	for _, a := range Accounts {
		for m := o.Start; m.Before(o.Start.AddDate(0, 0, o.Days)); m = m.AddDate(0, 1, 0) {
			ref++
			end := time.Date(m.Year(), m.Month()+1, 0, 0, 0, 0, 0, time.UTC)
			if end.After(o.End()) { // a month not over yet is charged on the last day of the data
				end = o.End()
			}
			s.Bookings = append(s.Bookings, Booking{Account: a.IBAN, Currency: a.Currency, Booked: end, Value: end,
				Text: "Bank charge account maintenance", Reference: fmt.Sprintf("ARCH-%06d", ref), Cents: -int64(2500 + r.IntN(5000))})
			s.Mix["bank charges"]++
		}
	}
	sort.SliceStable(s.Bookings, func(i, j int) bool { return s.Bookings[i].Booked.Before(s.Bookings[j].Booked) })
	return s
}

func accountOf(currency string) string {
	for _, a := range Accounts {
		if a.Currency == currency {
			return a.IBAN
		}
	}
	return Accounts[0].IBAN
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

// money formats cents with a decimal point.
func money(cents int64) string {
	sign := ""
	if cents < 0 {
		sign, cents = "-", -cents
	}
	return fmt.Sprintf("%s%d.%02d", sign, cents/100, cents%100)
}

// Rate is the USD value of one unit of cur on day (a gentle, deterministic drift).
func Rate(cur string, start, day time.Time) float64 {
	base := Currencies[cur]
	if cur == "USD" {
		return 1
	}
	d := day.Sub(start).Hours() / 24
	return math.Round(base*(1+0.01*math.Sin(d/7+float64(len(cur))))*1e6) / 1e6
}
