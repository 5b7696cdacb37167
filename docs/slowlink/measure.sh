#!/usr/bin/env bash
# Bytes a slow SSH link carries per console action (issue 21; BENCHMARKS.md, "over ssh").
#
#   python3 docs/slowlink/slowproxy.py 2300 2200 40 256 /tmp/count.txt &   # 40 ms each way, 256 kbit/s down
#   SSH="ssh -p 2300 -i KEY -o StrictHostKeyChecking=no -t 127.0.0.1" \
#   RUN="cd DIR && HOME=DIR SMSDESK_API_KEY=sk_test_sandbox LANG=C.UTF-8 TERM=xterm /path/to/smsdesk" \
#   docs/slowlink/measure.sh scroll|tab|char|send|idle|held [W H]
#
# Port 2200 is a private sshd on 127.0.0.1 (own config and host key, sshd -D -f CONFIG);
# RUN's HOME has a profile on `smsdesk sandbox` with group 4 (300 contacts) second in
# the groups list (for "send", chunk_size = 1 and a sandbox at --rate 5 --window 1s).
# Terminal bytes are what tmux receives from the ssh client (pipe-pane); wire bytes are
# the proxy's server→client count (encrypted SSH). "held" presses j 90 times, 33 ms apart
# (a held key), and says how long after the last press the screen kept changing.
set -u
ACT=$1; W=${2:-100}; H=${3:-30}
COUNT=${COUNT:-/tmp/count.txt}
S=m$$; TS=$(mktemp)
tmux new-session -d -s "$S" -x "$W" -y "$H" "$SSH '$RUN'"
sleep 4
k() { tmux send-keys -t "$S" "$@"; }
snap() { read -r _ D _ _ _ TT < "$COUNT"; T=$(stat -c %s "$TS"); }
tmux pipe-pane -t "$S" -o "cat >> $TS"
open4() { k j; sleep 0.3; k Enter; sleep 3; }
n=1
case $ACT in
  idle) sleep 1; snap; d0=$D; t0=$T; sleep 10; n=10 ;;
  tab) open4; snap; d0=$D; t0=$T; for _ in $(seq 10); do k Tab; sleep 0.5; done; sleep 1; n=10 ;;
  scroll) open4; k Tab; sleep 1; for _ in $(seq 30); do k j; sleep 0.05; done; sleep 2
    snap; d0=$D; t0=$T; for _ in $(seq 20); do k j; sleep 0.4; done; sleep 1; n=20 ;;
  char) open4; k c; sleep 1; k -l 'Hi {name}'; sleep 2; snap; d0=$D; t0=$T
    for c in a b c d e f g h i j; do k -l $c; sleep 0.6; done; sleep 1; n=10 ;;
  send) open4; k c; sleep 1; k -l "run $(date +%s%N) {name}"; sleep 1; k C-s; sleep 2; k y; sleep 3
    snap; d0=$D; t0=$T; sleep 10; n=10 ;;
  held) open4; k Tab; sleep 2; snap; d0=$D; t0=$T
    for _ in $(seq 90); do k j; sleep 0.033; done; rel=$(date +%s.%N); sleep 8; n=90 ;;
esac
snap
echo "$ACT: terminal $(( (T-t0)/n )) B, wire $(( (D-d0)/n )) B per unit (n=$n)"
[ "$ACT" = held ] && echo "held: the screen kept changing $(python3 -c "print(round($TT-$rel,2))") s after the last press"
tmux kill-session -t "$S"; rm -f "$TS"
