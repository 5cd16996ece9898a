/*
 * fuzz_parsers.c - libFuzzer harness of the small parsers: the fault
 * specification (ini_fault_parse, `--fault` and faults = {...}), the
 * knobs (ini_knobs_parse), the policy names, and the command-line number
 * and choice parsers of ini/util/cli.c (cli_parse_long, cli_parse_double,
 * cli_parse_choice).
 *
 * The cli parsers exit with status 2 on bad input, as a program must; the
 * harness is linked with -Wl,--wrap=exit and turns an exit inside a parser
 * into a return (longjmp), after checking that its status is 2.
 *
 * Input: byte 0 picks the parser; for the number parsers bytes 1-16 give
 * the range; the rest is the text (NUL-terminated by the harness).
 */
#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "config.h"

void __real_exit(int status) __attribute__((noreturn));
void __wrap_exit(int status) __attribute__((noreturn));

static jmp_buf back;
static volatile int in_parser;

void __wrap_exit(int status)
{
    if (in_parser) {
        in_parser = 0;
        if (status != 2)
            abort();                    /* bad input is status 2, nothing else */
        longjmp(back, 1);
    }
    __real_exit(status);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    cli_init("fuzz_parsers", "usage: fuzz_parsers\n");
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char text[4096];
    if (size < 1)
        return 0;
    uint8_t which = data[0] % 6;
    size_t skip = 1;
    int64_t lo = 0, hi = 0;
    if (which == 2 || which == 3) {
        if (size < 17)
            return 0;
        memcpy(&lo, data + 1, 8);
        memcpy(&hi, data + 9, 8);
        skip = 17;
    }
    size_t n = size - skip < sizeof text - 1 ? size - skip : sizeof text - 1;
    memcpy(text, data + skip, n);
    text[n] = '\0';
    char err[512];
    if (setjmp(back))
        return 0;                       /* a parser refused the text: exit(2) */
    in_parser = 1;
    switch (which) {
    case 0: {
        struct ini_fault_cfg f;
        ini_fault_defaults(&f);
        if (ini_fault_parse(text, &f, err, sizeof err) == 0) {
            if (!(f.drop >= 0 && f.drop <= 1 && f.dup >= 0 && f.dup <= 1 && f.reorder >= 0 && f.reorder <= 1 &&
                  f.corrupt >= 0 && f.corrupt <= 1 && f.delay >= 0 && f.delay <= 1))
                abort();                /* accepted a rate outside 0..1 */
        } else if (!err[0]) {
            abort();
        }
        break;
    }
    case 1: {
        struct ini_knobs k = { 0 };
        if (ini_knobs_parse(text, &k, err, sizeof err) < 0 && !err[0])
            abort();
        break;
    }
    case 2: {
        long l = (long)(lo < hi ? lo : hi), h = (long)(lo < hi ? hi : lo);
        long v = cli_parse_long("--n", text, l, h);
        if (v < l || v > h)
            abort();
        break;
    }
    case 3: {
        double l, h;
        memcpy(&l, &lo, 8);
        memcpy(&h, &hi, 8);
        if (!(l <= h))
            break;                      /* NaN or an empty range: not a caller's use */
        double v = cli_parse_double("--x", text, l, h);
        if (!(v >= l && v <= h))
            abort();
        break;
    }
    case 4: {
        static const char *const choices[] = { "static", "round-robin", "load-aware", NULL };
        int k = cli_parse_choice("--policy", text, choices);
        if (k < 0 || k > 2 || strcmp(choices[k], text))
            abort();
        break;
    }
    default: {
        int k = ini_policy_parse(text);
        if (k >= 0 && strcmp(ini_policy_name((enum ini_policy)k), text))
            abort();
        break;
    }
    }
    in_parser = 0;
    return 0;
}
