#!/bin/sh
# make.sh BINARY LEDGER PORT: a version-1 ledger written by BINARY (smsdesk
# built from the commit before schema version 2) through its own commands,
# against its own sandbox on 127.0.0.1:PORT. LEDGER is a SQLite file to make,
# or a postgres:// URL of an empty database. See README.md beside it.
set -eu
bin=$1 ledger=$2 port=$3
home=$(mktemp -d)
trap 'kill $sb 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$home"' EXIT
export HOME="$home" SMSDESK_CONFIG_DIR="$home/config" SMSDESK_STATE_DIR="$home/state"
export SMSDESK_BASE_URL="http://127.0.0.1:$port/api/v1" SMSDESK_API_KEY=sk_test_sandbox
export SMSDESK_LEDGER="$ledger" TZ=UTC

sandbox() { "$bin" sandbox --addr "127.0.0.1:$port" --data "$home/sandbox.json" "$@" >"$home/sandbox.log" 2>&1 & sb=$!
	i=0; until grep -q "127.0.0.1:$port" "$home/sandbox.log" 2>/dev/null; do i=$((i+1)); [ $i -lt 600 ] || exit 1; sleep 0.1; done; }
stop() { kill "$sb"; wait "$sb" || true; }

"$bin" ledger init >/dev/null 2>&1 || true
"$bin" config set senders 3000505,10004346 >/dev/null
"$bin" config set sender 3000505 >/dev/null
sandbox
# a send that went whole: three messages accepted
"$bin" send-pair --yes -q --to 09121000001 --message "سلام علی" --to 09121000002 --message "Hi Sara" --to 09351000003 --message "کد شما ۴۸۲۱"
# a once-only send
"$bin" send-pair --yes -q --once "reminders-2026-01-01" --to 09121000004 --message "یادآوری" --to 09121000005 --message "Reminder"
# opt-outs: by an operator (every line, one line), by an import, one removed
"$bin" optout add 09121000006 --note "asked by phone" >/dev/null
"$bin" optout add 09121000007 --sender 10004346 >/dev/null
"$bin" optout add 09121000099 >/dev/null
"$bin" optout remove 09121000099 >/dev/null
printf 'mobile\n09121000008\n09121000009\n+989121000010\n' >"$home/optouts.csv"
"$bin" optout import "$home/optouts.csv" --note "the old list" >/dev/null
# a send with an opted-out recipient
"$bin" send-pair --yes -q --to 09121000006 --message "left out" --to 09121000011 --message "sent"
# a contact added (the audit trail)
"$bin" contacts add 1 09121000012 --name "رضا" >/dev/null
# scheduled: one waiting, one cancelled
"$bin" send-pair --yes -q --at +720h --to 09121000013 --message "later"
id=$("$bin" send-pair --yes --at +700h --to 09121000014 --message "never" --json=id --jq .id)
"$bin" history cancel --yes "$id" >/dev/null
stop
# a send whose answers were lost: unknown outcomes, one chunk per message
sandbox --drop-every 2
"$bin" send-pair --yes -q --chunk-size 1 --to 09121000015 --message "a" --to 09121000016 --message "b" --to 09121000017 --message "c" --to 09121000018 --message "d" || [ $? -eq 3 ]
stop
"$bin" history >&2
