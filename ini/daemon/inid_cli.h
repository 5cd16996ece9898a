/*
 * inid_cli.h - the command line of an INI daemon, as the launcher writes
 * it.  inid and its stand-in, cluster-fake-inid (the "no INI" baseline),
 * share this table so that whatever the launcher passes one, the other
 * accepts; each handles the options it uses.
 */
#ifndef INID_CLI_H
#define INID_CLI_H

#include <getopt.h>

#define INID_LONG_OPTIONS                                                                          \
    { "config", required_argument, NULL, 'c' }, { "ini", required_argument, NULL, 'i' },          \
    { "tag", required_argument, NULL, 't' },    { "run-dir", required_argument, NULL, 'r' },      \
    { "ini-policy", required_argument, NULL, 'p' }, { "idle", required_argument, NULL, 'I' },     \
    { "trace", required_argument, NULL, 'T' },  { "fault", required_argument, NULL, 'f' },        \
    { "knob", required_argument, NULL, 'k' },   { "policy", required_argument, NULL, 'P' },        \
    { "launcher-pid", required_argument, NULL, 'L' }, { "capture", no_argument, NULL, 'C' },      \
    { "segment", required_argument, NULL, 'S' }, { "capture-limit", required_argument, NULL, 'l' }, \
    { "capture-ring", required_argument, NULL, 'R' }, { "capture-snap", required_argument, NULL, 's' }, \
    { "resume", no_argument, NULL, 'U' }

/* --resume: the launcher restarted the daemon after it died; it resumes
 * its connections from its state region (docs/transport.md, "An INI that
 * restarts").  A daemon that cannot resume without losing or repeating a
 * message exits with INI_EXIT_NO_RESUME, and the launcher does not start
 * it again: it stops the machine, as when restarts are off. */
#define INI_EXIT_NO_RESUME 4

#endif
