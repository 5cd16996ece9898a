# tests/: cmocka unit tests (tests/unit/test_NAME.c -> build/bin/test_NAME) and
# integration scripts (tests/integration/*.sh) run by tests/run-all.sh.
# A unit test links its own object, whatever the module adds as a
# prerequisite of $(BIN)/test_NAME, and the common libraries.
TEST_LIBS = $(CONFIG_LIBS) $(CMOCKA_LIBS) -lpthread -lm
# Tests sit above everything they test; `-I.` for the tests that name a
# file by its path in the tree.
$(OBJ)/tests/%.o: INC = -I. -Itests/unit $(INI_INC) -Imgs -Itools -Itools/apps -Itools/apps/em3d

$(BIN)/test_%: $(OBJ)/tests/unit/test_%.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(TEST_LIBS) $(LDLIBS_$(notdir $@))

# The loader, and the generator of ini-cluster gen (what it writes must load).
UNIT_TESTS += $(BIN)/test_config
$(BIN)/test_config: $(OBJ)/tools/cluster/cluster_gen.o $(OBJ)/ini/daemon/eal_args.o $(LIBINI)

# The run's secrets as the launcher draws, hands and applies them
# (tools/cluster/cluster_secret.c).
UNIT_TESTS += $(BIN)/test_secret
$(BIN)/test_secret: $(OBJ)/tools/cluster/cluster_secret.o $(LIBINI)

# Tests of the stack: two INIs joined in one process (loop_harness), on
# the harness's fake clock (its sys_now replaces stack/lwip_port.c's).
STACK_TEST_OBJS := $(OBJ)/tests/unit/loop_harness.o $(filter-out $(OBJ)/stack/lwip_port.o,$(STACK_OBJS))
STACK_TESTS_O := $(addprefix $(OBJ)/tests/unit/,loop_harness.o test_netif.o test_swp.o test_swp_restart.o)
$(STACK_TESTS_O): EXTRA := $(LWIP_CFLAGS)
$(STACK_TESTS_O): DPDK := yes
UNIT_TESTS += $(BIN)/test_netif $(BIN)/test_swp $(BIN)/test_swp_restart
$(BIN)/test_netif $(BIN)/test_swp $(BIN)/test_swp_restart: $(STACK_TEST_OBJS) $(LIBLWIP)
LDLIBS_test_netif = $(DPDK_LIBS) $(SODIUM_LIBS)
LDLIBS_test_swp = $(DPDK_LIBS) $(SODIUM_LIBS)
LDLIBS_test_swp_restart = $(DPDK_LIBS) $(SODIUM_LIBS)
# test_replay (tools/replay/, linked by tools/trace/module.mk) checks the
# replay's rules against the transport's on the same two INIs.
$(OBJ)/tests/unit/test_replay.o: EXTRA := -Itools/trace -Itools/replay $(LWIP_CFLAGS)
$(OBJ)/tests/unit/test_replay.o: DPDK := yes
$(BIN)/test_replay: $(STACK_TEST_OBJS) $(LIBLWIP)
LDLIBS_test_replay = $(DPDK_LIBS) $(SODIUM_LIBS)

# Fault injection (stack/fault.c) on real mbufs, and the fault
# specification the configuration parses.
UNIT_TESTS += $(BIN)/test_fault
$(OBJ)/tests/unit/test_fault.o: EXTRA := $(LWIP_CFLAGS)
$(OBJ)/tests/unit/test_fault.o: DPDK := yes
$(BIN)/test_fault: $(OBJ)/stack/fault.o $(LIBINI)
LDLIBS_test_fault = $(DPDK_LIBS)

# The scheduling policies, built with loadbal/'s include path only: the
# proof that they depend on nothing above.
UNIT_TESTS += $(BIN)/test_loadbal
$(OBJ)/tests/unit/test_loadbal.o: INC = -Iloadbal

# The core's assertion (timers/ini_assert.h), with the ground floor's
# include path alone: every core floor can include it.
UNIT_TESTS += $(BIN)/test_assert
$(OBJ)/tests/unit/test_assert.o: INC = -Itimers

# The capture's pcapng time stamps, on the host's clock and the emulated
# machine's (ini/daemon/capture.c).
UNIT_TESTS += $(BIN)/test_capture
$(BIN)/test_capture: $(OBJ)/ini/daemon/capture.o

UNIT_TESTS += $(BIN)/test_ring
$(BIN)/test_ring: $(LIBINI)

UNIT_TESTS += $(BIN)/test_ini_cn
$(BIN)/test_ini_cn: $(LIBINI)

# The virtual-time machine and its cost model (ini/vtime/), on threads.
UNIT_TESTS += $(BIN)/test_vtime
$(BIN)/test_vtime: $(OBJ)/ini/vtime/vt_machine.o $(OBJ)/ini/vtime/vt_node.o $(OBJ)/ini/vtime/vt_cost.o

# The library's barrier (over real daemons: it runs itself under the
# ini-cluster beside it, which it needs built) and compute bursts.
UNIT_TESTS += $(BIN)/test_cn_barrier
$(BIN)/test_cn_barrier: $(LIBINI)

# The MAC's inner hash (stack/polyhash.c), both paths, against a bitwise
# reference.
UNIT_TESTS += $(BIN)/test_polyhash
$(BIN)/test_polyhash: $(OBJ)/stack/polyhash.o

UNIT_TESTS += $(BIN)/test_checksum
$(BIN)/test_checksum: $(OBJ)/stack/checksum.o
# SSE4.2, as the stack is built (DPDK's -march=corei7): the inline CRC.
$(OBJ)/tests/unit/test_checksum.o: EXTRA := -msse4.2

# inid's knob stage (ini/daemon/inid_knobs.c), on its own.
UNIT_TESTS += $(BIN)/test_knobs
$(OBJ)/tests/unit/test_knobs.o: DPDK := yes
$(BIN)/test_knobs: $(OBJ)/ini/daemon/inid_knobs.o
