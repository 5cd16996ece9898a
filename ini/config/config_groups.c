/*
 * config_groups.c - pass 2 of the loader (config_internal.h): the version,
 * then the top-level groups in the order their checks need (network before
 * stack: the MTU's bound depends on the mode; stack before eal: the memory
 * depends on the MTU; the global faults before the clusters: an INI
 * without its own faults inherits them), then the clusters
 * (config_machine.c) and the key.
 */
#include "config_internal.h"
#include "stack_defaults.h"

#include <stdio.h>
#include <string.h>

static int load_network(struct loader *ld, const config_setting_t *root)
{
    static const char *const allowed[] = { "mode", "bridge", "port", NULL };
    const config_setting_t *g, *bridge;
    int mode, port;
    int found = cfg_read_group(ld, root, "network", allowed, &g);
    if (found <= 0)
        return found;
    switch (cfg_read_enum(ld, g, "mode", ini_net_mode_names, &mode)) {
    case -1: return -1;
    case 1:  ld->cfg.net_mode = (enum ini_net_mode)mode; break;
    }
    switch (cfg_read_enum(ld, g, "port", ini_kernel_port_names, &port)) {
    case -1: return -1;
    case 1:  ld->cfg.port = (enum ini_kernel_port)port; break;
    }
    if ((bridge = cfg_member(g, "bridge"))) {
        const char *text;
        if (cfg_string(ld, bridge, ld->cfg.bridge, sizeof ld->cfg.bridge, &text) < 0)
            return -1;
        if (text[0] == '\0')
            return cfg_fail_at(ld, bridge, "empty bridge name");
    }
    return 0;
}

static int load_policy(struct loader *ld, const config_setting_t *root)
{
    static const char *const allowed[] = { "compute", "ini", NULL };
    const config_setting_t *g;
    int value;
    int found = cfg_read_group(ld, root, "policy", allowed, &g);
    if (found <= 0)
        return found;
    switch (cfg_read_enum(ld, g, "compute", ini_policy_names, &value)) {
    case -1: return -1;
    case 1:  ld->cfg.pe_policy = (enum ini_policy)value; break;
    }
    switch (cfg_read_enum(ld, g, "ini", ini_policy_names, &value)) {
    case -1: return -1;
    case 1:  ld->cfg.ini_policy = (enum ini_policy)value; break;
    }
    return 0;
}

static int load_stack(struct loader *ld, const config_setting_t *root)
{
    static const char *const allowed[] = { "mtu", "window", "seq_bits", "send_timeout_us",
                                           "ack_timeout_us", "max_message", "nak", "segmentation", NULL };
    struct ini_stack_cfg *st = &ld->cfg.stack;
    const config_setting_t *g, *s;
    int found = cfg_read_group(ld, root, "stack", allowed, &g);
    if (found <= 0)
        return found;
    if (cfg_read_int(ld, g, "mtu", MTU_MIN, MTU_MAX, &st->mtu) < 0)
        return -1;
    /* cfg_load_structure reads network before stack: the mode is known. */
    if (ld->cfg.net_mode == INI_NET_AF_PACKET && st->mtu > INI_AF_PACKET_MTU_MAX)
        return cfg_fail_at(ld, cfg_member(g, "mtu"), "%d is above %d, the largest MTU of DPDK 22.11's "
                       "af_packet driver (frames of at most 1518 bytes); jumbo frames need memif or pci",
                       st->mtu, INI_AF_PACKET_MTU_MAX);
    if ((s = cfg_member(g, "seq_bits"))) {
        long long bits = 0;
        if (cfg_int(ld, s, &bits) < 0)
            return -1;
        if (bits != 8 && bits != 16 && bits != 32)
            return cfg_fail_at(ld, s, "%lld is not 8, 16 or 32", bits);
        st->seq_bits = (int)bits;
    }
    /* Selective repeat needs the window to be at most half the sequence
     * space, or an old and a new packet could carry the same number. */
    long long half_space = 1LL << (st->seq_bits - 1);
    long long window_max = half_space < WINDOW_CAP ? half_space : WINDOW_CAP;
    if ((s = cfg_member(g, "window"))) {
        long long window = 0;
        if (cfg_int(ld, s, &window) < 0)
            return -1;
        if (window < 1 || window > window_max)
            return cfg_fail_at(ld, s, "%lld is out of range 1..%lld (at most %d, and at most half the "
                           "sequence space of seq_bits %d)", window, window_max, WINDOW_CAP,
                           st->seq_bits);
        st->window = (int)window;
    }
    if (cfg_read_int(ld, g, "send_timeout_us", TIMEOUT_MIN_US, TIMEOUT_MAX_US, &st->send_timeout_us) < 0 ||
        cfg_read_int(ld, g, "ack_timeout_us", TIMEOUT_MIN_US, TIMEOUT_MAX_US, &st->ack_timeout_us) < 0)
        return -1;
    /* The receiver must acknowledge before the sender gives up and resends. */
    if (st->ack_timeout_us >= st->send_timeout_us) {
        if (cfg_member(g, "ack_timeout_us"))
            return cfg_fail_member(ld, g, "ack_timeout_us", "%d must be less than send_timeout_us (%d)",
                                   st->ack_timeout_us, st->send_timeout_us);
        return cfg_fail_member(ld, g, "send_timeout_us", "%d must be more than ack_timeout_us (%d)",
                               st->send_timeout_us, st->ack_timeout_us);
    }
    if ((s = cfg_member(g, "max_message"))) {
        if (cfg_int_in_range(ld, s, 1, INI_MAX_MESSAGE_LIMIT, &st->max_message) < 0)
            return -1;
        /* Holds for every value while INI_MAX_MESSAGE_LIMIT stays 65000;
         * checked here so that raising the limit cannot break the stack. */
        if (st->max_message + PROTOCOL_HEADER_BYTES > UDP_MAX_PAYLOAD)
            return cfg_fail_at(ld, s, "%d plus %d bytes of headers does not fit in a UDP datagram (%d bytes)",
                               st->max_message, PROTOCOL_HEADER_BYTES, UDP_MAX_PAYLOAD);
    }
    if (cfg_read_bool(ld, g, "segmentation", &st->segmentation) < 0)
        return -1;
    return cfg_read_bool(ld, g, "nak", &st->nak) < 0 ? -1 : 0;
}

/* security = { key_file = "path"; mac = auto|on|off; }: the path is
 * checked here, so that a bad key stops the run before anything starts;
 * inid reads the key. */
static int load_security(struct loader *ld, const config_setting_t *root)
{
    static const char *const allowed[] = { "key_file", "mac", NULL };
    const config_setting_t *g, *kf;
    const char *text;
    char why[INI_PATH_LEN + 160];
    uint8_t key[INI_KEY_LEN];
    int mac, found = cfg_read_group(ld, root, "security", allowed, &g);
    if (found <= 0)
        return found;
    switch (cfg_read_enum(ld, g, "mac", ini_mac_mode_names, &mac)) {
    case -1: return -1;
    case 1:  ld->cfg.security.mac = (enum ini_mac_mode)mac; break;
    }
    if (!(kf = cfg_member(g, "key_file")))
        return 0;
    if (ld->cfg.security.mac == INI_MAC_OFF)
        return cfg_fail_at(ld, kf, "a key with mac = \"off\": say one or the other");
    if (cfg_string(ld, kf, NULL, INI_PATH_LEN, &text) < 0)
        return -1;
    if (text[0] == '\0')
        return cfg_fail_at(ld, kf, "empty path");
    /* Relative to the configuration file, like @include. */
    char *path = ld->cfg.security.key_file;
    size_t cap = sizeof ld->cfg.security.key_file;
    int n = text[0] == '/' || !ld->include_dir[0] ? snprintf(path, cap, "%s", text)
                                                  : snprintf(path, cap, "%s/%s", ld->include_dir, text);
    if (n < 0 || (size_t)n >= cap)
        return cfg_fail_at(ld, kf, "path longer than %zu characters", cap - 1);
    int rc = ini_key_file_read(path, key, why, sizeof why);
    explicit_bzero(key, sizeof key);
    return rc < 0 ? cfg_fail_at(ld, kf, "%s", why) : 0;
}

static int load_idle(struct loader *ld, const config_setting_t *root)
{
    static const char *const allowed[] = { "mode", "spin_us", "max_sleep_us", "yield_us", "colocate", NULL };
    struct ini_idle_cfg *idle = &ld->cfg.idle;
    const config_setting_t *g;
    int mode;
    int found = cfg_read_group(ld, root, "idle", allowed, &g);
    if (found <= 0)
        return found;
    switch (cfg_read_enum(ld, g, "mode", ini_idle_mode_names, &mode)) {
    case -1: return -1;
    case 1:  idle->mode = (enum ini_idle_mode)mode; break;
    }
    if (cfg_read_int(ld, g, "spin_us", 0, SPIN_MAX_US, &idle->spin_us) < 0 ||
        cfg_read_int(ld, g, "max_sleep_us", SLEEP_MIN_US, SLEEP_MAX_US, &idle->max_sleep_us) < 0 ||
        cfg_read_int(ld, g, "yield_us", 0, SPIN_MAX_US, &idle->yield_us) < 0 ||
        cfg_read_bool(ld, g, "colocate", &idle->colocate) < 0)
        return -1;
    return 0;
}

static int load_trace(struct loader *ld, const config_setting_t *root)
{
    static const char *const allowed[] = { "mode", "records", NULL };
    const config_setting_t *g;
    int mode;
    int found = cfg_read_group(ld, root, "trace", allowed, &g);
    if (found <= 0)
        return found;
    switch (cfg_read_enum(ld, g, "mode", ini_trace_mode_names, &mode)) {
    case -1: return -1;
    case 1:  ld->cfg.trace.mode = (enum ini_trace_mode)mode; break;
    }
    int rc = cfg_read_int(ld, g, "records", TRACE_RECORDS_MIN, TRACE_RECORDS_MAX, &ld->cfg.trace.records);
    return rc < 0 ? -1 : 0;
}

/* restart = { max = N; window_s = S; } (config.h struct ini_restart_cfg). */
static int load_restart(struct loader *ld, const config_setting_t *root)
{
    static const char *const allowed[] = { "max", "window_s", NULL };
    const config_setting_t *g;
    int found = cfg_read_group(ld, root, "restart", allowed, &g);
    if (found <= 0)
        return found;
    struct ini_restart_cfg *r = &ld->cfg.restart;
    if (cfg_read_int(ld, g, "max", 0, INI_RESTART_MAX_LIMIT, &r->max) < 0 ||
        cfg_read_int(ld, g, "window_s", 1, INI_RESTART_WINDOW_S_LIMIT, &r->window_s) < 0)
        return -1;
    return 0;
}

/* knobs = { O_us = 50.0; O_mode = "sleep"; gap_us = 0; per_byte_ns = 0;
 *           latency_us = 0; overhead_us = 0; overhead_mode = "spin";
 *           dilate = 300; beta = 1.0; } */
static int load_knobs(struct loader *ld, const config_setting_t *root)
{
    static const char *const allowed[] = { "O_us", "O_mode", "O_dist", "gap_us", "per_byte_ns", "latency_us",
                                           "overhead_us", "overhead_mode", "dilate", "beta", NULL };
    return cfg_load_kv_group(ld, root, "knobs", allowed, cfg_knob_set, &ld->cfg.knobs);
}

/* rings = { bytes = N; }: read after stack, whose max_message a ring must
 * hold (a record takes at most half a ring: ini_ring_max_message). */
static int load_rings(struct loader *ld, const config_setting_t *root)
{
    static const char *const allowed[] = { "bytes", NULL };
    const config_setting_t *g, *s;
    int found = cfg_read_group(ld, root, "rings", allowed, &g);
    if (found <= 0 || !(s = cfg_member(g, "bytes")))
        return found < 0 ? -1 : 0;
    int bytes;
    if (cfg_int_in_range(ld, s, INI_RING_BYTES_MIN, INI_RING_BYTES_MAX, &bytes) < 0)
        return -1;
    if (bytes & (bytes - 1))
        return cfg_fail_at(ld, s, "%d is not a power of two", bytes);
    /* Holds for every size while INI_MAX_MESSAGE_LIMIT stays 65000 (the
     * smallest ring holds 65,472 bytes); checked so that raising the
     * limit cannot break the rings. */
    long long holds = bytes / 2 - INI_RING_MSG_OVERHEAD;
    if (holds < ld->cfg.stack.max_message)
        return cfg_fail_at(ld, s, "%d holds messages of at most %lld bytes, less than stack.max_message (%d): "
                           "at least %d", bytes, holds, ld->cfg.stack.max_message, bytes * 2);
    ld->cfg.ring_bytes = bytes;
    return 0;
}

static int load_eal(struct loader *ld, const config_setting_t *root)
{
    static const char *const allowed[] = { "memory_mb", "hugepages", "args", NULL };
    const config_setting_t *g, *args;
    int huge;
    int found = cfg_read_group(ld, root, "eal", allowed, &g);
    if (found <= 0)
        return found;
    if (cfg_read_int(ld, g, "memory_mb", EAL_MEMORY_MIN_MB, EAL_MEMORY_MAX_MB, &ld->cfg.eal_memory_mb) < 0)
        return -1;
    switch (cfg_read_enum(ld, g, "hugepages", ini_eal_huge_names, &huge)) {
    case -1: return -1;
    case 1:  ld->cfg.eal_hugepages = (enum ini_eal_huge)huge; break;
    }
    /* stack is read before eal: the MTU is known. */
    int need = ini_config_eal_memory_needed_mb(ld->cfg.stack.mtu);
    if (ld->cfg.eal_memory_mb < need)
        return cfg_fail_at(ld, cfg_member(g, "memory_mb"), "%d MiB cannot hold a daemon's %d mbufs at MTU %d: "
                       "at least %d", ld->cfg.eal_memory_mb, INI_STACK_MBUFS, ld->cfg.stack.mtu, need);
    if (!(args = cfg_member(g, "args")))
        return 0;
    if (cfg_read_sequence(ld, args, INI_MAX_EAL_ARGS, "strings") < 0)
        return -1;
    for (int i = 0; i < config_setting_length(args); i++) {
        const config_setting_t *arg = config_setting_get_elem(args, (unsigned)i);
        const char *text;
        if (cfg_string(ld, arg, ld->cfg.eal_args[i], sizeof ld->cfg.eal_args[i], &text) < 0)
            return -1;
        /* An empty word would end getopt's option scan inside the EAL. */
        if (text[0] == '\0')
            return cfg_fail_at(ld, arg, "empty argument");
    }
    ld->cfg.n_eal_args = config_setting_length(args);
    return 0;
}

int cfg_load_structure(struct loader *ld, const config_setting_t *root)
{
    static const char *const allowed[] = { "version", "network", "policy", "stack", "idle",
                                           "trace", "eal", "faults", "knobs", "clusters", "security", "restart",
                                           "rings", NULL };
    const config_setting_t *version = cfg_member(root, "version");
    long long value = 0;

    /* The version first: a file of another version may well fail every
     * other check, and that message would mislead. */
    if (!version)
        return cfg_fail_member(ld, root, "version", "missing (required; this program reads version %d)",
                               INI_CONFIG_VERSION);
    if (cfg_int(ld, version, &value) < 0)
        return -1;
    if (value != INI_CONFIG_VERSION)
        return cfg_fail_at(ld, version, "unsupported version %lld (this program reads version %d)",
                           value, INI_CONFIG_VERSION);
    if (cfg_check_group(ld, root, allowed) < 0 ||
        load_network(ld, root) < 0 || load_policy(ld, root) < 0 || load_stack(ld, root) < 0 ||
        load_rings(ld, root) < 0 ||
        load_idle(ld, root) < 0 || load_trace(ld, root) < 0 || load_eal(ld, root) < 0 ||
        load_restart(ld, root) < 0 ||
        cfg_load_faults(ld, root, &ld->cfg.faults) < 0 || load_knobs(ld, root) < 0 ||
        cfg_load_clusters(ld, root) < 0)
        return -1;
    if (load_security(ld, root) < 0)
        return -1;
    return 0;
}

