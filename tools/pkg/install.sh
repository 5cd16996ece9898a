#!/usr/bin/env bash
# Installs a built tree (`make install`, tools/pkg/module.mk passes the
# variables): programs, libraries, public headers under ini/, ini.pc, man
# pages, configurations, examples' source.  Everything lands under
# $DESTDIR$PREFIX; nothing outside it is touched.  With PKG_SYSTEMD=1 (the
# Debian package) also the systemd template unit, in $SYSTEMD_UNITDIR.
set -euo pipefail
cd "$(dirname "$0")/../.."
D=${DESTDIR-}
inst() { $INSTALL "$@"; }

inst -d "$D$BINDIR" "$D$LIBDIR/pkgconfig" "$D$INCLUDEDIR/ini" "$D$DOCDIR/examples" "$D$DATADIR/ini/conf"
for b in $PKG_BINS; do
    inst -m 0755 "$b" "$D$BINDIR/"
done

for l in ini mgs; do
    inst -m 0644 "$PKG_LIB_DIR/lib$l.a" "$D$LIBDIR/"
    inst -m 0755 "$PKG_LIB_DIR/lib$l.so.$PKG_VERSION" "$D$LIBDIR/"
    ln -sfn "lib$l.so.$PKG_VERSION" "$D$LIBDIR/lib$l.so.$PKG_SOVERSION"
    ln -sfn "lib$l.so.$PKG_SOVERSION" "$D$LIBDIR/lib$l.so"
done
inst -m 0644 "$PKG_LIB_DIR/ini.pc" "$D$LIBDIR/pkgconfig/"

# The headers include each other by file name ("config.h"), so they only
# need to sit side by side in include/ini/.
for h in $PKG_HEADERS; do
    inst -m 0644 "$h" "$D$INCLUDEDIR/ini/"
done

# Man pages: man/manN/*.N as written, or generated into $BUILD/man/manN/.
for src in man "$BUILD/man"; do
    [ -d "$src" ] || continue
    for f in "$src"/man[1-8]/*.[1-8]*; do
        [ -f "$f" ] || continue
        sec=$(basename "$(dirname "$f")")
        inst -d "$D$MANDIR/$sec"
        inst -m 0644 "$f" "$D$MANDIR/$sec/"
    done
done

for f in conf/*.cfg; do
    inst -m 0644 "$f" "$D$DATADIR/ini/conf/"
done
if [ -d examples ]; then
    for f in examples/*; do
        [ -f "$f" ] && inst -m 0644 "$f" "$D$DOCDIR/examples/"
    done
fi
inst -m 0644 README.md "$D$DOCDIR/"
for f in docs/*.md; do
    inst -m 0644 "$f" "$D$DOCDIR/"
done

if [ "${PKG_SYSTEMD-0}" = 1 ]; then
    inst -d "$D$SYSTEMD_UNITDIR"
    inst -m 0644 tools/pkg/ini-cluster@.service "$D$SYSTEMD_UNITDIR/"
fi
echo "installed into ${D}${PREFIX}"
