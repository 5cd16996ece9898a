#!/usr/bin/env bash
# deploy_recipe: docs/deploy.md's lab recipe, run as it is written there.
# The block between "<!-- lab recipe" and "<!-- end of lab recipe -->" is
# taken from the page and run by bash -e from the repository's root, with
# two changes that keep it apart from a user's lab and files: INI_LAB names
# the lab after this test, and its /tmp/lab paths go to the test's scratch
# directory.  It must exit 0 with the lab up and down again (tools/cluster/
# ini-lab up 3 --slurm ... down), a run over ssh and a run under Slurm's
# salloc each ending with every one of the 3 clusters' "verified N
# messages, 0 errors", and no namespace of the lab left.
# Needs root, network namespaces, sshd, slurm-wlm and munge (else 77).
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib/common.sh
test_start deploy_recipe build/bin/ini-cluster build/bin/inid build/bin/ini-ping
if [ "$(id -u)" != 0 ] || ! ip netns list > /dev/null 2>&1; then
    echo "deploy_recipe: SKIP: needs root and ip netns"; exit 77
fi
for t in sshd slurmctld slurmd munged salloc; do
    command -v $t > /dev/null || [ -x /usr/sbin/$t ] ||
        { echo "deploy_recipe: SKIP: $t missing (make deps installs openssh-server, slurm-wlm, munge)"; exit 77; }
done
export INI_LAB=recipe$$
trap 'tools/cluster/ini-lab down > /dev/null 2>&1; test_cleanup' EXIT
sed -n '/^<!-- lab recipe/,/^<!-- end of lab recipe -->/p' docs/deploy.md | sed -n '/^```sh$/,/^```$/p' |
    sed '1d;$d' > "$TMP/recipe.sh"
lines=$(wc -l < "$TMP/recipe.sh")
grep -q '^tools/cluster/ini-lab up ' "$TMP/recipe.sh" && grep -q '^tools/cluster/ini-lab down' "$TMP/recipe.sh" ||
    { fail "docs/deploy.md has no lab recipe between its markers ($lines lines found)"; test_end; }
sed -i "s|/tmp/lab|$TMP/lab|g" "$TMP/recipe.sh"
echo "deploy_recipe: running the $lines lines of docs/deploy.md's recipe (lab $INI_LAB)"
bash -e "$TMP/recipe.sh" > "$TMP/recipe.out" 2>&1
rc=$?
if [ "$rc" = 0 ]; then ok "the recipe ran to its end (status 0)"; else fail "the recipe exited with $rc"; tail -n 20 "$TMP/recipe.out"; fi
for run in ssh slurm; do
    # Across hosts the programs' lines come back prefixed by cluster: the
    # launcher's output after the run before this one, up to this run's end.
    shown=$(awk -v d="$TMP/lab-$run" '$0 == "run directory: " d { exit } /^run directory: / { n = 0; next }
                                      { line[n++] = $0 } END { for (i = 0; i < n; i++) print line[i] }' "$TMP/recipe.out" |
            grep -cE '^\[c[012]\] verified [1-9][0-9]* messages, 0 errors$')
    [ -d "$TMP/lab-$run" ] && [ "$shown" = 3 ] && ok "$run run: 3 clusters on 3 hosts, each: $(grep -m1 -E '^\[c0\] verified' "$TMP/recipe.out")" ||
        { fail "$run run: $shown of 3 clusters verified with 0 errors"; grep -E 'verified|error|FAIL' "$TMP/recipe.out" | head; }
done
grep -q "lab $INI_LAB up: hosts h0..h2" "$TMP/recipe.out" && grep -q "Slurm: 3 nodes idle" "$TMP/recipe.out" &&
    ok "the lab came up with 3 hosts and Slurm's 3 nodes idle" || fail "ini-lab up did not say so"
left=$(ip netns list | awk '{ print $1 }' | grep -c "^$INI_LAB-")
[ "$left" = 0 ] && [ ! -d "/run/ini-lab/$INI_LAB" ] && ok "ini-lab down left no namespace and no directory" ||
    fail "ini-lab down left $left namespaces"
test_end
