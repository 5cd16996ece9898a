/*
 * config_names.c - each enum of the configuration beside its names, as the
 * file, the programs' flags and their reports write them (config.h).  The
 * tables are indexed by the enum's values and end with NULL, so that a
 * program parses a flag with them (cli_parse_choice) and says the same
 * names in its error as the loader does.
 */
#include "config.h"

#include <string.h>

const char *const ini_net_mode_names[] = {
    [INI_NET_MEMIF] = "memif", [INI_NET_AF_PACKET] = "af_packet", [INI_NET_PCI] = "pci", NULL,
};
const char *const ini_kernel_port_names[] = {
    [INI_PORT_AUTO] = "auto", [INI_PORT_AF_XDP] = "af_xdp", [INI_PORT_AF_PACKET] = "af_packet", NULL,
};
const char *const ini_idle_mode_names[] = {
    [INI_IDLE_POLL] = "poll", [INI_IDLE_ADAPTIVE] = "adaptive", [INI_IDLE_AUTO] = "auto", NULL,
};
const char *const ini_trace_mode_names[] = {
    [INI_TRACE_OFF] = "off", [INI_TRACE_SUMMARY] = "summary", [INI_TRACE_DETAILED] = "detailed", NULL,
};
const char *const ini_eal_huge_names[] = {
    [INI_HUGE_AUTO] = "auto", [INI_HUGE_YES] = "yes", [INI_HUGE_NO] = "no", NULL,
};
const char *const ini_policy_names[] = {
    [INI_POLICY_STATIC] = "static", [INI_POLICY_ROUND_ROBIN] = "round-robin",
    [INI_POLICY_LOAD_AWARE] = "load-aware", NULL,
};

const char *const ini_mac_mode_names[] = {
    [INI_MAC_AUTO] = "auto", [INI_MAC_ON] = "on", [INI_MAC_OFF] = "off", NULL,
};

int ini_config_mac_on(const struct ini_config *cfg)
{
    if (cfg->security.key_file[0] || cfg->security.mac == INI_MAC_ON)
        return 1;
    return cfg->security.mac == INI_MAC_AUTO && cfg->net_mode != INI_NET_MEMIF;
}

int ini_name_parse(const char *const *names, const char *name)
{
    if (!name)
        return -1;
    for (int i = 0; names[i]; i++)
        if (strcmp(names[i], name) == 0)
            return i;
    return -1;
}

static const char *name_of(const char *const *names, int value)
{
    int n = 0;
    while (names[n])
        n++;
    return value >= 0 && value < n ? names[value] : "?";
}

const char *ini_net_mode_name(enum ini_net_mode m)
{
    return name_of(ini_net_mode_names, (int)m);
}

const char *ini_idle_mode_name(enum ini_idle_mode m)
{
    return name_of(ini_idle_mode_names, (int)m);
}

const char *ini_trace_mode_name(enum ini_trace_mode m)
{
    return name_of(ini_trace_mode_names, (int)m);
}

const char *ini_policy_name(enum ini_policy p)
{
    return name_of(ini_policy_names, (int)p);
}

int ini_policy_parse(const char *name)
{
    return ini_name_parse(ini_policy_names, name);
}
