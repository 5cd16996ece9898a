# tools/bench/: ini-bench, the layer-by-layer benchmark (docs/performance.md),
# and callgrind-stack.sh, the instruction counts of the INI's stack path.
# bench_dpdk.c and bench_inproc.c drive DPDK and lwIP directly and are built
# with their flags; the stack objects are inid's (ini/module.mk).
BENCH_SRCS := $(addprefix tools/bench/,ini-bench.c bench_engine.c bench_report.c bench_kernel.c \
                bench_cn.c bench_dpdk.c bench_inproc.c)
BENCH_OBJS := $(BENCH_SRCS:%.c=$(OBJ)/%.o)
BENCH_STACK_OBJS := $(STACK_SRCS:%.c=$(OBJ)/%.o)
$(BENCH_OBJS): EXTRA := -Itools
$(OBJ)/tools/bench/bench_dpdk.o $(OBJ)/tools/bench/bench_inproc.o: EXTRA := $(LWIP_CFLAGS) -Itimers -Itools
$(OBJ)/tools/bench/bench_dpdk.o $(OBJ)/tools/bench/bench_inproc.o: DPDK := yes

BINS += $(BIN)/ini-bench
$(BIN)/ini-bench: $(BENCH_OBJS) $(OBJ)/tools/cli.o $(BENCH_STACK_OBJS) $(LIBINI) $(LIBLWIP)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(DPDK_LIBS) $(CONFIG_LIBS) $(SODIUM_LIBS) -lpthread -lm
