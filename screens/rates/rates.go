// Package rates synchronises the exchange-rate table with the European
// Central Bank's daily reference rates (RATES_URL, the ECB eurofxref XML
// format): for each currency of the feed it stores, for the feed's date, the
// value of one unit in DKK, EUR, USD, SEK and NOK, cross rates through EUR.
package rates

import (
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"sort"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"ledgerdesk/engine"
)

// maxFeedBytes bounds what is read from the feed (the real one is ~2 KB).
const maxFeedBytes = 1 << 20

// targets are the currencies each rate is expressed in (the table's columns).
var targets = []string{"DKK", "EUR", "USD", "SEK", "NOK", "GBP"}

// Syncer fetches the feed and stores it.
type Syncer struct {
	Pool   *pgxpool.Pool
	URL    string
	Client *http.Client
	Log    *slog.Logger
}

// Result says what a sync did.
type Result struct {
	Date       string `json:"date"`
	Currencies int    `json:"currencies"`
	Inserted   int    `json:"inserted"`
	Existing   int    `json:"existing"` // already stored for the date (kept as they are)
}

type envelope struct {
	Days []struct {
		Time  string `xml:"time,attr"`
		Rates []struct {
			Currency string `xml:"currency,attr"`
			Rate     string `xml:"rate,attr"`
		} `xml:"Cube"`
	} `xml:"Cube>Cube"`
}

func unavailable(format string, args ...any) error {
	detail := fmt.Sprintf(format, args...)
	return (&engine.Error{Code: engine.CodeUnavailable, Message: "Exchange rates could not be synchronised: " + detail}).With("rates.syncFailed", "detail", detail)
}

// Sync fetches the feed and stores the day's rates in one transaction. Rates
// already stored for a currency and date are kept (a sync is idempotent per
// date and never overwrites a rate someone corrected by hand). A feed that
// is down or malformed changes nothing.
func (s *Syncer) Sync(ctx context.Context) (*Result, error) {
	day, rates, err := s.fetch(ctx)
	if err != nil {
		return nil, err
	}
	values, err := crossRates(rates)
	if err != nil {
		return nil, err
	}
	res := &Result{Date: day.Format("2006-01-02"), Currencies: len(values)}
	actor := engine.ActorFrom(ctx).Username
	err = pgx.BeginFunc(ctx, s.Pool, func(tx pgx.Tx) error {
		codes := make([]string, 0, len(values))
		for code := range values {
			codes = append(codes, code)
		}
		sort.Strings(codes)
		for _, code := range codes {
			v := values[code]
			tag, err := tx.Exec(ctx, `insert into currency_exchange_rate (exchange_rate_on, code, currency, dkk, eur, usd, sek, nok, gbp, created_by, updated_by)
				values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10) on conflict (code, exchange_rate_on) do nothing`,
				day, code, currencyName(code), v["DKK"], v["EUR"], v["USD"], v["SEK"], v["NOK"], v["GBP"], actor)
			if err != nil {
				return err
			}
			res.Inserted += int(tag.RowsAffected())
		}
		res.Existing = res.Currencies - res.Inserted
		return engine.Audit(ctx, tx, engine.AuditEntry{Action: "rates.sync", Entity: "currency_exchange_rate", EntityID: res.Date, After: res})
	})
	if err != nil {
		return nil, fmt.Errorf("rate sync: %w", engine.TranslatePG(err))
	}
	s.Log.Info("exchange rates synchronised", "date", res.Date, "inserted", res.Inserted, "existing", res.Existing)
	return res, nil
}

func (s *Syncer) fetch(ctx context.Context) (time.Time, map[string]*big.Rat, error) {
	client := s.Client
	if client == nil {
		client = &http.Client{Timeout: 20 * time.Second}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL, nil)
	if err != nil {
		return time.Time{}, nil, unavailable("RATES_URL is not usable")
	}
	resp, err := client.Do(req)
	if err != nil {
		s.Log.Warn("rate feed unreachable", "url", s.URL, "err", err)
		return time.Time{}, nil, unavailable("the rate feed is not reachable")
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return time.Time{}, nil, unavailable("the rate feed answered %d", resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxFeedBytes+1))
	if err != nil {
		return time.Time{}, nil, unavailable("the rate feed could not be read")
	}
	if len(body) > maxFeedBytes {
		return time.Time{}, nil, unavailable("the rate feed is larger than %d bytes", maxFeedBytes)
	}
	return parse(body)
}

// parse reads the newest day of an ECB feed: the rate of one euro in each currency.
func parse(body []byte) (time.Time, map[string]*big.Rat, error) {
	var env envelope
	if err := xml.Unmarshal(body, &env); err != nil {
		return time.Time{}, nil, unavailable("the rate feed is not valid XML")
	}
	if len(env.Days) == 0 {
		return time.Time{}, nil, unavailable("the rate feed holds no rates")
	}
	newest := env.Days[0]
	for _, d := range env.Days[1:] {
		if d.Time > newest.Time {
			newest = d
		}
	}
	day, err := time.Parse("2006-01-02", newest.Time)
	if err != nil {
		return time.Time{}, nil, unavailable("the rate feed has no valid date")
	}
	rates := map[string]*big.Rat{"EUR": big.NewRat(1, 1)}
	for _, r := range newest.Rates {
		rate, ok := new(big.Rat).SetString(r.Rate)
		if !ok || rate.Sign() <= 0 || len(r.Currency) != 3 {
			return time.Time{}, nil, unavailable("the rate feed has a bad entry (%q = %q)", r.Currency, r.Rate)
		}
		rates[r.Currency] = rate
	}
	for _, t := range targets {
		if rates[t] == nil {
			return time.Time{}, nil, unavailable("the rate feed lacks %s", t)
		}
	}
	return day, rates, nil
}

// crossRates gives, for each currency X, the value of one X in each target:
// 1 X = (rate[T] / rate[X]) T, since the feed gives 1 EUR = rate[X] X.
func crossRates(rates map[string]*big.Rat) (map[string]map[string]pgtype.Numeric, error) {
	out := map[string]map[string]pgtype.Numeric{}
	for code, rx := range rates {
		row := map[string]pgtype.Numeric{}
		for _, t := range targets {
			v := new(big.Rat).Quo(rates[t], rx)
			var n pgtype.Numeric
			if err := n.Scan(v.FloatString(8)); err != nil {
				return nil, unavailable("a rate for %s could not be computed", code)
			}
			row[t] = n
		}
		out[code] = row
	}
	return out, nil
}

// currencyName names the currencies the ECB publishes.
func currencyName(code string) string {
	if n, ok := names[code]; ok {
		return n
	}
	return code
}

var names = map[string]string{
	"EUR": "Euro", "USD": "US dollar", "JPY": "Japanese yen", "BGN": "Bulgarian lev", "CZK": "Czech koruna",
	"DKK": "Danish krone", "GBP": "Pound sterling", "HUF": "Hungarian forint", "PLN": "Polish zloty",
	"RON": "Romanian leu", "SEK": "Swedish krona", "CHF": "Swiss franc", "ISK": "Icelandic krona",
	"NOK": "Norwegian krone", "TRY": "Turkish lira", "AUD": "Australian dollar", "BRL": "Brazilian real",
	"CAD": "Canadian dollar", "CNY": "Chinese yuan renminbi", "HKD": "Hong Kong dollar", "IDR": "Indonesian rupiah",
	"ILS": "Israeli shekel", "INR": "Indian rupee", "KRW": "South Korean won", "MXN": "Mexican peso",
	"MYR": "Malaysian ringgit", "NZD": "New Zealand dollar", "PHP": "Philippine peso", "SGD": "Singapore dollar",
	"THB": "Thai baht", "ZAR": "South African rand",
}
