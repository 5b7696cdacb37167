// Package ledger is smsdesk's memory of what it sent and may send: the sends
// (each one's plan and every record written as it went), the opt-out list,
// the once-only ids, the repeat guard's pair digests and the audit trail. It
// is one transactional store behind database/sql, SQLite by default
// (<state dir>/smsdesk.db, through the pure-Go modernc.org/sqlite) or
// PostgreSQL for a team on several hosts (a postgres:// location, through
// pgx). Both backends hold the same schema and run the same statements; what
// differs (placeholders, claiming with SKIP LOCKED, notifying runners,
// integrity checks, backups, bulk loading) is behind the unexported dialect
// interface.
//
// Rules every caller and every change here keeps:
//
//   - No transaction spans a network request. Nothing in this package makes
//     one; a caller asks the service first, or after, never while holding a
//     transaction open. A lease (Claim) is not a transaction: it is a row
//     that says which process works on a send, renewed while it does.
//   - Each Append is its own short transaction, committed (and so durable:
//     SQLite in WAL mode with synchronous=FULL, PostgreSQL's commit) before
//     it returns. A chunk's intent is on disk before its request leaves.
//   - What cannot be read is never read as empty: a ledger that does not
//     open, fails its integrity or schema check, or holds a row that does
//     not parse is an error wrapping ErrDamaged, and no send may go.
//   - No error or String names a password: a PostgreSQL URL that holds one is
//     refused (PGPASSWORD or ~/.pgpass give it), and every location printed
//     is redacted first.
package ledger
