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
 * ini_am_hdr | payload.  The AM header itself is defined beside the
 * transport that carries it (stack/am_hdr.h).
 */
#ifndef INI_MSG_H
#define INI_MSG_H

#include <stdint.h>

#include "am_hdr.h"     /* struct ini_am_hdr, the transport's too */

#define INI_HEADROOM 16

#define INI_MAX_HANDLERS 256

#endif
