/*
 * config.h - the machine description: clusters, compute nodes (PEs), INI
 * nodes and the parameters of the stack, read from one libconfig file.
 *
 * The file is parsed and validated completely before anything starts; every
 * error is reported as one line "FILE:LINE: FIELD: what is wrong" and the
 * caller exits with status 2.  The format is documented field by field in
 * docs/config.md.
 *
 * Ids: PEs carry global ids 0..n_pes-1 and INIs global ids 0..n_inis-1,
 * both unique over the whole machine; clusters are numbered 0..n_clusters-1.
 * Arrays are sized by the INI_MAX_* limits so that the parsed configuration is
 * one plain struct that can be copied into shared memory.
 */
#ifndef INI_CONFIG_H
#define INI_CONFIG_H

#include <stdint.h>
#include <stdio.h>

#include "ini_policy.h" /* enum ini_policy: the policies are loadbal's */

#ifdef __cplusplus
extern "C" {
#endif

#define INI_MAX_CLUSTERS     64
#define INI_MAX_PES          256
#define INI_MAX_INIS         128
#define INI_MAX_INIS_PER_CLUSTER 16
#define INI_MAX_PES_PER_CLUSTER  64
#define INI_MAX_EAL_ARGS     32
#define INI_DEVARGS_LEN      256
#define INI_PATH_LEN         512
#define INI_CONFIG_MAX_BYTES (1 << 20)  /* a configuration file larger than this is refused */
#define INI_DEVICE_LEN       64
#define INI_HOST_LEN         256
#define INI_MAX_MESSAGE_LIMIT 65000   /* upper bound of stack.max_message */
#define INI_WINDOW_LIMIT     4096     /* upper bound of stack.window: the stack keeps per-slot state */
#define INI_AF_PACKET_MTU_MAX 1500    /* DPDK 22.11's af_packet: frames of at most 1518 bytes */
#define INI_MEMIF_MAX_PEERS  32       /* memif: one DPDK port per peer, RTE_MAX_ETHPORTS */
#define INI_CONFIG_VERSION   1        /* the format's version: version = 1; in every file */

enum ini_net_mode   { INI_NET_MEMIF, INI_NET_AF_PACKET, INI_NET_PCI };
/* network.port: the DPDK driver of a kernel interface (ini/daemon/inid_port.c,
 * inid_kernel_iface_vdev says what auto picks). */
enum ini_kernel_port { INI_PORT_AUTO, INI_PORT_AF_XDP, INI_PORT_AF_PACKET };
enum ini_idle_mode  { INI_IDLE_POLL, INI_IDLE_ADAPTIVE, INI_IDLE_AUTO };
enum ini_trace_mode { INI_TRACE_OFF, INI_TRACE_SUMMARY, INI_TRACE_DETAILED };
/* eal.hugepages: auto uses them when the host has enough free (ini/daemon/eal_args.h). */
enum ini_eal_huge   { INI_HUGE_AUTO, INI_HUGE_YES, INI_HUGE_NO };

/* Data room of the daemon's mbufs for an MTU: a whole frame behind the
 * headroom, at least DPDK's default.  inid sizes its pool with it, and the
 * loader checks that eal.memory_mb holds that pool. */
int ini_config_mbuf_room(int mtu);
/* The EAL memory, MiB, a daemon needs at this MTU: its mbuf pool and a
 * margin for the EAL, the ports and their queues. */
int ini_config_eal_memory_needed_mb(int mtu);

#ifndef __cplusplus   /* checked where the library is built, in C */
_Static_assert(INI_MAX_INIS_PER_CLUSTER <= INI_LB_MAX_CHOICES && INI_MAX_CLUSTERS <= INI_LB_MAX_CLUSTERS &&
                   INI_MAX_INIS <= INI_LB_MAX_INIS,
               "the policies (loadbal.h) cover every cluster and INI");
#endif

/* Faults injected at an INI's ports (stack/fault.h).  Each rate is the
 * probability that a frame suffers that fault, applied once per frame on
 * its way between two INIs: at the sender's port on transmit ("tx", the
 * default) or at the receiver's port ("rx"). */
struct ini_fault_cfg {
    int enabled;
    double drop, dup, reorder, corrupt, delay;
    int reorder_depth;        /* a reordered frame is held back this many frames, default 3 */
    int delay_us;             /* a delayed (or held-back) frame waits at most this long, default 200 */
    uint64_t seed;            /* default 1 */
    int on_rx;                /* 0: on transmit, 1: on receive */
};

/* Communication-parameter knobs (thesis chapter 6, seed 000 section 3.2):
 * each adds to one parameter only.  Set in the knobs group or by
 * ini-cluster run --knob; all zero by default. */
struct ini_knobs {
    double O_us;              /* extra INI processing per message (each INI it passes) */
    int    O_sleep;           /* O spent sleeping (1) or spinning (0) */
    int    O_exp;             /* O drawn from an exponential distribution of mean O_us (1) or fixed (0) */
    double gap_us;            /* Δg: least time between two messages leaving an INI */
    double per_byte_ns;       /* ΔG: extra time per byte leaving an INI */
    double latency_us;        /* ΔL: added before delivery at the receiving INI, not to its ACKs */
    double overhead_us;       /* Δo: extra compute-node time per send and per receive */
    int    overhead_sleep;    /* Δo spent sleeping (1) or spinning (0) */
    /* Uniform dilation (docs/config.md): every processor of the emulated
     * machine K times slower from its own CPU time; the INIs K*beta. */
    double dilate;            /* K: 0 = off, else 1..1000 */
    double beta;              /* the INIs' speed factor under dilation; 0 = 1 */
};

/* K*beta: how many times its own CPU time an INI's busy turn lasts (0: off). */
static inline double ini_knobs_ini_dilation(const struct ini_knobs *k)
{
    return k->dilate > 0 ? k->dilate * (k->beta > 0 ? k->beta : 1.0) : 0.0;
}

struct ini_node_cfg {
    int      id;                 /* global INI id */
    int      cluster;            /* cluster index */
    int      index;              /* position among its cluster's INIs */
    int      core;               /* CPU the daemon's lcore runs on; -1 = any */
    uint32_t ip;                 /* IPv4 address, network byte order */
    uint8_t  mac[6];
    /* pci mode: DPDK device (PCI address or vdev string).  memif and
     * af_packet modes: empty in the file, the launcher derives the ports. */
    char     devargs[INI_DEVARGS_LEN];
    /* The INI's device on its cluster's host: a kernel interface name or
     * a PCI address; "" = derived (af_packet: the launcher's veth i<ID>). */
    char     device[INI_DEVICE_LEN];
    struct ini_fault_cfg faults;   /* faults = {...} in the INI, else the global group */
};

struct ini_cluster_cfg {
    int id;
    char host[INI_HOST_LEN];             /* host it runs on (ssh, srun); "" = this host */
    int n_pes;
    int pes[INI_MAX_PES_PER_CLUSTER];    /* global PE ids, ascending */
    int n_inis;
    int inis[INI_MAX_INIS_PER_CLUSTER];  /* global INI ids, file order */
};

struct ini_pe_cfg {
    int id;            /* global PE id */
    int cluster;
    int local;         /* index of the PE within its cluster */
    int static_ini;    /* global INI id used under the static policy */
};

struct ini_stack_cfg {
    int mtu;                 /* 576..9000, default 1500 */
    int window;              /* 1..min(4096, 2^(seq_bits-1)), default 64 */
    int seq_bits;            /* 8, 16 or 32, default 32 */
    int send_timeout_us;     /* SEND timer, default 2000 */
    int ack_timeout_us;      /* ACK timer, default 200 */
    int max_message;         /* payload bytes, 1..65000, default 65000 */
    int nak;                 /* send NAKs on out-of-order arrival, default 1 */
    int segmentation;        /* messages longer than a frame as transport segments, not IP
                              * fragments (docs/transport.md); default 1 (the stack's
                              * defaults, stack/stack_defaults.h, chosen by measurement:
                              * docs/transport.md, "Segments or IP fragments") */
};

/* Defaults of idle.yield_us and idle.colocate (docs/config.md: chosen by
 * measuring compute node to compute node on 2 shared cores). */
#define INI_IDLE_YIELD_US_DEFAULT 200
#define INI_IDLE_COLOCATE_DEFAULT 0

struct ini_idle_cfg {
    enum ini_idle_mode mode; /* default auto */
    int spin_us;             /* adaptive: busy-poll this long before sleeping, default 5 */
    int max_sleep_us;        /* adaptive: longest sleep between polls, default 1000 */
    int yield_us;            /* adaptive: after spin_us, hand the core over (sched_yield) for up
                              * to this long before sleeping (0: off), default
                              * INI_IDLE_YIELD_US_DEFAULT */
    int colocate;            /* adaptive: a compute node runs on the core of its static INI, default
                              * INI_IDLE_COLOCATE_DEFAULT */
};

struct ini_trace_cfg {
    enum ini_trace_mode mode;  /* default off */
    int records;               /* per-INI trace buffer, default 1048576 */
};

/* security.key_file: the machine's key, a file of INI_KEY_LEN random bytes
 * readable by its owner (and group) only; the configuration holds its path,
 * never the key.  With it every transport datagram carries a MAC
 * (docs/transport.md).  Empty: no key. */
#define INI_KEY_LEN 32
/* security.mac: auto (the default) puts the MAC on every link that leaves
 * the host (af_packet, pci: a LAN others may reach) and leaves it off on
 * memif, whose links only the run's owner can reach; with no key_file the
 * launcher draws a run key (docs/security.md "Who is trusted"). */
enum ini_mac_mode { INI_MAC_AUTO = 0, INI_MAC_ON, INI_MAC_OFF };
struct ini_security_cfg {
    char key_file[INI_PATH_LEN];      /* resolved against the file's directory */
    enum ini_mac_mode mac;
};


/* restart = { max = N; window_s = S; }: the launcher restarts an INI that
 * exits abnormally (a signal, or a non-zero status while the run is live)
 * up to max times within any window_s seconds; one more stops the machine
 * and names the INI (docs/launcher.md, "Supervised daemons"; what a
 * restarted INI resumes: docs/transport.md, "An INI that restarts").
 * max = 0: no restart, a dead INI stops the machine at once. */
#define INI_RESTART_MAX_DEFAULT      3
#define INI_RESTART_WINDOW_S_DEFAULT 60
#define INI_RESTART_MAX_LIMIT        100
#define INI_RESTART_WINDOW_S_LIMIT   86400
struct ini_restart_cfg {
    int max;                  /* restarts allowed within window_s, default 3 */
    int window_s;             /* seconds, default 60 */
};

/* rings = { bytes = N; }: the data bytes of each shared-memory ring
 * between a compute node and an INI of its cluster (two per pair, one each
 * way; ini/cn/ring.h).  A power of two; a ring holds a record of at most
 * half its bytes, so it must hold stack.max_message and what goes with it
 * (INI_RING_MSG_OVERHEAD: the record's 16-byte header, the transport's
 * headroom and the message header, 16 each, and virtual time's stamp).  The sending INI keeps each message in
 * its ring until the transport has it acknowledged, so the ring also bounds
 * the bytes a compute node has in flight through one INI. */
#define INI_RING_BYTES_DEFAULT  (1 << 20)
#define INI_RING_BYTES_MIN      (1 << 17)
#define INI_RING_BYTES_MAX      (1 << 30)
#define INI_RING_MSG_OVERHEAD   64

struct ini_config {
    char path[INI_PATH_LEN];          /* the file it came from */
    enum ini_net_mode net_mode;       /* network.mode, default memif */
    char bridge[16];                  /* af_packet: bridge name, default "inibr0" */
    enum ini_kernel_port port;        /* network.port, default auto */
    enum ini_policy pe_policy;        /* policy.compute, default static */
    enum ini_policy ini_policy;       /* policy.ini, default static */
    struct ini_stack_cfg stack;
    struct ini_idle_cfg  idle;
    struct ini_trace_cfg trace;
    struct ini_fault_cfg faults;      /* global faults = {...}, default none */
    struct ini_knobs knobs;           /* knobs = {...} */
    struct ini_security_cfg security; /* security = {...} */
    struct ini_restart_cfg restart;   /* restart = {...} */
    int n_eal_args;                   /* eal.args: extra EAL arguments */
    char eal_args[INI_MAX_EAL_ARGS][128];
    int eal_memory_mb;                /* eal.memory_mb, default 256 */
    enum ini_eal_huge eal_hugepages;  /* eal.hugepages, default auto */
    int ring_bytes;                   /* rings.bytes, default INI_RING_BYTES_DEFAULT */

    int n_clusters, n_pes, n_inis;
    struct ini_cluster_cfg clusters[INI_MAX_CLUSTERS];
    struct ini_pe_cfg      pes[INI_MAX_PES];       /* indexed by PE id */
    struct ini_node_cfg    inis[INI_MAX_INIS];     /* indexed by INI id */
};

/* Parses and validates PATH into *cfg.  Returns 0, or -1 after writing one
 * line "PATH:LINE: FIELD: message" (no newline) into err (errlen bytes); for
 * an absent field LINE is that of the enclosing group (0 at the top level).
 * *cfg is left untouched on error. */
int ini_config_load(const char *path, struct ini_config *cfg, char *err, size_t errlen);

/* The same from text already in memory (NUL-terminated, at most
 * INI_CONFIG_MAX_BYTES), e.g. what a launcher read from a pipe: errors name
 * `name`, and @include is relative to name's directory.  cfg->path is name. */
int ini_config_load_text(const char *text, const char *name, struct ini_config *cfg, char *err,
                         size_t errlen);

/* The defaults of every field: what a file that leaves a field out gets
 * (the loader starts from them) and what `ini-cluster gen` writes out.
 * The machine itself (clusters, PEs, INIs) is left empty. */
void ini_config_defaults(struct ini_config *cfg);
/* The MAC of an INI whose file gives none: 02:00:c6:12:HI:LO, HI and LO
 * being the bytes of its id. */
void ini_config_default_mac(int ini_id, uint8_t mac[6]);

/* 1 if cfg names a host for some cluster (the machine spans hosts). */
int ini_config_has_hosts(const struct ini_config *cfg);
/* Whether the run's datagrams carry the MAC: a key_file, mac = on, or
 * mac = auto in a mode whose links leave the host. */
int ini_config_mac_on(const struct ini_config *cfg);
/* 1 if device is a PCI address (0000:03:00.0 or 03:00.0), 0 if not. */
int ini_device_is_pci(const char *device);
/* 1 if name is a Linux interface name (1..15 letters, digits, '_', '-',
 * '.'; not "." or ".."), 0 if not. */
int ini_device_is_iface(const char *name);

/* Each enum's names as written in the file, indexed by its values and
 * ended by NULL: the loader's, and any program's that takes one in a flag
 * (cli_parse_choice gives the same names in its error). */
extern const char *const ini_net_mode_names[];
extern const char *const ini_idle_mode_names[];
extern const char *const ini_trace_mode_names[];
extern const char *const ini_eal_huge_names[];
extern const char *const ini_policy_names[];
extern const char *const ini_mac_mode_names[];
extern const char *const ini_kernel_port_names[];
/* The value of name in names (one of the tables above); -1 if none. */
int ini_name_parse(const char *const *names, const char *name);

/* Names as written in the file, for messages and reports ("?" for a value
 * outside the enum). */
const char *ini_net_mode_name(enum ini_net_mode m);
const char *ini_idle_mode_name(enum ini_idle_mode m);
const char *ini_trace_mode_name(enum ini_trace_mode m);
const char *ini_policy_name(enum ini_policy p);
/* Parses a policy name ("static", "round-robin", "load-aware"); -1 if none. */
int ini_policy_parse(const char *name);

/* Reads the key file at path into key: a regular file of exactly
 * INI_KEY_LEN bytes that others cannot read or write.  0, or -1 with "why"
 * in err (no file or field name: the caller adds them). */
int ini_key_file_read(const char *path, uint8_t key[INI_KEY_LEN], char *err, size_t errlen);

/* Parses a fault specification "drop=0.1,dup=0.05,reorder=0.05,corrupt=0.01,
 * delay=0,depth=3,delay_us=200,seed=7,side=tx" into *f (fields not named
 * keep their value).  0, or -1 with a one-line message in err. */
int ini_fault_parse(const char *spec, struct ini_fault_cfg *f, char *err, size_t errlen);
void ini_fault_defaults(struct ini_fault_cfg *f);

/* Parses "O=50,O_mode=sleep,O_dist=exp,gap=2,per_byte=0.5,latency=100,overhead=3,
 * overhead_mode=spin" (microseconds; per_byte in nanoseconds; the config
 * spells them O_us, gap_us, per_byte_ns, latency_us, overhead_us) into *k,
 * keeping fields not named.  0, or -1 with a one-line message in err. */
int ini_knobs_parse(const char *spec, struct ini_knobs *k, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
