/*
 * eal_args.c - hugepages and PCI allow-listing for a daemon's EAL (see
 * eal_args.h).
 */
#include "eal_args.h"

#include <stdio.h>
#include <string.h>

long ini_eal_hugepages_free_mb(const char *meminfo_path)
{
    FILE *f = fopen(meminfo_path, "r");
    if (!f)
        return 0;
    char line[256];
    long free_pages = 0, page_kb = 0;
    while (fgets(line, sizeof line, f)) {
        long v;
        if (sscanf(line, "HugePages_Free: %ld", &v) == 1)
            free_pages = v;
        else if (sscanf(line, "Hugepagesize: %ld kB", &v) == 1)
            page_kb = v;
    }
    fclose(f);
    return free_pages > 0 && page_kb > 0 ? free_pages * page_kb / 1024 : 0;
}

int ini_eal_use_hugepages(const struct ini_config *cfg, char *const *extra, int n_extra,
                          const char *meminfo_path)
{
    for (int i = 0; i < n_extra; i++)
        if (!strcmp(extra[i], "--no-huge"))
            return 0;
    switch (cfg->eal_hugepages) {
    case INI_HUGE_YES: return 1;
    case INI_HUGE_NO:  return 0;
    default:           return ini_eal_hugepages_free_mb(meminfo_path) >= cfg->eal_memory_mb;
    }
}

int ini_eal_allows_pci(char *const *args, int n)
{
    for (int i = 0; i < n; i++) {
        const char *a = args[i];
        if (!strcmp(a, "-a") || !strcmp(a, "--allow"))
            return i + 1 < n;
        if (!strncmp(a, "--allow=", 8) || (!strncmp(a, "-a", 2) && a[2]))
            return 1;
    }
    return 0;
}
