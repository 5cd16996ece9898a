/* lwippools.h - the fixed-size pools behind mem_malloc() (MEM_USE_POOLS).
 * 128-byte buffers hold header pbufs (UDP header, one IP header per
 * fragment); the larger ones exist for lwIP's rare own allocations (ICMP
 * replies, ARP). */
#if MEM_USE_POOLS
LWIP_MALLOC_MEMPOOL_START
LWIP_MALLOC_MEMPOOL(2048, 128)
LWIP_MALLOC_MEMPOOL(64, 1600)
LWIP_MALLOC_MEMPOOL(4, 9100)
LWIP_MALLOC_MEMPOOL_END
#endif
