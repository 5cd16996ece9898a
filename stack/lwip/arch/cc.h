/* arch/cc.h - lwIP's platform definitions for Linux/x86-64 with glibc. */
#ifndef INI_LWIP_ARCH_CC_H
#define INI_LWIP_ARCH_CC_H
#include <stdio.h>
#include <stdlib.h>
#define LWIP_PLATFORM_DIAG(x)   do { printf x; } while (0)
#define LWIP_PLATFORM_ASSERT(x) do { fprintf(stderr, "lwip assert: %s\n", x); abort(); } while (0)
#define LWIP_RAND()             ((u32_t)rand())
#define LWIP_NO_CTYPE_H         0
#endif
