/*
 * ini_policy.h - the INI scheduling policies' names and the limits they
 * hold, without the policies themselves (loadbal.h): what the
 * configuration (config.h) and so the public headers need.  Plain C and
 * C++: no atomics here, since the policies' load counters (loadbal.h) are
 * C11 _Atomic, which C++ does not read.
 */
#ifndef INI_POLICY_H
#define INI_POLICY_H

enum ini_policy { INI_POLICY_STATIC, INI_POLICY_ROUND_ROBIN, INI_POLICY_LOAD_AWARE };

#define INI_LB_MAX_CHOICES  16    /* INIs one decision picks among (a cluster's) */
#define INI_LB_MAX_CLUSTERS 64    /* destination clusters, each with its round-robin turn */
#define INI_LB_MAX_INIS     128   /* INI ids whose load is known */

#endif
