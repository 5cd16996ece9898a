/*
 * ini_assert.h - the core's assertion, INI_ASSERT(condition): the
 * invariants the code states in its comments (ring and queue indices,
 * window bounds, the timer lists' order, who owns a slot), checked where
 * they are relied on.  lwIP has LWIP_ASSERT and DPDK RTE_ASSERT; this is
 * ours, for timers/, stack/ and ini/.
 *
 * On in debug and sanitizer builds: when INI_DEBUG is defined (the top
 * Makefile's SAN=1 adds -DINI_DEBUG; any build may add it to CFLAGS).  A
 * broken invariant prints one line, "FILE:LINE: FUNCTION: assertion
 * failed: CONDITION", on stderr and aborts, so that ASan, a debugger or a
 * core file shows the state where it broke, not later where it hurts.
 * Off by default: the -O2 release build compiles the condition (it stays
 * type-checked) but never evaluates it, so the per-message path has no
 * extra instruction.  A condition must therefore have no side effect.
 *
 * On the ground floor, beside the timers, because every core floor may
 * include timers/ (docs/architecture.md, "Floors"): one header serves
 * them all, and needs nothing but libc.
 *
 * Like <assert.h> with NDEBUG, the macro follows INI_DEBUG at each
 * inclusion, so a test may include it again after defining or undefining
 * INI_DEBUG.
 */
#ifndef INI_ASSERT_H
#define INI_ASSERT_H

#include <stdio.h>
#include <stdlib.h>

/* Says which invariant broke, where, and aborts.  Cold and out of the
 * way of the code that checks. */
__attribute__((cold, noreturn, unused)) static void ini_assert_fail(const char *cond, const char *file, int line,
                                                                   const char *func)
{
    fprintf(stderr, "%s:%d: %s: assertion failed: %s\n", file, line, func, cond);
    fflush(stderr);
    abort();
}

#endif

#undef INI_ASSERT
#ifdef INI_DEBUG
#define INI_ASSERT(cond) \
    (__builtin_expect(!!(cond), 1) ? (void)0 : ini_assert_fail(#cond, __FILE__, __LINE__, __func__))
#else
#define INI_ASSERT(cond) ((void)sizeof(!(cond)))
#endif
