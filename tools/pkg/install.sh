#!/usr/bin/env bash
# `make install` and `make uninstall` (tools/pkg/module.mk passes the
# variables): one list of what goes where (entries, below) serves both, so
# that uninstall removes exactly what install put.
#
#   tools/pkg/install.sh install | uninstall
#
# Installed: the user programs (BINDIR; Water, EM3D and synth-queue as
# ini-water, ini-em3d and ini-synth-queue, names of their own; the tests' helpers water_compare and cluster-fake-inid stay in the
# tree), libini and libmgs (static, shared, links), the public headers
# under include/ini, ini.pc, their man pages, the configurations
# (DATADIR/ini/conf), Water's data file (DATADIR/ini/water, where
# ini-water looks for it), the Wireshark dissector (DATADIR/ini/wireshark,
# and WIRESHARK_PLUGINDIR: where Wireshark and tshark load it, so that
# INI frames decode with no -X option; module.mk finds that folder),
# the examples' source and the documents (DOCDIR).  With PKG_SYSTEMD=1 (the Debian package) also the systemd
# template unit, in $SYSTEMD_UNITDIR.  Everything lands under
# $DESTDIR$PREFIX (and the unit's and the plugin's directories); nothing
# outside is touched.
#
# install also writes DATADIR/ini/installed: every file it put and every
# directory it had to create; uninstall removes those files, then those
# directories if they are empty, then the list.  Without DESTDIR, as root,
# both run ldconfig, so that the dynamic linker's cache knows the libraries
# (a program built with ini.pc finds them through its run path anyway).
set -euo pipefail
cd "$(dirname "$0")/../.."
D=${DESTDIR-}
mode=${1-}
case "$mode" in
    install|uninstall) ;;
    *) echo "install.sh: expected install or uninstall, not '$mode'" >&2; exit 2 ;;
esac
MANIFEST=$DATADIR/ini/installed

# Not installed: the tests' helpers.  Installed under a name of the
# project's (ini-NAME), not a generic one in BINDIR: Water, EM3D and
# synth-queue.
skipped() { case "$1" in water_compare|cluster-fake-inid) return 0 ;; esac; return 1; }
installed_name() { case "$1" in water|em3d|synth-queue) echo "ini-$1" ;; *) echo "$1" ;; esac; }

# Whether the dissector can go to WIRESHARK_PLUGINDIR: always into a
# DESTDIR; on this system, if its nearest existing directory is writable.
# A user's install (PREFIX in a home directory, not root) leaves
# Wireshark's global folder alone and says where to put the script.
plugin_dir_writable() {
    [ -n "${WIRESHARK_PLUGINDIR-}" ] || return 1
    [ -z "$D" ] || return 0
    local dir=$WIRESHARK_PLUGINDIR
    while [ ! -d "$dir" ]; do dir=$(dirname "$dir"); done
    [ -w "$dir" ] && return 0
    [ "$mode" != install ] || echo "install.sh: $WIRESHARK_PLUGINDIR is not writable: the Wireshark dissector is" \
        "only in $DATADIR/ini/wireshark (make install WIRESHARK_PLUGINDIR=~/.local/lib/wireshark/plugins" \
        "puts it where Wireshark loads it for you)" >&2
    return 1
}

# One line per thing to install: MODE SOURCE DEST.  MODE is an octal file
# mode, "link" (SOURCE is the link's target) or "man" (a page, renamed
# with its program).
entries() {
    local b n f sec name
    for b in $PKG_BINS; do
        n=$(basename "$b")
        skipped "$n" || echo "0755 $b $BINDIR/$(installed_name "$n")"
    done
    for l in ini mgs; do
        echo "0644 $PKG_LIB_DIR/lib$l.a $LIBDIR/lib$l.a"
        echo "0755 $PKG_LIB_DIR/lib$l.so.$PKG_VERSION $LIBDIR/lib$l.so.$PKG_VERSION"
        echo "link lib$l.so.$PKG_VERSION $LIBDIR/lib$l.so.$PKG_SOVERSION"
        echo "link lib$l.so.$PKG_SOVERSION $LIBDIR/lib$l.so"
    done
    echo "0644 $PKG_LIB_DIR/ini.pc $LIBDIR/pkgconfig/ini.pc"
    # The headers include each other by file name ("config.h"), so they
    # only need to sit side by side in include/ini/.
    for h in $PKG_HEADERS; do
        echo "0644 $h $INCLUDEDIR/ini/$(basename "$h")"
    done
    # Man pages: man/manN/*.N as written, or generated into $BUILD/man/manN/.
    for src in man "$BUILD/man"; do
        [ -d "$src" ] || continue
        for f in "$src"/man[1-8]/*.[1-8]*; do
            [ -f "$f" ] || continue
            sec=$(basename "$(dirname "$f")")
            name=$(basename "$f")
            skipped "${name%.*}" && continue
            echo "man $f $MANDIR/$sec/$(installed_name "${name%.*}").${name##*.}"
        done
    done
    for f in conf/*.cfg; do
        echo "0644 $f $DATADIR/ini/conf/$(basename "$f")"
    done
    echo "0644 tools/apps/water/data/random.in $DATADIR/ini/water/random.in"
    echo "0644 tools/wireshark/ini.lua $DATADIR/ini/wireshark/ini.lua"
    plugin_dir_writable && echo "0644 tools/wireshark/ini.lua $WIRESHARK_PLUGINDIR/ini.lua"
    for f in examples/*; do
        [ -f "$f" ] && echo "0644 $f $DOCDIR/examples/$(basename "$f")"
    done
    for f in README.md LICENSE docs/*.md; do
        [ -f "$f" ] && echo "0644 $f $DOCDIR/$(basename "$f")"
    done
    if [ "${PKG_SYSTEMD-0}" = 1 ]; then
        echo "0644 tools/pkg/ini-cluster@.service $SYSTEMD_UNITDIR/ini-cluster@.service"
    fi
    return 0
}

# A page whose program is installed under another name names it so.
install_man() {
    local src=$1 dest=$2 page old new
    page=$(basename "$dest")
    old=$(basename "$src"); old=${old%.*}
    new=${page%.*}
    # Every page names the renamed programs by their installed names.
    local refs='s/^\.BR \(water\|em3d\|synth-queue\) (1)/.BR ini-\1 (1)/'
    if [ "$old" = "$new" ]; then
        sed -e "$refs" "$src" > "$dest"
    else
        sed -e "1s/^\.TH [^ ]*/.TH $(echo "$new" | tr 'a-z' 'A-Z')/" \
            -e "s/^$old \\\\-/$new \\\\-/; s/^\.B $old\$/.B $new/" -e "$refs" "$src" > "$dest"
    fi
    chmod 0644 "$dest"
}

# Makes the directories of dest that do not exist yet, recording them.
# DESTDIR itself is made unrecorded (debhelper hands one that may not
# exist yet).
make_dirs() {
    local dir=$1 missing=()
    [ -z "$D" ] || mkdir -p "$D"
    while [ "$dir" != / ] && [ ! -d "$D$dir" ]; do
        missing=("$dir" "${missing[@]}")
        dir=$(dirname "$dir")
    done
    for dir in "${missing[@]}"; do
        mkdir -m 0755 "$D$dir"
        echo "dir $dir" >> "$LIST"
    done
}

run_ldconfig() {
    if [ -z "$D" ] && [ "$(id -u)" = 0 ] && command -v ldconfig > /dev/null; then
        ldconfig
    fi
}

do_install() {
    LIST=$(mktemp)
    trap 'rm -f "$LIST"' EXIT
    local kind src dest
    while read -r kind src dest; do
        make_dirs "$(dirname "$dest")"
        case "$kind" in
            link) ln -sfn "$src" "$D$dest" ;;
            man) install_man "$src" "$D$dest" ;;
            *) $INSTALL -m "$kind" "$src" "$D$dest" ;;
        esac
        echo "file $dest" >> "$LIST"
    done < <(entries)
    # The list names itself last.
    make_dirs "$(dirname "$MANIFEST")"
    echo "file $MANIFEST" >> "$LIST"
    $INSTALL -m 0644 "$LIST" "$D$MANIFEST"
    run_ldconfig
    echo "installed into ${D}${PREFIX} (list: ${D}${MANIFEST})"
}

do_uninstall() {
    local list kind path n=0
    if [ -f "$D$MANIFEST" ]; then
        list=$(cat "$D$MANIFEST")
    else
        # No list (an install of before it existed): what install would put.
        list=$(entries | awk '{ print "file " $3 }')
    fi
    while read -r kind path; do
        [ "$kind" = file ] || continue
        if [ -e "$D$path" ] || [ -L "$D$path" ]; then
            rm -f "$D$path"
            n=$((n + 1))
        fi
    done <<< "$list"
    # The directories install made, deepest first, if nothing else is in them.
    while read -r kind path; do
        [ "$kind" = dir ] && rmdir "$D$path" 2> /dev/null || true
    done < <(echo "$list" | awk '$1 == "dir"' | sort -r -k2)
    run_ldconfig
    echo "removed $n files from ${D}${PREFIX}"
}

if [ "$mode" = install ]; then do_install; else do_uninstall; fi
