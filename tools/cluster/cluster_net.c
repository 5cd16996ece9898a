/*
 * cluster_net.c - af_packet mode's namespaces, bridge and veths (see
 * cluster_net.h).
 */
#include "cluster_net.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cluster_util.h"

#define NETNS_DIR "/var/run/netns"

void net_lan_name(char *buf, size_t len, const char *tag)
{
    snprintf(buf, len, "ini-%s-lan", tag);
}

void net_cluster_name(char *buf, size_t len, const char *tag, int cluster)
{
    snprintf(buf, len, "ini-%s-c%d", tag, cluster);
}

void net_ns_path(char *buf, size_t len, const char *ns_name)
{
    snprintf(buf, len, NETNS_DIR "/%s", ns_name);
}

static void ini_ifname(char *buf, size_t len, int ini)
{
    snprintf(buf, len, "i%d", ini);
}

/* The bridge-side end: "b" + tag + "-" + id stays within IFNAMSIZ-1 = 15
 * characters because tags are at most 8 characters and ids below 64. */
static void bridge_ifname(char *buf, size_t len, const char *tag, int ini)
{
    snprintf(buf, len, "b%s-%d", tag, ini);
}

int net_check_prerequisites(char *err, size_t errlen)
{
    if (geteuid() != 0) {
        snprintf(err, errlen, "network.mode af_packet needs root (it creates network namespaces)");
        return -1;
    }
    char path[4096];
    if (find_executable("ip", path, sizeof path) < 0) {
        snprintf(err, errlen, "network.mode af_packet needs the ip command (iproute2)");
        return -1;
    }
    char *argv[] = { "ip", "netns", "list", NULL };
    char why[512];
    if (run_command(argv, NULL, "/dev/null", why, sizeof why) < 0) {
        snprintf(err, errlen, "network.mode af_packet needs `ip netns`: %s", why);
        return -1;
    }
    return 0;
}

/* Writes VALUE to the sysctl file KNOB inside the namespace.  Net sysctls
 * resolve against the writer's namespace, hence the child that enters it.
 * A knob whose directory (`needs`) is absent belongs to a feature this
 * kernel lacks: nothing to do. */
static int write_ns_sysctl(const char *ns_path, const char *knob, const char *needs, const char *value,
                           const char *log_path, char *err, size_t errlen)
{
    char shown[1024];
    snprintf(shown, sizeof shown, "[%s] echo %s > %s", ns_path, value, knob);
    pid_t pid = fork_logged(shown, ns_path, log_path, err, errlen);
    if (pid < 0)
        return -1;
    if (pid == 0) {
        if (access(needs, F_OK) < 0)
            _exit(0);
        int k = open(knob, O_WRONLY);
        if (k < 0 || write(k, value, strlen(value)) != (ssize_t)strlen(value))
            _exit(3);
        _exit(0);
    }
    int st = -1;    /* stays -1 (neither exited nor 0) if waitpid fails */
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            break;
    if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        snprintf(err, errlen, "%s in %s: %s", knob, ns_path,
                 WIFEXITED(st) && WEXITSTATUS(st) == FORK_LOGGED_NO_NETNS ? "cannot enter the namespace"
                                                                         : "cannot write the sysctl");
        return -1;
    }
    return 0;
}

/* No IPv6 on our interfaces: the kernel would send its own packets. */
static int disable_ipv6(const char *ns_path, const char *iface, const char *log_path,
                        char *err, size_t errlen)
{
    char knob[256];
    snprintf(knob, sizeof knob, "/proc/sys/net/ipv6/conf/%s/disable_ipv6", iface);
    return write_ns_sysctl(ns_path, knob, "/proc/sys/net/ipv6", "1", log_path, err, errlen);
}

/* Keep bridged frames out of netfilter: with br_netfilter loaded, its
 * connection tracking reassembles IP fragments on the bridge and forwards
 * whole datagrams larger than the MTU, which the INIs' af_packet ports
 * cannot take (measured: every 9,000-byte message lost). */
static int bridge_bypass_netfilter(const char *ns_path, const char *log_path, char *err, size_t errlen)
{
    static const char *const knobs[] = { "/proc/sys/net/bridge/bridge-nf-call-iptables",
                                         "/proc/sys/net/bridge/bridge-nf-call-ip6tables",
                                         "/proc/sys/net/bridge/bridge-nf-call-arptables" };
    for (size_t i = 0; i < sizeof knobs / sizeof knobs[0]; i++)
        if (write_ns_sysctl(ns_path, knobs[i], knobs[i], "0", log_path, err, errlen) < 0)
            return -1;
    return 0;
}

/* Runs `ip ARGS...` (optionally "-n NS"), NULL-terminated argument list. */
#define IP(ns, ...) ip_cmd(log_path, err, errlen, (ns), (char *[]){ __VA_ARGS__, NULL })
static int ip_cmd(const char *log_path, char *err, size_t errlen, const char *ns, char **args)
{
    char *argv[32];
    int n = 0;
    argv[n++] = "ip";
    if (ns) {
        argv[n++] = "-n";
        argv[n++] = (char *)ns;
    }
    for (char **a = args; *a && n < 31; a++)
        argv[n++] = *a;
    argv[n] = NULL;
    return run_command(argv, NULL, log_path, err, errlen);
}

int net_setup(const struct ini_config *cfg, const char *tag, const int *selected, int slack,
              const char *log_path, char *err, size_t errlen)
{
    char lan[64], lan_path[256], mtu[16];
    net_lan_name(lan, sizeof lan, tag);
    net_ns_path(lan_path, sizeof lan_path, lan);
    /* The links carry the stack's MTU and `slack` bytes more: in virtual
     * time each frame has its send time behind it, and a full-size frame
     * with its stamp would be dropped by the veth (silently: the INI then
     * waits for it and resends it, forever). */
    snprintf(mtu, sizeof mtu, "%d", cfg->stack.mtu + slack);
    char bridge[sizeof cfg->bridge];
    snprintf(bridge, sizeof bridge, "%s", cfg->bridge);

    /* Namespaces first: defaults set in a fresh namespace apply to every
     * interface created in it afterwards, and the explicit per-interface
     * writes below cover the rest.  Multicast snooping stays off: with it
     * the bridge joins 224.0.0.106 and sends IGMP reports of its own. */
    if (IP(NULL, "netns", "add", lan) < 0)
        goto fail;
    if (disable_ipv6(lan_path, "default", log_path, err, errlen) < 0 ||
        IP(lan, "link", "add", bridge, "type", "bridge", "mcast_snooping", "0") < 0 ||
        disable_ipv6(lan_path, bridge, log_path, err, errlen) < 0 ||
        bridge_bypass_netfilter(lan_path, log_path, err, errlen) < 0 ||
        IP(lan, "link", "set", "dev", bridge, "mtu", mtu, "up") < 0)
        goto fail;

    for (int c = 0; c < cfg->n_clusters; c++) {
        if (selected && !selected[c])
            continue;
        char ns[64], ns_path[256];
        net_cluster_name(ns, sizeof ns, tag, c);
        net_ns_path(ns_path, sizeof ns_path, ns);
        if (IP(NULL, "netns", "add", ns) < 0 ||
            disable_ipv6(ns_path, "default", log_path, err, errlen) < 0)
            goto fail;
        for (int i = 0; i < cfg->clusters[c].n_inis; i++) {
            const struct ini_node_cfg *n = &cfg->inis[cfg->clusters[c].inis[i]];
            char ifn[16], brn[16], mac[32];
            ini_ifname(ifn, sizeof ifn, n->id);
            bridge_ifname(brn, sizeof brn, tag, n->id);
            snprintf(mac, sizeof mac, "%02x:%02x:%02x:%02x:%02x:%02x", n->mac[0], n->mac[1],
                     n->mac[2], n->mac[3], n->mac[4], n->mac[5]);
            if (IP(ns, "link", "add", ifn, "mtu", mtu, "type", "veth", "peer", "name", brn,
                   "mtu", mtu, "netns", lan) < 0 ||
                disable_ipv6(ns_path, ifn, log_path, err, errlen) < 0 ||
                disable_ipv6(lan_path, brn, log_path, err, errlen) < 0 ||
                IP(ns, "link", "set", "dev", ifn, "address", mac) < 0 ||
                IP(ns, "link", "set", "dev", ifn, "up") < 0 ||
                IP(lan, "link", "set", "dev", brn, "master", bridge) < 0 ||
                IP(lan, "link", "set", "dev", brn, "up") < 0)
                goto fail;
        }
    }
    return 0;

fail:;
    char ignored[256];
    net_teardown(cfg, tag, selected, log_path, ignored, sizeof ignored);
    return -1;
}

int net_teardown(const struct ini_config *cfg, const char *tag, const int *selected,
                 const char *log_path, char *err, size_t errlen)
{
    int rc = 0;
    char why[512];
    for (int c = 0; c <= cfg->n_clusters; c++) {
        char ns[64], ns_path[256];
        if (c < cfg->n_clusters) {
            if (selected && !selected[c])
                continue;
            net_cluster_name(ns, sizeof ns, tag, c);
        } else {
            net_lan_name(ns, sizeof ns, tag);   /* the bridge goes last */
        }
        net_ns_path(ns_path, sizeof ns_path, ns);
        if (access(ns_path, F_OK) < 0)
            continue;
        char *argv[] = { "ip", "netns", "del", ns, NULL };
        if (run_command(argv, NULL, log_path, why, sizeof why) < 0 && rc == 0) {
            snprintf(err, errlen, "%s", why);
            rc = -1;
        }
    }
    return rc;
}
