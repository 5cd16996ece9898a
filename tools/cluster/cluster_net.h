/*
 * cluster_net.h - the emulated network of af_packet mode, built from Linux
 * network namespaces so that one machine can host clusters that only talk
 * through Ethernet frames:
 *
 *   namespace ini-TAG-lan:  the bridge (cfg->bridge), the "switch"
 *   namespace ini-TAG-cC:   one per cluster; holds its INIs' interfaces
 *   per INI: a veth pair, end i<ID> in its cluster's namespace with the
 *            INI's MAC address (the daemon's DPDK net_af_packet port binds
 *            it), end b<TAG>-<ID> enslaved to the bridge.
 *
 * IPv6 is disabled on every interface, the bridge does no multicast
 * snooping (which would make it send IGMP reports) and no kernel address is
 * configured, so the kernel itself never transmits on the emulated network: every frame
 * on it comes from an INI's lwIP stack (addresses from the configuration).
 * MTUs follow stack.mtu so that jumbo configurations pass the veths.
 *
 * Everything is done with the `ip` command (iproute2) and logged, command by
 * command, to RUN_DIR/network.log.  Teardown deletes the namespaces, which
 * destroys the veths and the bridge with them.
 */
#ifndef CLUSTER_NET_H
#define CLUSTER_NET_H

#include <stddef.h>

#include "config.h"

/* 0 if af_packet mode can work here (root, `ip netns` usable); otherwise
 * -1 with a one-line reason. */
int net_check_prerequisites(char *err, size_t errlen);

/* Namespace names and the path to hand to setns(). */
void net_lan_name(char *buf, size_t len, const char *tag);
void net_cluster_name(char *buf, size_t len, const char *tag, int cluster);
void net_ns_path(char *buf, size_t len, const char *ns_name);

/* Builds the network for the clusters with selected[c] != 0 (all of them
 * when selected is NULL).  On failure removes what it made and returns -1
 * with a one-line reason. */
int net_setup(const struct ini_config *cfg, const char *tag, const int *selected, int slack,
              const char *log_path, char *err, size_t errlen);

/* Deletes the namespaces of the selected clusters and the lan namespace;
 * missing ones are skipped.  Returns 0, or -1 with the first failure. */
int net_teardown(const struct ini_config *cfg, const char *tag, const int *selected,
                 const char *log_path, char *err, size_t errlen);

#endif
