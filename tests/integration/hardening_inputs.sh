#!/usr/bin/env bash
# hardening_inputs: input items of issue 17, each asserted on exit status
# and message:
#   9. ini-ping on a machine with a cluster of INIs and no compute node,
#      both patterns: every message verified, no SIGFPE;
#  14. ini-ping, ini-synth and mgs-litmus exit 2 on a bad configuration
#      (docs/config.md), with its one-line error; --fault seed= beyond 64
#      bits is refused (exit 2), not clamped; ini-bench --layers "" is an
#      error (exit 2), not an empty run.
set -u
cd "$(dirname "$0")/../.."
L=build/bin/ini-cluster
TMP=$(mktemp -d /tmp/ini-hardening-inputs.XXXXXX)
failures=0
fail() { echo "hardening_inputs: FAIL: $*"; failures=$((failures + 1)); }
ok()   { echo "hardening_inputs: ok: $*"; }
[ -x $L ] && [ -x build/bin/inid ] && [ -x build/bin/ini-ping ] || { echo "hardening_inputs: FAIL: build first (make)"; exit 1; }

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
    INI_CONFIG=$TMP/bad.cfg INI_CLUSTER=0 INI_SEGMENT=/ini-none build/bin/$prog > "$TMP/$prog.out" 2>&1
    rc=$?
    if [ $rc -eq 2 ] && grep -q "^$prog: $TMP/bad.cfg:2: syntax: " "$TMP/$prog.out"; then
        ok "$prog on a bad configuration: exit 2, $(head -n 1 "$TMP/$prog.out")"
    else
        fail "$prog on a bad configuration: exit $rc (expected 2): $(head -n 1 "$TMP/$prog.out")"
    fi
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

if [ $failures -eq 0 ]; then
    echo "hardening_inputs: PASS"
    rm -rf "$TMP"
    exit 0
fi
echo "hardening_inputs: $failures failure(s); files in $TMP"
exit 1
