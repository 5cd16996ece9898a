// headers.cc - a C++ program that includes every installed header of the
// project and calls into both libraries (tests/integration/install.sh
// builds it with g++ and clang++ against an installed tree and runs it).
// It checks the headers' C++ face: extern "C" linkage and nothing C-only
// (no _Atomic) in what a user includes.
#include <cstdio>
#include <cstring>

#include <ini/config.h>
#include <ini/ini_cn.h>
#include <ini/ini_policy.h>
#include <ini/mgs.h>
#include <ini/par.h>

int main()
{
    // From libini: the policies' names, and the configuration check,
    // which says nothing when INI_CONFIG is not set.
    char err[256];
    int ok = ini_cn_check_config_env(err, sizeof err) == 0;
    const char *name = ini_policy_name(INI_POLICY_ROUND_ROBIN);
    // From libmgs: the parallel interface's thread count outside a run.
    void (*barrier)(void) = par_barrier;
    std::printf("headers: %s %s %s\n", name, ok ? "ok" : err, barrier ? "linked" : "missing");
    return std::strcmp(name, "round-robin") == 0 && ok && barrier ? 0 : 1;
}
