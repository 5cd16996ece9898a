# ini/: the configuration, the cluster segment (rings between compute nodes
# and INIs), the compute-node API, and the inid daemon.
LIBINI_SRCS := ini/config.c ini/ring.c ini/segment.c ini/fabric.c ini/ini_cn.c ini/trace.c
LIBINI      := $(BUILD)/libini.a
$(LIBINI): $(LIBINI_SRCS:%.c=$(OBJ)/%.o)
	@mkdir -p $(dir $@)
	$(AR) rcs $@ $^

# inid links DPDK and lwIP.
STACK_SRCS := stack/netif_dpdk.c stack/checksum.c stack/swp.c stack/fault.c stack/lwip_port.c timers/timer_list.c
INID_SRCS  := ini/inid.c ini/inid_port.c ini/inid_loop.c $(STACK_SRCS)
INID_OBJS  := $(INID_SRCS:%.c=$(OBJ)/%.o)
$(INID_OBJS): EXTRA := $(LWIP_CFLAGS) -Itimers
$(INID_OBJS): DPDK := yes
BINS += $(BIN)/inid
$(BIN)/inid: $(INID_OBJS) $(LIBINI) $(LIBLWIP)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(DPDK_LIBS) $(CONFIG_LIBS) -lpthread -lm
