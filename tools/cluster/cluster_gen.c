/*
 * cluster_gen.c - the configuration generator (cluster_gen.h).
 */
#include "cluster_gen.h"

#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "file_util.h"

/* Generated addresses: the RFC 2544 benchmark range 198.18.0.0/15. */
#define GENERATED_IP_BASE 0xC6120000u     /* 198.18.0.0 */

static void write_int_list(FILE *out, const int *values, int n)
{
    fputc('[', out);
    for (int i = 0; i < n; i++) {
        /* Sixteen to a line keeps a 64-node cluster readable. */
        if (i > 0)
            fputs(i % 16 == 0 ? ",\n              " : ", ", out);
        fprintf(out, "%d", values[i]);
    }
    fputc(']', out);
}

/* 198.18.X.Y = 198.18.0.0 + id + 1: the +1 keeps the generated addresses
 * off 198.18.0.0, the network address of the range. */
static void generated_ip(int ini_id, char buf[INET_ADDRSTRLEN])
{
    struct in_addr addr = { .s_addr = htonl(GENERATED_IP_BASE + (uint32_t)ini_id + 1) };
    inet_ntop(AF_INET, &addr, buf, INET_ADDRSTRLEN);
}

/* The sizes of the machine against the limits of the format. */
static int check_sizes(const struct gen_machine *m, char *err, size_t errlen)
{
    if (m->n_clusters < 1 || m->n_clusters > INI_MAX_CLUSTERS)
        return ini_fail(err, errlen, "clusters: %d is out of range 1..%d",
                        m->n_clusters, INI_MAX_CLUSTERS);
    if (m->pes_per_cluster < 1 || m->pes_per_cluster > INI_MAX_PES_PER_CLUSTER)
        return ini_fail(err, errlen, "compute nodes per cluster: %d is out of range 1..%d",
                        m->pes_per_cluster, INI_MAX_PES_PER_CLUSTER);
    if (m->inis_per_cluster < 1 || m->inis_per_cluster > INI_MAX_INIS_PER_CLUSTER)
        return ini_fail(err, errlen, "INIs per cluster: %d is out of range 1..%d",
                        m->inis_per_cluster, INI_MAX_INIS_PER_CLUSTER);
    if (m->n_clusters * m->pes_per_cluster > INI_MAX_PES)
        return ini_fail(err, errlen, "%d clusters x %d compute nodes = %d compute nodes, at most %d",
                        m->n_clusters, m->pes_per_cluster, m->n_clusters * m->pes_per_cluster,
                        INI_MAX_PES);
    if (m->n_clusters * m->inis_per_cluster > INI_MAX_INIS)
        return ini_fail(err, errlen, "%d clusters x %d INIs = %d INIs, at most %d",
                        m->n_clusters, m->inis_per_cluster, m->n_clusters * m->inis_per_cluster,
                        INI_MAX_INIS);
    return 0;
}

/* The network: mode, hosts and devices. */
static int check_network(const struct gen_machine *m, char *err, size_t errlen)
{
    if (m->n_hosts > 0 && m->mode == INI_NET_MEMIF)
        return ini_fail(err, errlen, "memif joins the INIs of one host: clusters on several "
                        "hosts need --mode af_packet (or pci)");
    if (m->n_hosts > 0 && !m->n_devices)
        return ini_fail(err, errlen, "clusters on hosts need each INI's interface or PCI "
                        "address on its host (--device)");
    for (int k = 0; k < m->n_devices; k++)
        if (!ini_device_is_pci(m->devices[k]) && !ini_device_is_iface(m->devices[k]))
            return ini_fail(err, errlen, "device \"%s\" is neither a PCI address nor an "
                            "interface name", m->devices[k]);
    for (int k = 0; k < m->n_hosts; k++) {
        const char *h = m->hosts[k];
        if (!h[0] || strlen(h) >= INI_HOST_LEN || strchr(h, '"'))
            return ini_fail(err, errlen, "host \"%s\" is not a host name", h);
    }
    if (m->mode == INI_NET_PCI && !m->n_devices)
        return ini_fail(err, errlen, "pci mode needs each INI's device: give --device DEV,... "
                        "(a PCI address or an interface name, one per INI of a cluster)");
    if (m->mode != INI_NET_MEMIF && m->mode != INI_NET_AF_PACKET && m->mode != INI_NET_PCI)
        return ini_fail(err, errlen, "unknown network mode %d", (int)m->mode);
    if (m->mode == INI_NET_MEMIF && (m->n_clusters - 1) * m->inis_per_cluster > INI_MEMIF_MAX_PEERS)
        return ini_fail(err, errlen, "memif mode gives each INI a port per INI of the other "
                        "clusters, %d here, and DPDK has %d; use --mode af_packet",
                        (m->n_clusters - 1) * m->inis_per_cluster, INI_MEMIF_MAX_PEERS);
    return 0;
}

/* The comment and every group but the clusters, with the defaults. */
static void write_groups(FILE *out, const struct gen_machine *m)
{
    struct ini_config d;
    ini_config_defaults(&d);
    const char *mode = ini_net_mode_name(m->mode);
    fprintf(out,
            "# %d cluster%s x %d compute node%s x %d INI%s, %s mode, written by the\n"
            "# configuration generator (ini-cluster gen %d %d %d --mode %s).\n"
            "# Every optional group is spelled out with its default; see docs/config.md.\n"
            "version = %d;\n"
            "network = { mode = \"%s\"; bridge = \"%s\"; port = \"auto\"; };\n"
            "policy  = { compute = \"%s\"; ini = \"%s\"; };\n"
            "stack   = { mtu = %d; window = %d; seq_bits = %d; send_timeout_us = %d;\n"
            "            ack_timeout_us = %d; max_message = %d; nak = %s; segmentation = %s; };\n"
            "idle    = { mode = \"%s\"; spin_us = %d; max_sleep_us = %d; yield_us = %d; colocate = %s; };\n"
            "trace   = { mode = \"%s\"; records = %d; };\n"
            "eal     = { memory_mb = %d; hugepages = \"auto\"; args = [ ]; };\n"
            "rings   = { bytes = %d; };\n"
            "clusters = (\n",
            m->n_clusters, m->n_clusters > 1 ? "s" : "", m->pes_per_cluster, m->pes_per_cluster > 1 ? "s" : "",
            m->inis_per_cluster, m->inis_per_cluster > 1 ? "s" : "", mode,
            m->n_clusters, m->pes_per_cluster, m->inis_per_cluster, mode,
            INI_CONFIG_VERSION, mode, d.bridge,
            ini_policy_name(d.pe_policy), ini_policy_name(d.ini_policy),
            d.stack.mtu, d.stack.window, d.stack.seq_bits, d.stack.send_timeout_us,
            d.stack.ack_timeout_us, d.stack.max_message, d.stack.nak ? "true" : "false",
            d.stack.segmentation ? "true" : "false",
            ini_idle_mode_name(d.idle.mode), d.idle.spin_us, d.idle.max_sleep_us, d.idle.yield_us,
            d.idle.colocate ? "true" : "false",
            ini_trace_mode_name(d.trace.mode), d.trace.records, d.eal_memory_mb, d.ring_bytes);
}

/* Cluster c: its host, compute nodes, INIs and static mapping (blocks). */
static void write_cluster(FILE *out, const struct gen_machine *m, int c)
{
    int pes[INI_MAX_PES_PER_CLUSTER], statics[INI_MAX_PES_PER_CLUSTER];
    int first_ini = c * m->inis_per_cluster;
    for (int i = 0; i < m->pes_per_cluster; i++) {
        pes[i] = c * m->pes_per_cluster + i;
        statics[i] = first_ini + i * m->inis_per_cluster / m->pes_per_cluster;
    }
    fprintf(out, "  { id = %d;\n", c);
    if (m->n_hosts > 0)
        fprintf(out, "    host   = \"%s\";\n", m->hosts[c % m->n_hosts]);
    fputs("    pes    = ", out);
    write_int_list(out, pes, m->pes_per_cluster);
    fputs(";\n    inis   = (\n", out);
    for (int k = 0; k < m->inis_per_cluster; k++) {
        int id = first_ini + k;
        char ip[INET_ADDRSTRLEN];
        uint8_t mac[6];
        generated_ip(id, ip);
        ini_config_default_mac(id, mac);
        fprintf(out, "      { id = %d; core = -1; ip = \"%s\"; mac = \"%02x:%02x:%02x:%02x:%02x:%02x\";",
                id, ip, mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);
        if (m->n_devices > 0)
            fprintf(out, " device = \"%s\";", m->devices[k % m->n_devices]);
        fprintf(out, " }%s\n", k + 1 < m->inis_per_cluster ? "," : "");
    }
    fputs("    );\n    static = ", out);
    write_int_list(out, statics, m->pes_per_cluster);
    fprintf(out, ";\n  }%s\n", c + 1 < m->n_clusters ? "," : "");
}

int gen_write(FILE *out, const struct gen_machine *m, char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    if (!out)
        return ini_fail(err, errlen, "no output file");
    if (check_sizes(m, err, errlen) < 0 || check_network(m, err, errlen) < 0)
        return -1;
    write_groups(out, m);
    for (int c = 0; c < m->n_clusters; c++)
        write_cluster(out, m, c);
    fputs(");\n", out);
    if (fflush(out) != 0 || ferror(out))
        return ini_fail(err, errlen, "cannot write the configuration: %s", strerror(errno));
    return 0;
}
