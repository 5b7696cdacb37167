package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/smsdesk/smsdesk/model"
)

// postgresDialect is a ledger in a PostgreSQL database, for a team whose
// runners and operators are on several hosts. The password comes from
// PGPASSWORD or ~/.pgpass (pgx reads both), never from the URL: the URL is
// kept in config.toml and printed.
type postgresDialect struct {
	url string
	cfg *pgx.ConnConfig
}

// notifyChannel is the channel NOTIFY and LISTEN share.
const notifyChannel = "smsdesk_sends"

func newPostgres(location string) (*postgresDialect, error) {
	u, err := url.Parse(location)
	if err != nil {
		return nil, fmt.Errorf("the ledger URL %s does not read as a URL", redactURL(location))
	}
	if _, ok := u.User.Password(); ok || u.Query().Has("password") {
		return nil, fmt.Errorf("the ledger URL %s holds a password: remove it and give it in PGPASSWORD or ~/.pgpass (a URL is kept in config.toml and printed)", redactURL(location))
	}
	cfg, err := pgx.ParseConfig(location)
	if err != nil {
		return nil, fmt.Errorf("the ledger URL %s: %s", redactURL(location), redactSecrets(err.Error()))
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = connectTimeout
	}
	for name, value := range runtimeParams {
		if _, set := cfg.RuntimeParams[name]; !set {
			cfg.RuntimeParams[name] = value
		}
	}
	return &postgresDialect{url: location, cfg: cfg}, nil
}

// runtimeParams are set on every connection to a PostgreSQL ledger (at
// its start: no statement more), unless the URL sets them (pgx takes a
// URL's unknown parameters, ?lock_timeout=10s, as runtime parameters).
// Every wait in the server has a bound (issue 39 §3):
//   - lock_timeout, the record wait (RecordWait): a statement that waits
//     for a lock (a row another transaction writes; `LOCK TABLE sends` in
//     a psql left open) waits as long as a record write may, then fails
//     (55P03), and the send stops with every outcome known or unknown;
//     until then the write says what it waits for (blockedBy). A look's
//     shorter bound (LookWait) is its caller's context, which pgx cancels.
//   - statement_timeout, 5 minutes: far above the longest statement the
//     ledger makes (the COPY of a 1,000,000-number import and its INSERT,
//     6 s on an idle machine, 20 s at load 15), so that it only ends a
//     statement that runs away, and above lock_timeout, so that a lock
//     wait ends as one.
//   - idle_in_transaction_session_timeout, 1 minute: no transaction of
//     smsdesk's waits on anything outside the database (not a pipe, a
//     request, a prompt or a sleep), so one that sits idle that long is a
//     process that hangs or was stopped (SIGSTOP, a partitioned host);
//     ending it lets go of its locks. The same process sees its next
//     statement fail and stops as a write that fails does.
//   - application_name, so that pg_stat_activity, and a write waiting on
//     another smsdesk's lock, names it.
var runtimeParams = map[string]string{
	"lock_timeout":                        fmt.Sprintf("%dms", RecordWait.Milliseconds()),
	"statement_timeout":                   "5min",
	"idle_in_transaction_session_timeout": "1min",
	"application_name":                    "smsdesk",
}

// The pool of a process's connections to a PostgreSQL ledger.
const (
	// maxOpenConns: a process's users of the ledger at once are a run's
	// records and its lease's renewal per send, a runner's look and
	// claim, the start lock, and a served console's reads; eight serves a
	// busy serve without a queue, and ten processes of a team on one
	// server then open at most 80 of PostgreSQL's default 100. A wait for
	// one of them is a wait like any other: bounded by the caller's
	// context, and told (watch).
	maxOpenConns = 8
	// maxIdleConns: a send's records come one after another on one or two
	// connections; four idle spare the next ones a connection's start.
	maxIdleConns = 4
	// connMaxLifetime: a connection is made anew every half hour, so that
	// a server's failover or a pooler's change of address is followed and
	// what a backend holds (its caches) does not grow with the process.
	connMaxLifetime = 30 * time.Minute
	// connMaxIdleTime: an idle connection is closed after five minutes (a
	// runner idle between sends keeps none of the server's).
	connMaxIdleTime = 5 * time.Minute
)

// connectTimeout bounds each connection to a PostgreSQL ledger (its dial
// and startup) unless the URL's connect_timeout says otherwise: a server
// that takes the connection and never answers (a firewall that drops, a
// host that hangs) is an error, not a send, a cron job's scheduler or
// `ledger status` that waits for ever. As doctor's look at the ledger.
const connectTimeout = 5 * time.Second

// redactURL is a URL fit to print: its user name and password replaced
// by [REDACTED] (model.Redacted), as every URL smsdesk prints for people
// and logs has them (model.RedactURLs), and a password in its query
// replaced; a placeholder when it does not parse.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(a URL that does not parse)"
	}
	if q := u.Query(); q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return model.RedactURLs(u.String())
}

// redactSecrets removes PGPASSWORD's value from s, should a driver ever
// print it.
func redactSecrets(s string) string {
	if pw := os.Getenv("PGPASSWORD"); len(pw) >= 4 {
		s = strings.ReplaceAll(s, pw, "xxxxx")
	}
	return s
}

func (d *postgresDialect) backend() Backend { return Postgres }
func (d *postgresDialect) where() string    { return redactURL(d.url) }

func (d *postgresDialect) open(ctx context.Context, create bool) (*sql.DB, error) {
	db := stdlib.OpenDB(*d.cfg)
	if err := db.PingContext(ctx); err != nil {
		_ = db.Close() // the error above is the one to report
		return nil, fmt.Errorf("connecting to the ledger %s: %s", d.where(), redactSecrets(err.Error()))
	}
	db.SetMaxOpenConns(maxOpenConns)
	db.SetMaxIdleConns(maxIdleConns)
	db.SetConnMaxLifetime(connMaxLifetime)
	db.SetConnMaxIdleTime(connMaxIdleTime)
	return db, nil
}

func (d *postgresDialect) publish() error { return nil }
func (d *postgresDialect) abandon()       {}

func (d *postgresDialect) rebind(query string) string { return rebindDollar(query) }

func (d *postgresDialect) types(stmt string) string {
	return strings.NewReplacer("{{blob}}", "BYTEA", "{{serial}}", "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY", "{{without_rowid}}", "").Replace(stmt)
}

func (d *postgresDialect) lockRows(skip bool) string {
	if skip {
		return " FOR UPDATE SKIP LOCKED"
	}
	return " FOR UPDATE"
}

func (d *postgresDialect) hasTable(ctx context.Context, q querier, name string) (bool, error) {
	var n int
	err := q.QueryRowContext(ctx, "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = $1", name).Scan(&n)
	return n > 0, err
}

func (d *postgresDialect) lockAccount(ctx context.Context, tx *sql.Tx, key int64) error {
	_, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock($1)", key)
	return err
}

func (d *postgresDialect) notify(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, "SELECT pg_notify('"+notifyChannel+"', '')")
	return err
}

// clock is the server's clock_timestamp() (the time as the statement
// runs, not as its transaction began), to the microsecond: every host's
// lease is timed by the one server.
func (d *postgresDialect) clock() string {
	return "((extract(epoch FROM clock_timestamp()) * 1000000)::bigint * 1000)"
}

// watch LISTENs on its own connection; should that fail or drop, it polls
// the change counter once a second until it can listen again.
func (d *postgresDialect) watch(ctx context.Context, l *Ledger, changed func()) {
	for ctx.Err() == nil {
		conn, err := pgx.ConnectConfig(ctx, d.cfg)
		if err == nil {
			_, err = conn.Exec(ctx, "LISTEN "+notifyChannel)
		}
		if err == nil {
			changed() // anything that changed while not listening
			for {
				if _, err = conn.WaitForNotification(ctx); err != nil {
					break
				}
				changed()
			}
		}
		if conn != nil {
			closeCtx, cancel := context.WithTimeout(context.Background(), time.Second)
			_ = conn.Close(closeCtx) // a listening connection: nothing written to lose, the loop connects again
			cancel()
		}
		if ctx.Err() != nil {
			return
		}
		pollCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
		pollChanges(pollCtx, l, time.Second, changed)
		cancel()
	}
}

func (d *postgresDialect) integrity(ctx context.Context, db *sql.DB) (string, error) {
	// PostgreSQL checks its own pages (data checksums, if the cluster has
	// them); what is ours to check is that every table reads.
	for _, t := range tables {
		if _, err := db.ExecContext(ctx, "SELECT 1 FROM "+t+" LIMIT 1"); err != nil {
			return fmt.Sprintf("table %s does not read: %s", t, redactSecrets(err.Error())), nil
		}
	}
	return "ok", nil
}

// quickCheck has nothing to add on PostgreSQL: the server checks each
// page as it reads it (with data checksums on, `initdb --data-checksums`,
// the default from PostgreSQL 18, a page overwritten on disk is an error,
// XX001, the moment any query reads it: isCorrupt makes it ErrDamaged).
// A whole read of every page, as SQLite's quick_check, is the amcheck
// extension's (bt_index_check, verify_heapam): an administrator's tool,
// run by a superuser, not a runner's.
func (d *postgresDialect) quickCheck(context.Context, *sql.DB) (string, error) { return "ok", nil }

func (d *postgresDialect) size(ctx context.Context, db *sql.DB) (int64, error) {
	var n int64
	err := db.QueryRowContext(ctx, "SELECT pg_database_size(current_database())").Scan(&n)
	return n, err
}

func (d *postgresDialect) backup(context.Context, *sql.DB, string) error {
	return fmt.Errorf("a PostgreSQL ledger is backed up with PostgreSQL's own tools: pg_dump --format=custom --file=FILE '%s' (the password from PGPASSWORD or ~/.pgpass)", d.where())
}

func (d *postgresDialect) isCorrupt(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "XX001" || pe.Code == "XX002")
}

func (d *postgresDialect) isUnique(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505"
}

func (d *postgresDialect) redact(s string) string { return redactSecrets(s) }
