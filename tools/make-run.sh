#!/usr/bin/env bash
# `make run`: the main job on the embedded default configuration: two
# clusters of two compute nodes, one INI each, memif between the INIs;
# every compute node pings compute nodes of the other cluster with
# messages from empty to 65,000 bytes and verifies every echo.
set -euo pipefail
cd "$(dirname "$0")/.."
exec build/bin/ini-cluster run conf/default.cfg -- \
    build/bin/ini-ping --sizes 0,64,1024,1472,1473,9000,14800,65000 --count 200
