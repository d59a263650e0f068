package tasks

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"ledgerdesk/internal/pgtest"
)

// TestEscalateOverdue drives the SLA escalation by a clock the test holds:
// items become overdue day by day and go, once each, to their provider's
// owner as one task per owner and level; an item whose provider has no
// owner waits until one is set; the queue shows the task and assignee.
func TestEscalateOverdue(t *testing.T) {
	pool := pgtest.New(t)
	ctx := context.Background()
	id := func(sql string, args ...any) int64 {
		t.Helper()
		var id int64
		if err := pool.QueryRow(ctx, sql+" returning id", args...).Scan(&id); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return id
	}
	olga := id(`insert into app_user (username, first_name, last_name, email, password_hash) values ('olga', 'Olga', 'Owner', 'olga@example.com', 'x')`)
	id(`insert into config_setting (provider_name, transaction_type, provider_actor, sla_days, owner_id) values ('Nuvei', 1, 'Nuvei', 5, $1)`, olga)
	id(`insert into config_setting (provider_name, transaction_type, provider_actor, sla_days, owner_id) values ('Nuvei', 2, 'Nuvei', 10, $1)`, olga)
	amex := id(`insert into config_setting (provider_name, transaction_type, provider_actor, sla_days) values ('Amex', 1, 'Amex', 5)`)
	ticket := func(number, day string) int64 {
		return id(`insert into ticket (ticket_number, trans_date, payment_type, country_code, currency, transaction_code, sale_amount, natural_key, import_file_id)
			values ($1, $2, 'CC', 'SE', 'SEK', 'TKTT', 100, $1, 1)`, number, day)
	}
	transaction := func(client, provider, day string) int64 {
		return id(`insert into card_transaction (client_unique_id, processing_date, provider_actor, acquiring_bank, payment_method, currency,
			transaction_amount, transaction_type, natural_key, import_file_id) values ($1, $3, $2, 'Acq', 'Visa', 'SEK', 100, 'Sale', $1 || $2, 1)`, client, provider, day)
	}
	t1 := ticket("1250000000001", "2026-03-01")
	t2 := ticket("1250000000002", "2026-03-08")
	x1 := transaction("1250000000091", "Nuvei", "2026-03-01")
	x2 := transaction("1250000000092", "Amex", "2026-03-01")
	id(`insert into settlement (payout_id, client_unique_id, settlement_date, provider_actor, settlement_currency, gross_amount, fees, settlement_net, natural_key, import_file_id)
		values ('PO-1', '1250000000093', '2026-03-01', 'Nuvei', 'SEK', 50, 1, 49, 's1', 1)`)

	// runs of levels 1 and 2 have seen them (and matched none: run 0) - with
	// their unseen ranges
	if _, err := pool.Exec(ctx, `select recon_open_after_run(l, 0, (select array_agg(id) from recon_unseen where level = l))
		from generate_series(1, 2) l`); err != nil {
		t.Fatal(err)
	}
	s := New(pool, nil)
	on := func(day string) []int64 {
		t.Helper()
		d, _ := time.Parse(time.DateOnly, day)
		made, err := s.EscalateOverdue(ctx, d)
		if err != nil {
			t.Fatalf("escalate on %s: %v", day, err)
		}
		return made
	}
	links := func(task int64) (tickets, transactions []int64, remarks, assignee string) {
		t.Helper()
		if err := pool.QueryRow(ctx, `select array(select ticket_id from task_ticket where task_id = $1 order by 1),
			array(select transaction_id from task_transaction where task_id = $1 order by 1), coalesce(t.remarks, ''), u.username
			from task t join app_user u on u.id = t.assigned_to_id where t.id = $1`, task).Scan(&tickets, &transactions, &remarks, &assignee); err != nil {
			t.Fatal(err)
		}
		return
	}

	if made := on("2026-03-05"); len(made) != 0 {
		t.Fatalf("nothing is due on 5 March (SLA 5 days from 1 March): %v", made)
	}
	// 7 March: t1 (no provider: level 1's strictest SLA, 5 days) and x1 (Nuvei, 5 days)
	// at level 1 go to olga; x2 (Amex, no owner) waits.
	made := on("2026-03-07")
	if len(made) != 1 {
		t.Fatalf("7 March: %d tasks, want 1", len(made))
	}
	tickets, transactions, _, assignee := links(made[0])
	if !slices.Equal(tickets, []int64{t1}) || !slices.Equal(transactions, []int64{x1}) || assignee != "olga" {
		t.Errorf("7 March task links tickets %v, transactions %v for %s; want [%d], [%d] for olga", tickets, transactions, assignee, t1, x1)
	}
	var action, reason string
	if err := pool.QueryRow(ctx, `select action, after->>'reason' from audit_log where entity = 'task' and entity_id = $1`, fmt.Sprint(made[0])).Scan(&action, &reason); err != nil {
		t.Fatal(err)
	}
	if action != "task.escalate" || !strings.Contains(reason, "past their SLA of 5 days on 2026-03-07") {
		t.Errorf("history: %s %q", action, reason)
	}
	var shown string
	if err := pool.QueryRow(ctx, `select coalesce(assignee, '') from recon_open_item where level = 1 and side = 'left' and record_id = $1`, t1).Scan(&shown); err != nil || shown != "olga" {
		t.Errorf("the queue shows t1 assigned to %q (%v)", shown, err)
	}
	if again := on("2026-03-07"); len(again) != 0 {
		t.Errorf("escalated twice: %v", again)
	}
	// 20 March: t2 (due 13 March) at level 1; x1 and the settlement (Nuvei, 10 days) at level 2.
	made = on("2026-03-20")
	if len(made) != 2 {
		t.Fatalf("20 March: %d tasks, want 2", len(made))
	}
	tickets, transactions, _, _ = links(made[0])
	if !slices.Equal(tickets, []int64{t2}) || len(transactions) != 0 {
		t.Errorf("level 1 task of 20 March: %v %v", tickets, transactions)
	}
	tickets, transactions, remarks, _ := links(made[1])
	if len(tickets) != 0 || !slices.Equal(transactions, []int64{x1}) || !strings.Contains(remarks, "settlement 1250000000093 (due 2026-03-11)") {
		t.Errorf("level 2 task of 20 March: %v %v %q", tickets, transactions, remarks)
	}
	// the settlement is linked too (task_record), and the queue shows its task
	var settlementTask *int64
	if err := pool.QueryRow(ctx, `select task_id from recon_open_item where level = 2 and side = 'right' and kind = 'settlement'`).Scan(&settlementTask); err != nil ||
		settlementTask == nil || *settlementTask != made[1] {
		t.Errorf("the settlement's queue row follows task %v (%v), want %d", settlementTask, err, made[1])
	}
	// An owner for Amex: x2 goes the next time.
	if _, err := pool.Exec(ctx, `update config_setting set owner_id = $1 where id = $2`, olga, amex); err != nil {
		t.Fatal(err)
	}
	made = on("2026-03-21")
	if len(made) != 1 {
		t.Fatalf("21 March: %d tasks", len(made))
	}
	if _, transactions, _, _ := links(made[0]); !slices.Equal(transactions, []int64{x2}) {
		t.Errorf("Amex task: %v", transactions)
	}
	if n := count(t, pool, `select count(*) from recon_escalation`); n != 6 {
		t.Errorf("%d items escalated, want 6", n)
	}
}

func count(t *testing.T, pool *pgxpool.Pool, sql string) int {
	t.Helper()
	var n int
	if err := pool.QueryRow(context.Background(), sql).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
