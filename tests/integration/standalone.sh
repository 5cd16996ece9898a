#!/usr/bin/env bash
# standalone: the repository stands alone.
#  1. Water's data file is in it, the file SPLASH-2 ships (the sha256 that
#     tools/apps/water/data/README.md gives);
#  2. no file of the repository points at ../shared/water for Water's
#     data or specification (../shared holds reference documents beside a
#     checkout, which a clone does not have; sources may cite its papers,
#     ../shared/seeds, as references, never read them), and no
#     committed file names this checkout's path or the shared directory
#     beside it (paths of the machine it was made on; the parent alone is
#     not checked, since a clone under /tmp would flag docs' /tmp examples);
#  3. a clone of HEAD in a directory with nothing beside it (no ../shared),
#     with this tree's programs copied into its build/bin, runs make run's
#     script, a Water unit test from its root and water from elsewhere.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib/common.sh
test_start standalone build/bin/water build/bin/test_water_step build/bin/ini-cluster build/bin/inid build/bin/ini-trace
git rev-parse --git-dir > /dev/null 2>&1 || { echo "standalone: SKIP: not a git checkout"; exit 77; }

want=$(sed -n 's/.*sha256 `\([0-9a-f]\{64\}\)`.*/\1/p' tools/apps/water/data/README.md | head -n 1)
have=$(git show HEAD:tools/apps/water/data/random.in 2> /dev/null | sha256sum | cut -d' ' -f1)
[ -n "$want" ] && [ "$have" = "$want" ] && ok "tools/apps/water/data/random.in is committed, sha256 $have" ||
    fail "tools/apps/water/data/random.in: sha256 '$have', README says '$want'"

reads=$(git grep -n -e '\.\./shared/water' -- . ':!tests/integration/standalone.sh' ':!docs/results')
[ -z "$reads" ] && ok "no file points at ../shared/water" || fail "these point at ../shared/water: $reads"
for p in "$PWD" "$(dirname "$PWD")/shared"; do
    named=$(git grep -n -F -e "$p/" -- . ':!tests/integration/standalone.sh' | head -n 5)
    [ -z "$named" ] && ok "no committed file names $p/" || fail "committed files name $p/: $named"
done

mkdir -p "$TMP/alone"
git clone -q . "$TMP/alone/ini" || { fail "git clone"; test_end; }
[ ! -e "$TMP/alone/shared" ] || fail "the clone has something beside it"
mkdir -p "$TMP/alone/ini/build/bin"
cp -a build/bin/. "$TMP/alone/ini/build/bin/"
(cd "$TMP/alone/ini" && unset WATER_RANDOM && bash tools/thesis/make-run.sh > "$TMP/make-run.out" 2>&1)
rc=$?
[ "$rc" = 0 ] && grep -q '^INI 1: .*utilization' "$TMP/make-run.out" && ok "the clone runs make run's script (status 0, its summary printed)" ||
    { fail "make run's script in the clone: status $rc"; tail -n 5 "$TMP/make-run.out"; }
(cd "$TMP/alone/ini" && unset WATER_RANDOM && build/bin/test_water_step > "$TMP/unit.out" 2>&1)
rc=$?
[ "$rc" = 0 ] && ok "the clone's root: test_water_step passes ($(grep -o '[0-9]* test(s)' "$TMP/unit.out" | tail -n 1))" ||
    { fail "test_water_step in the clone: status $rc"; tail -n 5 "$TMP/unit.out"; }
(cd "$TMP" && printf '1.5e-16 8 1 6 -1 3000 1 0 1 6.2\n' | "$TMP/alone/ini/build/bin/water" > "$TMP/water.out" 2>&1)
rc=$?
[ "$rc" = 0 ] && ok "the clone's water, run elsewhere, finds the clone's data file" ||
    { fail "the clone's water: status $rc: $(tail -n 2 "$TMP/water.out")"; }
test_end
