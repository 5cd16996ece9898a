#!/usr/bin/env bash
# top: `ini-cluster top` on a terminal redraws in place, as top(1) does.
# The default configuration is brought up (`up`), ini-ping runs on it from
# the environment files (both clusters), and `top` runs in a tmux pane (a real terminal,
# 120x30) while the pane is captured 30 times over 3 s: after the first
# reading every capture must show the header line and the table (its
# column line, to the last columns restarts and resyncs, and one row per
# INI), never a blank or header-only screen, and the table must start on
# the same line each time (redrawn in place, not scrolled).  Ctrl-C ends top with status 0 and the cursor shown again.
# tmux is the test's own tool (make deps installs it): without it the test fails.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib/common.sh
test_start top build/bin/ini-cluster build/bin/inid build/bin/ini-ping
command -v tmux > /dev/null || { fail "tmux is not installed (make deps installs it)"; test_end; }
L=$PWD/build/bin/ini-cluster
CONFIG=conf/default.cfg
RUN_DIR=$TMP/up
SOCK=ini-top-$$
cleanup() {
    tmux -L "$SOCK" kill-server 2> /dev/null
    [ ${#pings[@]} -gt 0 ] && kill "${pings[@]}" 2> /dev/null
    "$L" down "$CONFIG" --run-dir "$RUN_DIR" > /dev/null 2>&1
    test_cleanup
}
trap cleanup EXIT
"$L" up "$CONFIG" --run-dir "$RUN_DIR" > "$TMP/up.out" 2>&1 || { fail "up: $(tail -3 "$TMP/up.out")"; test_end; }
pings=()
for c in 0 1; do
    ( . "$RUN_DIR/cluster$c.env"; exec build/bin/ini-ping --sizes 64 --count 1000000 --timeout-ms 60000 ) > "$TMP/ping$c.out" 2>&1 &
    pings+=($!)
done

tmux -L "$SOCK" -f /dev/null new-session -d -x 120 -y 30 \
    "'$L' top '$CONFIG' --run-dir '$RUN_DIR'; echo \"top exited \$?\"; sleep 30"
sleep 1.5
bad=0 first=
for i in $(seq 1 30); do
    tmux -L "$SOCK" capture-pane -p > "$TMP/screen$i" 2> /dev/null
    header=$(grep -n '^ini-cluster top: .*(Ctrl-C to stop)' "$TMP/screen$i" | cut -d: -f1)
    cols=$(grep -n '^ *INI  *cluster  *msgs/s  *MB/s  *queued  *stalled  *busy  *retx  *msgs total  *restarts  *resyncs' "$TMP/screen$i" | cut -d: -f1)
    rows=$(grep -cE '^ +[01] +[01] +[0-9]+ +[0-9.]+ +[0-9]+ +[0-9]+ +[0-9.]+% ' "$TMP/screen$i")
    if [ -z "$header" ] || [ -z "$cols" ] || [ "$rows" != 2 ]; then
        bad=$((bad + 1))
        [ "$bad" = 1 ] && { echo "top: capture $i lacks the table:"; sed 's/^/    | /' "$TMP/screen$i"; }
    elif [ -z "$first" ]; then
        first="$header:$cols"
    elif [ "$header:$cols" != "$first" ]; then
        fail "capture $i: the table moved (header and columns on lines $header:$cols, first $first): not redrawn in place"
        break
    fi
    sleep 0.1
done
if [ "$bad" = 0 ]; then
    ok "30 captures over 3 s each show the header, the columns and both INIs' rows, on lines $first"
else
    fail "$bad of 30 captures lacked the table"
fi
sed -n '1,4p' "$TMP/screen30" | sed 's/^/    | /'
# ini-ping keeps the INIs busy: the last screen shows messages/s above 0.
moving=$(awk '$1 ~ /^[01]$/ && $3 > 0' "$TMP/screen30" | wc -l)
[ "$moving" = 2 ] && ok "both INIs show messages/s above 0 under ini-ping" || fail "messages/s not above 0 for both INIs"
tmux -L "$SOCK" send-keys C-c
sleep 1.5
tmux -L "$SOCK" capture-pane -p > "$TMP/after"
grep -q 'top exited 0$' "$TMP/after" && ok "Ctrl-C: top exited 0" || { fail "Ctrl-C: top did not exit 0"; cat "$TMP/after"; }
# The cursor is shown again (tmux's cursor_flag: 1 visible).
[ "$(tmux -L "$SOCK" display -p '#{cursor_flag}')" = 1 ] && ok "the cursor is shown again" || fail "the cursor stays hidden"
test_end
