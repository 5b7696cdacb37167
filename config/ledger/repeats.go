package ledger

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"slices"
	"time"

	"github.com/smsdesk/smsdesk/model"
)

// The repeat guard reads what earlier sends accepted, or may have sent (an
// unknown outcome; the pairs of a send a run still works on; a scheduled
// send's pairs, at its time). Replaying a hundred sends of ten thousand
// pairs takes seconds, so each send's pairs are kept digested in
// send_pairs (one 64-bit model.PairKey, a time and a may-have-gone flag per
// pair), as of its records-th record: a send with more records since (a
// resume, delivery polling) is replayed and its digest rebuilt. The
// records stay the truth; a digest is only ever rebuilt, never trusted
// past them.

// RepeatScope is whose sends count as earlier ones for the repeat guard:
// the service account's (model.AccountID), whatever profile or operator
// made them; and this profile's, under another key or another spelling of
// the host too (a key replaced on the provider's panel, or localhost for
// 127.0.0.1, is a new AccountID for the same account: with both, the guard
// forgot every earlier send). A send recorded before its account was (an
// imported journal) counts when it names this profile, or went to this
// service's host. Without an account (offline, no key) the profile and
// host decide.
type RepeatScope struct {
	Account, Profile, Host string
}

// holds reports whether a send of account, profile and service host is in
// the scope.
func (sc RepeatScope) holds(account, profile, host string) bool {
	if account != "" && sc.Account != "" {
		return account == sc.Account || profile == sc.Profile
	}
	return profile == "" || profile == sc.Profile || host != "" && host == sc.Host
}

// RecentPairs returns the pairs accepted, or that may have gone (or will,
// at a scheduled send's time), at or after since by the sends of the scope,
// one model.SentPairs per send that has any. Only sends touched since are
// read (the touched index); a send a live lease holds is replayed each
// time, its pairs not yet sent counted as may-go (its run may send them any
// moment).
func (l *Ledger) RecentPairs(ctx context.Context, scope RepeatScope, since time.Time) ([]model.SentPairs, error) {
	type cand struct {
		send    Send
		records sql.NullInt64
		digest  []byte
	}
	rows, err := l.db.QueryContext(ctx, l.q(`SELECT `+l.sendColumns("s.")+`, p.records, p.digest
		FROM sends s LEFT JOIN send_pairs p ON p.send_id = s.id WHERE s.touched >= ?`), nanos(since))
	if err != nil {
		return nil, l.fail("reading the send history", err)
	}
	var cands []cand
	for rows.Next() {
		var c cand
		s, err := l.scanSend(scanFunc(func(dest ...any) error {
			return rows.Scan(append(dest, &c.records, &c.digest)...)
		}))
		if err != nil {
			closeRows(rows)
			return nil, l.fail("reading the send history", err)
		}
		if scope.holds(s.Account, s.Profile, s.Host) {
			c.send = s
			cands = append(cands, c)
		}
	}
	closeRows(rows)
	if err := rows.Err(); err != nil {
		return nil, l.fail("reading the send history", err)
	}
	from := since.Unix()
	var out []model.SentPairs
	for _, c := range cands {
		var sp model.SentPairs
		ok := false
		if !c.send.Leased && c.records.Valid && int(c.records.Int64) == c.send.Records {
			sp, ok = decodePairs(c.send.ID, c.digest)
		}
		if !ok {
			st, err := l.ReadSend(ctx, c.send.ID)
			if errors.Is(err, ErrNoSuchSend) {
				continue
			}
			if err != nil {
				return nil, err // a damaged ledger: the guard cannot say
			}
			sp = model.PairsOf(c.send.ID, st, c.send.Leased)
			sp.Running = c.send.Leased
			if !c.send.Leased {
				l.keepPairs(ctx, c.send.ID, len(st.Items) > 0, c.send.Records, sp)
			}
		}
		if slices.ContainsFunc(sp.At, func(t int64) bool { return t >= from }) {
			out = append(out, sp)
		}
	}
	return out, nil
}

type scanFunc func(dest ...any) error

func (f scanFunc) Scan(dest ...any) error { return f(dest...) }

// keepPairs stores a send's digest as of its records-th record (best
// effort: a digest not kept is rebuilt next time). It waits for no other
// writer (tryTx): the look for repeats that keeps it is a read.
func (l *Ledger) keepPairs(ctx context.Context, id string, _ bool, records int, sp model.SentPairs) {
	_ = l.tryTx(ctx, "keeping a send's pairs", func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, l.q(`INSERT INTO send_pairs (send_id, records, digest) VALUES (?, ?, ?)
			ON CONFLICT (send_id) DO UPDATE SET records = excluded.records, digest = excluded.digest`), id, records, encodePairs(sp))
		return err
	})
}

// encodePairs is a digest: a flags byte (1: scheduled), the count, then per
// pair its key and time, then per pair a may-have-gone byte.
func encodePairs(sp model.SentPairs) []byte {
	le := binary.LittleEndian
	b := make([]byte, 0, 1+4+17*len(sp.Keys))
	b = append(b, boolByte(sp.Scheduled))
	b = le.AppendUint32(b, uint32(len(sp.Keys)))
	for i, k := range sp.Keys {
		b = le.AppendUint64(b, k)
		b = le.AppendUint64(b, uint64(sp.At[i]))
	}
	for i := range sp.Keys {
		b = append(b, boolByte(sp.Maybe != nil && sp.Maybe[i]))
	}
	return b
}

// decodePairs reads encodePairs' digest; ok is false when it does not read
// (it is rebuilt then).
func decodePairs(id string, b []byte) (model.SentPairs, bool) {
	le := binary.LittleEndian
	if len(b) < 5 {
		return model.SentPairs{}, false
	}
	n := int(le.Uint32(b[1:]))
	rest := b[5:]
	if len(rest) != n*17 {
		return model.SentPairs{}, false
	}
	sp := model.SentPairs{SendID: id, Scheduled: b[0] == 1, Keys: make([]uint64, n), At: make([]int64, n), Maybe: make([]bool, n)}
	for i := range n {
		sp.Keys[i] = le.Uint64(rest[i*16:])
		sp.At[i] = int64(le.Uint64(rest[i*16+8:]))
		sp.Maybe[i] = rest[n*16+i] == 1
	}
	if !slices.Contains(sp.Maybe, true) {
		sp.Maybe = nil // every pair accepted, as pairsOf builds it
	}
	return sp, true
}

func boolByte(v bool) byte {
	if v {
		return 1
	}
	return 0
}

// ForgetDigests drops every kept digest of the repeat guard: each is
// rebuilt from its send's records when next needed (a benchmark's cold
// check; after records were imported).
func (l *Ledger) ForgetDigests(ctx context.Context) error {
	return l.withTx(ctx, "forgetting the repeat digests", func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, "DELETE FROM send_pairs")
		return err
	})
}
