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
# BENCH_PEERS=none leaves them out whatever the build host has: the Debian
# package (debian/rules), whose Depends must not follow what the build host
# happens to have installed.  The choice is recorded in peers.flags, which
# the two files and ini-bench depend on, so changing it rebuilds them.
BENCH_PEERS ?= auto
bench_peer = $(if $(filter none,$(BENCH_PEERS)),,$(shell pkg-config --exists $(1) 2>/dev/null && echo $(2)))
UCX_FLAGS = $(call bench_peer,ucx,-DBENCH_HAVE_UCX=1 `pkg-config --cflags ucx`)
UCX_LIBS  = $(call bench_peer,ucx,`pkg-config --libs ucx`)
OFI_FLAGS = $(call bench_peer,libfabric,-DBENCH_HAVE_OFI=1 `pkg-config --cflags libfabric`)
OFI_LIBS  = $(call bench_peer,libfabric,`pkg-config --libs libfabric`)
BENCH_PEERS_FLAGS := $(OBJ)/tools/bench/peers.flags
$(BENCH_PEERS_FLAGS): FORCE
	@mkdir -p $(dir $@)
	@echo 'BENCH_PEERS=$(BENCH_PEERS) $(UCX_FLAGS) $(OFI_FLAGS)' | cmp -s - $@ || \
	    echo 'BENCH_PEERS=$(BENCH_PEERS) $(UCX_FLAGS) $(OFI_FLAGS)' > $@
.PHONY: FORCE
FORCE:
$(OBJ)/tools/bench/bench_ucx.o: EXTRA = -Itools $(UCX_FLAGS)
$(OBJ)/tools/bench/bench_ofi.o: EXTRA = -Itools $(OFI_FLAGS)
$(OBJ)/tools/bench/bench_ucx.o $(OBJ)/tools/bench/bench_ofi.o: $(BENCH_PEERS_FLAGS)

BINS += $(BIN)/ini-bench
$(BIN)/ini-bench: $(BENCH_OBJS) $(CLI_OBJ) $(CNPROG_OBJ) $(BENCH_STACK_OBJS) $(LIBINI) $(LIBLWIP) | $(BENCH_PEERS_FLAGS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(DPDK_LIBS) $(CONFIG_LIBS) $(SODIUM_LIBS) $(UCX_LIBS) $(OFI_LIBS) -lpthread -lm
