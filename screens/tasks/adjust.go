package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"ledgerdesk/engine"
	"ledgerdesk/internal/decimal"
)

// ManualAdjustProvider is the provider actor of manual adjustments: they
// are told apart from imported transactions by it on every report, and by
// is_manual_adjust in the data.
const ManualAdjustProvider = "Manual adjustment"

// TaskTicket is a linked ticket (spec 03 section 3.5).
type TaskTicket struct {
	TicketID             int64  `json:"ticketId"`
	TicketNumber         string `json:"ticketNumber"`
	TransDate            string `json:"transDate"`
	PaymentType          string `json:"paymentType"`
	CountryCode          string `json:"countryCode"`
	LocalFareCurrency    string `json:"localFareCurrency"`
	TransactionCode      string `json:"transactionCode"`
	TotalFareIncludesFee string `json:"totalFareIncludesFee"`
}

// TaskTransaction is a linked transaction; manual adjustments carry
// IsManualAdjust, their remarks and who made them.
type TaskTransaction struct {
	TransactionID   int64  `json:"transactionId"`
	ClientUniqueID  string `json:"clientUniqueId"`
	Date            string `json:"date"`
	AcquiringBank   string `json:"acquiringBank"`
	PaymentMethod   string `json:"paymentMethod"`
	Currency        string `json:"currency"`
	TransactionType string `json:"transactionType"`
	Amount          string `json:"amount"`
	IsManualAdjust  bool   `json:"isManualAdjust"`
	Remarks         string `json:"remarks"`
	CreatedBy       string `json:"createdBy"`
	// MatchID, MatchStatus and MatchRule: its live match group at the
	// level of tickets and transactions, if any (an adjustment that closed
	// its ticket: rule adjustment).
	MatchID     *int64  `json:"matchId,omitempty"`
	MatchStatus *string `json:"matchStatus,omitempty"`
	MatchRule   *string `json:"matchRule,omitempty"`
	// Closing, on the answer of a new adjustment: what it did to its
	// ticket (Service.Close).
	Closing any `json:"closing,omitempty"`
}

// Relations are a task's links with their counts and totals and the
// balance (ticket total minus transaction total).
type Relations struct {
	Tickets          []TaskTicket      `json:"tickets"`
	Transactions     []TaskTransaction `json:"transactions"`
	TicketCount      int               `json:"ticketCount"`
	TransactionCount int               `json:"transactionCount"`
	TicketTotal      string            `json:"ticketTotal"`
	TransactionTotal string            `json:"transactionTotal"`
	Balance          string            `json:"balance"`
	// Records are the settlements, payouts and bank bookings the task follows.
	Records []Record `json:"records"`
}

// Relations returns a task's tickets and transactions (GET /TaskTT/{id}/relations).
func (s *Service) Relations(ctx context.Context, id int64) (*Relations, error) {
	t, err := s.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	r, err := s.documents(ctx,
		`k.id in (select ticket_id from task_ticket where task_id = $1)`,
		`c.id in (select transaction_id from task_transaction where task_id = $1)`, id)
	if err != nil {
		return nil, err
	}
	r.Balance, r.Records = t.Balance, t.Records
	return r, nil
}

// Candidates returns the tickets and card transactions of a ticket number
// (GET /TaskTT/candidates?ticketNumber=...), so the editor can link them by
// number rather than by id.
func (s *Service) Candidates(ctx context.Context, ticketNumber string) (*Relations, error) {
	n := strings.TrimSpace(ticketNumber)
	if n == "" || len(n) > 50 {
		return nil, engine.Invalid("ticketNumber", "Enter a ticket number.").With("tasks.ticketNumberRequired")
	}
	return s.documents(ctx, `k.ticket_number = $1`, `c.client_unique_id = $1`, n)
}

// documents reads the tickets and transactions that match the two
// conditions (on k, the ticket, and c, the transaction) with their totals
// and balance.
func (s *Service) documents(ctx context.Context, tickets, transactions string, arg any) (*Relations, error) {
	r := &Relations{}
	rows, err := s.pool.Query(ctx, `select k.id, k.ticket_number, k.trans_date::text, coalesce(k.payment_type, ''), coalesce(k.country_code, ''),
			k.currency, coalesce(k.transaction_code, ''), k.sale_amount::text
		from ticket k where `+tickets+` order by k.trans_date, k.id limit 1000`, arg)
	if err != nil {
		return nil, err
	}
	if r.Tickets, err = pgx.CollectRows(rows, pgx.RowToStructByPos[TaskTicket]); err != nil {
		return nil, err
	}
	rows, err = s.pool.Query(ctx, `select c.id, c.client_unique_id, c.processing_date::text, coalesce(c.acquiring_bank, ''), coalesce(c.payment_method, ''),
			c.currency, coalesce(c.transaction_type, ''), c.transaction_amount::text, c.is_manual_adjust, coalesce(c.remarks, ''), c.created_by,
			m.id, m.status, m.rule
		from card_transaction c
		left join lateral (select m.id, m.status, m.rule from recon_match_live m
			where m.level = 1 and m.side = 'right' and m.record_id = c.id limit 1) m on true
		where `+transactions+` order by c.is_manual_adjust, c.processing_date, c.id limit 1000`, arg)
	if err != nil {
		return nil, err
	}
	if r.Transactions, err = pgx.CollectRows(rows, scanTransaction); err != nil {
		return nil, err
	}
	r.TicketCount, r.TransactionCount = len(r.Tickets), len(r.Transactions)
	ticketSum, txs := new(big.Int), new(big.Int)
	for _, k := range r.Tickets {
		c, err := decimal.Cents(k.TotalFareIncludesFee)
		if err != nil {
			return nil, err
		}
		ticketSum.Add(ticketSum, c)
	}
	for _, x := range r.Transactions {
		c, err := decimal.Cents(x.Amount)
		if err != nil {
			return nil, err
		}
		txs.Add(txs, c)
	}
	r.TicketTotal, r.TransactionTotal = decimal.FormatCents(ticketSum), decimal.FormatCents(txs)
	r.Balance = decimal.FormatCents(new(big.Int).Sub(ticketSum, txs))
	return r, nil
}

// Adjustment is the manual adjustment payload (spec 03 section 3.5). The
// amount is a JSON number or string, read exactly; createdBy is ignored (the
// signed-in user makes it); currency, when sent, must be the ticket's.
type Adjustment struct {
	TicketNumber    string          `json:"ticketNumber"`
	TicketID        int64           `json:"ticketId"`
	Amount          json.RawMessage `json:"amount"`
	Date            string          `json:"date"`
	Currency        string          `json:"currency"`
	Remarks         *string         `json:"remarks"`
	CreatedBy       string          `json:"createdBy"`
	AcquiringBank   string          `json:"acquiringBank"`
	TransactionType string          `json:"transactionType"`
}

// amountPattern: a positive amount of at most 18 whole digits and 2 decimals.
var amountPattern = regexp.MustCompile(`^[0-9]{1,18}(\.[0-9]{1,2})?$`)

func parseAmount(raw json.RawMessage) (string, error) {
	text := strings.TrimSpace(string(raw))
	var s string
	if json.Unmarshal(raw, &s) == nil {
		text = strings.TrimSpace(s)
	}
	if text == "" || text == "null" {
		return "", engine.Invalid("amount", "Amount is required.").With("tasks.amountRequired")
	}
	if strings.HasPrefix(text, "-") {
		return "", engine.Invalid("amount", "Amount cannot be negative.").With("tasks.amountNegative")
	}
	if !amountPattern.MatchString(text) {
		return "", engine.Invalid("amount", "Amount must be a number with at most 2 decimals, got %s.", text).With("tasks.amountFormat", "value", text)
	}
	if strings.Trim(text, "0.") == "" {
		return "", engine.Invalid("amount", "Amount must be greater than 0.").With("tasks.amountZero")
	}
	return text, nil
}

// AddAdjustment makes a manual adjustment for a task (POST
// /TaskTT/{id}/manual-adjust): a card transaction of the ticket's number and
// currency, flagged as a manual adjustment and linked to the task. The task
// must already have transactions, and the ticket must be linked to it.
func (s *Service) AddAdjustment(ctx context.Context, id int64, a Adjustment) (*TaskTransaction, error) {
	amount, err := parseAmount(a.Amount)
	if err != nil {
		return nil, err
	}
	date, err := time.Parse(time.DateOnly, strings.TrimSpace(a.Date))
	if err != nil {
		return nil, engine.Invalid("date", "Date is required as yyyy-MM-dd.").With("tasks.badDate")
	}
	if a.TicketID <= 0 {
		return nil, engine.Invalid("ticketId", "Select a ticket.").With("tasks.ticketRequired")
	}
	remarks, err := checkRemarks(a.Remarks)
	if err != nil {
		return nil, err
	}
	if remarks != nil && utf8.RuneCountInString(*remarks) > 1000 {
		return nil, engine.Invalid("remarks", "Remarks can be at most %d characters.", 1000).With("tasks.remarksTooLong", "max", 1000)
	}
	for field, v := range map[string]string{"acquiringBank": a.AcquiringBank, "transactionType": a.TransactionType} {
		if utf8.RuneCountInString(v) > 100 {
			return nil, engine.Invalid(field, "%s can be at most 100 characters.", field).With("tasks.tooLong", "field", field, "max", 100)
		}
	}
	kind := strings.TrimSpace(a.TransactionType)
	if kind == "" {
		kind = "Adjustment"
	}
	var out *TaskTransaction
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := lockTask(ctx, tx, id, time.Time{}); err != nil {
			return err
		}
		var count int
		if err := tx.QueryRow(ctx, `select count(*) from task_transaction where task_id = $1`, id).Scan(&count); err != nil {
			return err
		}
		if count == 0 {
			return engine.Invalid("transactionIds", "Task %d has no transactions: link its transactions before adjusting it.", id).With("tasks.noTransactions", "id", id)
		}
		var number, currency string
		err := tx.QueryRow(ctx, `select k.ticket_number, k.currency from task_ticket tt join ticket k on k.id = tt.ticket_id
			where tt.task_id = $1 and tt.ticket_id = $2`, id, a.TicketID).Scan(&number, &currency)
		if errors.Is(err, pgx.ErrNoRows) {
			return engine.Invalid("ticketId", "Ticket %d is not linked to task %d.", a.TicketID, id).With("tasks.ticketNotLinked", "ticketId", a.TicketID, "id", id)
		}
		if err != nil {
			return err
		}
		if n := strings.TrimSpace(a.TicketNumber); n != "" && n != number {
			return engine.Invalid("ticketNumber", "Ticket number %s is not the number of ticket %d (%s).", n, a.TicketID, number).
				With("tasks.ticketNumberMismatch", "ticketNumber", n, "ticketId", a.TicketID)
		}
		if c := strings.ToUpper(strings.TrimSpace(a.Currency)); c != "" && c != currency {
			return engine.Invalid("currency", "The currency of an adjustment is its ticket's (%s), not %s.", currency, c).
				With("tasks.currencyMismatch", "currency", c, "ticketCurrency", currency)
		}
		if err := s.gateAdjustment(ctx, tx, id, a, number, currency, amount, date); err != nil {
			return err
		}
		who := engine.ActorFrom(ctx).Username
		var txID int64
		// (made for one ticket: it counts once, toward that ticket)
		err = tx.QueryRow(ctx, `insert into card_transaction (client_unique_id, processing_date, provider_actor, acquiring_bank, payment_method,
				currency, transaction_amount, transaction_type, is_manual_adjust, task_id, remarks, created_by, adjusted_ticket_id)
			values ($1, $2, $3, nullif($4, ''), 'Manual', $5, $6::numeric, $7, true, $8, $9, $10, $11) returning id`,
			number, date, ManualAdjustProvider, strings.TrimSpace(a.AcquiringBank), currency, amount, kind, id, remarks, who, a.TicketID).Scan(&txID)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `insert into task_transaction (task_id, transaction_id) values ($1, $2)`, id, txID); err != nil {
			return err
		}
		if err := touch(ctx, tx, id); err != nil {
			return err
		}
		var closing any
		if s.Close != nil {
			// the adjustment joins its ticket's match group, or makes one
			if closing, err = s.Close(ctx, tx, a.TicketID, id, adjustmentReason(id, remarks)); err != nil {
				return err
			}
		}
		if out, err = adjustment(ctx, tx, id, txID); err != nil {
			return err
		}
		// the task's history keeps the adjustment; its match group has an
		// audit row of its own
		logged := *out
		logged.MatchID, logged.MatchStatus, logged.MatchRule = nil, nil, nil
		out.Closing = closing
		return audit(ctx, tx, "adjust", id, nil, &logged)
	})
	return out, engine.TranslatePG(err)
}

// adjustmentReason is the reason a match group closed by an adjustment
// keeps: the adjustment's remarks, else its task.
func adjustmentReason(task int64, remarks *string) string {
	if remarks != nil && strings.TrimSpace(*remarks) != "" {
		return strings.TrimSpace(*remarks)
	}
	return fmt.Sprintf("Adjustment of task %d", task)
}

// scanTransaction reads a row of the documents' transaction query.
func scanTransaction(row pgx.CollectableRow) (TaskTransaction, error) {
	var t TaskTransaction
	err := row.Scan(&t.TransactionID, &t.ClientUniqueID, &t.Date, &t.AcquiringBank, &t.PaymentMethod, &t.Currency, &t.TransactionType,
		&t.Amount, &t.IsManualAdjust, &t.Remarks, &t.CreatedBy, &t.MatchID, &t.MatchStatus, &t.MatchRule)
	return t, err
}

func adjustment(ctx context.Context, tx pgx.Tx, task, txID int64) (*TaskTransaction, error) {
	rows, err := tx.Query(ctx, `select c.id, c.client_unique_id, c.processing_date::text, coalesce(c.acquiring_bank, ''), coalesce(c.payment_method, ''),
			c.currency, coalesce(c.transaction_type, ''), c.transaction_amount::text, c.is_manual_adjust, coalesce(c.remarks, ''), c.created_by,
			m.id, m.status, m.rule
		from card_transaction c
		left join lateral (select m.id, m.status, m.rule from recon_match_live m
			where m.level = 1 and m.side = 'right' and m.record_id = c.id limit 1) m on true
		where c.id = $1 and c.task_id = $2 and c.is_manual_adjust`, txID, task)
	if err != nil {
		return nil, err
	}
	t, err := pgx.CollectExactlyOneRow(rows, scanTransaction)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, engine.NotFound("Transaction %d is not a manual adjustment of task %d.", txID, task).
			With("tasks.adjustmentNotFound", "transactionId", txID, "id", task)
	}
	return &t, err
}

// DeleteAdjustment removes a manual adjustment of a task (DELETE
// /TaskTT/{id}/manual-adjust/{transactionId}). One that reconciliation has
// matched must be unmatched first.
func (s *Service) DeleteAdjustment(ctx context.Context, id, txID int64) error {
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := lockTask(ctx, tx, id, time.Time{}); err != nil {
			return err
		}
		before, err := adjustment(ctx, tx, id, txID)
		if err != nil {
			return err
		}
		var matched bool
		err = tx.QueryRow(ctx, `select exists (select 1 from recon_match_live
			where (level = 1 and side = 'right' and record_id = $1) or (level = 2 and side = 'left' and record_id = $1))`, txID).Scan(&matched)
		if err != nil {
			return err
		}
		if matched {
			return engine.Conflict("Adjustment %d is matched in reconciliation; undo the match first.", txID).With("tasks.adjustmentMatched", "transactionId", txID)
		}
		if _, err := tx.Exec(ctx, `delete from card_transaction where id = $1`, txID); err != nil {
			return err
		}
		if err := touch(ctx, tx, id); err != nil {
			return err
		}
		return audit(ctx, tx, "adjust.delete", id, before, nil)
	})
	if err != nil {
		return fmt.Errorf("delete adjustment %d of task %d: %w", txID, id, engine.TranslatePG(err))
	}
	return nil
}

// gateAdjustment asks the approvals whether the adjustment may be written
// now (an adjustment above the rule's amount in USD waits for a second
// user); once approved, Executors carries it out.
func (s *Service) gateAdjustment(ctx context.Context, tx pgx.Tx, task int64, a Adjustment, number, currency, amount string, date time.Time) error {
	if s.Approvals == nil {
		return nil
	}
	var usd *string
	if err := tx.QueryRow(ctx, `select round($1::numeric * usd_rate($2, $3), 2)::text`, amount, currency, date).Scan(&usd); err != nil {
		return err
	}
	params := map[string]any{"task": task, "ticket": number, "amount": amount + " " + currency}
	return s.Approvals.Gate(ctx, tx, engine.Approval{
		Action: engine.ApprovalAdjustment, Months: []time.Time{date}, AmountUSD: usd,
		Summary: map[string]any{"text": fmt.Sprintf("Adjust ticket %s by %s %s (task %d)", number, amount, currency, task),
			"code": "approvals.what.adjustment", "params": params, "amount": amount + " " + currency, "reason": a.Remarks,
			"leftRefs": []string{number}},
		Replay: map[string]any{"op": "tasks.adjust", "task": task, "adjustment": a},
	})
}

// Executors are the replay ops of the task actions that can wait for
// approval, for the approvals to carry them out once approved.
func (s *Service) Executors() map[string]func(ctx context.Context, replay json.RawMessage) (any, error) {
	return map[string]func(context.Context, json.RawMessage) (any, error){
		"tasks.adjust": func(ctx context.Context, raw json.RawMessage) (any, error) {
			var r struct {
				Task       int64      `json:"task"`
				Adjustment Adjustment `json:"adjustment"`
			}
			if err := json.Unmarshal(raw, &r); err != nil {
				return nil, err
			}
			return s.AddAdjustment(ctx, r.Task, r.Adjustment)
		},
	}
}
