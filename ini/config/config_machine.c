/*
 * config_machine.c - pass 2 of the loader for the machine itself
 * (config_internal.h): clusters = ( ... ), each with its host, compute
 * nodes, INIs and static mapping, collected in file order into drafts
 * that pass 3 (config_check.c) checks as a whole.
 */
#include "config_internal.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* Exactly six colon-separated pairs of hex digits. */
static bool parse_mac(const char *text, uint8_t mac[6])
{
    if (strlen(text) != 17)
        return false;
    for (int i = 0; i < 6; i++) {
        const char *pair = text + 3 * i;
        char hex[3] = { pair[0], pair[1], 0 };
        if (!isxdigit((unsigned char)pair[0]) || !isxdigit((unsigned char)pair[1]))
            return false;
        if (i < 5 && pair[2] != ':')
            return false;
        mac[i] = (uint8_t)strtoul(hex, NULL, 16);
    }
    return true;
}

/* device = "eth1" or "0000:03:00.0" */
static int load_device(struct loader *ld, const config_setting_t *group, struct ini_node_cfg *node)
{
    const config_setting_t *s = cfg_member(group, "device");
    const char *text;
    if (!s)
        return 0;
    if (cfg_string(ld, s, node->device, sizeof node->device, &text) < 0)
        return -1;
    if (!ini_device_is_pci(text) && !ini_device_is_iface(text))
        return cfg_fail_at(ld, s, "\"%s\" is neither a PCI address (0000:03:00.0) nor an interface name "
                       "(1..15 letters, digits, '_', '-', '.')", text);
    return 0;
}

/* host = "node7" or "user@node7.example.org": what ssh and srun are given. */
static int load_host(struct loader *ld, struct cluster_draft *c)
{
    const char *text;
    if (!(c->host_setting = cfg_member(c->group, "host")))
        return 0;
    if (cfg_string(ld, c->host_setting, c->host, sizeof c->host, &text) < 0)
        return -1;
    const char *at = strchr(text, '@');
    const char *name = at ? at + 1 : text;
    bool ok = name[0] != '\0' && name[0] != '-' && (!at || (at > text && !strchr(name, '@')));
    for (const char *p = text; ok && *p; p++)
        ok = isalnum((unsigned char)*p) || strchr("._-@", *p);
    if (!ok)
        return cfg_fail_at(ld, c->host_setting, "\"%s\" is not a host name ([user@]host: letters, digits, "
                       "'.', '-', '_')", text);
    return 0;
}

static int load_ini(struct loader *ld, const config_setting_t *group, int cluster_pos, int index)
{
    static const char *const allowed[] = { "id", "core", "ip", "mac", "devargs", "device", "faults", NULL };
    const config_setting_t *id, *ip, *mac, *devargs;
    const char *text;
    struct in_addr addr;

    if (cfg_check_group(ld, group, allowed) < 0)
        return -1;
    if (ld->n_inis == INI_MAX_INIS)
        return cfg_fail_at(ld, group, "more than %d INIs in the machine (INI_MAX_INIS)", INI_MAX_INIS);
    struct ini_draft *d = &ld->inis[ld->n_inis++];
    d->group = group;
    d->cluster_pos = cluster_pos;
    d->index = index;
    d->node.core = -1;

    if (!(id = cfg_member(group, "id")))
        return cfg_fail_member(ld, group, "id", "missing (required)");
    if (cfg_int(ld, id, &d->id) < 0)
        return -1;
    if (cfg_read_int(ld, group, "core", -1, CORE_MAX, &d->node.core) < 0)
        return -1;

    if (!(ip = cfg_member(group, "ip")))
        return cfg_fail_member(ld, group, "ip", "missing (required)");
    if (config_setting_type(ip) != CONFIG_TYPE_STRING)
        return cfg_fail_at(ld, ip, "expected a string, found %s", cfg_type_name(ip));
    text = config_setting_get_string(ip);
    if (inet_pton(AF_INET, text, &addr) != 1)
        return cfg_fail_at(ld, ip, "\"%s\" is not an IPv4 address (a.b.c.d)", text);
    /* The daemons send to this address: it must name one host. */
    uint32_t host_order = ntohl(addr.s_addr);
    if (host_order == 0 || host_order >= 0xE0000000u)
        return cfg_fail_at(ld, ip, "%s is not a unicast address", text);
    d->node.ip = addr.s_addr;

    if ((mac = cfg_member(group, "mac"))) {
        if (config_setting_type(mac) != CONFIG_TYPE_STRING)
            return cfg_fail_at(ld, mac, "expected a string, found %s", cfg_type_name(mac));
        text = config_setting_get_string(mac);
        if (!parse_mac(text, d->node.mac))
            return cfg_fail_at(ld, mac, "\"%s\" is not a MAC address (xx:xx:xx:xx:xx:xx)", text);
        /* A port cannot own a group address, and all zeroes is no address. */
        static const uint8_t zero[6];
        if ((d->node.mac[0] & 1) || memcmp(d->node.mac, zero, 6) == 0)
            return cfg_fail_at(ld, mac, "%s is not a unicast address", text);
        d->mac_given = true;
    }

    if (load_device(ld, group, &d->node) < 0)
        return -1;
    if ((devargs = cfg_member(group, "devargs"))) {
        if (cfg_string(ld, devargs, d->node.devargs, sizeof d->node.devargs, &text) < 0)
            return -1;
        if (text[0] == '\0' && ld->cfg.net_mode == INI_NET_PCI && !d->node.device[0])
            return cfg_fail_at(ld, devargs, "empty, but pci mode needs the INI's device (devargs or device)");
    } else if (ld->cfg.net_mode == INI_NET_PCI && !d->node.device[0]) {
        return cfg_fail_member(ld, group, "devargs", "missing (pci mode needs devargs or device)");
    }
    /* The global faults group is read before the clusters: an INI without
     * its own group inherits it. */
    d->node.faults = ld->cfg.faults;
    return cfg_load_faults(ld, group, &d->node.faults) < 0 ? -1 : 0;
}

static int load_cluster(struct loader *ld, const config_setting_t *group, int pos)
{
    static const char *const allowed[] = { "id", "host", "pes", "inis", "static", NULL };
    struct cluster_draft *c = &ld->clusters[pos];

    if (cfg_check_group(ld, group, allowed) < 0)
        return -1;
    c->group = group;
    if (load_host(ld, c) < 0)
        return -1;
    if (!(c->id_setting = cfg_member(group, "id")))
        return cfg_fail_member(ld, group, "id", "missing (required)");
    if (cfg_int(ld, c->id_setting, &c->id) < 0)
        return -1;

    if (!(c->pes_setting = cfg_member(group, "pes")))
        return cfg_fail_member(ld, group, "pes", "missing (required)");
    if (cfg_read_sequence(ld, c->pes_setting, INI_MAX_PES_PER_CLUSTER, "compute node ids") < 0)
        return -1;
    c->n_pes = config_setting_length(c->pes_setting);
    for (int i = 0; i < c->n_pes; i++)
        if (cfg_int(ld, config_setting_get_elem(c->pes_setting, (unsigned)i), &c->pes[i]) < 0)
            return -1;
    if (ld->n_pes + c->n_pes > INI_MAX_PES)
        return cfg_fail_at(ld, c->pes_setting, "more than %d compute nodes in the machine (INI_MAX_PES)",
                           INI_MAX_PES);
    ld->n_pes += c->n_pes;

    if (!(c->inis_setting = cfg_member(group, "inis")))
        return cfg_fail_member(ld, group, "inis", "missing (required)");
    if (cfg_read_group_list(ld, c->inis_setting, INI_MAX_INIS_PER_CLUSTER, "INIs") < 0)
        return -1;
    c->first_ini = ld->n_inis;
    c->n_inis = config_setting_length(c->inis_setting);
    for (int i = 0; i < c->n_inis; i++)
        if (load_ini(ld, config_setting_get_elem(c->inis_setting, (unsigned)i), pos, i) < 0)
            return -1;

    if ((c->static_setting = cfg_member(group, "static"))) {
        if (cfg_read_sequence(ld, c->static_setting, INI_MAX_PES_PER_CLUSTER, "INI ids") < 0)
            return -1;
        int n = config_setting_length(c->static_setting);
        for (int i = 0; i < n; i++)
            if (cfg_int(ld, config_setting_get_elem(c->static_setting, (unsigned)i),
                        &c->static_inis[i]) < 0)
                return -1;
        if (n != c->n_pes)
            return cfg_fail_at(ld, c->static_setting, "length %d differs from the length of pes (%d)",
                               n, c->n_pes);
    }
    if (c->n_pes == 0 && c->n_inis == 0)
        return cfg_fail_at(ld, group, "cluster has no compute node and no INI");
    return 0;
}

int cfg_load_clusters(struct loader *ld, const config_setting_t *root)
{
    const config_setting_t *list = cfg_member(root, "clusters");
    if (!list)
        return cfg_fail_member(ld, root, "clusters", "missing (required)");
    if (cfg_read_group_list(ld, list, INI_MAX_CLUSTERS, "clusters") < 0)
        return -1;
    ld->n_clusters = config_setting_length(list);
    if (ld->n_clusters == 0)
        return cfg_fail_at(ld, list, "no cluster");
    for (int i = 0; i < ld->n_clusters; i++)
        if (load_cluster(ld, config_setting_get_elem(list, (unsigned)i), i) < 0)
            return -1;
    return 0;
}

