package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The audit chain (DESIGN section 8, migration 00035): the database seals
// each committed audit row with its position (seq), the previous row's hash
// and its own, within seconds of its commit (KeepAuditSealed). VerifyAudit recomputes every hash here, written apart from
// the SQL that made them, so a row changed, removed or slipped in behind
// the trigger's back is found.

// AuditBreak is the first row that does not fit the chain.
type AuditBreak struct {
	ID     int64     `json:"id"`
	Seq    int64     `json:"seq"`
	At     time.Time `json:"at"`
	Action string    `json:"action"`
	Reason string    `json:"reason"`
}

// AuditVerdict is what VerifyAudit found.
type AuditVerdict struct {
	Rows     int64       `json:"rows"`     // sealed rows that fit, from the first
	HeadSeq  int64       `json:"headSeq"`  // the last of them; record it with its hash to prove a later chain extends it
	HeadHash string      `json:"headHash"` //
	Unsealed int64       `json:"unsealed"` // rows committed after the seal this check made (sealed by the next round)
	Break    *AuditBreak `json:"break,omitempty"`
}

// AuditAnchor is a chain position and hash recorded earlier (`ledgerdesk
// audit verify` prints it): a chain rewritten from its start, hashes and
// all, no longer holds it.
type AuditAnchor struct {
	Seq  int64
	Hash string
}

// ParseAuditAnchor reads "seq:hash".
func ParseAuditAnchor(s string) (*AuditAnchor, error) {
	seq, hash, ok := strings.Cut(strings.TrimSpace(s), ":")
	n, err := strconv.ParseInt(seq, 10, 64)
	if !ok || err != nil || n < 1 || len(hash) != 64 {
		return nil, fmt.Errorf("head %q: give it as position:hash, as `ledgerdesk audit verify` printed it", s)
	}
	return &AuditAnchor{Seq: n, Hash: strings.ToLower(hash)}, nil
}

// auditRow is one audit_log row as the chain hashes it.
type auditRow struct {
	id, seq                                        int64
	prevHash, hash                                 *string
	at                                             time.Time
	actorID                                        *int64
	actor, action, entity, entityID, ip, requestID string
	before, after                                  *string
}

// auditField writes one value: "-" for none, else its length in bytes, a
// colon and the value.
func auditField(v *string) string {
	if v == nil {
		return "-"
	}
	return strconv.Itoa(len(*v)) + ":" + *v
}

// line is the text hashed for r (version 1 of the chain's format).
func (r *auditRow) line() string {
	var actorID *string
	if r.actorID != nil {
		s := strconv.FormatInt(*r.actorID, 10)
		actorID = &s
	}
	return strings.Join([]string{
		"ledgerdesk-audit-v1",
		strconv.FormatInt(r.seq, 10),
		auditField(r.prevHash),
		r.at.UTC().Format("2006-01-02T15:04:05.000000Z"),
		auditField(actorID), auditField(&r.actor), auditField(&r.action),
		auditField(&r.entity), auditField(&r.entityID),
		auditField(r.before), auditField(r.after),
		auditField(&r.ip), auditField(&r.requestID),
	}, "\n")
}

// SealAudit seals the committed audit rows not sealed yet (migration
// 00035's audit_seal) and returns how many.
func SealAudit(ctx context.Context, pool *pgxpool.Pool) (int, error) {
	total := 0
	for {
		var n int
		if err := pool.QueryRow(ctx, `select audit_seal()`).Scan(&n); err != nil {
			return total, fmt.Errorf("seal the audit trail: %w", err)
		}
		total += n
		if n < auditSealBatch {
			return total, nil
		}
	}
}

// auditSealBatch is the most rows one audit_seal call seals.
const auditSealBatch = 20000

// AuditSealEvery is how often the server seals new audit rows.
const AuditSealEvery = 2 * time.Second

// KeepAuditSealed seals new audit rows every AuditSealEvery until ctx
// ends: the chain follows the writes within seconds, off their path.
// Several nodes may run it; the chain's head orders them.
func KeepAuditSealed(ctx context.Context, pool *pgxpool.Pool, log *slog.Logger) {
	t := time.NewTicker(AuditSealEvery)
	defer t.Stop()
	for {
		if _, err := SealAudit(ctx, pool); err != nil && ctx.Err() == nil {
			log.Warn("sealing the audit trail failed; the next round tries again", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// VerifyAudit seals what is committed and not sealed yet, then walks the
// chain from its first row and stops at the first that does not fit.
func VerifyAudit(ctx context.Context, pool *pgxpool.Pool, anchor *AuditAnchor) (*AuditVerdict, error) {
	if _, err := SealAudit(ctx, pool); err != nil {
		return nil, fmt.Errorf("audit verify: %w", err)
	}
	v := &AuditVerdict{}
	err := pgx.BeginTxFunc(ctx, pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `select id, seq, prev_hash, hash, at, actor_id, actor, action, entity, entity_id,
				before::text, after::text, ip, request_id
			from audit_log where seq is not null order by seq`)
		if err != nil {
			return err
		}
		defer rows.Close()
		var prev *string
		anchorSeen := false
		for rows.Next() {
			var r auditRow
			if err := rows.Scan(&r.id, &r.seq, &r.prevHash, &r.hash, &r.at, &r.actorID, &r.actor, &r.action, &r.entity,
				&r.entityID, &r.before, &r.after, &r.ip, &r.requestID); err != nil {
				return err
			}
			broken := func(reason string) {
				v.Break = &AuditBreak{ID: r.id, Seq: r.seq, At: r.at, Action: r.action, Reason: reason}
			}
			switch sum := sha256.Sum256([]byte(r.line())); {
			case r.seq != v.Rows+1:
				broken(fmt.Sprintf("it holds position %d where %d was due: the rows between are gone", r.seq, v.Rows+1))
			case !sameHash(r.prevHash, prev):
				broken("its link to the row before does not hold that row's hash: a row before it was removed or replaced")
			case r.hash == nil || *r.hash != hex.EncodeToString(sum[:]):
				broken("its hash does not fit its content: it was changed after it was written")
			case anchor != nil && r.seq == anchor.Seq && *r.hash != anchor.Hash:
				broken("its hash is not the one recorded for this position: the chain was rewritten")
			}
			if v.Break != nil {
				return nil
			}
			if anchor != nil && r.seq == anchor.Seq {
				anchorSeen = true
			}
			v.Rows, v.HeadSeq, v.HeadHash, prev = r.seq, r.seq, *r.hash, r.hash
		}
		if err := rows.Err(); err != nil {
			return err
		}
		var headSeq int64
		var headHash *string
		if err := tx.QueryRow(ctx, `select seq, hash from audit_chain_head`).Scan(&headSeq, &headHash); err != nil {
			return err
		}
		if headSeq != v.HeadSeq || (headSeq > 0 && (headHash == nil || *headHash != v.HeadHash)) {
			v.Break = &AuditBreak{Seq: headSeq, Reason: fmt.Sprintf("the chain's head is position %d, but the rows end at %d: the rows after it were removed or replaced", headSeq, v.HeadSeq)}
			return nil
		}
		if anchor != nil && !anchorSeen {
			v.Break = &AuditBreak{Seq: anchor.Seq, Reason: fmt.Sprintf("the recorded position %d is past the chain's end (%d): rows were removed", anchor.Seq, v.HeadSeq)}
			return nil
		}
		return tx.QueryRow(ctx, `select count(*) from audit_log where seq is null`).Scan(&v.Unsealed)
	})
	if err != nil {
		return nil, fmt.Errorf("audit verify: %w", err)
	}
	return v, nil
}

func sameHash(a, b *string) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}
