#!/usr/bin/env bash
# `make deb`: builds the Debian package ini_VERSION_amd64.deb into build/deb/
# with debhelper (debian/), from a copy of the tree's files (git's tracked
# and untracked-but-not-ignored ones, plus the lwIP cache), so the
# work tree is left as it is.
#
#   tools/pkg/deb.sh [--reuse-build]
# --reuse-build copies build/ along, so that only what changed is rebuilt
# (the tests use it); by default the package is built from scratch.
# Needs dpkg-buildpackage and debhelper (apt-get install dpkg-dev debhelper).
set -euo pipefail
cd "$(dirname "$0")/../.."
reuse=0
case "${1-}" in
    "") ;;
    --reuse-build) reuse=1 ;;
    *) echo "deb: unknown argument '$1' (expected --reuse-build or nothing)" >&2; exit 2 ;;
esac
command -v dpkg-buildpackage > /dev/null && command -v dh > /dev/null || bash tools/install-deps.sh --deb
for t in dpkg-buildpackage dh; do
    command -v $t > /dev/null ||
        { echo "deb: $t is missing (apt-get install dpkg-dev debhelper)" >&2; exit 1; }
done
[ -f .cache/lwip/.fetched ] || bash tools/install-deps.sh --lwip
V=$(cat VERSION)
OUT=build/deb
STAGE=$OUT/ini-$V
rm -rf "$STAGE" "$OUT"/ini_"$V"_*
mkdir -p "$STAGE/.cache"
echo "deb: staging the tree in $STAGE"
if git rev-parse --git-dir > /dev/null 2>&1; then
    git ls-files -z -co --exclude-standard | xargs -0 cp -a --parents -t "$STAGE" 2> /dev/null || true
else
    tar cf - --exclude=./build --exclude=./build-san --exclude=./runs --exclude=./.cache . | tar xf - -C "$STAGE"
fi
cp -a .cache/lwip "$STAGE/.cache/"
if [ "$reuse" = 1 ] && [ -d build ]; then
    mkdir -p "$STAGE/build"
    cp -a build/obj build/bin build/lib build/*.a "$STAGE/build/" 2> /dev/null || true
fi
echo "deb: dpkg-buildpackage -b (log: $OUT/build.log)"
if ! (cd "$STAGE" && dpkg-buildpackage -b -uc -us) > "$OUT/build.log" 2>&1; then
    tail -n 30 "$OUT/build.log" >&2
    echo "deb: dpkg-buildpackage failed; see $OUT/build.log" >&2
    exit 1
fi
deb=$(ls "$OUT"/ini_"$V"_*.deb)
rm -rf "$STAGE"
echo "deb: $deb"
