#!/usr/bin/env bash
# Installs the Debian packages the project needs, only those missing, and
# fetches lwIP's Debian source package into build/ (compiled by tools/lwip.mk).
set -euo pipefail
cd "$(dirname "$0")/.."

PKGS=(build-essential pkg-config libdpdk-dev dpdk libconfig-dev libcmocka-dev
      iproute2 gnuplot-nox xz-utils)
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

# lwIP 2.1.3 from Debian's source package, through a private apt state under
# build/ so that the machine's own sources list is left untouched.
LWIP_DIR=build/lwip
if [ ! -f "$LWIP_DIR/src/core/pbuf.c" ]; then
    APT=build/apt
    mkdir -p "$APT/lists/partial" "$APT/src"
    echo 'deb-src http://deb.debian.org/debian bookworm main' > "$APT/sources.list"
    opts=(-o Dir::Etc::SourceList="$PWD/$APT/sources.list" -o Dir::Etc::SourceParts=/dev/null
          -o Dir::State::Lists="$PWD/$APT/lists" -o APT::Sandbox::User=root)
    echo "install-deps: fetching lwIP source (Debian package lwip)"
    apt-get -q "${opts[@]}" update >/dev/null
    (cd "$APT/src" && apt-get -q "${opts[@]}" source --download-only lwip >/dev/null)
    orig=$(ls "$APT"/src/lwip_2.1.3*.orig.tar.* | head -n1)
    rm -rf "$LWIP_DIR.tmp" && mkdir -p "$LWIP_DIR.tmp"
    tar xf "$orig" -C "$LWIP_DIR.tmp" --strip-components=1
    rm -rf "$LWIP_DIR" && mv "$LWIP_DIR.tmp" "$LWIP_DIR"
fi
