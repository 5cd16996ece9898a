#!/usr/bin/env bash
# reliability: the sliding-window transport under inid's own fault
# injection (issue 3).  Each run must verify every message exactly once,
# intact and in order per connection (ini-ping checks), and the counters
# must show the machinery at work.
#   1. drop 10%, dup 5%, reorder 5%, corrupt 1%: sizes 0..20,000 bytes, and
#      65,000 bytes (44 fragments, or 45 segments) fewer times:
#      probes (the SEND timer's, for what nothing behind it shows lost),
#      retransmissions by NAK, received as needed after a loss, NAKs,
#      checksum (UDP or CRC) drops; once with messages longer than a frame as IP fragments
#      (--segment off) and once as transport segments (--segment on);
#   2. drop 30% on single-frame messages (up to 1,472 bytes of UDP payload);
#   3. 8-bit sequence numbers wrapped 2,000 times under 5% loss.
set -u
cd "$(dirname "$0")/../.."
TMP=$(mktemp -d /tmp/ini-reliability.XXXXXX)
fails=0
fail() { echo "reliability: FAIL: $*"; fails=$((fails + 1)); }

# [SEG=on|off] run NAME CONFIG FAULTS EXPECTED_PER_CLUSTER PING_ARGS...
run() {
    local name=$1 config=$2 faults=$3 expect=$4; shift 4
    local dir=$TMP/$name
    build/bin/ini-cluster run "$config" --fault "$faults" ${SEG:+--segment "$SEG"} --run-dir "$dir" --timeout 600 -- \
        build/bin/ini-ping "$@" > "$TMP/$name.out" 2>&1
    local rc=$?
    [ "$rc" -eq 0 ] || { fail "$name: exit $rc"; tail -5 "$TMP/$name.out"; return 1; }
    for out in "$dir"/cluster*.out; do
        grep -qx "verified $expect messages, 0 errors" "$out" ||
            { fail "$name: $(basename "$out"): $(grep verified "$out")"; return 1; }
    done
    return 0
}

# counter NAME EXPR: evaluates EXPR over the INIs' counters (sum over INIs)
counter() {
    python3 - "$TMP/$1" "$2" <<'PY'
import glob, json, sys
run, expr = sys.argv[1], sys.argv[2]
tot = {}
for f in glob.glob(run + "/ini*.counters.json"):
    d = json.load(open(f))
    vals = dict(d["transport"])
    vals["ip_checksum_errors"] = d["ip"]["checksum_errors"]
    vals["reassembly_drops"] = d["ip"]["reassembly_drops"]
    vals["rx_frames"] = d["link"]["rx_frames"]
    for k, v in d["faults"].items():
        vals["fault_" + k] = v
    for k, v in vals.items():
        tot[k] = tot.get(k, 0) + v
print(int(eval(expr, {}, tot)))
PY
}

# 1. The issue's mix, in both modes.  2 PEs per cluster, each verifying every echo.
for SEG in off on; do
    if run mix-$SEG conf/default.cfg drop=0.1,dup=0.05,reorder=0.05,corrupt=0.01,seed=7 $((2 * 4 * 500)) \
            --sizes 0,64,1600,20000 --count 500 --window 4; then
        m=mix-$SEG
        [ "$(counter $m probes_sent)" -gt 0 ] || fail "$m: no probe by a SEND timer"
        [ "$(counter $m retx_timer)" -eq 0 ] || fail "$m: retransmission by timer with NAKs on"
        [ "$(counter $m retx_nak)" -gt 0 ] || fail "$m: no retransmission by NAK"
        [ "$(counter $m retx_after_loss)" -gt 0 ] || fail "$m: no retransmission received after a loss"
        [ "$(counter $m naks_sent)" -gt 0 ] || fail "$m: no NAK sent"
        [ "$(counter $m 'udp_checksum_errors + crc_errors + ip_checksum_errors')" -gt 0 ] ||
            fail "$m: no checksum drop"
        [ "$(counter $m duplicates)" -gt 0 ] || fail "$m: no duplicate dropped"
        [ "$(counter $m seg_errors)" -eq 0 ] || fail "$m: segments out of place"
        if [ $SEG = on ]; then
            [ "$(counter $m segs_sent)" -gt 0 ] || fail "$m: no segment sent"
            [ "$(counter $m reassembly_drops)" -eq 0 ] || fail "$m: IP reassembly used"
        else
            [ "$(counter $m segs_sent)" -eq 0 ] || fail "$m: segments sent with --segment off"
        fi
        echo "reliability: mix ok (segment $SEG): $(counter $m msgs_delivered) messages, retransmitted" \
             "$(counter $m retx_nak) times on a NAK ($(counter $m retx_after_loss) after a loss," \
             "$(counter $m retx_spurious) spurious, the rest lost again), $(counter $m probes_sent) probes," \
             "$(counter $m naks_sent) NAKs, $(counter $m 'udp_checksum_errors + crc_errors') checksum drops," \
             "$(counter $m segs_sent) segments"
    fi
    if run mix64k-$SEG conf/default.cfg drop=0.1,dup=0.05,reorder=0.05,corrupt=0.01,seed=8 $((2 * 20)) \
            --sizes 65000 --count 20 --window 8; then
        [ "$(counter mix64k-$SEG 'reassembly_drops + fault_dropped')" -gt 0 ] || fail "mix64k-$SEG: no frame lost"
        [ $SEG = off ] || [ "$(counter mix64k-$SEG segs_received)" -ge $((2 * 2 * 20 * 45)) ] ||
            fail "mix64k-$SEG: fewer than 45 segments per message received"
        echo "reliability: 65,000-byte messages ok (segment $SEG): retransmitted" \
             "$(counter mix64k-$SEG 'retx_timer + retx_nak') times"
    fi
done
unset SEG

# 2. Heavy loss on single-frame messages.
run drop30 conf/default.cfg drop=0.3,seed=11 $((2 * 4 * 300)) \
    --sizes 0,64,512,1446 --count 300 --window 4 &&
    echo "reliability: drop 30% ok: $(counter drop30 'retx_timer + retx_nak') retransmissions"

# 3. 8-bit sequence numbers: 2 PEs x 128,000 requests + their echoes = 512,000
#    messages per direction of the one connection: 2,000 wraps.
build/bin/ini-cluster gen 2 2 1 | sed 's/seq_bits = 32/seq_bits = 8/' > "$TMP/seq8.cfg"
if run wrap "$TMP/seq8.cfg" drop=0.05,dup=0.01,seed=5 $((2 * 128000)) \
        --sizes 16 --count 128000 --window 16; then
    sent=$(counter wrap msgs_sent)
    [ "$sent" -ge 1024000 ] || fail "wrap: only $sent messages"
    echo "reliability: 8-bit wraparound ok: $sent messages, $((sent / 2 / 256)) wraps per direction," \
         "$(counter wrap 'retx_timer + retx_nak') retransmissions"
fi

[ "$fails" -eq 0 ] || exit 1
rm -rf "$TMP"
echo "reliability: PASS"
