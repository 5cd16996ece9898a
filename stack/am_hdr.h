/*
 * am_hdr.h - the active-message header: the first bytes of every message
 * the transport carries (stack/swp.h), in the rings and on the wire.
 *
 * It lives at the bottom of the stack because the transport reads its
 * length (it counts payload bytes and rejects DATA too short to hold one);
 * the INI (ini/cn/msg.h) and the compute nodes fill and read its fields.
 * All fields are little-endian on the wire.
 */
#ifndef INI_AM_HDR_H
#define INI_AM_HDR_H

#include <stdint.h>

struct ini_am_hdr {
    uint16_t src_pe;     /* global PE id of the sender */
    uint16_t dst_pe;     /* global PE id of the receiver */
    uint16_t handler;    /* index in the receiving program's handler table */
    uint16_t flags;      /* set by the sending INI: its load (queued and stalled messages), for
                            the receiving INI's load-aware policy; compute nodes ignore it */
    uint32_t len;        /* payload bytes */
    uint32_t pe_seq;     /* sender-assigned, for the application's own checks */
};

_Static_assert(sizeof(struct ini_am_hdr) == 16, "AM header is 16 bytes");

#endif
