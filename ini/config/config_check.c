/*
 * config_check.c - pass 3 of the loader (config_internal.h): what needs
 * the whole machine, checked in an order that keeps each message true
 * (ids before anything indexed by them), then the hosts; and the assembly
 * of the result from the drafts.
 */
#include "config_internal.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void format_ip(uint32_t ip, char buf[INET_ADDRSTRLEN])
{
    struct in_addr addr = { .s_addr = ip };
    inet_ntop(AF_INET, &addr, buf, INET_ADDRSTRLEN);
}

static void format_mac(const uint8_t mac[6], char buf[18])
{
    snprintf(buf, 18, "%02x:%02x:%02x:%02x:%02x:%02x",
             mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);
}

/* ---- pass 3: cross references ------------------------------------------ */

/* Ids must be exactly 0..n-1: each in range and none twice is equivalent. */
static int check_dense_id(struct loader *ld, const config_setting_t *s, const char *what,
                          long long id, int n, int *owner, int self)
{
    if (id < 0 || id >= n)
        return cfg_fail_at(ld, s, "%s id %lld is out of range 0..%d (ids are dense from 0)", what, id, n - 1);
    if (owner[id] >= 0)
        return -2;   /* duplicate: the caller words it, it knows what owns the id */
    owner[id] = self;
    return 0;
}

/* The owner of each id, by position in the file (-1: none yet), for each
 * kind of id: filled by the id checks, read by the checks after them. */
struct id_owners {
    int cluster_pos_of_id[INI_MAX_CLUSTERS];
    int cluster_pos_of_pe[INI_MAX_PES];
    int ini_pos_of_id[INI_MAX_INIS];
};

static int check_cluster_ids(struct loader *ld, int *cluster_pos_of_id)
{
    for (int pos = 0; pos < ld->n_clusters; pos++) {
        const struct cluster_draft *c = &ld->clusters[pos];
        int rc = check_dense_id(ld, c->id_setting, "cluster", c->id, ld->n_clusters,
                                cluster_pos_of_id, pos);
        if (rc == -1)
            return -1;
        if (rc == -2)
            return cfg_fail_at(ld, c->id_setting, "duplicate cluster id %lld (also clusters[%d])",
                               c->id, cluster_pos_of_id[c->id]);
    }
    return 0;
}

/* Every compute node in exactly one cluster. */
static int check_pe_ids(struct loader *ld, int *cluster_pos_of_pe)
{
    for (int pos = 0; pos < ld->n_clusters; pos++) {
        const struct cluster_draft *c = &ld->clusters[pos];
        for (int i = 0; i < c->n_pes; i++) {
            const config_setting_t *s = config_setting_get_elem(c->pes_setting, (unsigned)i);
            int rc = check_dense_id(ld, s, "compute node", c->pes[i], ld->n_pes,
                                    cluster_pos_of_pe, pos);
            if (rc == -1)
                return -1;
            if (rc == -2 && cluster_pos_of_pe[c->pes[i]] == pos)
                return cfg_fail_at(ld, s, "duplicate compute node id %lld in this cluster", c->pes[i]);
            if (rc == -2)
                return cfg_fail_at(ld, s, "compute node %lld is already in cluster %lld", c->pes[i],
                                   ld->clusters[cluster_pos_of_pe[c->pes[i]]].id);
        }
    }
    return 0;
}

/* INI ids; ini_pos_of_id[id] is then the INI's position in the file. */
static int check_ini_ids(struct loader *ld, int *ini_pos_of_id)
{
    for (int pos = 0; pos < ld->n_inis; pos++) {
        const struct ini_draft *d = &ld->inis[pos];
        const config_setting_t *s = cfg_member(d->group, "id");
        int rc = check_dense_id(ld, s, "INI", d->id, ld->n_inis, ini_pos_of_id, pos);
        if (rc == -1)
            return -1;
        if (rc == -2) {
            const struct ini_draft *first = &ld->inis[ini_pos_of_id[d->id]];
            return cfg_fail_at(ld, s, "duplicate INI id %lld (also in cluster %lld)", d->id,
                               ld->clusters[first->cluster_pos].id);
        }
    }
    for (int pos = 0; pos < ld->n_clusters; pos++) {
        const struct cluster_draft *c = &ld->clusters[pos];
        if (c->n_pes > 0 && c->n_inis == 0)
            return cfg_fail_at(ld, c->inis_setting, "compute node %lld has no INI (cluster %lld lists none)",
                               c->pes[0], c->id);
    }
    return 0;
}

/* Addresses: the MAC default is derived now that the ids are known, so
 * that an explicit MAC colliding with a derived one is caught too. */
static int check_addresses(struct loader *ld)
{
    for (int pos = 0; pos < ld->n_inis; pos++) {
        struct ini_draft *d = &ld->inis[pos];
        if (!d->mac_given)
            ini_config_default_mac((int)d->id, d->node.mac);
        for (int other = 0; other < pos; other++) {
            const struct ini_draft *o = &ld->inis[other];
            if (o->node.ip == d->node.ip) {
                char ip[INET_ADDRSTRLEN];
                format_ip(d->node.ip, ip);
                return cfg_fail_at(ld, cfg_member(d->group, "ip"), "%s is already the address of INI %lld",
                                   ip, o->id);
            }
            if (memcmp(o->node.mac, d->node.mac, 6) == 0) {
                char mac[18];
                format_mac(d->node.mac, mac);
                if (d->mac_given)
                    return cfg_fail_at(ld, cfg_member(d->group, "mac"), "%s is already the MAC of INI %lld",
                                       mac, o->id);
                return cfg_fail_member(ld, d->group, "mac", "%s (derived from the id) is already the MAC of "
                                       "INI %lld", mac, o->id);
            }
        }
    }
    return 0;
}

/* static = [ ... ] names INIs of the compute node's own cluster. */
static int check_statics(struct loader *ld, const int *ini_pos_of_id)
{
    for (int pos = 0; pos < ld->n_clusters; pos++) {
        const struct cluster_draft *c = &ld->clusters[pos];
        if (!c->static_setting)
            continue;
        for (int i = 0; i < c->n_pes; i++) {
            const config_setting_t *s = config_setting_get_elem(c->static_setting, (unsigned)i);
            long long ini = c->static_inis[i];
            if (ini < 0 || ini >= ld->n_inis)
                return cfg_fail_at(ld, s, "INI %lld does not exist (INI ids are 0..%d)", ini, ld->n_inis - 1);
            long long owner = ld->clusters[ld->inis[ini_pos_of_id[ini]].cluster_pos].id;
            if (owner != c->id)
                return cfg_fail_at(ld, s, "INI %lld belongs to cluster %lld, not to this cluster (%lld)",
                                   ini, owner, c->id);
        }
    }
    return 0;
}

/* memif: every INI has one DPDK port per INI of the other clusters, and
 * DPDK has RTE_MAX_ETHPORTS of them. */
static int check_memif_ports(struct loader *ld)
{
    if (ld->cfg.net_mode != INI_NET_MEMIF)
        return 0;
    for (int pos = 0; pos < ld->n_clusters; pos++) {
        const struct cluster_draft *c = &ld->clusters[pos];
        int peers = ld->n_inis - c->n_inis;
        if (peers > INI_MEMIF_MAX_PEERS)
            return cfg_fail_at(ld, c->inis_setting, "in memif mode each INI of this cluster needs a port "
                               "per INI of the other clusters, %d, and DPDK has %d; use af_packet, or "
                               "fewer INIs", peers, INI_MEMIF_MAX_PEERS);
    }
    return 0;
}

int cfg_check_cross_references(struct loader *ld)
{
    struct id_owners owners;
    memset(&owners, -1, sizeof owners);
    if (check_cluster_ids(ld, owners.cluster_pos_of_id) < 0 || check_pe_ids(ld, owners.cluster_pos_of_pe) < 0 ||
        check_ini_ids(ld, owners.ini_pos_of_id) < 0 || check_addresses(ld) < 0 ||
        check_statics(ld, owners.ini_pos_of_id) < 0 || check_memif_ports(ld) < 0)
        return -1;
    return 0;
}

/* Across hosts, memif cannot join the INIs (it is shared memory), and the
 * launcher builds no emulated LAN: every INI names its interface. */
int cfg_check_hosts(struct loader *ld)
{
    const struct cluster_draft *named = NULL;
    for (int pos = 0; pos < ld->n_clusters && !named; pos++)
        if (ld->clusters[pos].host_setting)
            named = &ld->clusters[pos];
    if (!named)
        return 0;
    for (int pos = 0; pos < ld->n_clusters; pos++) {
        const struct cluster_draft *c = &ld->clusters[pos];
        if (ld->cfg.net_mode == INI_NET_MEMIF && strcmp(c->host, named->host) != 0)
            return c->host_setting
                ? cfg_fail_at(ld, c->host_setting, "memif joins the INIs of one host, but cluster %lld is "
                              "on \"%s\" (use network.mode af_packet or pci across hosts)", named->id, named->host)
                : cfg_fail_member(ld, c->group, "host", "missing: cluster %lld is on \"%s\", and memif joins "
                                  "the INIs of one host only", named->id, named->host);
    }
    if (ld->cfg.net_mode != INI_NET_AF_PACKET)
        return 0;
    for (int pos = 0; pos < ld->n_inis; pos++) {
        const struct ini_draft *d = &ld->inis[pos];
        if (!d->node.device[0] && !d->node.devargs[0])
            return cfg_fail_member(ld, d->group, "device", "missing (af_packet mode across hosts: the "
                                   "interface of this INI on its host)");
    }
    return 0;
}

/* ---- assembly ----------------------------------------------------------- */

static int compare_ints(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Every id is valid and dense by now: arrays are indexed by id. */
void cfg_assemble(struct loader *ld)
{
    struct ini_config *cfg = &ld->cfg;
    cfg->n_clusters = ld->n_clusters;
    cfg->n_pes = ld->n_pes;
    cfg->n_inis = ld->n_inis;

    for (int pos = 0; pos < ld->n_inis; pos++) {
        const struct ini_draft *d = &ld->inis[pos];
        struct ini_node_cfg *node = &cfg->inis[d->id];
        *node = d->node;
        node->id = (int)d->id;
        node->cluster = (int)ld->clusters[d->cluster_pos].id;
        node->index = d->index;
    }

    for (int pos = 0; pos < ld->n_clusters; pos++) {
        const struct cluster_draft *d = &ld->clusters[pos];
        struct ini_cluster_cfg *c = &cfg->clusters[d->id];
        c->id = (int)d->id;
        memcpy(c->host, d->host, sizeof c->host);
        c->n_pes = d->n_pes;
        c->n_inis = d->n_inis;
        for (int i = 0; i < d->n_inis; i++)
            c->inis[i] = (int)ld->inis[d->first_ini + i].id;
        for (int i = 0; i < d->n_pes; i++) {
            c->pes[i] = (int)d->pes[i];
            /* static is written in the order of pes in the file. */
            cfg->pes[d->pes[i]].static_ini = d->static_setting ? (int)d->static_inis[i] : -1;
        }
        qsort(c->pes, (size_t)c->n_pes, sizeof c->pes[0], compare_ints);
        for (int local = 0; local < c->n_pes; local++) {
            struct ini_pe_cfg *pe = &cfg->pes[c->pes[local]];
            pe->id = c->pes[local];
            pe->cluster = c->id;
            pe->local = local;
            if (!d->static_setting)   /* blocks: consecutive PEs share an INI */
                pe->static_ini = c->inis[local * c->n_inis / c->n_pes];
        }
    }
}

