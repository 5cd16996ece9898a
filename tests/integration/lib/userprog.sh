# userprog.sh - sourced by install.sh and deb.sh: builds programs as a user
# would, from an installed tree only, and runs them under the launcher.
#
#   userprog_build ROOT PREFIX CC SRC OUT [STD]   cc -std=STD (c11) SRC $(pkg-config --cflags --libs ini)
#       with pkg-config reading ROOT/PREFIX/lib*/pkgconfig and its paths
#       moved under ROOT (PKG_CONFIG_SYSROOT_DIR), and nothing of the
#       tree's on the include path
#   userprog_run NAME CONFIG PROGRAM ARGS   ini-cluster run CONFIG -- PROGRAM;
#       prints the output; exit status in USERPROG_RC, output in USERPROG_OUT,
#       a file in $USERPROG_TMP (the caller's scratch directory, which it
#       removes at exit; /tmp if unset)
# Both exit the test (status 1) on failure, naming what failed.

userprog_fail() { echo "${TEST_NAME:-userprog}: FAIL: $*"; exit 1; }

# The pkg-config directory under ROOT/PREFIX (lib/ or lib/<multiarch>/).
userprog_pcdir() {
    local root=$1 prefix=$2 d
    d=$(dirname "$(find "$root$prefix" -name ini.pc -path '*pkgconfig*' | head -n 1)")
    [ -f "$d/ini.pc" ] || userprog_fail "no ini.pc under $root$prefix"
    echo "$d"
}

userprog_build() {
    local root=$1 prefix=$2 cc=$3 src=$4 out=$5 std=${6:-c11} pcdir flags
    pcdir=$(userprog_pcdir "$root" "$prefix")
    # The sysroot puts ROOT in front of every path of ini.pc, as for a tree
    # installed with DESTDIR or unpacked with dpkg -x.
    flags=$(PKG_CONFIG_PATH="$pcdir" PKG_CONFIG_SYSROOT_DIR="$root" pkg-config --cflags --libs ini) ||
        userprog_fail "pkg-config --cflags --libs ini failed"
    case "$flags" in *"$root"*) ;; *) userprog_fail "pkg-config flags do not point into $root: $flags" ;; esac
    local libdir
    libdir=$root$(PKG_CONFIG_PATH="$pcdir" pkg-config --variable=libdir ini)
    echo "+ $cc $(basename "$src") $flags"
    # shellcheck disable=SC2086
    $cc -std="$std" -Wall -Wextra -Werror -o "$out" "$src" $flags -Wl,-rpath,"$libdir" ||
        userprog_fail "$cc could not build $src against $root"
    # Linked against the installed shared libraries, not the tree's.
    ldd "$out" | grep -q "$libdir/libini.so" || userprog_fail "$out does not use $libdir/libini.so: $(ldd "$out")"
}

# Static: the installed .a files hold plain objects any compiler links.
userprog_build_static() {
    local root=$1 prefix=$2 cc=$3 src=$4 out=$5 pcdir flags
    pcdir=$(userprog_pcdir "$root" "$prefix")
    flags=$(PKG_CONFIG_PATH="$pcdir" PKG_CONFIG_SYSROOT_DIR="$root" pkg-config --static --cflags --libs ini) ||
        userprog_fail "pkg-config --static failed"
    local libdir
    libdir=$root$(PKG_CONFIG_PATH="$pcdir" pkg-config --variable=libdir ini)
    flags=${flags//-lmgs/$libdir/libmgs.a}
    flags=${flags//-lini/$libdir/libini.a}
    echo "+ $cc $(basename "$src") $flags"
    # shellcheck disable=SC2086
    $cc -std=c11 -Wall -Wextra -Werror -o "$out" "$src" $flags ||
        userprog_fail "$cc could not link $src with the static libraries of $root"
    ! ldd "$out" | grep -q libini.so || userprog_fail "$out is not linked statically with libini"
}

userprog_run() {
    local name=$1 config=$2
    shift 2
    local dir
    dir=$(mktemp -d "${USERPROG_TMP:-/tmp}/ini-$name.XXXXXX")
    USERPROG_OUT="$dir.out"
    build/bin/ini-cluster run "$config" --run-dir "$dir" --timeout 120 -- "$@" > "$USERPROG_OUT" 2>&1
    USERPROG_RC=$?
    # Every cluster's own output as written (the launcher shows cluster
    # 1's and up prefixed).
    for f in "$dir"/cluster*.out; do cat "$f"; done >> "$USERPROG_OUT"
    sed 's/^/    /' "$USERPROG_OUT"
    rm -rf "$dir"
}
