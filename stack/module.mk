# stack/: the INI's protocol stack below the daemon: the link (netif over
# DPDK), the transport (sliding window over lwIP's UDP), the checksum, fault
# injection; see the header comments of its files.  It builds with its own
# headers, the timers and lwIP only: it knows nothing of the configuration
# or the daemon, whose parameters it takes in its own structs.
$(OBJ)/stack/%.o: INC = -Istack -Itimers $(LWIP_CFLAGS)
$(OBJ)/stack/%.o: DPDK := yes
# The INI's per-message path (this floor and the timers) at -O3: its small
# helpers inline into one another, 23 fewer instructions a message and
# hop in the ping-pong under callgrind (docs/performance.md).
$(OBJ)/stack/%.o: OPT = -O3
STACK_SRCS := stack/stack.c stack/netif_dpdk.c stack/dgram.c stack/arp.c stack/checksum.c stack/swp.c stack/swp_window.c stack/swp_tx.c stack/swp_rx.c stack/swp_seg.c stack/swp_mac.c stack/polyhash.c stack/swp_durable.c stack/swp_resync.c stack/fault.c stack/clocksync.c stack/lwip_port.c timers/timer_list.c
STACK_OBJS := $(STACK_SRCS:%.c=$(OBJ)/%.o)
