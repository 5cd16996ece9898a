# regime.sh - the calibrated regime of the thesis experiments, shared by
# calibrate.sh, experiments.sh and tools/sweeps/sweep.sh (sourced, not run).
#
# A calibration file (calibrate.sh) ends with '#@ dilate=K yield_us=US':
# the MGS_DILATE and idle.yield_us its O was measured with; a run must use
# the same to be in that regime (docs/experiments.md, "Time dilation").
# Every generated configuration also gets the thesis's transport: IP
# fragmentation (no transport segments) and a window of 16, which every
# committed run used (the generated default is segments and a window of 64,
# docs/transport.md).

# regime_read FILE: REGIME_DILATE and REGIME_YIELD from the file's '#@'
# line, both empty when it has none.
regime_read() {
    local at
    at=$(sed -n 's/^#@ //p' "$1")
    REGIME_DILATE=$(sed -n 's/.*dilate=\([0-9.]*\).*/\1/p' <<< "$at")
    REGIME_YIELD=$(sed -n 's/.*yield_us=\([0-9]*\).*/\1/p' <<< "$at")
}

# regime_config CFG [YIELD_US]: the thesis's transport and, if given, the
# idle yield, written into the generated configuration CFG; 1 (with a
# line on stderr) if the file does not take them.
regime_config() {
    local cfg=$1 yield=${2:-}
    sed -i -e 's/window = [0-9]*;/window = 16;/' -e 's/segmentation = true;/segmentation = false;/' "$cfg"
    [ -z "$yield" ] || sed -i "s/yield_us = [0-9]*;/yield_us = $yield;/" "$cfg"
    if ! grep -q 'window = 16;' "$cfg" || ! grep -q 'segmentation = false;' "$cfg" ||
       { [ -n "$yield" ] && ! grep -q "yield_us = $yield;" "$cfg"; }; then
        echo "$cfg: cannot set the thesis's stack (window, segmentation) or idle.yield_us" >&2
        return 1
    fi
}
