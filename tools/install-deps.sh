#!/usr/bin/env bash
# Installs the Debian packages the project needs, only those missing, and
# fetches lwIP's Debian source package into the cache LWIP_CACHE (default
# .cache/lwip; compiled by tools/lwip.mk).  `make` calls it with --lwip, which
# only fetches lwIP, when the cache is empty; `make deps`, `make run` and
# `make test` call it without.  `make deb` calls it with --deb, which installs
# only what building the Debian package takes (dpkg-dev, debhelper).
# Besides the build's, every tool a test uses, so that `make test` skips
# nothing for want of one: clang (tests/integration/install.sh builds a
# user's program with it), dpdk-dev (dpdk-telemetry.py, telemetry.sh),
# tshark (capture.sh) and valgrind (hot_path_calls.sh,
# tools/bench/callgrind-stack.sh), dpkg-dev and debhelper (deb.sh builds
# the package), tmux (top.sh drives `ini-cluster top` in a terminal),
# groff and man-db (man_pages.sh), python3; and the peers ini-bench measures
# beside the INI (UCX: libucx-dev, ucx-utils; libfabric: libfabric-dev,
# libfabric-bin), which it reports as skipped when they are missing.
#
#   tools/install-deps.sh [--lwip | --deb]
set -euo pipefail
cd "$(dirname "$0")/.."
mode=all
case "${1-}" in
    "") ;;
    --lwip) mode=lwip ;;
    --deb) mode=deb ;;
    *) echo "install-deps: unknown argument '$1' (expected --lwip, --deb or nothing)" >&2; exit 2 ;;
esac

if [ "$mode" != lwip ]; then
    # openssh-server, tcpdump, tshark, iputils-ping, slurm-wlm and munge: the
    # tests of machines across hosts (tests/integration/hosts_*.sh), whose
    # namespace hosts run their own sshd, slurmd and munged.
    PKGS=(build-essential pkg-config libdpdk-dev dpdk libconfig-dev libcmocka-dev libsodium-dev
          iproute2 gnuplot-nox xz-utils clang dpdk-dev tshark time valgrind
          openssh-client openssh-server tcpdump iputils-ping slurm-wlm munge
          dpkg-dev debhelper tmux groff man-db python3
          libucx-dev ucx-utils libfabric-dev libfabric-bin)
    [ "$mode" = deb ] && PKGS=(dpkg-dev debhelper)
    missing=()
    for p in "${PKGS[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        echo "install-deps: installing ${missing[*]}"
        if [ "$(id -u)" != 0 ]; then
            echo "install-deps: need root to install ${missing[*]}" >&2; exit 1
        fi
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -q >/dev/null
        apt-get install -y -q "${missing[@]}" >/dev/null
    fi
fi

# lwIP 2.1.3 from Debian's source package, through a private apt state in
# the cache so that the machine's own sources list is left untouched.  The
# source is unpacked beside the cache and moved into place, then .fetched is
# written: a cache with .fetched is complete, whatever interrupted a fetch.
LWIP_DIR=${LWIP_CACHE:-.cache/lwip}
if [ ! -f "$LWIP_DIR/.fetched" ]; then
    APT=$(dirname "$LWIP_DIR")/apt
    mkdir -p "$APT/lists/partial" "$APT/src"
    APT=$(cd "$APT" && pwd)
    echo 'deb-src http://deb.debian.org/debian bookworm main' > "$APT/sources.list"
    opts=(-o Dir::Etc::SourceList="$APT/sources.list" -o Dir::Etc::SourceParts=/dev/null
          -o Dir::State::Lists="$APT/lists" -o APT::Sandbox::User=root)
    echo "install-deps: fetching lwIP source (Debian package lwip) into $LWIP_DIR"
    apt-get -q "${opts[@]}" update >/dev/null
    (cd "$APT/src" && apt-get -q "${opts[@]}" source --download-only lwip >/dev/null)
    orig=$(ls "$APT"/src/lwip_2.1.3*.orig.tar.* | head -n1)
    rm -rf "$LWIP_DIR.tmp" && mkdir -p "$LWIP_DIR.tmp"
    tar xf "$orig" -C "$LWIP_DIR.tmp" --strip-components=1
    [ -f "$LWIP_DIR.tmp/src/core/pbuf.c" ] || { echo "install-deps: $orig holds no src/core/pbuf.c" >&2; exit 1; }
    basename "$orig" > "$LWIP_DIR.tmp/.fetched"
    rm -rf "$LWIP_DIR" && mv "$LWIP_DIR.tmp" "$LWIP_DIR"
    # The package lists are only needed to fetch: keep the cache small.
    rm -rf "$APT/lists"
fi
