/*
 * swp.h - the INI's transport: the thesis's sliding-window protocol over
 * UDP (section 3.2), one connection to every INI of every other cluster.
 *
 * Wire header, by sequence-number width (stack.seq_bits):
 *    8 bits:  op(1) conn(1) seq(1) ack(1)     = 4 bytes (the thesis's)
 *   16 bits:  op(1) conn(1) seq(2) ack(2)     = 6 bytes
 *   32 bits:  op(1) conn(1) seq(4) ack(4)     = 10 bytes
 * multi-byte fields big-endian.  `conn` is the sending INI's global id.
 * DATA frames add a CRC32C of the message (AM header and payload), 4
 * bytes after the header: the UDP checksum is a 16-bit ones' complement
 * sum, blind to two bit errors of opposite sense at the same bit position
 * modulo 16, which a datagram of many fragments meets often enough under
 * corruption to deliver damaged messages (measured: ~1% of 65,000-byte
 * messages at 2% corrupted frames).  The CRC is computed once, at the first
 * send, and checked after the UDP checksum.
 * With a key (security.key_file), a 16-byte MAC follows the header, before
 * the CRC, in every frame: SipHash-2-4-128 over the destination INI id, the
 * header, the length and a GF(2^128) polynomial sum (stack/polyhash.h) of
 * everything behind the MAC, under
 * keys derived from the machine's key and the run's random epoch
 * (docs/transport.md).
 * `ack` is cumulative: the next sequence number the sender of the frame
 * expects, i.e. everything before it has arrived.  DATA carries a message
 * and a piggy-backed ack (and the flag RETX when it was sent before); ACK
 * carries only the ack and, in a 2-byte body, the receiver's grant; NAK
 * asks for the run of frames from `seq` (a body: the run's length and the
 * grant, 2 bytes each; none: one frame) and carries the ack too; PROBE
 * says "I have sent everything before `seq`": the receiver NAKs what it
 * lacks of that, or acknowledges.
 *
 * Congestion control (docs/transport.md, "Many senders into one"): a
 * connection has at most the least of the window, its congestion window
 * (AIMD: halved on a loss signal once per round trip, +1 frame per
 * window acknowledged) and its receiver's grant (the receiver's budget of
 * 4 windows shared among the peers sending to it; 8 frames until the
 * first grant comes) in flight.
 *
 * Segments (stack.segmentation, docs/transport.md "Segments"): with
 * `segment` set, a message longer than one frame is sent as segments of
 * one frame each, one sequence number each, in order; the two high bits
 * of a DATA frame's op byte say where a segment sits: MORE (segments of
 * this message follow) and CONT (it continues a message: not the first).
 * A message of one frame has neither, in both modes, so the wire is the
 * same for it.  The first segment starts with the AM header, whose length
 * tells the receiver how much follows; in-order delivery makes an index
 * or count on the wire unnecessary.  Each segment has its own CRC32C, MAC,
 * SEND timer and NAKs, and the window counts segments.  The receiver
 * chains the segments of a message as it takes them in order (their
 * frames' pbufs, like lwIP's IP reassembly, no copy) and hands the
 * complete chain to the deliver callback, which copies it once into the
 * compute node's ring.  A message the window cannot take whole is taken
 * in part: its remaining segments go out as acks open the window, and the
 * connection counts as full (ini_swp_window_full) until the last has
 * gone, so messages behind it wait in the INI's stall list.
 *
 * Per connection the sender keeps up to `window` unacknowledged frames
 * (messages, or segments), each with a SEND timer in the INI's send timer
 * list; the receiver keeps a window of the same size for out-of-order
 * arrivals, delivers in order, and acknowledges by piggy-backing on
 * reverse DATA, by its ACK timer when there is none, or at once when half
 * a window is unacknowledged.
 *
 * No retransmission without a loss (docs/transport.md, "Losses, and only
 * losses"): with NAKs on (stack.nak, the default) a frame goes again only
 * when the receiver asks for it, and the receiver asks only for what it
 * knows is lost: a frame below one that arrived (the link keeps the order
 * of the frames it carries, so a frame after the gap left after the frame
 * missing).  A NAK goes when a later frame shows the gap, and again from
 * the ACK timer while frames wait above it, once per send_timeout/4.  What
 * nothing follows (the last frame of a burst) the sender's SEND timer
 * finds: it expires after send_timeout/4 for the oldest unacknowledged
 * frame and sends a PROBE with the next sequence number to send, behind
 * every frame it sent; the receiver NAKs what it lacks below it, else
 * acknowledges.  A receiver that was merely slow (descheduled, its frames
 * unread in its ring) reads the frames before the probe and acknowledges:
 * nothing goes twice.  With NAKs off, the SEND timer retransmits (after
 * send_timeout; for segments only the oldest unacknowledged frame), as
 * the thesis's protocol does.
 *
 * Buffer ownership: ini_swp_send() borrows the message (the AM header and
 * payload in the compute node's ring, with INI_SWP_MAXHDR writable bytes in
 * front) until it is acknowledged, and gives it back through the release
 * callback: retransmissions are sent from the same place.  Each
 * transmission copies it once: a message that fits one frame straight
 * into a transmit mbuf (stack/dgram.h ini_dgram_frame_begin: no pbuf),
 * behind the transport header, with the UDP and IP headers written in
 * place in front (header prediction); a longer one is cut into IP
 * fragments, each copied into its frame (ini_dgram_send_frags).  lwIP's
 * own UDP output remains for what the prediction does not cover.
 * Received messages go to the deliver callback as a pbuf chain and the
 * offset of the AM header, with the receive metadata of the frame that
 * completed them (dgram.h struct ini_rx_meta: arrival, queue length,
 * trace stamps); the callback takes the pbuf (returns 0) or refuses it for
 * now (returns -1), in which case the protocol keeps it, does not
 * acknowledge it, and offers it again from ini_swp_poll() (with metadata
 * saying: arrived at that poll).
 *
 * The transport knows nothing of the daemon's configuration: the owner
 * fills struct ini_swp_params from ini_swp_params_default() (ini/
 * stack_config.h does it from the INI's configuration), and a stack
 * (stack/stack.h) opens the transport with the link and the datagram
 * endpoint under it.  Its state is its own (swp_internal.h); the owner
 * reads it through the accessors at the end of this header.
 */
#ifndef INI_SWP_H
#define INI_SWP_H

#include <stdint.h>

#include "am_hdr.h"
#include "lwip/pbuf.h"
#include "dgram.h"
#include "stack_defaults.h"

#define INI_UDP_PORT   7400
#define INI_SWP_MAXHDR 14     /* header + CRC32C of DATA */
#define INI_SWP_MAX_INIS 128  /* INI ids the transport addresses: 0..127 */
#define INI_SWP_KEY_LEN  32   /* the machine's key (security.key_file) */
#define INI_SWP_EPOCH_LEN 16  /* the run's random nonce, the same in every INI of a run */
#define INI_SWP_TAG_LEN  16   /* the MAC behind the header when a key is set */

/* The op byte of a frame: opcode in the low five bits; a DATA frame's
 * flags in the three high bits: a segment's place in its message, and
 * whether the frame is a retransmission (so that the receiver can tell a
 * retransmission it needed from a spurious one). */
#define INI_SWP_OP_MASK 0x1f
#define INI_SWP_F_MORE  0x80  /* segments of this message follow */
#define INI_SWP_F_CONT  0x40  /* continues a message: not its first segment */
#define INI_SWP_F_RETX  0x20  /* sent before: a retransmission */

/* The transport's parameters (docs/config.md, group stack). */
struct ini_swp_params {
    int me;                          /* this INI's id */
    int n_inis;                      /* INI ids are 0..n_inis-1 */
    uint32_t ip[INI_SWP_MAX_INIS];   /* each INI's IPv4 address, network order */
    uint8_t connect[INI_SWP_MAX_INIS];   /* 1: a connection to it (an INI of another cluster) */
    int mtu;                         /* bytes of an IP packet on the link */
    int window;                      /* unacknowledged messages per connection, <= 2^(seq_bits-1) */
    int seq_bits;                    /* 8, 16 or 32 */
    int send_timeout_us, ack_timeout_us;
    int nak;                         /* send NAKs on out-of-order arrival */
    int segment;                     /* send messages longer than a frame as segments */
    int grant_start;                 /* frames a connection may send before its receiver's first
                                        grant (docs/transport.md, "Many senders into one");
                                        0: the window */
    uint64_t tsc_hz;                 /* the TSC's rate; 0: rte_get_tsc_hz() at open */
    /* Authentication (docs/transport.md, "Strangers refused"): with
     * `auth` set, every datagram carries a MAC under a key derived from
     * `key` and `epoch`, checked before anything else in it is believed. */
    int auth;
    uint8_t key[INI_SWP_KEY_LEN];
    uint8_t epoch[INI_SWP_EPOCH_LEN];
};

/* Module boundaries of a message being sent (TSC), for detailed traces. */
struct ini_swp_tx_stamps {
    uint64_t t_out_window;           /* sliding window done, UDP starts */
    uint64_t t_out_udp;              /* UDP checksum done, IP starts */
};

enum ini_swp_op { INI_SWP_DATA = 1, INI_SWP_ACK = 2, INI_SWP_NAK = 3, INI_SWP_PROBE = 4, INI_SWP_SYNC = 5 };

/* SYNC (docs/transport.md, "An INI that restarts"): `seq` the sender's
 * next sequence number to send, `ack` its durable next expected (D); an
 * 8-byte body, the sender's incarnation and the one it answers (0 in a
 * SYNC), big-endian.  The flag REPLY marks the answer. */
#define INI_SWP_F_REPLY 0x80
#define INI_SWP_SYNC_BODY 8

struct ini_swp_hdr {
    uint8_t  op;              /* enum ini_swp_op */
    uint8_t  conn;
    uint32_t seq;
    uint32_t ack;
    uint8_t  flags;           /* DATA: INI_SWP_F_MORE, INI_SWP_F_CONT (0: a whole message), INI_SWP_F_RETX */
};

int  ini_swp_hdr_len(int seq_bits);
void ini_swp_hdr_write(uint8_t *dst, const struct ini_swp_hdr *h, int seq_bits);
/* Parses a header; -1 if too short, the opcode is unknown or a frame
 * other than DATA has segment flags. */
int  ini_swp_hdr_read(const uint8_t *src, uint32_t len, int seq_bits, struct ini_swp_hdr *h);

typedef int  (*ini_deliver_fn)(void *ctx, int src_ini, struct pbuf *p, uint16_t am_offset,
                               struct ini_rx_meta *rx);
typedef void (*ini_release_fn)(void *ctx, void *cookie);

/* The transport's counters, one list: the struct's fields, the sum of the
 * connections' into the INI's total (ini_swp_totals), the counters file
 * (ini/daemon/inid_loop.c) and telemetry all come from it, in this order.
 * X(name) per counter.  Retransmissions are counted where they leave, by
 * cause (retx_timer: a SEND timer, with NAKs off; retx_nak: a NAK), and
 * where they arrive, by use: retx_after_loss, a retransmission that
 * brought a frame the receiver lacked, and retx_spurious, one of a frame
 * it had already (delivered, or held in its window): a duplicate the
 * sender caused.  duplicates counts every duplicate, the link's too. */
#define INI_SWP_COUNTERS(X)                                                        \
    X(msgs_sent) X(bytes_sent) X(msgs_delivered) X(bytes_delivered)                \
    X(retx_timer) X(retx_nak) X(retx_after_loss) X(retx_spurious)                  \
    X(naks_sent) X(naks_received) X(probes_sent) X(probes_received)                \
    X(acks_bare) X(acks_piggy) X(acks_received)                                    \
    X(duplicates) X(out_of_window) X(window_full) X(deliver_refused)               \
    X(bad_header) X(bad_conn) X(bad_ack) X(crc_errors) X(udp_checksum_errors)      \
    X(send_errors) X(timer_errors) X(mac_fail) X(tx_held)                          \
    X(segs_sent) X(segs_received) X(seg_errors)                                   \
    X(syncs_sent) X(resyncs) X(replayed) X(sync_errors)                          \
    X(cwnd_cuts) X(retx_held) X(tx_copied) X(rx_checked)

struct ini_swp_stats {
#define INI_SWP_FIELD(name) uint64_t name;
    INI_SWP_COUNTERS(INI_SWP_FIELD)
#undef INI_SWP_FIELD
};

/* The transport's state (swp_internal.h). */
struct ini_swp;

/* The defaults of every parameter (stack_defaults.h: MTU 1500, window 64,
 * 32-bit sequence numbers, SEND timer 2 ms, ACK timer 200 us, NAKs and
 * segments on), no MAC; tsc_hz 0 (the TSC's rate, at open).  The INIs
 * (me, n_inis, ip, connect) are the owner's to fill. */
void ini_swp_params_default(struct ini_swp_params *p);

/* Sets up every connection and opens dg, the INI's UDP port on nf (the
 * INI's link, already registered with lwIP), which every datagram goes
 * through.  Allocates all its state here, once.  NULL on parameters out
 * of range, no memory or the port taken. */
struct ini_swp *ini_swp_open(const struct ini_swp_params *prm, struct ini_dgram *dg, struct ini_netif *nf,
                             ini_deliver_fn deliver, ini_release_fn release, void *ctx);
/* Closes dg, frees what the transport holds (received frames not yet
 * delivered) and the transport itself. */
void ini_swp_close(struct ini_swp *s);
/* The receive path: a datagram for the INI's UDP port, from the link's
 * header prediction or from lwIP (stack/dgram.h ini_dgram_input_fn); ctx
 * is the transport.  Takes p. */
void ini_swp_input(void *ctx, struct pbuf *p, uint32_t src, uint32_t dst, int sum_ok, struct ini_rx_meta *rx);

/* Sends the message whose AM header is at `am` to INI `peer`.  0 when
 * taken; -1 when the connection's window is full (or lwIP is out of
 * buffers): the caller keeps the message and tries again later.  stamps,
 * unless NULL, receives the module boundaries of the send. */
int ini_swp_send(struct ini_swp *s, int peer, uint8_t *am, uint32_t am_len, void *cookie, uint64_t now,
                 struct ini_swp_tx_stamps *stamps);

/* Takes the acks that DATA frames carried since the last call, starts
 * the SEND timers of what was sent since, runs expired SEND and ACK timers
 * and retries refused deliveries.  Returns the work done (the timers
 * started are not work).  Cheap when nothing is due, the common case of
 * every loop turn: a comparison and three counters before the call to
 * the whole service (which cost about 25 instructions of its own).
 *
 * Both are taken here, at the next turn, not as the frame arrives or
 * leaves: an ack's releases (the SEND timers, the release callbacks) and
 * a new frame's SEND timer then happen while the frame or its answer
 * travels, instead of delaying it.  A timer started at the next turn
 * starts less than a turn late, against a timeout of milliseconds.  A
 * send that finds the window full takes its connection's ack at once, and
 * so do ACK and NAK frames.  The owner calls it at the start of every
 * loop turn, as inid does (stack.h ini_stack_poll). */
int ini_swp_poll(struct ini_swp *s, uint64_t now);

/* TSC of the earliest SEND or ACK timer; UINT64_MAX if none runs. */
uint64_t ini_swp_next_deadline(const struct ini_swp *s);

/* Segments of messages taken in part that still wait for the window:
 * frames of work the INI has accepted but not done, for the load-aware
 * policies (a message of 45 segments weighs as its frames do). */
uint32_t ini_swp_pending_frames(const struct ini_swp *s);

/* Window state of a connection, for the stall rule: 1 if full, or still
 * sending a message in segments (the next message waits behind it). */
int ini_swp_window_full(const struct ini_swp *s, int peer);

/* ---- durable state (swp_durable.c; docs/transport.md, "An INI that
 * restarts") ----
 *
 * The transport keeps what a restarted INI needs in a region of memory:
 * per connection its durable next expected (D), its next sequence number
 * to send and a log of the messages taken and not yet acknowledged whole
 * (each by its offset from a base the owner gives: the cluster's segment,
 * where the compute nodes' rings are); per INI the delivery intent.  It
 * writes there with plain stores on its path.  Until the owner attaches a
 * region, the region is a private one (allocated at open): the path is the
 * same, nothing survives the process. */

/* A delivery in progress (one at a time): the transport sets conn and
 * d_after before it calls the deliver callback; the callback, just before
 * it publishes the message into a compute node's ring, sets where (the
 * ring, the owner's number) and mark (that ring's tail once published),
 * then armed = 1; the transport stores D and disarms when the callback
 * returns.  A restarted INI asks the owner whether ring `where` reached
 * `mark` (published below). */
struct ini_swp_intent {
    uint32_t armed, conn, d_after, where;
    uint64_t mark;
};

/* The region's header (the rest of its layout is the transport's): what
 * a restarted INI checks before it believes the rest. */
#define INI_SWP_DURABLE_MAGIC   0x3154415453494e49ull    /* "INISTAT1" */
#define INI_SWP_DURABLE_VERSION 1
struct ini_swp_durable_hdr {
    uint64_t magic;
    uint32_t version, resumable;
    uint64_t bytes;
    uint32_t me, n_inis, seq_bits, window, log_cap, incarnation;
    uint8_t  epoch[INI_SWP_EPOCH_LEN];
    struct ini_swp_intent intent;
    uint8_t  pad[8];
};

/* 1 when ring `where` of the owner's has been published up to `mark`. */
typedef int (*ini_swp_published_fn)(void *ctx, uint32_t where, uint64_t mark);

/* Bytes of the region for a transport with parameters p. */
size_t ini_swp_durable_bytes(const struct ini_swp_params *p);

/* Moves s's durable state into mem (bytes long, from
 * ini_swp_durable_bytes), message offsets counted from base.  resume 0: a
 * fresh region (formatted; before any traffic).  resume 1: mem holds the
 * region of the INI's previous incarnation: it is checked (magic,
 * version, size, INI, parameters, the run's epoch, resumable), the
 * delivery in progress settled with published(), and every connection set
 * where the region says: receive side at D, send side at the first logged
 * message, the connection unsynchronised (SYNC until the peer answers;
 * no DATA until then).  0, or -1 with a one-line reason in err (s keeps
 * its private region). */
int ini_swp_durable_attach(struct ini_swp *s, void *mem, size_t bytes, const void *base, int resume,
                           ini_swp_published_fn published, char *err, size_t errlen);

/* The intent the deliver callback arms (never NULL). */
struct ini_swp_intent *ini_swp_intent(struct ini_swp *s);

/* The region cannot be resumed from (the owner holds messages it has let
 * the transport acknowledge outside the rings: the knob stage). */
void ini_swp_durable_unresumable(struct ini_swp *s);

/* After a resume: fn(ctx, peer, off, &cookie) for every logged message of
 * every connection, in order: fn returns 1 to keep it (with *cookie, its
 * release cookie in this process), 0 when its record was given back (it
 * was acknowledged: only a prefix of a log may be). */
typedef int (*ini_swp_logged_fn)(void *ctx, int peer, uint64_t off, void **cookie);
void ini_swp_durable_logged(struct ini_swp *s, ini_swp_logged_fn fn, void *ctx);

/* The incarnation: 0 for a fresh region, +1 per resume. */
uint32_t ini_swp_incarnation(const struct ini_swp *s);

/* ---- read-only accessors: telemetry, the counters file, benchmarks ----
 *
 * They load every figure with a relaxed atomic load, so DPDK's telemetry
 * thread may call them while the INI's loop runs (on x86-64 a plain
 * aligned load, never half of a store); figures read one after another
 * are not one snapshot. */

/* The whole INI's counters: its own and every connection's. */
struct ini_swp_stats ini_swp_totals(const struct ini_swp *s);

/* A connection's state. */
struct ini_swp_conn_info {
    int peer;                        /* its INI id */
    uint32_t snd_una, snd_nxt;       /* oldest unacknowledged, next to send */
    uint32_t in_flight;              /* between them: each has its SEND timer (or gets it next turn) */
    uint32_t rcv_nxt, ack_sent;      /* next expected, last ack sent */
    int ack_timer;                   /* its ACK timer runs */
    int delivery_blocked;            /* the head of its receive window was refused */
    int listed;                      /* work listed for the next turn (ini_swp_poll) */
    /* Its durable state (docs/transport.md, "An INI that restarts"): D,
     * the next sequence number after the logged messages, how many are
     * logged; unsynced: waiting for the answer to its SYNC; replaying:
     * logged messages to send again. */
    uint32_t delivered, next_seq, logged;
    int unsynced, replaying;
    /* Congestion control (docs/transport.md, "Many senders into one"):
     * the frames it may have in flight now (<= the window), its round
     * trip as the sender measures it and as the receiver does (from a
     * NAK to the retransmission), in TSC ticks (0: no sample yet), and
     * the SEND timer's expiries since a frame last came from the peer. */
    uint32_t cwnd, grant;            /* ... and the receiver's credit: it sends at most the least */
    uint64_t srtt_ticks, rx_srtt_ticks;
    uint32_t quiet;
    const struct ini_swp_stats *stats;   /* its counters, live: read with relaxed loads */
};
/* Fills *ci for the connection to INI `peer`: 0, or -1 when there is none
 * (an INI of this cluster, this INI, or an id out of range). */
int ini_swp_conn(const struct ini_swp *s, int peer, struct ini_swp_conn_info *ci);

/* The window (frames in flight per connection), and the SEND timers
 * running in the whole INI. */
uint32_t ini_swp_window(const struct ini_swp *s);
/* The bytes of message (AM header and payload) one segment carries, 0
 * when messages go whole (IP fragments): a longer message takes
 * ceil(len / it) of the window. */
uint32_t ini_swp_segment_bytes(const struct ini_swp *s);
/* What a message of am_len bytes (AM header and payload) takes of the
 * window of a transport with parameters p: its segments, or 1 (a frame,
 * or a datagram in IP fragments). */
uint32_t ini_swp_window_cost(const struct ini_swp_params *p, uint32_t am_len);
uint32_t ini_swp_send_timers(const struct ini_swp *s);
/* Whether every datagram carries the MAC (params.auth at open). */
int ini_swp_authenticated(const struct ini_swp *s);

#endif
