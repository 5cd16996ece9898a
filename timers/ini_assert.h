/* placeholder until the core's assertion header lands */
#ifndef INI_ASSERT_H
#define INI_ASSERT_H
#include <stdio.h>
#include <stdlib.h>
#ifdef INI_DEBUG
#define INI_ASSERT(x) do { if (!(x)) { fprintf(stderr, "%s:%d: assertion failed: %s\n", __FILE__, __LINE__, #x); abort(); } } while (0)
#else
#define INI_ASSERT(x) ((void)0)
#endif
#endif
