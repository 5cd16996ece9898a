/*
 * stack_defaults.h - the stack's defaults, written once, in a header that
 * needs nothing else: the stack takes them (ini_swp_params_default,
 * ini_stack_params_default) and so can the configuration's defaults
 * (ini/config/config.c, built into the compute nodes' library without lwIP or
 * DPDK), which only include this file.
 */
#ifndef INI_STACK_DEFAULTS_H
#define INI_STACK_DEFAULTS_H

/* The transport's parameters that have a default (docs/config.md, group
 * stack). */
struct ini_swp_defaults {
    int mtu;                  /* bytes of an IP packet on the link */
    int window;               /* unacknowledged frames per connection */
    int seq_bits;             /* 8, 16 or 32 */
    int send_timeout_us, ack_timeout_us;
    int nak;                  /* NAKs on out-of-order arrival */
    int segment;              /* messages longer than a frame as segments: chosen by measurement
                                 (docs/transport.md, "Segments or IP fragments") */
};

static inline struct ini_swp_defaults ini_swp_defaults(void)
{
    return (struct ini_swp_defaults){
        .mtu = 1500, .window = 64, .seq_bits = 32, .send_timeout_us = 2000, .ack_timeout_us = 200,
        .nak = 1, .segment = 1,
    };
}

/* mbufs in a stack's own pool. */
#define INI_STACK_MBUFS 16383

/* Data room of an mbuf that holds a frame of the MTU: the frame, DPDK's
 * headroom (RTE_PKTMBUF_HEADROOM, 128: stack.c checks) and some slack, at
 * least DPDK's default (RTE_MBUF_DEFAULT_BUF_SIZE, 2,048 + 128). */
static inline int ini_stack_mbuf_room(int mtu)
{
    int room = mtu + 14 + 128 + 64;
    return room < 2048 + 128 ? 2048 + 128 : room;
}

/* memif's packet buffer size (its `bsize` devarg) for frames of the MTU.
 * memif's buffers are 2048 bytes unless told otherwise; DPDK 22.11's memif
 * driver chains buffers for a longer frame but loses track of the chain
 * under load (frames counted many times, ACKs for numbers never sent,
 * with MTUs above ~2,035).  One buffer per frame avoids chains: the frame
 * (MTU + Ethernet header), rounded up to 128 bytes, at least the default. */
static inline unsigned ini_stack_memif_bsize(int mtu)
{
    unsigned frame = (unsigned)mtu + 14;
    unsigned bsize = (frame + 127) & ~127u;
    return bsize < 2048 ? 2048 : bsize;
}

#endif
