/* arch/cc.h - lwIP's platform definitions for Linux/x86-64 with glibc. */
#ifndef INI_LWIP_ARCH_CC_H
#define INI_LWIP_ARCH_CC_H
#include <stdio.h>
#include <stdlib.h>
#define LWIP_PLATFORM_DIAG(x)   do { printf x; } while (0)
#define LWIP_PLATFORM_ASSERT(x) do { fprintf(stderr, "lwip assert: %s\n", x); abort(); } while (0)
#define LWIP_RAND()             ((u32_t)rand())
#define LWIP_NO_CTYPE_H         0
/* Byte order: one instruction inline, not a call into def.c on every
 * header field (lwIP tests these names with #ifndef).  Functions, not
 * expressions, because lwIP maps htons() to these names and glibc's
 * <netinet/in.h> then declares them. */
static inline unsigned short ini_lwip_bswap16(unsigned short x) { return __builtin_bswap16(x); }
static inline unsigned int ini_lwip_bswap32(unsigned int x) { return __builtin_bswap32(x); }
#define lwip_htons ini_lwip_bswap16
#define lwip_htonl ini_lwip_bswap32
#endif
