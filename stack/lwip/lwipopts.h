/*
 * lwipopts.h - lwIP 2.1.3 configured as the UDP/IP layer of an INI.
 *
 * One protocol thread owns the whole stack (NO_SYS=1, no locking).  Nothing
 * is allocated with malloc: memp pools and the heap are static arrays, and
 * mem_malloc() draws from fixed-size pools (MEM_USE_POOLS, lwippools.h) so
 * that the per-message allocations lwIP makes itself (the UDP header pbuf of
 * a PBUF_REF payload, one header pbuf per IP fragment) are O(1).  Received
 * frames never come from lwIP's pools: they are custom pbufs wrapping DPDK
 * mbufs (stack/netif_dpdk.c).
 *
 * Datagrams up to 65,535 bytes are fragmented and reassembled at any MTU the
 * configuration allows; at MTU 1500 a 65,535-byte datagram is 45 fragments.
 */
#ifndef INI_LWIPOPTS_H
#define INI_LWIPOPTS_H

#define NO_SYS                      1
#define SYS_LIGHTWEIGHT_PROT        0
#define LWIP_SOCKET                 0
#define LWIP_NETCONN                0
#define LWIP_TCP                    0
#define LWIP_RAW                    0
#define LWIP_UDP                    1
/* No ICMP: nothing here uses it, and lwIP would answer strangers with it
 * (port unreachable for every datagram to a port nobody listens on, time
 * exceeded for every datagram the reassembly gives up): a frame from
 * anyone would cost a transmit buffer and a frame out. */
#define LWIP_ICMP                   0
#define LWIP_IPV4                   1
#define LWIP_IPV6                   0
#define LWIP_DHCP                   0
#define LWIP_AUTOIP                 0
#define LWIP_IGMP                   0
#define LWIP_DNS                    0
/* Peers are known from the configuration: the glue writes Ethernet headers
 * itself from a static table, so lwIP needs neither ARP nor its Ethernet layer. */
#define LWIP_ARP                    0
#define LWIP_ETHERNET               0
#define LWIP_SINGLE_NETIF           0     /* tests join two netifs in one stack */
#define LWIP_NETIF_TX_SINGLE_PBUF   0     /* fragments reference the payload */
#define LWIP_STATS                  1     /* checksum and reassembly drops */
/* For ipReasmFails: the datagrams reassembly gives up (aged out or evicted),
 * which lwIP's IPFRAG stats do not count (stack/dgram.c). */
#define MIB2_STATS                  1
#define LWIP_STATS_DISPLAY          0
#define MEM_STATS                   0
/* Elements in use per pool: the unit tests check after every test that
 * lwIP's pools are back to empty (tests/unit/loop_harness.c), as lwIP's
 * own tests do.  A few instructions per allocation, none of which the
 * INI makes for a message of one frame. */
#define MEMP_STATS                  1
#define SYS_STATS                   0
#define LINK_STATS                  0
#define ICMP_STATS                  0
#define LWIP_TIMERS                 1
#define LWIP_NETIF_LOOPBACK         0

/* Fragmentation and reassembly of datagrams up to 65,535 bytes. */
#define IP_FRAG                     1
#define IP_REASSEMBLY               1
#define IP_REASS_MAX_PBUFS          4096  /* fragments held over all datagrams */
#define MEMP_NUM_REASSDATA          256   /* datagrams in reassembly at once */
#define IP_REASS_MAXAGE             3     /* seconds a partial datagram is kept */
#define MEMP_NUM_FRAG_PBUF          256   /* fragment references in flight */
#define IP_DEFAULT_TTL              64

/* UDP checksums are on, but the transport computes them (stack/swp_tx.c,
 * swp_rx.c): on send it gives the payload's sum, taken in the pass that
 * copies or checks the message, to the header prediction or to lwIP
 * (udp_sendto_chksum); on receive it verifies the datagram in its input,
 * in the CRC's pass for a long one.  That also puts a measurable boundary
 * between the UDP and IP modules for detailed traces. */
#define CHECKSUM_GEN_IP             1
#define CHECKSUM_GEN_UDP            1
#define CHECKSUM_CHECK_IP           1
#define CHECKSUM_CHECK_UDP          0
#define LWIP_CHECKSUM_ON_COPY       1
/* lwIP's own sum adds a byte at a time; ours 32 bytes (stack/checksum.h). */
#include <stdint.h>
uint16_t ini_chksum(const void *data, int len);
#define LWIP_CHKSUM                 ini_chksum

/* Memory: static pools only. */
#define MEM_ALIGNMENT               8
#define MEM_LIBC_MALLOC             0
#define MEMP_MEM_MALLOC             0
#define MEM_USE_POOLS               1
#define MEMP_USE_CUSTOM_POOLS       1
#define MEM_USE_POOLS_TRY_BIGGER_POOL 1
#define MEMP_NUM_PBUF               1024  /* PBUF_REF payload descriptors */
#define MEMP_NUM_UDP_PCB            4
#define PBUF_POOL_SIZE              64    /* unused on the data path */
#define PBUF_POOL_BUFSIZE           1600
#define LWIP_SUPPORT_CUSTOM_PBUF    1
#define PBUF_LINK_HLEN              14

/* The INI has one address; the route hook lets a test stack that holds
 * several netifs send from the netif that owns the source address. */
struct netif;
struct ip4_addr;
struct netif *ini_lwip_route_src(const struct ip4_addr *src, const struct ip4_addr *dest);
#define LWIP_HOOK_IP4_ROUTE_SRC(src, dest) ini_lwip_route_src((src), (dest))

#define LWIP_DEBUG                  0
#define LWIP_NOASSERT               1

#endif
