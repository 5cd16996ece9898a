#!/usr/bin/env bash
# model_w_clamp: the chapter-6 scripts say so when the fitted compute time
# W = T0 / c - 2 o comes out negative (issue 45: it was clamped to 0 unsaid;
# ini-model takes no negative time, so the model is still solved at 0).
#   1. em3d_predict.py on the committed em3d-uniform-beta1 data: one
#      warning line per point whose W is negative - all 70 get/put points
#      of the curve, the first one named with its W, T0, c and 2o - exit 0,
#      and em3d-predict.txt byte for byte the committed one.
#   2. water_model.py on a made-up configuration (T0 = 1 s, c = 100,000
#      cycles a node, o = 10 us: W = -10 us): the line names it, the row
#      keeps W = -10, and its prediction is ini-model's at W = 0.
set -u
cd "$(dirname "$0")/../.."
PROG=model_w_clamp; . tools/lib/options.sh
fail() { echo "model_w_clamp: FAIL: $*"; exit 1; }
[ -x build/bin/ini-model ] || fail "build/bin/ini-model is not built (make)"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

R=docs/results/em3d-uniform-beta1
mkdir -p "$tmp/$R" && cp "$R"/{runs.tsv,reports.jsonl.xz,meta.txt} "$tmp/$R/"
python3 -m inimeasure.em3d_predict "$tmp/$R" > /dev/null 2> "$tmp/err" || fail "em3d_predict.py exited with $?: $(tail -1 "$tmp/err")"
n=$(grep -c '^em3d_predict.py: warning: curve \(get\|put\) .*: fitted W = -[0-9.]* us is negative (T0 = .*, c = .* cycles a node, 2o = 20 us); the model is solved at W = 0$' "$tmp/err")
[ "$n" = 70 ] && [ "$(grep -c warning "$tmp/err")" = 70 ] || fail "em3d_predict.py: $n warnings of get/put points (want 70); $(grep -c warning "$tmp/err") in all"
first='em3d_predict.py: warning: curve get 4x4 1 INIs static inter 0.1: fitted W = -15.2 us is negative (T0 = 0.022227 s, c = 4663.19 cycles a node, 2o = 20 us); the model is solved at W = 0'
[ "$(head -1 "$tmp/err")" = "$first" ] || fail "em3d_predict.py's first warning: '$(head -1 "$tmp/err")'"
cmp -s "$R/em3d-predict.txt" "$tmp/$R/em3d-predict.txt" || fail "em3d-predict.txt differs from the committed one"
echo "ok:   em3d_predict.py: 70 negative W named on stderr, the committed table made again, identical"

python3 - > "$tmp/w.out" 2> "$tmp/w.err" <<'PY' || fail "water_model.py: $(tail -1 "$tmp/w.err")"
from inimeasure import water_model as w, ini_model as m
fig = {"msgs": 3200000.0, "O_us": 5.0, "O_src": "service_ns", "queue_len": 0.1, "utilization": 0.2, "time_s": 1.5}
rows = w.model_rows("made-up", {(4, 1, "static"): [fig]}, {4: 1.0}, ["mva"], 10.0, "build/bin/ini-model")
at0 = m.solve(N=4, W=0, o=10.0, O=5.0, model="mva", bin="build/bin/ini-model")
print(rows[0]["W_us"], rows[0]["R_mva_us"] == at0["R"])
PY
want='water_model.py: warning: c4-i1-static: fitted W = -10.0 us is negative (T0 = 1 s, c = 100000 cycles a node, 2o = 20 us); the model is solved at W = 0'
[ "$(cat "$tmp/w.err")" = "$want" ] || fail "water_model.py's stderr: '$(cat "$tmp/w.err")'"
[ "$(cat "$tmp/w.out")" = "-10.0 True" ] || fail "water_model.py's row: W, R at W = 0: '$(cat "$tmp/w.out")'"
echo "ok:   water_model.py: W = -10 us named on stderr, kept in the row, the model solved at W = 0"
echo "model_w_clamp: PASS"
