/*
 * inid_counters.h - the INI's counters file and the tables of its names
 * (inid_counters.c), shared with the telemetry socket (inid_telemetry.c).
 */
#ifndef INI_INID_COUNTERS_H
#define INI_INID_COUNTERS_H

#include <stddef.h>

#include "counters.h"
#include "inid.h"

/* The counters' names, one table per group, for the counters file and the
 * telemetry alike. */
extern const struct ini_counter inid_swp_counters[], inid_message_counters[], inid_link_counters[];
extern const size_t inid_swp_counters_n, inid_message_counters_n, inid_link_counters_n;

/* Writes RUN_DIR/ini<ID>.counters.json from d's figures (after the loop);
 * a file that cannot be opened is said on stderr, and the daemon goes on
 * stopping. */
void inid_write_counters(struct inid *d);

#endif
