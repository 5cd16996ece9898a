/*
 * dgram.h - the transport's UDP datagrams between the link and lwIP: the
 * one file of the stack that meets lwIP's insides (the others use its
 * public API: pbufs, the netif).
 *
 * The transport opens one endpoint, its UDP port on the link's address,
 * and sends and receives whole datagrams through it.  The common case goes
 * by header prediction, without lwIP; everything else goes to lwIP
 * unchanged.  Covered:
 *
 *   send, one frame    a datagram of at most MTU - 28 bytes to a static
 *                      peer of the link's table (the configuration's
 *                      INIs): the transport writes the payload straight
 *                      into a transmit mbuf (ini_dgram_frame_begin), and
 *                      the UDP and IP headers go in front of it, in place,
 *                      from the destination's pattern: the fields lwIP
 *                      writes (TTL 64, no options, the UDP checksum from
 *                      the payload's sum the transport gives).
 *   send, fragments    a longer datagram, contiguous in memory, to a
 *                      static peer: cut into IP fragments as lwIP's
 *                      ip4_frag cuts them (offsets in 8-byte units, MF on
 *                      all but the last, one id per datagram), each copied
 *                      straight into its own transmit mbuf behind its
 *                      headers (ini_dgram_send_frags).
 *   receive            a frame holding one whole UDP datagram for the port
 *                      (IPv4 without options, not a fragment, to the
 *                      link's address, total and UDP lengths and the IP
 *                      header checksum right): handed to the transport's
 *                      input at once, with the UDP checksum of a small one
 *                      checked in the pass that checks the IP header.
 *
 * Not covered, through lwIP: a destination that is not a static peer
 * (udp_sendto_if_src_chksum on the link's netif), a datagram whose header
 * lies apart from its message (ini_dgram_send_parts: a pbuf chain), every
 * frame the prediction does not take (fragments, which lwIP reassembles;
 * other ports and protocols; bad headers, which lwIP drops and counts).
 * lwIP's UDP gives this port's datagrams to the same input.
 *
 * Receive metadata travels as arguments: the owner's (struct ini_rx_meta)
 * from ini_dgram_input to the transport's input, with the datagram's
 * addresses and whether its UDP checksum was checked.  lwIP's up-call
 * (the pcb's recv callback, inside ip4_input) takes no argument of ours:
 * it only parks the datagram, which ini_dgram_input hands on once
 * ip4_input has returned (one frame completes at most one datagram).
 *
 * Buffer ownership: the input function owns the pbuf it is given; a frame
 * of ini_dgram_frame_begin is sent (or freed) by ini_dgram_frame_send;
 * the send functions copy the payload, which stays the caller's.
 */
#ifndef INI_DGRAM_H
#define INI_DGRAM_H

#include <stdint.h>

#include "netif_dpdk.h"

/* What the INI knows of a received frame besides its bytes, passed by the
 * owner to the stack's input and from there, by the transport, to its
 * delivery callback, the way lwIP passes address and port to `recv`.  The
 * owner fills the first four fields; the transport fills the stamps when
 * `stamp` asks for them (detailed traces).  The owner's, on its stack, for
 * the duration of the call. */
struct ini_rx_meta {
    uint64_t t_arrive;        /* TSC: the frame entered the INI's work queue */
    uint64_t t_start;         /* TSC: its processing began */
    uint32_t qlen;            /* work queue length at its arrival */
    int      stamp;           /* take the stamps below */
    uint64_t t_in_ip;         /* the reassembled datagram reached UDP */
    uint64_t t_in_udp;        /* its UDP checksum was verified */
};

/* A datagram for the port: p over the UDP payload (the UDP header just in
 * front of it), from src to dst (IPv4, network order); sum_ok 1 when its
 * UDP checksum was checked here and is right, 0 when the receiver must
 * check it.  The callee owns p. */
typedef void (*ini_dgram_input_fn)(void *ctx, struct pbuf *p, uint32_t src, uint32_t dst, int sum_ok,
                                   struct ini_rx_meta *rx);

/* A destination: its address and, once found in the link's table, its
 * static peer slot and header pattern (the Ethernet and IPv4 headers with
 * total length, id and checksum 0, the ones' complement sum of that IPv4
 * header, and the UDP pseudo header's addresses and protocol as 16-bit
 * words, unfolded): a frame's headers are one copy and three fields.  A
 * static slot never changes, so the pattern is made once. */
struct ini_dgram_dst {
    uint32_t ip;
    const struct ini_peer_slot *slot;
    uint32_t ip_sum, udp_sum;
    _Alignas(8) uint8_t hdr[14 + 20];
};

/* Datagrams lwIP's reassembly gave up with fragments missing, because they
 * aged out (IP_REASS_MAXAGE) or to make room for newer ones
 * (MEMP_NUM_REASSDATA, IP_REASS_MAX_PBUFS). */
struct ini_dgram_stats {
    uint64_t reass_timeouts, reass_evictions;
};

/* lwIP's IP and UDP counters (its statistics), for the counters file. */
struct ini_ip_stats {
    uint64_t ip_checksum_errors, ip_drops, udp_drops, frag_drops, frag_errors;
    uint64_t reass_timeouts, reass_evictions;
};

struct udp_pcb;
struct ini_dgram {
    struct ini_netif *nf;
    struct udp_pcb *pcb;              /* lwIP's UDP endpoint: what prediction does not cover */
    uint32_t ip;                      /* the link's address, network order */
    uint16_t port;                    /* host order */
    uint16_t ip_id;                   /* IP id of the datagrams sent here */
    uint16_t frame_max;               /* UDP payload of one frame: MTU - 28 */
    int predict_rx;                   /* header prediction on receive (tests turn it off) */
    int no_checksum;                  /* UDP checksum 0 on send: the transport's MAC checks instead */
    ini_dgram_input_fn input;
    void *ctx;
    /* A datagram lwIP's UDP handed up during ip4_input, for
     * ini_dgram_input to pass on. */
    struct pbuf *up_p;
    uint32_t up_src, up_dst;
    struct ini_dgram_stats stats;
};

/* Binds `port` on nf's address with lwIP and takes the prediction's
 * datagrams for it; every datagram for the port goes to input(ctx, ...).
 * 0, or -1 (no pcb, port taken). */
int  ini_dgram_open(struct ini_dgram *dg, struct ini_netif *nf, uint16_t port, ini_dgram_input_fn input,
                    void *ctx);
/* Unbinds the port, and gives up every partial datagram of lwIP's
 * reassembly (the process's: another stack's too), whose frames are the
 * link's. */
void ini_dgram_close(struct ini_dgram *dg);
/* From now on datagrams leave with a UDP checksum of 0 ("none", RFC 768),
 * the payload sums given to the send functions unused: for a transport
 * whose MAC covers every byte the checksum would (swp.h). */
void ini_dgram_no_checksum(struct ini_dgram *dg);
/* A destination at ip (network order), not looked up yet. */
void ini_dgram_dst_init(struct ini_dgram_dst *d, uint32_t ip);

/* ---- send ---- */

/* One frame: ini_dgram_frame_begin gives the place where the caller
 * writes len bytes of UDP payload (its one copy), NULL when no transmit
 * buffer is left (counted by the link); ini_dgram_frame_send sends what
 * was written there, payload_sum its ones' complement sum (as ini_chksum
 * gives it): 0, or -1 when lwIP refused it. */
struct ini_dgram_frame {
    struct rte_mbuf *m;               /* predicted: the frame's mbuf */
    struct pbuf *p;                   /* through lwIP: a pbuf over a transmit mbuf */
    const struct ini_dgram_dst *dst;
    uint8_t *payload;
    uint16_t len;
};
uint8_t *ini_dgram_frame_begin_slow(struct ini_dgram *dg, struct ini_dgram_dst *dst, uint16_t len,
                                    struct ini_dgram_frame *f);
/* Always inline: the common case, a predicted frame to a peer found
 * before, is a dozen instructions inside the transport's send (a call to
 * it cost about 15 more a frame under callgrind). */
static inline __attribute__((always_inline)) uint8_t *
ini_dgram_frame_begin(struct ini_dgram *dg, struct ini_dgram_dst *dst, uint16_t len, struct ini_dgram_frame *f)
{
    if (!dst->slot || len > dg->frame_max)
        return ini_dgram_frame_begin_slow(dg, dst, len, f);
    struct rte_mbuf *m = ini_netif_tx_mbuf(dg->nf);
    if (!m || rte_pktmbuf_tailroom(m) < INI_TX_HEADROOM + len) {
        if (m)
            rte_pktmbuf_free(m);
        dg->nf->stats.tx_no_mbuf++;
        return NULL;
    }
    f->dst = dst;
    f->len = len;
    f->p = NULL;
    f->m = m;
    f->payload = rte_pktmbuf_mtod(m, uint8_t *) + INI_TX_HEADROOM;
    return f->payload;
}
int ini_dgram_frame_send(struct ini_dgram *dg, struct ini_dgram_frame *f, uint16_t payload_sum);

/* Frames of data the link takes for dst now without dropping any: its
 * queue's room (netif_dpdk.h ini_netif_txq_room) less a burst kept for
 * control frames.  A full port holds frames for the next turn; a sender
 * that finds no room for a message keeps it (the INI's stall list, as
 * for a full window) rather than have the link drop its frames.  A
 * destination outside the static peers (lwIP's path) is not bounded. */
#define INI_DGRAM_CONTROL_RESERVE INI_NETIF_BURST
uint32_t ini_dgram_tx_room_slow(struct ini_dgram *dg, struct ini_dgram_dst *dst);
static inline uint32_t ini_dgram_tx_room(struct ini_dgram *dg, struct ini_dgram_dst *dst)
{
    if (!dst->slot)
        return ini_dgram_tx_room_slow(dg, dst);
    uint32_t room = ini_netif_txq_room(&dg->nf->txqs[dst->slot->txq]);
    return room > INI_DGRAM_CONTROL_RESERVE ? room - INI_DGRAM_CONTROL_RESERVE : 0;
}
/* Bytes of IP payload in each fragment but the last, as lwIP's ip4_frag
 * cuts them: the MTU less the IP header, in whole 8-byte units. */
static inline uint32_t ini_dgram_frag_piece(const struct ini_dgram *dg)
{
    return ((uint32_t)dg->nf->netif.mtu - 20) & ~7u;
}
/* The frames of a datagram of len bytes of UDP payload: 1 when it fits a
 * frame, else its IP fragments (the UDP header is in the first). */
static inline uint32_t ini_dgram_frames(const struct ini_dgram *dg, uint32_t len)
{
    if (len <= dg->frame_max)
        return 1;
    uint32_t piece = ini_dgram_frag_piece(dg);
    return (len + 8 + piece - 1) / piece;
}
/* Several frames: len bytes at payload (summing to payload_sum), in IP
 * fragments.  *ip_id: 0 for a new datagram, which gets the next IP id
 * (stored as 1 << 16 | id); a copy passes it again and keeps the id, so
 * that the receiver's reassembly completes the datagram from fragments
 * of any of its copies (RFC 791, "Identification": an identical
 * retransmission may carry the same identifier).  Only the first
 * fragment may differ between copies (UDP and transport headers), and a
 * fragment of an offset already held is dropped whole, so whatever
 * combination completes is consistent.  0: queued; -1: no buffers, or
 * lwIP refused it. */
int ini_dgram_send_frags(struct ini_dgram *dg, struct ini_dgram_dst *dst, const uint8_t *payload, uint32_t len,
                         uint16_t payload_sum, uint32_t *ip_id);
/* The same for a payload of two pieces, head_len bytes at head (copied)
 * and body_len at body (referenced until sent): through lwIP. */
int ini_dgram_send_parts(struct ini_dgram *dg, struct ini_dgram_dst *dst, const uint8_t *head, uint16_t head_len,
                         const uint8_t *body, uint32_t body_len, uint16_t payload_sum);

/* ---- receive ---- */

/* Takes a received frame (its owner: meta describes it): through the
 * link's checks (ini_netif_rx), then predicted or through lwIP; a datagram
 * for the port reaches the input function. */
void ini_dgram_input(struct ini_dgram *dg, struct rte_mbuf *m, struct ini_rx_meta *meta);
/* Runs lwIP's timers (sys_check_timeouts: IP reassembly ageing, about every
 * 100 ms is enough) and counts the datagrams the reassembly ages out.
 * One lwIP per process: with several endpoints, any may run them. */
void ini_dgram_timers(struct ini_dgram *dg);
/* lwIP's counters (one lwIP per process: shared by its endpoints) and this
 * endpoint's reassembly losses. */
struct ini_ip_stats ini_dgram_ip_stats(const struct ini_dgram *dg);
/* lwIP's pool number i (0 up to the count it returns): its name and its
 * elements in use, read with relaxed loads (safe from a telemetry thread);
 * the count of pools, or -1 past the last. */
int ini_dgram_pool_used(int i, const char **name, unsigned *used);

#endif
