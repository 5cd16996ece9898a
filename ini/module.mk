# ini/: one folder per product, in floors (docs/architecture.md, "Floors"):
#
#   util/    the plain helpers every product uses: cli (the programs'
#            command-line skeleton), file_util (one reader of a regular
#            file, the one error convention), counters (the counters file's
#            table writer), clock.h (the clocks)
#   config/  the configuration: config.h over config_*.c
#   trace/   the trace format, written by the daemon (trace.c) and by the
#            compute-node library (trace_cn.c)
#   vtime/   the virtual-time mode's machine: the clocks of the emulated
#            processors, the order of their events, the cost model
#   cn/      the compute-node library: ini_cn (the API), fabric (sleep and
#            wake), ring, segment (the rings between compute nodes and INIs),
#            cn_barrier and cn_work (the barrier and compute bursts)
#   daemon/  inid: the per-lcore loop, ports, knobs, state, telemetry,
#            capture, EAL arguments
#
# Each folder compiles with its own headers and those of the floors below
# it, so an include of a floor above (the library naming the daemon, the
# configuration naming the library) fails to compile.
INI_UTIL_INC   := -Iini/util
INI_CONFIG_INC := -Iini/config $(INI_UTIL_INC) -Iloadbal
INI_TRACE_INC  := -Iini/trace $(INI_CONFIG_INC)
INI_VTIME_INC  := -Iini/vtime $(INI_UTIL_INC) -Itimers
# What a program above the library sees (MGS, the applications): the
# compute-node API and the headers it includes.
INI_LIB_INC    := -Iini/cn -Iini/vtime $(INI_TRACE_INC) -Istack -Itimers
# Everything of ini/, for the tools and the tests.
INI_INC        := -Iini/daemon $(INI_LIB_INC)

$(OBJ)/ini/util/%.o:   INC = $(INI_UTIL_INC)
# stack_defaults.h: the defaults of the stack's parameters, a header with no
# dependencies that the configuration may include.
$(OBJ)/ini/config/%.o: INC = $(INI_CONFIG_INC) -Istack
$(OBJ)/ini/trace/%.o:  INC = $(INI_TRACE_INC)
$(OBJ)/ini/vtime/%.o:  INC = $(INI_VTIME_INC)
$(OBJ)/ini/cn/%.o:     INC = $(INI_LIB_INC)
$(OBJ)/ini/daemon/%.o: INC = $(INI_INC)

# cli.[ch]: the command-line skeleton of every program (--help, --version,
# "PROGRAM: what: why" and exit 2), on the lowest floor so that inid and
# water use it without including a floor above them.  Linked into each
# program as its own object, not into libini: its names are not prefixed,
# it exits the process on bad input, and it keeps one program name per
# process: a program's contract, not a library's.  The version is the one
# line of VERSION at the top of the tree.
INI_VERSION := $(shell cat VERSION)
CLI_OBJ     := $(OBJ)/ini/util/cli.o
$(CLI_OBJ): EXTRA := -DINI_VERSION='"$(INI_VERSION)"'
$(CLI_OBJ): VERSION
$(BIN)/inid: $(CLI_OBJ)

CONFIG_SRCS := $(addprefix ini/config/,config_names.c config_spec.c config_values.c config_read.c \
               config_load.c config_groups.c config_machine.c config_check.c)
LIBINI_SRCS := $(CONFIG_SRCS) ini/util/file_util.c ini/util/counters.c \
               ini/cn/ring.c ini/cn/segment.c ini/cn/fabric.c ini/cn/ini_cn.c \
               ini/cn/cn_barrier.c ini/cn/cn_work.c ini/cn/cn_trace.c ini/cn/cn_vtime.c \
               ini/trace/trace.c ini/trace/trace_cn.c \
               ini/vtime/vt_machine.c ini/vtime/vt_node.c ini/vtime/vt_cost.c ini/vtime/vt_shm.c
LIBINI      := $(BUILD)/libini.a
# Made afresh: `ar r` would keep the members of sources since removed.
$(LIBINI): $(LIBINI_SRCS:%.c=$(OBJ)/%.o)
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^

# inid links the stack (stack/module.mk), DPDK and lwIP.
INID_SRCS  := $(addprefix ini/daemon/,inid.c inid_port.c inid_loop.c inid_fabric.c inid_knobs.c \
              inid_telemetry.c inid_counters.c inid_state.c inid_vtime.c inid_clock.c capture.c eal_args.c \
              inid_wedge.c xsk_queue.c)
INID_OBJS  := $(INID_SRCS:%.c=$(OBJ)/%.o)
$(INID_OBJS): EXTRA := $(LWIP_CFLAGS)
$(INID_OBJS): DPDK := yes
BINS += $(BIN)/inid
$(BIN)/inid: $(INID_OBJS) $(STACK_OBJS) $(LIBINI) $(LIBLWIP)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(DPDK_LIBS) $(CONFIG_LIBS) $(SODIUM_LIBS) -lpthread -lm
