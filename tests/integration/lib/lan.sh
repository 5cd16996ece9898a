# lan.sh - the LAN namespace of an af_packet run, for tests that watch
# or ping the run from its bridge.  Sourced.
#
# lan_of_run PID TRIES
#     prints the LAN namespace of the run whose launcher is PID (named
#     after the run's tag, "ini-TAG-lan", the tag PID in hexadecimal) once
#     it exists and holds the bridge inibr0, trying TRIES times 50 ms
#     apart; prints nothing if it never does.
lan_of_run() {
    local tag lan _
    tag=$(printf '%x' "$1")
    for _ in $(seq "$2"); do
        lan=$(ip netns list | awk -v tag="$tag" '$1 == "ini-" tag "-lan" { print $1 }')
        if [ -n "$lan" ] && ip netns exec "$lan" ip link show inibr0 > /dev/null 2>&1; then
            echo "$lan"
            return 0
        fi
        sleep 0.05
    done
}
