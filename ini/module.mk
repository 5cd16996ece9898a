# ini/: the configuration, the cluster segment (rings between compute nodes
# and INIs), the compute-node API, and the inid daemon.  Above the stack,
# the timers and the policies; the daemon's objects also see lwIP and DPDK.
$(OBJ)/ini/%.o: INC = -Iini -Iloadbal -Istack -Itimers
LIBINI_SRCS := ini/config.c ini/file_util.c ini/eal_args.c ini/counters.c ini/ring.c ini/segment.c ini/fabric.c ini/ini_cn.c ini/trace.c
LIBINI      := $(BUILD)/libini.a
$(LIBINI): $(LIBINI_SRCS:%.c=$(OBJ)/%.o)
	@mkdir -p $(dir $@)
	$(AR) rcs $@ $^

# inid links the stack (stack/module.mk), DPDK and lwIP.
INID_SRCS  := ini/inid.c ini/inid_port.c ini/inid_loop.c ini/inid_knobs.c ini/inid_telemetry.c ini/capture.c
INID_OBJS  := $(INID_SRCS:%.c=$(OBJ)/%.o)
$(INID_OBJS): EXTRA := $(LWIP_CFLAGS)
$(INID_OBJS): DPDK := yes
BINS += $(BIN)/inid
$(BIN)/inid: $(INID_OBJS) $(STACK_OBJS) $(LIBINI) $(LIBLWIP)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(DPDK_LIBS) $(CONFIG_LIBS) $(SODIUM_LIBS) -lpthread -lm
