# options.sh - the option preamble of the measurement drivers (tools/thesis,
# tools/sweeps, tools/bench, tools/trace), sourced, not run, as their first
# line after the header comment:
#
#   PROG=experiments; . "$(dirname "$0")/../lib/options.sh"
#
# It sets -u, goes to the repository's root and sets ROOT to it, and puts
# tools/ on PYTHONPATH: the one place that does, so that the drivers run
# the measurement scripts as `python3 -m inimeasure.NAME`
# (tools/inimeasure/__init__.py).  It defines what every driver wrote
# again: die (one line "PROG: ..." and exit 2), need (a flag's value is
# there), the option loop (parse_options), the help printed from the
# header comment, and the checks of the numeric arguments, each dying with
# one line naming the flag and value.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT" || exit 1
export PYTHONPATH="$ROOT/tools${PYTHONPATH:+:$PYTHONPATH}"

# die MESSAGE...: the driver's one-line error, exit status 2 (bad usage).
die() { echo "$PROG: $*" >&2; exit 2; }

# need FLAG "$@"-rest: FLAG has a value after it (called as `need "$@"`).
need() { [ $# -ge 2 ] || die "$1 needs a value"; }

# help_header: the header comment from line 2 to its end, without the "# ",
# what --help prints for the drivers whose header is their manual.
help_header() { sed -n '2,/^[^#]/p' "$0" | sed '$d; s/^# \{0,1\}//'; }

# help_usage: the header's usage lines (those indented "#   "), unprefixed.
help_usage() { sed -n 's/^#   //p' "$0"; }

# help_between FIRST LAST: the header's lines from the one matching FIRST
# to the one matching LAST (sed addresses), without the "# ".
help_between() { sed -n "/$1/,/$2/p" "$0" | sed 's/^# //'; }

# posint FLAG VALUE: VALUE is a positive integer (--reps and the like).
posint() { [[ $2 =~ ^[1-9][0-9]*$ ]] || die "$1: expected a positive integer, got '$2'"; }

# nonneg FLAG VALUE: VALUE is a non-negative integer (--seed).
nonneg() { [[ $2 =~ ^[0-9]+$ ]] || die "$1: expected a non-negative integer, got '$2'"; }

# factor FLAG VALUE [WHAT]: VALUE is a decimal number, WHAT what it is
# (default "a factor"), as the dilations and yields are given.
factor() { [[ $2 =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "$1: expected ${3:-a factor}, got '$2'"; }

# loadlimit FLAG VALUE: a load average (a decimal number) or none.
loadlimit() { [[ $2 =~ ^([0-9]+(\.[0-9]+)?|none)$ ]] || die "$1: expected a number or none, got '$2'"; }


# parse_options SPEC "$@": the driver's option loop.  SPEC is a list of
# words: "--flag=VAR" takes a value into VAR; "--flag:VAR=VALUE" is a
# switch setting VAR to VALUE (a flag may have several, and a value flag
# switches too).  -h/--help runs the driver's show_help (default:
# help_header) and exits 0.  A flag SPEC does not name goes to the
# driver's option_other "$@", if it has one, which sets OPT_SHIFT to the
# words it took (0: not its flag); else it is an unknown option.  GIVEN
# lists the flags given, for defaults that depend on them (--quick).
parse_options() {
    local spec=$1 w took; shift
    GIVEN=
    while [ $# -gt 0 ]; do
        case $1 in -h|--help) if declare -F show_help > /dev/null; then show_help; else help_header; fi; exit 0 ;; esac
        GIVEN="$GIVEN $1" took=0
        for w in $spec; do
            case $w in
            "$1="*) need "$@"; printf -v "${w#*=}" '%s' "$2"; took=2 ;;
            "$1:"*) w=${w#*:}; printf -v "${w%%=*}" '%s' "${w#*=}"; [ $took = 2 ] || took=1 ;;
            esac
        done
        if [ $took = 0 ] && declare -F option_other > /dev/null; then
            OPT_SHIFT=0; option_other "$@"; took=$OPT_SHIFT
        fi
        [ "$took" -gt 0 ] || die "unknown option $1 (--help)"
        shift "$took"
    done
}
