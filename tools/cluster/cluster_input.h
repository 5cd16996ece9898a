/*
 * cluster_input.h - a configuration given as a stream.
 *
 * `ini-cluster run <(gen ...)` hands the launcher /dev/fd/63, a pipe that
 * can be read once and that no daemon or program could open after it.  So
 * a configuration that is not a regular file (pipe, FIFO, device) is read
 * once, whole, by the launcher (bounded in size, and in how long it waits
 * for data, so that a FIFO nobody writes is an error, not a hang), checked
 * from memory, and copied into the run directory; every process of the run
 * gets that copy.  A regular file is still passed by its own path, so that
 * its relative @include directives keep working.
 */
#ifndef CLUSTER_INPUT_H
#define CLUSTER_INPUT_H

#include <stddef.h>

/* Reads everything PATH yields until end of file into a NUL-terminated
 * heap buffer.  Refuses (NULL, reason in err) more than max bytes, a NUL
 * byte, and a wait of more than idle_ms for the next piece of data. */
char *read_stream_bounded(const char *path, size_t max, int idle_ms, char *err, size_t errlen);

/* Writes text to DIR/config.cfg (mode 0644) and its absolute name into
 * out.  0, or -1 with the reason in err. */
int write_run_config(const char *dir, const char *text, char *out, size_t outlen, char *err,
                     size_t errlen);

#endif
