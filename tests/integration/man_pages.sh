#!/usr/bin/env bash
# man_pages: the manual pages in man/ render without a groff warning, every
# program in build/bin (test_* excepted) has a page in man/man1, and every
# option its --help lists appears in that page.  The .so links of man3 point
# at pages that exist.
set -u
cd "$(dirname "$0")/../.."
NAME=man_pages
fail() { echo "$NAME: FAIL: $*"; exit 1; }
command -v groff > /dev/null || { echo "$NAME: SKIP: groff is not installed"; exit 77; }
WORK=$(mktemp -d /tmp/ini-man.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

# Plain text of a page: no line breaks inside a paragraph (very long lines),
# no hyphenation, no overstriking, so options can be searched for.
plain() { groff -man -Tascii -rLL=2000n -rHY=0 -P-cbou -ww -I man "$1"; }

pages=0
for page in man/man*/*.[0-9]; do
    [ -f "$page" ] || continue
    if head -n 1 "$page" | grep -q '^\.so '; then
        target=man/$(sed -n '1s/^\.so //p' "$page")
        [ -f "$target" ] || fail "$page: .so to missing $target"
        continue
    fi
    pages=$((pages + 1))
    section=${page##*.}
    [ "$(sed -n '1s/^\.TH [^ ]* \([0-9]\).*/\1/p' "$page")" = "$section" ] ||
        fail "$page: .TH does not name section $section"
    groff -man -Tutf8 -ww "$page" > /dev/null 2> "$WORK/warn"
    [ -s "$WORK/warn" ] && fail "$page: groff warns: $(head -n 3 "$WORK/warn")"
    if command -v man > /dev/null; then
        man -l "$page" 2> "$WORK/warn" | grep -q '^NAME' || fail "$page: man -l shows no NAME section"
        [ -s "$WORK/warn" ] && fail "$page: man -l warns: $(head -n 3 "$WORK/warn")"
    fi
done
[ "$pages" -gt 0 ] || fail "no pages in man/"

programs=0
for bin in build/bin/*; do
    prog=$(basename "$bin")
    [ -x "$bin" ] && [ -f "$bin" ] || continue
    case $prog in test_*) continue ;; esac
    programs=$((programs + 1))
    page=man/man1/$prog.1
    [ -f "$page" ] || fail "$prog has no man page ($page)"
    plain "$page" > "$WORK/text" 2> /dev/null
    # The options of the usage text: every --word (cli_common checks
    # that --help prints it on stdout with status 0).
    "$bin" --help | grep -oE -- '--[A-Za-z][A-Za-z0-9_-]*' | sort -u > "$WORK/options"
    [ -s "$WORK/options" ] || fail "$prog --help lists no option"
    while read -r opt; do
        grep -qE -- "${opt}([^A-Za-z0-9_-]|\$)" "$WORK/text" || fail "$page does not mention $opt (from $prog --help)"
    done < "$WORK/options"
done
[ "$programs" -gt 0 ] || fail "no programs in build/bin (make first)"
echo "$NAME: PASS ($pages pages render cleanly; $programs programs, each with a page naming all its --help options)"
