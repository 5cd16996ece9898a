/*
 * msg.h - the active-message header, as it sits in the rings and on the wire.
 *
 * A message from a compute node to an INI is one ring record laid out as
 *
 *     ini_rec (16) | transport headroom (16) | ini_am_hdr (16) | payload
 *
 * The INI writes its transport header (stack/swp.h) into the headroom,
 * right-aligned against the AM header, and hands lwIP one PBUF_REF over
 * transport header + AM header + payload: the message is never copied
 * inside the INI until lwIP's link output copies each frame into an mbuf.
 * The first 8 bytes of the headroom carry the compute node's submit time
 * (TSC) for traces, until the transport header (up to 14 bytes) replaces
 * them: the INI reads them first.
 *
 * A message from an INI to a compute node is a record holding
 * ini_am_hdr | payload.  All fields are little-endian on the wire.
 */
#ifndef INI_MSG_H
#define INI_MSG_H

#include <stdint.h>

#define INI_HEADROOM 16

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

#define INI_MAX_HANDLERS 256

#endif
