#!/usr/bin/env bash
# hardening_inputs: input items of issue 17, each asserted on exit status
# and message:
#   9. ini-ping on a machine with a cluster of INIs and no compute node,
#      both patterns: every message verified, no SIGFPE;
#  14. ini-ping, ini-synth and mgs-litmus exit 2 on a bad configuration
#      (docs/config.md), with its one-line error; --fault seed= beyond 64
#      bits is refused (exit 2), not clamped; ini-bench --layers "" is an
#      error (exit 2), not an empty run.
#  13. a FIFO as configuration or trace file is refused at once (no hang);
#      a 10 MB configuration is refused at once, naming the 1 MiB limit;
#      a path of 1,100 characters keeps the reason at the end of the line;
#      `run <(cat cfg)` runs, every process reading the copy in the run
#      directory;
#  14. ini-trace refuses a run with a trace file missing (exit 2, naming
#      it) unless --partial; ini-ping's --sizes has no length limit;
#  10. a stack.max_message below ini-ping's and ini-synth's own messages is
#      refused at start (exit 2, naming the field and the size needed);
#   4. trace overflow: every message past the buffer counted as dropped in
#      the file, and said by ini-trace report (text and JSON).
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib/common.sh
L=build/bin/ini-cluster
test_start hardening_inputs $L build/bin/inid build/bin/ini-ping

# refused WHAT PATTERN SECONDS COMMAND...: COMMAND must exit 2 within
# SECONDS (124: it hung, or was still reading) with a line matching the
# basic regex PATTERN (said by ok: the matched text, its last 120
# characters); its output is kept in $TMP/refused-N.out.
refused_n=0
refused() {
    local what=$1 pattern=$2 secs=$3
    shift 3
    refused_n=$((refused_n + 1))
    local out=$TMP/refused-$refused_n.out
    timeout "$secs" "$@" > "$out" 2>&1
    local rc=$?
    if [ $rc -eq 2 ] && grep -q -- "$pattern" "$out"; then
        ok "$what: exit 2, $(grep -m1 -o -- "$pattern" "$out" | tail -c 120)"
    else
        fail "$what: exit $rc (124: not done after $secs s), wanted 2 and a line matching '$pattern':" \
             "$(head -n 2 "$out" | cut -c 1-300 | tr '\n' ' ')"
    fi
}

# --- 9. a cluster with INIs only
cat > "$TMP/nopes.cfg" <<'CFG'
version = 1;
clusters = (
  { id = 0; pes = [0, 1]; inis = ( { id = 0; ip = "198.18.0.1"; } ); },
  { id = 1; pes = [2, 3]; inis = ( { id = 1; ip = "198.18.0.2"; } ); },
  { id = 2; pes = [];     inis = ( { id = 2; ip = "198.18.0.3"; } ); }
);
CFG
for pattern in all pairs; do
    $L run "$TMP/nopes.cfg" --timeout 60 --run-dir "$TMP/r9-$pattern" -- \
        build/bin/ini-ping --sizes 64,2000 --count 10 --pattern $pattern > "$TMP/r9-$pattern.out" 2>&1
    rc=$?
    v0=$(grep '^verified ' "$TMP/r9-$pattern/cluster0.out" 2>/dev/null | tail -n 1)
    v1=$(grep '^verified ' "$TMP/r9-$pattern/cluster1.out" 2>/dev/null | tail -n 1)
    if [ $rc -eq 0 ] && [ "$v0" = "verified 40 messages, 0 errors" ] && [ "$v1" = "$v0" ]; then
        ok "cluster without compute nodes, --pattern $pattern: $v0 in clusters 0 and 1"
    else
        fail "cluster without compute nodes, --pattern $pattern: exit $rc, '$v0' / '$v1'"
        grep -E "signal|exited" "$TMP/r9-$pattern.out" | head -n 3 | sed 's/^/    /'
    fi
done

# --- 14. exit statuses and parsing
printf 'version = 1;\nclusters = ( { id = 0; pes = [0 }\n' > "$TMP/bad.cfg"
for prog in ini-ping ini-synth mgs-litmus; do
    refused "$prog on a bad configuration" "^$prog: $TMP/bad.cfg:2: syntax: .*" 20 \
        env INI_CONFIG="$TMP/bad.cfg" INI_CLUSTER=0 INI_SEGMENT=/ini-none build/bin/$prog
done
$L run conf/default.cfg --fault seed=99999999999999999999 --run-dir "$TMP/r14" -- true > "$TMP/seed.out" 2>&1
rc=$?
if [ $rc -eq 2 ] && grep -q 'seed: "99999999999999999999" is not an integer' "$TMP/seed.out" && [ ! -e "$TMP/r14" ]; then
    ok "--fault seed= beyond 64 bits refused: $(head -n 1 "$TMP/seed.out")"
else
    fail "--fault seed= beyond 64 bits: exit $rc (expected 2): $(head -n 1 "$TMP/seed.out")"
fi
build/bin/ini-bench --layers "" > "$TMP/bench.out" 2>&1
rc=$?
if [ $rc -eq 2 ] && grep -q "layers: empty list" "$TMP/bench.out"; then
    ok "ini-bench --layers \"\": exit 2, $(head -n 1 "$TMP/bench.out")"
else
    fail "ini-bench --layers \"\": exit $rc (expected 2)"
fi

# --- 4. trace overflow: a buffer of 1,024 records and ~8,000 messages per
# INI.  Each INI's file holds 1,024 records and counts every other message
# as dropped (records + dropped = the messages of its counters, those
# deferred behind a full compute-node ring excepted: they are not traced),
# and the report says how many were dropped, in text and JSON.
sed -e 's/trace   = { mode = "off"; records = 1048576; }/trace = { mode = "summary"; records = 1024; }/' \
    conf/default.cfg > "$TMP/trace1024.cfg"
$L run "$TMP/trace1024.cfg" --run-dir "$TMP/r4" --timeout 120 -- \
    build/bin/ini-ping --sizes 64 --count 1000 > "$TMP/r4.out" 2>&1 || fail "trace overflow: the run failed"
for ini in 0 1; do
    f=$TMP/r4/ini$ini.trace
    got=$(python3 - "$f" "$TMP/r4/ini$ini.counters.json" <<'PY'
import json, struct, sys
h = open(sys.argv[1], 'rb').read(128)
n, dropped = struct.unpack_from('<QQ', h, 48)
c = json.load(open(sys.argv[2]))
msgs = c['transport']['msgs_sent'] + c['transport']['msgs_delivered'] + c['messages']['local'] - c['messages']['deferred']
print(n, dropped, msgs)
PY
)
    read -r n dropped msgs <<< "$got"
    if [ "$n" = 1024 ] && [ -n "$dropped" ] && [ "$dropped" -gt 0 ] && [ $((n + dropped)) -eq "$msgs" ]; then
        ok "trace overflow, INI $ini: $n records + $dropped dropped = $msgs messages"
    else
        fail "trace overflow, INI $ini: records/dropped/messages = '$got' (expected 1024, >0, sum)"
    fi
done
build/bin/ini-trace report "$TMP/r4" > "$TMP/r4.txt" 2>&1
build/bin/ini-trace report "$TMP/r4" --format json > "$TMP/r4.json" 2>&1
total=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["recorded"], d["dropped"], sum(i["dropped"] for c in d["clusters"] for i in c["inis"]))' "$TMP/r4.json" 2>/dev/null)
read -r rec drp per_ini <<< "$total"
if [ "$rec" = 2048 ] && [ -n "$drp" ] && [ "$drp" -gt 0 ] && [ "$drp" = "$per_ini" ] &&
   grep -q "^  messages: 2048 recorded, $drp dropped (trace buffer full)\$" "$TMP/r4.txt" &&
   grep -q "every table covers only the 2048 recorded messages" "$TMP/r4.txt"; then
    ok "ini-trace report on an overflowed trace: $(grep '^  messages:' "$TMP/r4.txt")"
else
    fail "ini-trace report on an overflowed trace: JSON '$total'; text: $(grep -E 'messages:|not recorded' "$TMP/r4.txt" | head -n 2)"
fi

# --- 13. odd inputs: FIFOs, a huge file, a very long path, a pipe
mkfifo "$TMP/fifo.cfg"
refused "a FIFO as configuration" "$TMP/fifo.cfg: file: not a regular file (a FIFO or pipe)" 20 \
    env INI_CONFIG="$TMP/fifo.cfg" INI_CLUSTER=0 INI_SEGMENT=/ini-none build/bin/ini-ping
{ cat conf/default.cfg; head -c 10000000 /dev/zero | tr '\0' '#'; echo; } > "$TMP/huge.cfg"
refused "a 10 MB configuration" "huge.cfg: file: [0-9]* bytes, more than the limit of 1048576" 60 \
    $L run "$TMP/huge.cfg" --run-dir "$TMP/r13h" -- true
long=$TMP/$(printf 'd%.0s' $(seq 1 1100)).cfg
refused "a 1,100-character path: the reason survives" '\.\.\.d*\.cfg: file: path longer than 511 characters$' 20 \
    $L run "$long" --run-dir "$TMP/r13l" -- true
timeout 120 $L run <(cat conf/default.cfg) --run-dir "$TMP/r13p" -- build/bin/ini-ping --sizes 64 --count 5 \
    > "$TMP/pipe.out" 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -qx "verified 10 messages, 0 errors" "$TMP/r13p/cluster1.out" &&
   cmp -s conf/default.cfg "$TMP/r13p/config.cfg" && grep -q -- "--config $TMP/r13p/config.cfg" "$TMP/r13p/launcher.log"; then
    ok "run <(cat conf/default.cfg): ran on the copy in the run directory, $(grep verified "$TMP/r13p/cluster1.out")"
else
    fail "run <(cat conf/default.cfg): exit $rc: $(head -n 2 "$TMP/pipe.out" | tr '\n' ' ')"
fi
# ini-trace: a FIFO under a trace file's name; a missing trace file
mkdir -p "$TMP/t13"
cp "$TMP/r4/ini0.trace" "$TMP/t13/"
mkfifo "$TMP/t13/ini1.trace"
refused "ini-trace with a FIFO trace file" "^ini-trace: $TMP/t13/ini1.trace: not a regular file (a FIFO or pipe)$" 20 \
    build/bin/ini-trace report "$TMP/t13"

# --- 14. ini-trace and a missing trace file: refused unless --partial
mkdir -p "$TMP/t14"
cp "$TMP/r4/ini0.trace" "$TMP/r4/ini0.log" "$TMP/r4/ini1.log" "$TMP/t14/"
refused "ini-trace with ini1.trace missing" "^ini-trace: $TMP/t14: 1 INI(s) ran without a trace file: ini1.trace missing" 20 \
    build/bin/ini-trace report "$TMP/t14"
build/bin/ini-trace report "$TMP/t14" --partial > "$TMP/t14p.out" 2> "$TMP/t14p.err"
rc=$?
if [ $rc -eq 0 ] && grep -q "ini1.trace): reporting without them (--partial)" "$TMP/t14p.err" &&
   grep -q "^  1 trace files" "$TMP/t14p.out"; then
    ok "ini-trace --partial with ini1.trace missing: $(cat "$TMP/t14p.err")"
else
    fail "ini-trace --partial with ini1.trace missing: exit $rc: $(cat "$TMP/t14p.err")"
fi

# --- 10. stack.max_message below the programs' own control messages
sed 's/max_message = 65000/max_message = 4/' conf/default.cfg > "$TMP/tiny.cfg"
for prog in ini-ping ini-synth; do
    args=""
    [ $prog = ini-ping ] && args="--sizes 0 --count 1"
    # shellcheck disable=SC2086
    refused "$prog with max_message = 4" \
        "^\[c0\] $prog: .*tiny.cfg: stack.max_message = 4 is below the 8 bytes of $prog's .*: set stack.max_message to 8 or more" \
        60 $L run "$TMP/tiny.cfg" --inid build/bin/cluster-fake-inid --run-dir "$TMP/r10-$prog" -- build/bin/$prog $args
done

# --- 14. ini-ping --sizes longer than 1,023 characters is read whole:
# 1,100 zeros then 64, and 128 (the old parser cut the list at 1,023).
zeros=$(printf '0%.0s' $(seq 1 1100))
timeout 120 $L run conf/default.cfg --run-dir "$TMP/r14s" -- build/bin/ini-ping --sizes "${zeros}64,128" --count 2 \
    > "$TMP/r14s.out" 2>&1
rc=$?
rows=$(awk '/^ *bytes/ {t = 1; next} t && /^ +[0-9]+ +[0-9]+ / {printf "%s ", $1} /^echoed/ {t = 0}' "$TMP/r14s/cluster0.out" 2>/dev/null)
if [ $rc -eq 0 ] && [ "$rows" = "64 128 " ]; then
    ok "--sizes of 1,106 characters: sizes $rows"
else
    fail "--sizes of 1,106 characters: exit $rc, sizes '$rows' (expected 64 128)"
fi

test_end
