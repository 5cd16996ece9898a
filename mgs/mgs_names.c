/*
 * mgs_names.c - the names of MGS's message types and request kinds, for
 * its counters (mgs_stats.c) and for the trace tools, which show the types
 * and kinds the compute nodes' traces record (tools/trace/; this file
 * needs nothing else of MGS, so they link it alone).
 */
#include "mgs_internal.h"

static const char *const msg_names[MGS_M_TYPES] = {
    [MGS_M_RREQ] = "RREQ", [MGS_M_WREQ] = "WREQ", [MGS_M_DATA] = "DATA",
    [MGS_M_REL] = "REL", [MGS_M_INV] = "INV", [MGS_M_ACK] = "ACK",
    [MGS_M_DIFF] = "DIFF", [MGS_M_RACK] = "RACK", [MGS_M_SWGRANT] = "SWGRANT",
    [MGS_M_RECALL] = "RECALL", [MGS_M_RECALL_DATA] = "RECALL_DATA",
    [MGS_M_LOCK_REQ] = "LOCK_REQ", [MGS_M_LOCK_FWD] = "LOCK_FWD", [MGS_M_TOKEN] = "TOKEN",
    [MGS_M_ARRIVE] = "ARRIVE", [MGS_M_GO] = "GO", [MGS_M_SETUP] = "SETUP",
    [MGS_M_SETUP_ACK] = "SETUP_ACK", [MGS_M_BLOB] = "BLOB",
};

const char *mgs_msg_name(int type)
{
    return type > 0 && type < MGS_M_TYPES && msg_names[type] ? msg_names[type] : "?";
}

static const char *const req_names[] = {
    [MGS_REQ_FAULT] = "fault", [MGS_REQ_LOCK] = "lock", [MGS_REQ_UNLOCK] = "unlock",
    [MGS_REQ_BARRIER] = "barrier", [MGS_REQ_CLUSTER_BARRIER] = "cluster barrier",
    [MGS_REQ_PUBLISH] = "publish", [MGS_REQ_ENTER_PROTOCOL] = "enter protocol",
    [MGS_REQ_BLOB_SEND] = "blob send", [MGS_REQ_BLOB_WAIT] = "blob wait", [MGS_REQ_COUNTERS] = "counters",
    [MGS_REQ_LOCKS_INIT] = "locks init",
};

const char *mgs_req_name(int kind)
{
    return kind >= 0 && kind < (int)(sizeof(req_names) / sizeof(req_names[0])) && req_names[kind]
               ? req_names[kind] : "?";
}
