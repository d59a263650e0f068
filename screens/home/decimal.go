package home

import (
	"fmt"
	"math/big"
	"strings"
)

// decimalSum adds exact amounts of at most two decimals (numeric(20, 2)
// sums as PostgreSQL prints them) in cents, with a count beside them.
type decimalSum struct {
	n     int64
	cents big.Int
}

func (s *decimalSum) add(n int64, amount string) error {
	whole, frac, _ := strings.Cut(strings.TrimSpace(amount), ".")
	if len(frac) > 2 {
		return fmt.Errorf("amount %q has more than two decimals", amount)
	}
	c, ok := new(big.Int).SetString(whole+frac+strings.Repeat("0", 2-len(frac)), 10)
	if !ok {
		return fmt.Errorf("amount %q is not a number", amount)
	}
	if strings.HasPrefix(whole, "-") && c.Sign() == 0 {
		c.SetInt64(0)
	}
	s.n += n
	s.cents.Add(&s.cents, c)
	return nil
}

func (s *decimalSum) amount() Amount {
	return Amount{Count: s.n, Amount: centsText(&s.cents)}
}

// centsText prints cents as an amount with two decimals ("-12.05").
func centsText(c *big.Int) string {
	sign := ""
	abs := new(big.Int).Set(c)
	if c.Sign() < 0 {
		sign = "-"
		abs.Neg(abs)
	}
	q, r := new(big.Int).QuoRem(abs, big.NewInt(100), new(big.Int))
	return fmt.Sprintf("%s%s.%02d", sign, q.String(), r.Int64())
}

// percent is part of total in percent with one decimal, rounded half up.
func percent(part, total int64) string {
	tenths := (part*1000 + total/2) / total
	return fmt.Sprintf("%d.%d", tenths/10, tenths%10)
}
