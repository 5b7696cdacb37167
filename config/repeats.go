package config

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/smsdesk/smsdesk/model"
)

// The repeat check reads what this profile's earlier sends had accepted, or
// may have sent (an unknown outcome; the pairs of a send another run is
// still working on). A
// journal holds it, but replaying a hundred journals of ten thousand pairs
// takes seconds; so each journal gets a digest file beside it,
// sends/<id>.pairs, holding one 64-bit PairKey and time per accepted pair
// or pair of unknown outcome, and a byte per pair that tells which. The digest names the journal's size and modification time:
// when the journal has changed since (a resume, delivery polling), the digest
// is rebuilt from it. The journal stays the source of truth; a digest that is
// missing, damaged or stale is only rebuilt, never trusted.

const pairsExt = ".pairs"

// pairsMagic starts every digest file; the last two bytes are its version
// (03: a flags byte, scheduled, after the journal's size and time; 04: the
// send's account and service host after its profile).
var pairsMagic = [8]byte{'s', 'm', 's', 'd', 'p', 'r', '0', '4'}

// RepeatScope is whose sends count as earlier ones for the repeat guard:
// the service account's (model.AccountID), whatever profile or operator
// made them; and this profile's on this service's host, under another key
// too (a key replaced on the provider's panel is a new AccountID for the
// same account). A journal written before the account was recorded counts
// when it names this profile, or went to this service's host
// (model.ServiceHost: another key on the same host may be another account,
// but a guard that warns once too often costs a question, one that stays
// silent a second copy of a campaign). Without an account (offline, no
// key) the profile and host decide for every journal.
type RepeatScope struct {
	Account, Profile, Host string
}

// holds reports whether a send of account, profile and service host (its
// journal's) is in the scope.
func (sc RepeatScope) holds(account, profile, host string) bool {
	if account != "" && sc.Account != "" {
		return account == sc.Account || profile == sc.Profile && host == sc.Host
	}
	return profile == "" || profile == sc.Profile || host != "" && host == sc.Host
}

// RecentPairs returns the pairs accepted, or that may have gone (or will, at
// a scheduled send's time), at or after since by the sends of the scope
// (see RepeatScope), one model.SentPairs per send that has any. A send another run is working on
// is read from its journal each time (never from a digest): its pairs not
// yet sent count as possibly sent, since that run may send them any moment. Journals last written before since are skipped unread (a
// scheduled send's journal is dated its time: see JournalFile.CloseScheduled); a
// journal that cannot be read is skipped too (history shows it as damaged).
func RecentPairs(p Paths, scope RepeatScope, since time.Time) ([]model.SentPairs, error) {
	entries, err := os.ReadDir(p.SendsDir())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the send history: %w", err)
	}
	from := since.Unix()
	var out []model.SentPairs
	for _, e := range entries {
		name := e.Name()
		id, ok := strings.CutSuffix(name, journalExt)
		if !ok || e.IsDir() {
			continue
		}
		info, err := e.Info()
		if err != nil || info.ModTime().Before(since) {
			continue
		}
		var sp model.SentPairs
		var who sendOwner
		if JournalInUse(p, id) {
			st, err := ReadJournal(p, id)
			if err != nil {
				continue
			}
			sp, who = pairsOf(id, st, true), ownerOf(st)
			sp.Running = true
		} else if sp, who, ok = readPairsDigest(p, id, info); !ok {
			if sp, who, err = buildPairsDigest(p, id, info); err != nil {
				continue
			}
		}
		if !scope.holds(who.account, who.profile, who.host) {
			continue
		}
		if recentAny(sp.At, from) {
			out = append(out, sp)
		}
	}
	return out, nil
}

// sendOwner is whose a send is, as its plan says: the account, profile and
// service host.
type sendOwner struct {
	account, profile, host string
}

func ownerOf(st *model.JournalState) sendOwner {
	return sendOwner{account: st.Plan.Account, profile: st.Plan.Profile, host: model.ServiceHost(st.Plan.BaseURL)}
}

func recentAny(at []int64, from int64) bool {
	for _, t := range at {
		if t >= from {
			return true
		}
	}
	return false
}

func digestPath(p Paths, id string) string { return filepath.Join(p.SendsDir(), id+pairsExt) }

// readPairsDigest reads send id's digest when it matches the journal's size
// and modification time.
func readPairsDigest(p Paths, id string, journal fs.FileInfo) (model.SentPairs, sendOwner, bool) {
	b, err := os.ReadFile(digestPath(p, id))
	if err != nil {
		return model.SentPairs{}, sendOwner{}, false
	}
	const head = 8 + 8 + 8 + 1
	if len(b) < head || !bytes.Equal(b[:8], pairsMagic[:]) {
		return model.SentPairs{}, sendOwner{}, false
	}
	le := binary.LittleEndian
	size, mtime := int64(le.Uint64(b[8:])), int64(le.Uint64(b[16:]))
	if size != journal.Size() || mtime != journal.ModTime().UnixNano() {
		return model.SentPairs{}, sendOwner{}, false
	}
	scheduled := b[24] == 1
	rest := b[head:]
	var who sendOwner
	for _, f := range []*string{&who.profile, &who.account, &who.host} {
		if len(rest) < 2 || len(rest) < 2+int(le.Uint16(rest)) {
			return model.SentPairs{}, sendOwner{}, false
		}
		n := int(le.Uint16(rest))
		*f, rest = string(rest[2:2+n]), rest[2+n:]
	}
	if len(rest) < 4 {
		return model.SentPairs{}, sendOwner{}, false
	}
	n := int(le.Uint32(rest))
	rest = rest[4:]
	if len(rest) != n*17 {
		return model.SentPairs{}, sendOwner{}, false
	}
	sp := model.SentPairs{SendID: id, Keys: make([]uint64, n), At: make([]int64, n), Maybe: make([]bool, n), Scheduled: scheduled}
	for i := range n {
		sp.Keys[i] = le.Uint64(rest[i*16:])
		sp.At[i] = int64(le.Uint64(rest[i*16+8:]))
		sp.Maybe[i] = rest[n*16+i] == 1
	}
	if !slices.Contains(sp.Maybe, true) {
		sp.Maybe = nil // every pair accepted, as pairsOf builds it
	}
	return sp, who, true
}

// buildPairsDigest replays send id's journal, collects its accepted pairs and
// writes the digest (best effort: a state directory that cannot be written
// only makes the next check replay again).
func buildPairsDigest(p Paths, id string, journal fs.FileInfo) (model.SentPairs, sendOwner, error) {
	st, err := ReadJournal(p, id)
	if err != nil {
		return model.SentPairs{}, sendOwner{}, err
	}
	sp, who := pairsOf(id, st, false), ownerOf(st)
	le := binary.LittleEndian
	b := make([]byte, 0, 8+8+8+1+6+len(who.profile)+len(who.account)+len(who.host)+4+17*len(sp.Keys))
	b = append(b, pairsMagic[:]...)
	b = le.AppendUint64(b, uint64(journal.Size()))
	b = le.AppendUint64(b, uint64(journal.ModTime().UnixNano()))
	b = append(b, boolByte(sp.Scheduled))
	for _, f := range []string{who.profile, who.account, who.host} {
		f = f[:min(len(f), 1<<16-1)]
		b = le.AppendUint16(b, uint16(len(f)))
		b = append(b, f...)
	}
	b = le.AppendUint32(b, uint32(len(sp.Keys)))
	for i, k := range sp.Keys {
		b = le.AppendUint64(b, k)
		b = le.AppendUint64(b, uint64(sp.At[i]))
	}
	for i := range sp.Keys {
		b = append(b, boolByte(sp.Maybe != nil && sp.Maybe[i]))
	}
	_ = writeCacheFile(digestPath(p, id), b)
	return sp, who, nil
}

func boolByte(v bool) byte {
	if v {
		return 1
	}
	return 0
}

// pairsOf is what a send accepted or may have sent: accepted pairs, pairs of
// unknown outcome (or in flight), and, while another run works on the send
// (running), the pairs it has not sent yet. A scheduled send that has not
// started will send every pair it has not left out, at its time, without
// another word from an operator: they count as may-go from that time, so
// that the same file scheduled twice, or sent now while it waits, is
// refused as a repeat naming the scheduled send (as a running send's are).
func pairsOf(id string, st *model.JournalState, running bool) model.SentPairs {
	sp := model.SentPairs{SendID: id}
	if st.Waiting() && !running { // running: a runner is starting it right now
		sp.Scheduled = true
		for _, it := range st.Items {
			if it.State == model.StateQueued {
				sp.AddMaybe(it.Recipient, it.Message, st.Plan.ScheduledFor)
			}
		}
		return sp
	}
	for _, it := range st.Items {
		at := it.At
		if at.IsZero() {
			at = st.Updated
		}
		switch {
		case it.State == model.StateAccepted:
			sp.Add(it.Recipient, it.Message, at)
		case it.State == model.StateUnknown, it.State == model.StateSending, running && it.State == model.StateQueued:
			sp.AddMaybe(it.Recipient, it.Message, at)
		}
	}
	return sp
}

// writeCacheFile replaces path with data through a temp file and a rename, so
// that a reader sees the old file or the new one; unlike WriteFileAtomic it
// does not sync: a cache lost in a crash is rebuilt.
func writeCacheFile(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), tempPattern(path))
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o600)
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}
