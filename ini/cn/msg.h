/*
 * msg.h - the active-message header, as it sits in the rings and on the wire.
 *
 * A message from a compute node to an INI is one ring record laid out as
 *
 *     ini_rec (16) | transport headroom (16) | ini_am_hdr (16) | payload
 *
 * The message stays in the ring until it is acknowledged, and each
 * transmission copies it once (docs/architecture.md, "The path of a
 * message"): a message of one frame, and each segment of a longer one, is
 * copied behind its transport header (stack/swp.h) into a transmit mbuf.
 * A longer message sent as IP fragments (stack.segmentation off) gets its
 * transport header and CRC (up to 14 bytes) written into the headroom,
 * right-aligned against the AM header, and each fragment is copied from
 * there into its own mbuf; with a MAC, which does not fit, they go in a
 * buffer of their own in front of it.  The first 8 bytes of the headroom
 * carry the compute node's submit time (TSC) for traces, until a transport
 * header replaces them: the INI reads them first.
 *
 * A message from an INI to a compute node is a record holding
 * ini_am_hdr | payload.  The AM header itself is defined beside the
 * transport that carries it (stack/am_hdr.h).
 */
#ifndef INI_MSG_H
#define INI_MSG_H

#include <stdint.h>

#include "am_hdr.h"     /* struct ini_am_hdr, the transport's too */

#define INI_HEADROOM 16

/* ini_rec.flags of a compute node's message written in its ring record
 * by the program itself (ini_send_inplace), not copied there by ini_send:
 * the INI counts the copies of the compute-node path by it. */
#define INI_REC_F_INPLACE 0x1u

#define INI_MAX_HANDLERS 256

#endif
