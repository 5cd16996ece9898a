#!/usr/bin/env bash
# knob_sweep.sh: mean cycle time R of ini-synth (sleep mode) against one
# knob, varied alone (seed 000, section 3.2), with a least-squares line.
#   usage: tools/synth/knob_sweep.sh [--time real] [KNOB] [VALUES] [SECONDS]
#   default: overhead (Δo, microseconds, spent sleeping) over 0,50,100,200,400
# Every cycle pays Δo four times on its critical path (the request's send
# and receive, the reply's send and receive), so the slope should be near 4.
# Real time only: --time virtual is refused (exit 2), since the virtual
# machine charges no knob to a clock (docs/virtual-time.md, "Flags").
set -eu
cd "$(dirname "$0")/../.."
if [ "${1:-}" = --time ]; then
    case ${2:-} in
        real) shift 2 ;;
        virtual) echo "knob_sweep.sh: --time virtual: knobs are not modelled in virtual time (docs/virtual-time.md); vary --vt-costs instead" >&2; exit 2 ;;
        *) echo "knob_sweep.sh: --time: '${2:-}' is not real or virtual" >&2; exit 2 ;;
    esac
fi
KNOB=${1:-overhead}
VALUES=${2:-0,50,100,200,400}
DUR=${3:-8}
TMP=$(mktemp -d /tmp/ini-sweep.XXXXXX)
SYNTH=(--W-us 2000 --o-us 50 --mode sleep --dist fixed --duration "$DUR")
extra=""; [ "$KNOB" = overhead ] && extra=",overhead_mode=sleep"
printf "# ini-synth %s on conf/default.cfg, knob %s%s\n" "${SYNTH[*]}" "$KNOB" "$extra"
printf "%10s %12s\n" "$KNOB" "R (us)"
: > "$TMP/points"
for v in ${VALUES//,/ }; do
    dir=$TMP/$v
    build/bin/ini-cluster run conf/default.cfg --knob "$KNOB=$v$extra" --run-dir "$dir" --timeout 300 -- \
        build/bin/ini-synth "${SYNTH[@]}" > "$dir.out" 2>&1 ||
        { echo "run failed: $KNOB=$v" >&2; tail -3 "$dir.out" >&2; exit 1; }
    r=$(python3 -c "
import glob, json
rs = [json.load(open(f))['mean_R_us'] for f in glob.glob('$dir/synth-cluster*.json')]
print(sum(rs) / len(rs))")
    printf "%10s %12.1f\n" "$v" "$r"
    echo "$v $r" >> "$TMP/points"
done
python3 - "$TMP/points" <<'PY'
import sys
pts = [tuple(map(float, l.split())) for l in open(sys.argv[1])]
n = len(pts); sx = sum(x for x, _ in pts); sy = sum(y for _, y in pts)
sxx = sum(x * x for x, _ in pts); sxy = sum(x * y for x, y in pts)
slope = (n * sxy - sx * sy) / (n * sxx - sx * sx); icpt = (sy - slope * sx) / n
my = sy / n
ss_tot = sum((y - my) ** 2 for _, y in pts); ss_res = sum((y - (icpt + slope * x)) ** 2 for x, y in pts)
print("fit: R = %.1f + %.3f x knob   (R^2 = %.5f, max residual %.1f us)" %
      (icpt, slope, 1 - ss_res / ss_tot, max(abs(y - (icpt + slope * x)) for x, y in pts)))
PY
rm -rf "$TMP"
