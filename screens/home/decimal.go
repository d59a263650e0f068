package home

import (
	"fmt"
	"math/big"

	"ledgerdesk/internal/decimal"
)

// decimalSum adds exact amounts of at most two decimals (numeric(20, 2)
// sums as PostgreSQL prints them) in cents, with a count beside them.
type decimalSum struct {
	n     int64
	cents big.Int
}

func (s *decimalSum) add(n int64, amount string) error {
	c, err := decimal.Cents(amount)
	if err != nil {
		return err
	}
	s.n += n
	s.cents.Add(&s.cents, c)
	return nil
}

func (s *decimalSum) amount() Amount {
	return Amount{Count: s.n, Amount: decimal.FormatCents(&s.cents)}
}

// percent is part of total in percent with one decimal, rounded half up.
func percent(part, total int64) string {
	tenths := (part*1000 + total/2) / total
	return fmt.Sprintf("%d.%d", tenths/10, tenths%10)
}
