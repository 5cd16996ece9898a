# tools/bench/: ini-bench, the layer-by-layer benchmark (docs/performance.md),
# and callgrind-stack.sh, the instruction counts of the INI's stack path.
# bench_dpdk.c and bench_inproc.c drive DPDK and lwIP directly and are built
# with their flags; the stack objects are inid's (ini/module.mk).
BENCH_SRCS := $(addprefix tools/bench/,ini-bench.c bench_engine.c bench_pair.c bench_report.c bench_kernel.c \
                bench_cn.c bench_dpdk.c bench_inproc.c bench_checksum.c bench_probe.c bench_handover.c bench_ucx.c bench_ofi.c \
                bench_logp.c bench_logp_tests.c)
BENCH_OBJS := $(BENCH_SRCS:%.c=$(OBJ)/%.o)
BENCH_STACK_OBJS := $(STACK_SRCS:%.c=$(OBJ)/%.o)
$(BENCH_OBJS): EXTRA := -Itools
$(OBJ)/tools/bench/bench_dpdk.o $(OBJ)/tools/bench/bench_inproc.o: EXTRA := $(LWIP_CFLAGS) -Itimers -Itools
$(OBJ)/tools/bench/bench_dpdk.o $(OBJ)/tools/bench/bench_inproc.o: DPDK := yes
$(OBJ)/tools/bench/bench_checksum.o: EXTRA := -Istack -Itools

# The peers (UCX, libfabric) are built in only when pkg-config finds their
# library; without it the file compiles to a stub and the layer is reported
# as skipped.  Evaluated when the recipe runs (after `make deps`).
UCX_FLAGS = $(shell pkg-config --exists ucx 2>/dev/null && echo -DBENCH_HAVE_UCX=1 `pkg-config --cflags ucx`)
UCX_LIBS  = $(shell pkg-config --exists ucx 2>/dev/null && pkg-config --libs ucx)
OFI_FLAGS = $(shell pkg-config --exists libfabric 2>/dev/null && echo -DBENCH_HAVE_OFI=1 `pkg-config --cflags libfabric`)
OFI_LIBS  = $(shell pkg-config --exists libfabric 2>/dev/null && pkg-config --libs libfabric)
$(OBJ)/tools/bench/bench_ucx.o: EXTRA = -Itools $(UCX_FLAGS)
$(OBJ)/tools/bench/bench_ofi.o: EXTRA = -Itools $(OFI_FLAGS)

BINS += $(BIN)/ini-bench
$(BIN)/ini-bench: $(BENCH_OBJS) $(CLI_OBJ) $(CNPROG_OBJ) $(BENCH_STACK_OBJS) $(LIBINI) $(LIBLWIP)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(DPDK_LIBS) $(CONFIG_LIBS) $(SODIUM_LIBS) $(UCX_LIBS) $(OFI_LIBS) -lpthread -lm
