#!/bin/bash
# shot.sh SESSION NAME: capture a tmux session (100 columns) with its colours and
# draw it, cell by cell, to docs/screens/NAME.png with ImageMagick.
#   go build -o /tmp/sd . && tmux new-session -d -s d -x 100 -y 30 '/tmp/sd --demo'
#   docs/screens/shot.sh d main
set -euo pipefail
dir=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
tmux capture-pane -t "$1" -e -p > "$tmp/screen.ans"
python3 "$dir/ansi2mvg.py" "$tmp/screen.ans" 100 "$tmp/screen.mvg"
convert "mvg:$tmp/screen.mvg" -colors 32 -strip "PNG8:$dir/$2.png"
rm -r "$tmp"
