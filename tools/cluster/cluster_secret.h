/*
 * cluster_secret.h - the run's secrets, drawn once per run by the
 * launcher that starts it (`run`, `up`) or, across hosts, by the head:
 *
 *   epoch    16 random bytes every daemon gets in INI_RUN_EPOCH: the
 *            transport binds its MAC keys to it (frames of another run
 *            fail), memif draws its connection secret from it;
 *   run key  32 random bytes, with the MAC on (ini_config_mac_on) and no
 *            security.key_file: written RUN_DIR/run.key, mode 0600, and
 *            named to the daemons by INI_RUN_KEY.
 *
 * The head hands both to every host's part on the part's stdin (ssh's
 * encrypted channel, or srun's), one line before anything else, never on
 * a command line: other users read command lines in /proc.
 * docs/security.md, "Who is trusted".
 */
#ifndef CLUSTER_SECRET_H
#define CLUSTER_SECRET_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"

struct run_secrets {
    uint8_t epoch[16];
    uint8_t key[INI_KEY_LEN];
};

/* Both drawn from the kernel's random source; 0, or -1 with err. */
int secrets_draw(struct run_secrets *s, char *err, size_t errlen);
/* This host's daemons get them: INI_RUN_EPOCH set, and with the MAC on and
 * no key_file RUN_DIR/run.key written 0600 and INI_RUN_KEY set; 0, or -1
 * with err. */
int secrets_apply(const struct run_secrets *s, const struct ini_config *cfg, const char *run_dir, char *err,
                  size_t errlen);
/* The line "secrets EPOCH KEY\n" (hex) written to fd: 0, or -1. */
int secrets_send(int fd, const struct run_secrets *s);
/* That line read from fd (byte by byte: what follows it stays unread),
 * waiting at most timeout_ms; 0, or -1 with err. */
int secrets_receive(int fd, struct run_secrets *s, int timeout_ms, char *err, size_t errlen);
/* The run summary's line: "MAC: on (run key)", "MAC: on (security.key_file)",
 * or "MAC: off (...)". */
const char *secrets_mac_summary(const struct ini_config *cfg);

#endif
