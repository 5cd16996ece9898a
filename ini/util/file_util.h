/*
 * file_util.h - opening input files safely, and naming them in errors.
 *
 * Every input read whole (a configuration, a trace file) goes through
 * ini_open_regular: a FIFO given by mistake must not hang the program in
 * open() or read(), and a huge file must be refused at once rather than
 * parsed for minutes.  Error messages are fixed-size lines, written by
 * ini_fail; a very long path must not push the reason out of them, hence
 * ini_path_for_message.  Beside them: ini_read_fd, what a child wrote on
 * a pipe, and INI_FREE_ALL, a loader's arrays freed in one statement.
 */
#ifndef INI_FILE_UTIL_H
#define INI_FILE_UTIL_H

#include <stddef.h>

/* Opens a file that is to be read whole (a configuration, a trace) without
 * ever blocking: O_NONBLOCK, so that a FIFO without a writer cannot hang the
 * open, then refuses anything but a regular file of at most max_bytes
 * (no limit when negative).  Returns the descriptor (O_NONBLOCK cleared,
 * close-on-exec), or -1 with the reason in why, e.g. "not a regular file
 * (a FIFO or pipe)", "1200000 bytes, more than the limit of 1048576". */
int ini_open_regular(const char *path, long long max_bytes, char *why, size_t whylen);

/* The whole of the file at path, read as ini_open_regular opens it (never
 * blocking, a regular file of at most max_bytes, no limit when negative):
 * a malloc'ed buffer, NUL-terminated for readers of text, its length in
 * *len; or NULL with the reason in why ("not a regular file (a FIFO or
 * pipe)", "out of memory", "read error after N bytes").  The caller frees
 * it. */
char *ini_read_regular(const char *path, long long max_bytes, size_t *len, char *why, size_t whylen);

/* What a child wrote on a pipe: reads fd to its end (EOF or an error),
 * keeping the first cap - 1 bytes in buf, NUL-terminated, and discarding
 * the rest, so that a writer with more to say never blocks on a full pipe
 * while its reader waits for it to exit.  Retries on EINTR; does not close
 * fd (the caller's).  Returns the number of bytes kept.  cap >= 1. */
size_t ini_read_fd(int fd, char *buf, size_t cap);

/* PATH for an error message: as is when it fits in buf (buflen bytes),
 * else its start and end around "...", so that the reason written after it
 * survives in a fixed-size message.  Returns buf. */
const char *ini_path_for_message(const char *path, char *buf, size_t buflen);

/* The error convention of the readers and loaders (a trace, Water's input,
 * a generated configuration): the formatted message into err (errlen
 * bytes, truncated to fit; nothing when err is NULL or errlen 0), and -1,
 * so that a check reads `return ini_fail(err, errlen, "...", ...);`. */
int ini_fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* What a loader allocated, freed in one statement: free() on each of the
 * n pointers (NULL ones too, as free allows).  INI_FREE_ALL(a, b, c) lists
 * them in place: a struct's arrays are freed field by field in one line
 * each teardown, not one free() a line. */
void ini_free_each(void *const *ptrs, size_t n);
#define INI_FREE_ALL(...) \
    ini_free_each((void *const[]){ __VA_ARGS__ }, sizeof((void *const[]){ __VA_ARGS__ }) / sizeof(void *))

#endif
