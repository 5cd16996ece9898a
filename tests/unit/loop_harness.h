/*
 * loop_harness.h - two INIs in one process for unit tests: each has its
 * stack (stack/stack.h: link, UDP/IP, transport) in one lwIP instance,
 * and each one's transmit queue feeds the other's receive path through a
 * scripted "wire" that can drop, hold back (reorder), duplicate or
 * corrupt single frames.  Time is a fake TSC the test advances; lwIP's
 * clock (sys_now) follows it, and loop_run runs lwIP's timers
 * (reassembly ageing) too.  Teardown closes both stacks and counts the
 * mbufs and lwIP buffers that did not come back (lwIP's own unit tests
 * check the same after every test).
 */
#ifndef LOOP_HARNESS_H
#define LOOP_HARNESS_H

#include <stdint.h>

#include "checksum.h"
#include "stack.h"

#include "config.h"     /* struct ini_config loop_cfg */

#define LOOP_HZ 1000000000ull     /* fake TSC: 1 tick = 1 ns */
#define LOOP_MAX_MSGS 16384

enum wire_fate { WIRE_PASS, WIRE_DROP, WIRE_HOLD, WIRE_DUP, WIRE_CORRUPT };

struct loop_side;
/* Decides the fate of the n-th frame (counted from 0) leaving `from`. */
typedef enum wire_fate (*wire_script_fn)(struct loop_side *from, uint64_t n, const uint8_t *frame, uint32_t len);

struct loop_side {
    int id;
    struct ini_stack st;                 /* st.nf the link, st.swp the transport (its accessors) */
    struct loop_side *other;
    wire_script_fn script;
    uint64_t frames_out;
    struct rte_mbuf *held[64];
    int n_held;
    int refuse;                          /* deliver callback refuses */
    /* Not running (descheduled, or asleep): frames sent to it wait in its
     * inbox, as in a port's receive ring, and loop_run skips its turns
     * until it is woken (asleep = 0); its first turn then runs its poll
     * before it reads the inbox, as inid's loop does. */
    int asleep;
    /* what was delivered: message i's first bytes and length */
    uint32_t n_got;
    uint32_t got_len[LOOP_MAX_MSGS];
    uint32_t got_tag[LOOP_MAX_MSGS];
    uint32_t released;
    uint8_t last[70000];
    uint32_t last_len;
    /* Its durable region (loop_durable): what survives loop_restart, as
     * the compute nodes' rings do (n_got, got_*, released and the sent
     * messages' buffers are the rings here). */
    void *region;
    size_t region_bytes;
    struct ini_swp_intent *intent;
    /* Its MAC key and run epoch (loop_setup_keyed; keyed 0: none), what
     * loop_restart opens the stack with again: a test may change the key
     * before a restart to make the side an impostor. */
    int keyed;
    uint8_t key[INI_SWP_KEY_LEN];
    uint8_t epoch[INI_SWP_EPOCH_LEN];
};

extern struct ini_config loop_cfg;
extern struct loop_side loop_a, loop_b;
extern uint64_t loop_now;
/* stack.segmentation of the pairs loop_setup* make (default 0: IP
 * fragments); loop_reset_transport keeps loop_cfg's. */
extern int loop_segmentation;
/* The transport's grant_start for the sides set up next (0: the window,
 * what the scripted tests count on). */
extern int loop_grant_start;

/* EAL, mbuf pool, lwIP; once per process.  0 or -1. */
int  loop_global_init(const char *name);
/* (Re)creates both sides with the given window and sequence width. */
void loop_setup(int window, int seq_bits, int nak);
/* The same with every datagram authenticated under key; each side's run
 * epoch given apart (the same for a working pair). */
void loop_setup_keyed(int window, int seq_bits, int nak, const uint8_t key[INI_SWP_KEY_LEN],
                      const uint8_t epoch_a[INI_SWP_EPOCH_LEN], const uint8_t epoch_b[INI_SWP_EPOCH_LEN]);
/* Closes both sides and empties the wire; returns the buffers that did not
 * come back (mbufs in use, lwIP pool elements in use; each kind named on
 * stderr): 0 when nothing leaked.  Every transport test's teardown asserts
 * it. */
unsigned loop_teardown(void);
/* Both transports and netifs started again (key NULL: no MAC; else as
 * loop_setup_keyed; hosts learned by ARP forgotten), what they queued,
 * the reassembly and the wire emptied, the delivery records cleared; the
 * configuration and the clock kept.  Cheaper than teardown and setup: for the
 * fuzz harness, between inputs. */
void loop_reset_transport(const uint8_t *key, const uint8_t *epoch_a, const uint8_t *epoch_b);
/* Sends a message of len bytes (>= 16; the first 4 payload bytes carry
 * tag) from side s; returns ini_swp_send's result. */
int  loop_send(struct loop_side *s, uint32_t tag, uint32_t len);
/* Flushes both sides and runs their timers, repeatedly, until the wire
 * is quiet; advances time by step_ns per round (at least one round). */
void loop_run(uint64_t step_ns, int rounds);
/* Gives both sides a durable region (swp.h ini_swp_durable_attach): the
 * deliver callback arms the intent, a delivery's mark is the count of
 * messages delivered. */
void loop_durable(void);
/* Side s dies and is started again: its stack closed (what it held lost)
 * and opened again with its key and epoch, resumed from its region
 * (loop_durable); 0, or -1 with the reason in err. */
int  loop_restart(struct loop_side *s, char *err, size_t errlen);
/* The base message offsets are counted from (the sent messages' buffers). */
const uint8_t *loop_base(void);
/* Whether messages 0..n-1 of loop_send (their tags) reached b once each,
 * in order, and a got each back (released) with nothing left in flight:
 * NULL, or what is wrong. */
const char *loop_check_delivered(uint32_t n);
/* Releases frames held back on the wire (to create reordering). */
void loop_release_held(struct loop_side *from);
/* Flushes side s's transmit queues and delivers what is on the wire, both
 * ways, until nothing is; returns what ini_netif_flush returned (frames
 * still waiting in s's backlog). */
int  loop_flush(struct loop_side *s);
/* Delivers what is on the wire, both ways, until nothing is. */
void loop_pump(void);
unsigned loop_mbufs_in_use(void);
/* A connection's state (stack/swp.h), of side s to the other side. */
struct ini_swp_conn_info loop_conn(const struct loop_side *s);
/* An mbuf of the harness's pool holding len bytes of frame; NULL if empty. */
struct rte_mbuf *loop_frame(const void *bytes, uint16_t len);
/* Builds into buf an Ethernet frame from `from` to its peer carrying an
 * IPv4 packet (header checksum right) with the given id, fragment field
 * (host order: flags and offset in 8-byte units), protocol and payload;
 * returns the frame's length. */
uint16_t loop_ip_frame(uint8_t *buf, const struct loop_side *from, uint16_t ip_id, uint16_t frag, uint8_t proto,
                       const void *payload, uint16_t len);

#endif
