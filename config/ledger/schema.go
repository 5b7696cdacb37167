package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// The schema is a short list of migrations in Go, run when a ledger opens
// (each in the one transaction that also moves schema_version on): a few
// statements do not warrant goose or golang-migrate, whose drivers and
// file loaders outweigh them, and both backends read the same statements.
// A ledger whose schema_version is newer than SchemaVersion was written by
// a newer smsdesk and is refused (ErrSchemaTooNew): reading it could drop
// what this version does not know.

// SchemaVersion is the newest schema this smsdesk reads and writes.
const SchemaVersion = 3

// migration moves a ledger's schema from version-1 to version.
type migration struct {
	version int
	stmts   []string
	// fill, when set, runs after stmts in the same transaction: what SQL
	// alone cannot bring over from the older version (reading records'
	// JSON). It runs on a new ledger too, finding nothing.
	fill func(ctx context.Context, l *Ledger, tx *sql.Tx) error
}

// migrations, oldest first; each statement's {{blob}}, {{serial}} and
// {{without_rowid}} are the backend's words.
var migrations = []migration{
	{version: 1, stmts: []string{
		// meta: schema_version, ledger_id, created.
		`CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
		// counters: "sends" moves on with every change to what is due
		// (a scheduled send, a hold, a cancel, a start, a lease let go):
		// what SQLite's watchers poll.
		`CREATE TABLE counters (name TEXT PRIMARY KEY, value BIGINT NOT NULL)`,
		`INSERT INTO counters (name, value) VALUES ('sends', 0)`,
		// sends: one row per send, its summary kept by Append so that
		// history pages and runners find due sends without replaying.
		// Times are Unix nanoseconds. due_at is set while a runner is to
		// start (waiting) or continue (held) it.
		`CREATE TABLE sends (
			id            TEXT PRIMARY KEY,
			plan_time     BIGINT NOT NULL,
			state         TEXT NOT NULL,
			due_at        BIGINT,
			scheduled_for BIGINT NOT NULL,
			held_until    BIGINT NOT NULL,
			touched       BIGINT NOT NULL,
			profile       TEXT NOT NULL,
			account       TEXT NOT NULL,
			host          TEXT NOT NULL,
			sender        TEXT NOT NULL,
			operator      TEXT NOT NULL,
			source        TEXT NOT NULL,
			items         INTEGER NOT NULL,
			records       INTEGER NOT NULL,
			lease_token   TEXT,
			lease_holder  TEXT NOT NULL DEFAULT '',
			lease_host    TEXT NOT NULL DEFAULT '',
			lease_pid     INTEGER NOT NULL DEFAULT 0,
			lease_until   BIGINT NOT NULL DEFAULT 0,
			updated_seq   BIGINT NOT NULL
		)`,
		`CREATE INDEX sends_history ON sends (plan_time DESC, id DESC)`,
		`CREATE INDEX sends_due ON sends (due_at) WHERE due_at IS NOT NULL`,
		`CREATE INDEX sends_touched ON sends (touched)`,
		// send_records: the journal records (model.JournalRecord's JSON,
		// one row each, in order).
		`CREATE TABLE send_records (
			send_id TEXT NOT NULL REFERENCES sends (id) ON DELETE CASCADE,
			seq     INTEGER NOT NULL,
			type    TEXT NOT NULL,
			body    TEXT NOT NULL,
			PRIMARY KEY (send_id, seq)
		)`,
		// send_pairs: the repeat guard's digest of a send's pairs, as of
		// its records-th record (rebuilt when the send has more).
		`CREATE TABLE send_pairs (
			send_id TEXT PRIMARY KEY REFERENCES sends (id) ON DELETE CASCADE,
			records INTEGER NOT NULL,
			digest  {{blob}} NOT NULL
		)`,
		// optouts: the ledger's one list; sender '' holds for every line.
		`CREATE TABLE optouts (
			mobile   TEXT NOT NULL,
			sender   TEXT NOT NULL,
			note     TEXT NOT NULL,
			added    TEXT NOT NULL,
			operator TEXT NOT NULL,
			PRIMARY KEY (mobile, sender)
		){{without_rowid}}`,
		// once_ids: send-pair --once ids used, with the send and its pairs.
		`CREATE TABLE once_ids (
			id       TEXT PRIMARY KEY,
			send_id  TEXT NOT NULL,
			pairs    TEXT NOT NULL,
			count    INTEGER NOT NULL,
			source   TEXT NOT NULL,
			at       TEXT NOT NULL,
			profile  TEXT NOT NULL,
			operator TEXT NOT NULL
		)`,
		`CREATE INDEX once_ids_send ON once_ids (send_id)`,
		// audit: changes besides sends (config.AuditRecord's JSON).
		`CREATE TABLE audit (
			seq    {{serial}},
			at     BIGINT NOT NULL,
			action TEXT NOT NULL,
			body   TEXT NOT NULL
		)`,
	}},
	// Version 2, the campaign loop (issue 42): what happened to every
	// message after the service took it, what recipients wrote back, and
	// the kinds of the account's lines.
	{version: 2, stmts: []string{
		// deliveries: one row per accepted message, written in the
		// transaction of the outcome record that accepted it. state moves
		// only forward (state_rank: pending 0 < sent 1 < delivered,
		// failed, rejected 2; no_report, the poller's give-up, only over a
		// rank below 2), and the time each state arrived is kept (Unix
		// nanoseconds, 0 until then). next_poll_at is when the fallback
		// poller may ask next, NULL once final.
		`CREATE TABLE deliveries (
			send_id      TEXT NOT NULL REFERENCES sends (id) ON DELETE CASCADE,
			idx          INTEGER NOT NULL,
			message_id   TEXT NOT NULL,
			account      TEXT NOT NULL,
			sender       TEXT NOT NULL,
			recipient    TEXT NOT NULL,
			state        TEXT NOT NULL,
			state_rank   INTEGER NOT NULL,
			accepted_at  BIGINT NOT NULL,
			sent_at      BIGINT NOT NULL DEFAULT 0,
			delivered_at BIGINT NOT NULL DEFAULT 0,
			failed_at    BIGINT NOT NULL DEFAULT 0,
			rejected_at  BIGINT NOT NULL DEFAULT 0,
			no_report_at BIGINT NOT NULL DEFAULT 0,
			updated_at   BIGINT NOT NULL,
			next_poll_at BIGINT,
			polls        INTEGER NOT NULL DEFAULT 0,
			PRIMARY KEY (send_id, idx)
		)`,
		`CREATE INDEX deliveries_message ON deliveries (account, message_id)`,
		// recipient is the number's canonical form (model.OptOutKey): a
		// reply from it finds the last send to it (the inbox's send_id).
		`CREATE INDEX deliveries_recipient ON deliveries (account, recipient, sender)`,
		`CREATE INDEX deliveries_poll ON deliveries (next_poll_at) WHERE next_poll_at IS NOT NULL`,
		// events: the service's webhook events as received, identified by
		// (account, message_id, event): the service gives no event id, so
		// a repeat is that identity again and changes nothing. body is the
		// raw JSON (at most 64 KB, as bytes: it is not trusted to be
		// text); matched is the send of the delivery it is about, '' for
		// an inbound message (filed in the inbox), NULL while no delivery
		// has its message id (it came before the outcome, or is about a
		// message smsdesk did not send: unmatched).
		`CREATE TABLE events (
			seq         {{serial}},
			account     TEXT NOT NULL,
			profile     TEXT NOT NULL,
			message_id  TEXT NOT NULL,
			event       TEXT NOT NULL,
			status      TEXT NOT NULL DEFAULT '',
			recipient   TEXT NOT NULL DEFAULT '',
			occurred_at BIGINT NOT NULL DEFAULT 0,
			received_at BIGINT NOT NULL,
			body        {{blob}} NOT NULL,
			matched     TEXT
		)`,
		`CREATE UNIQUE INDEX events_identity ON events (account, message_id, event)`,
		`CREATE INDEX events_unmatched ON events (account, message_id) WHERE matched IS NULL`,
		// inbox: the messages recipients wrote to the account's lines
		// (sms.inbound), newest first by account; action is what the reply
		// did to the opt-out list (opted_out, opted_in, or ''), send_id the
		// last send to that number from that line.
		`CREATE TABLE inbox (
			seq         {{serial}},
			account     TEXT NOT NULL,
			profile     TEXT NOT NULL,
			message_id  TEXT NOT NULL,
			sender      TEXT NOT NULL,
			line        TEXT NOT NULL,
			message     TEXT NOT NULL,
			occurred_at BIGINT NOT NULL DEFAULT 0,
			received_at BIGINT NOT NULL,
			action      TEXT NOT NULL DEFAULT '',
			send_id     TEXT
		)`,
		`CREATE INDEX inbox_received ON inbox (account, received_at DESC)`,
		`CREATE INDEX inbox_sender ON inbox (account, sender, line)`,
		// optouts: who put the number on the list (operator, import, or a
		// reply, with the reply's message id).
		`ALTER TABLE optouts ADD COLUMN source TEXT NOT NULL DEFAULT 'operator'`,
		`ALTER TABLE optouts ADD COLUMN message_id TEXT NOT NULL DEFAULT ''`,
		// lines: the kind of each of an account's lines (service or
		// advertising); a line without a row keeps the profile's settings.
		`CREATE TABLE lines (
			account  TEXT NOT NULL,
			line     TEXT NOT NULL,
			kind     TEXT NOT NULL,
			set_at   BIGINT NOT NULL,
			operator TEXT NOT NULL DEFAULT '',
			PRIMARY KEY (account, line)
		)`,
		// sends: the send whose failed messages this one sends again.
		`ALTER TABLE sends ADD COLUMN resend_of TEXT`,
		// counters a watcher of deliveries, the inbox or the opt-out list
		// polls (SQLite), as "sends" for what is due.
		`INSERT INTO counters (name, value) VALUES ('deliveries', 0), ('inbox', 0), ('optouts', 0) ON CONFLICT (name) DO NOTHING`,
	}, fill: fillVersion2},
	// Version 3 adds no table: a send's journal may now hold an opted_out
	// record (a number that opted out by reply while the send ran, left
	// out from its next chunk). A version-2 smsdesk reads a record type it
	// does not know as damage, and marks the ledger damaged for every
	// process; at version 3 it refuses the ledger instead ("use that newer
	// smsdesk"), changing nothing.
	{version: 3},
}

// tables are every table of the newest schema.
var tables = []string{"meta", "counters", "sends", "send_records", "send_pairs", "optouts", "once_ids", "audit",
	"deliveries", "events", "inbox", "lines"}

// create makes the schema and the meta rows of a new ledger.
func (l *Ledger) create(ctx context.Context) error {
	return l.withTx(ctx, "creating the ledger", func(tx *sql.Tx) error {
		if ok, err := l.d.hasTable(ctx, tx, "meta"); err != nil {
			return err
		} else if ok {
			return fmt.Errorf("%s: %w", l.where, ErrExists)
		}
		if err := l.apply(ctx, tx, 0); err != nil {
			return err
		}
		l.id, l.version = newToken(), SchemaVersion
		for k, v := range map[string]string{
			"schema_version": strconv.Itoa(SchemaVersion),
			"ledger_id":      l.id,
			"created":        l.now().UTC().Format(time.RFC3339),
		} {
			if _, err := tx.ExecContext(ctx, l.q("INSERT INTO meta (key, value) VALUES (?, ?)"), k, v); err != nil {
				return err
			}
		}
		return nil
	})
}

// apply runs the migrations after version from.
func (l *Ledger) apply(ctx context.Context, tx *sql.Tx, from int) error {
	for _, m := range migrations {
		if m.version <= from {
			continue
		}
		for _, s := range m.stmts {
			if _, err := tx.ExecContext(ctx, l.d.types(s)); err != nil {
				return fmt.Errorf("schema version %d: %w", m.version, err)
			}
		}
		if m.fill != nil {
			if err := m.fill(ctx, l, tx); err != nil {
				return fmt.Errorf("schema version %d: %w", m.version, err)
			}
		}
	}
	return nil
}

// migrate checks an existing ledger's schema, brings an older one up to
// SchemaVersion and reads its id.
func (l *Ledger) migrate(ctx context.Context) error {
	ok, err := l.d.hasTable(ctx, l.db, "meta")
	if err != nil {
		return l.fail("opening the ledger", err)
	}
	if !ok {
		if l.d.backend() == Postgres {
			return fmt.Errorf("%s: %w (the database has no smsdesk ledger; `smsdesk ledger init` makes one)", l.where, ErrMissing)
		}
		return l.damaged("it has no meta table: it is not an smsdesk ledger, or it was never finished", nil)
	}
	v, err := l.readVersion(ctx, l.db, "")
	if err != nil {
		return err
	}
	if v < SchemaVersion {
		err := l.withTx(ctx, "upgrading the ledger's schema", func(tx *sql.Tx) error {
			v, err := l.readVersion(ctx, tx, l.d.lockRows(false))
			if err != nil || v >= SchemaVersion {
				return err
			}
			if err := l.apply(ctx, tx, v); err != nil {
				return err
			}
			_, err = tx.ExecContext(ctx, l.q("UPDATE meta SET value = ? WHERE key = 'schema_version'"), strconv.Itoa(SchemaVersion))
			return err
		})
		if err != nil {
			return err
		}
	}
	l.version = SchemaVersion
	if err := l.checkTables(ctx); err != nil {
		return err
	}
	err = l.db.QueryRowContext(ctx, "SELECT value FROM meta WHERE key = 'ledger_id'").Scan(&l.id)
	if errors.Is(err, sql.ErrNoRows) || err == nil && l.id == "" {
		return l.damaged("it has no ledger id", nil)
	}
	return l.fail("opening the ledger", err)
}

// readVersion reads schema_version, refusing one newer than this smsdesk's.
func (l *Ledger) readVersion(ctx context.Context, q querier, lock string) (int, error) {
	var s string
	err := q.QueryRowContext(ctx, "SELECT value FROM meta WHERE key = 'schema_version'"+lock).Scan(&s)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, l.damaged("it has no schema version", nil)
	}
	if err != nil {
		return 0, l.fail("reading the ledger's schema version", err)
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < 1 {
		return 0, l.damaged(fmt.Sprintf("its schema version %q is not a version", s), err)
	}
	if v > SchemaVersion {
		return 0, fmt.Errorf("the ledger %s has schema version %d, and this smsdesk knows versions up to %d: %w; use that newer smsdesk (nothing was changed or sent)",
			l.where, v, SchemaVersion, ErrSchemaTooNew)
	}
	return v, nil
}

// checkTables refuses a ledger without every table of the schema.
func (l *Ledger) checkTables(ctx context.Context) error {
	for _, t := range tables {
		if ok, err := l.d.hasTable(ctx, l.db, t); err != nil {
			return l.fail("opening the ledger", err)
		} else if !ok {
			return l.damaged("its table "+t+" is missing", nil)
		}
	}
	return nil
}
