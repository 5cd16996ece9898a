# ini/: the configuration, the cluster segment (rings between compute nodes
# and INIs), the compute-node API, and the inid daemon.  Above the stack,
# the timers and the policies; the daemon's objects also see lwIP and DPDK.
$(OBJ)/ini/%.o: INC = -Iini -Iloadbal -Istack -Itimers
# cli.[ch]: the command-line skeleton of every program (--help, --version,
# "PROGRAM: what: why" and exit 2), on this floor so that inid and water
# use it without including a floor above them.  Linked into each program
# as its own object, not into libini: its names are not prefixed, it
# exits the process on bad input, and it keeps one program name per
# process: a program's contract, not a library's.  The version is the one
# line of VERSION at the top of the tree.
INI_VERSION := $(shell cat VERSION)
CLI_OBJ     := $(OBJ)/ini/cli.o
$(CLI_OBJ): EXTRA := -DINI_VERSION='"$(INI_VERSION)"'
$(CLI_OBJ): VERSION
$(BIN)/inid: $(CLI_OBJ)

CONFIG_SRCS := ini/config_names.c ini/config_spec.c ini/config_values.c ini/config_read.c \
               ini/config_load.c ini/config_groups.c ini/config_machine.c ini/config_check.c
LIBINI_SRCS := $(CONFIG_SRCS) ini/file_util.c ini/eal_args.c ini/counters.c ini/ring.c ini/segment.c ini/fabric.c ini/ini_cn.c ini/trace.c ini/trace_cn.c
LIBINI      := $(BUILD)/libini.a
# Made afresh: `ar r` would keep the members of sources since removed.
$(LIBINI): $(LIBINI_SRCS:%.c=$(OBJ)/%.o)
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^

# inid links the stack (stack/module.mk), DPDK and lwIP.
INID_SRCS  := ini/inid.c ini/inid_port.c ini/inid_loop.c ini/inid_knobs.c ini/inid_telemetry.c ini/inid_state.c ini/capture.c
INID_OBJS  := $(INID_SRCS:%.c=$(OBJ)/%.o)
$(INID_OBJS): EXTRA := $(LWIP_CFLAGS)
$(INID_OBJS): DPDK := yes
BINS += $(BIN)/inid
$(BIN)/inid: $(INID_OBJS) $(STACK_OBJS) $(LIBINI) $(LIBLWIP)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(DPDK_LIBS) $(CONFIG_LIBS) $(SODIUM_LIBS) -lpthread -lm
