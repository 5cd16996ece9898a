/*
 * inid_telemetry.h - live figures on DPDK's telemetry socket
 * (inid_telemetry.c says what each /ini/... command answers).
 */
#ifndef INI_INID_TELEMETRY_H
#define INI_INID_TELEMETRY_H

#include "inid.h"

/* Registers the /ini/... telemetry commands, once everything they read
 * exists (the stack, the ports): 0 or -1 after saying why. */
int  inid_telemetry_init(const struct inid *d);
/* Removes this run's DPDK runtime directory (at exit). */
void inid_telemetry_cleanup(void);

#endif
