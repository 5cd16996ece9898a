/*
 * bench_checksum.c - ini-bench --checksum: cycles (TSC) per message of the
 * one pass that takes a message's CRC32C and its sum for the UDP checksum
 * (stack/checksum.c), on each path this CPU has: as the sender takes it
 * (the message in one piece), as the receiver takes it (over a datagram's
 * IP fragments, 1,480 bytes each), and as a segment's transmission takes
 * it (copied into its frame, 1,458 bytes a call).  Best of the repetitions
 * (the machine's noise only adds); the same buffers for every path.
 */
#include "bench/bench.h"
#include "checksum.h"
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MSG = 65000, FRAG = 1480, SEG = 1458 };

/* One message's pass in pieces of `piece` bytes (into dst when not NULL),
 * as the callers chain it. */
static uint32_t pass(const uint8_t *msg, uint8_t *dst, size_t piece, uint64_t *acc)
{
    uint32_t crc = 0;
    for (size_t off = 0; off < MSG; off += piece) {
        size_t n = MSG - off < piece ? MSG - off : piece;
        crc = dst ? ini_crc32c_sum_copy(0, dst + off, msg + off, n, acc) : ini_crc32c_sum(crc, msg + off, n, acc);
    }
    return crc;
}

static uint64_t best_cycles(const uint8_t *msg, uint8_t *dst, size_t piece, int reps)
{
    uint64_t best = UINT64_MAX;
    volatile uint32_t sink = 0;
    for (int r = 0; r < reps; r++) {
        uint64_t acc = 0, t0 = bench_rdtsc();
        sink += pass(msg, dst, piece, &acc);
        uint64_t t = bench_rdtsc() - t0;
        sink += (uint32_t)acc;
        if (t < best)
            best = t;
    }
    (void)sink;
    return best;
}

int bench_checksum_main(int argc, char **argv)
{
    int reps = 2000;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--reps"))
            reps = (int)cli_parse_long("--reps", cli_value(argc, argv, &i), 1, 1000000);
        else
            cli_unknown_option(argv[i]);
    }
    static uint8_t msg[MSG], dst[MSG];
    for (size_t i = 0; i < MSG; i++)
        msg[i] = (uint8_t)(i * 2654435761u >> 11);
    static const char *const names[] = {"scalar", "avx2 (three CRC chains)", "clmul (AVX-512 VPCLMULQDQ)"};
    printf("CRC32C and UDP sum in one pass: TSC cycles per %d-byte message (TSC %.2f GHz), best of %d\n", MSG,
           (double)bench_tsc_hz() / 1e9, reps);
    printf("%-28s %12s %14s %16s\n", "path", "one piece", "1480-byte frags", "1458-byte copies");
    enum ini_checksum_path top = ini_checksum_use(INI_CSUM_CLMUL);
    for (int path = INI_CSUM_SCALAR; path <= (int)top; path++) {
        ini_checksum_use((enum ini_checksum_path)path);
        uint64_t one = best_cycles(msg, NULL, MSG, reps), frags = best_cycles(msg, NULL, FRAG, reps),
                 segs = best_cycles(msg, dst, SEG, reps);
        printf("%-28s %12llu %14llu %16llu\n", names[path], (unsigned long long)one, (unsigned long long)frags,
               (unsigned long long)segs);
    }
    if (top < INI_CSUM_CLMUL)
        printf("(this CPU lacks the faster paths)\n");
    ini_checksum_use(top);
    return 0;
}
