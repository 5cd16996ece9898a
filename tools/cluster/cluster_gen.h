/*
 * cluster_gen.h - the configuration generator of `ini-cluster gen`: a
 * machine of n_clusters clusters, each of the same number of compute
 * nodes and INIs, written in the file format (docs/config.md) with every
 * optional group spelled out with its default (config.h's
 * ini_config_defaults), so that a generated file is also a template to
 * edit.  INI addresses come from the INI ids: IPv4 198.18.0.0 + id + 1
 * (the RFC 2544 benchmark range) and the loader's default MAC; compute
 * nodes are spread over their cluster's INIs in blocks for the static
 * policy, as the loader's own default does.
 */
#ifndef CLUSTER_GEN_H
#define CLUSTER_GEN_H

#include <stddef.h>
#include <stdio.h>

#include "config.h"

struct gen_machine {
    int n_clusters, pes_per_cluster, inis_per_cluster;
    enum ini_net_mode mode;
    /* Cluster c on hosts[c % n_hosts]; n_hosts 0: every cluster on this
     * host.  Across hosts mode must be af_packet or pci. */
    const char *const *hosts;
    int n_hosts;
    /* INI k of every cluster on devices[k % n_devices] (an interface or a
     * PCI address); n_devices 0: derived by the launcher. */
    const char *const *devices;
    int n_devices;
};

/* Writes the configuration of m to out.  0, or -1 with a message in err:
 * for values out of range (nothing is written then) or a write error
 * (ferror(out) tells which). */
int gen_write(FILE *out, const struct gen_machine *m, char *err, size_t errlen);

#endif
