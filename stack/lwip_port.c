/* lwip_port.c - what lwIP (NO_SYS=1) needs from the platform: a millisecond
 * clock for its timeouts (IP reassembly ageing).  CLOCK_MONOTONIC_COARSE is
 * read from the vDSO, without a system call. */
#include <time.h>

#include "lwip/arch.h"
#include "lwip/sys.h"

u32_t sys_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (u32_t)((uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u);
}
