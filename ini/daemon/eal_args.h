/*
 * eal_args.h - the host-dependent part of a daemon's EAL command line.
 *
 * inid builds its EAL arguments from the configuration (eal group), the
 * INI's ports (ini/daemon/inid_port.c) and what the user passes through
 * (`ini-cluster run ... --eal "ARGS"`, or after inid's own `--`).  Two
 * choices depend on the host and live here, so that they can be tested
 * without starting EAL:
 *
 *  - hugepages: eal.hugepages = "yes" uses them, "no" gives --no-huge,
 *    "auto" (the default) uses them when /proc/meminfo shows at least
 *    eal.memory_mb MiB free in HugePages_Free x Hugepagesize, else
 *    --no-huge.  A --no-huge passed through wins.  With hugepages the
 *    daemon runs --in-memory, so a crashed daemon leaves no hugepage file.
 *  - PCI: the bus is scanned only for devices the INI names (allowed with
 *    -a); with none, --no-pci, so that no other device of the host (its
 *    own NIC) is ever probed.
 */
#ifndef INI_EAL_ARGS_H
#define INI_EAL_ARGS_H

#include <stddef.h>

#include "config.h"

/* Free hugepage memory in MiB from a meminfo file (HugePages_Free x
 * Hugepagesize); 0 if none or unreadable. */
long ini_eal_hugepages_free_mb(const char *meminfo_path);

/* 1: run EAL on hugepages; 0: --no-huge.  extra: the passed-through
 * arguments; meminfo_path: normally "/proc/meminfo". */
int ini_eal_use_hugepages(const struct ini_config *cfg, char *const *extra, int n_extra,
                          const char *meminfo_path);

/* 1 if args (n of them) allow-list a PCI device (-a X, -aX, --allow[=]X). */
int ini_eal_allows_pci(char *const *args, int n);

#endif
