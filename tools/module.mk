# tools/: launcher, trace post-processor, model, benchmarks.  The top
# floor: programs may include any module's headers.
$(OBJ)/tools/%.o: INC = -Itools -Iini -Iloadbal -Istack -Itimers -Imgs
#
# ini-cluster   the launcher (tools/ini-cluster.c + tools/cluster_*.c)
# ini-ping      round-trip and integrity test, run under the launcher
# cluster-fake-inid  a stand-in for inid that forwards through the segments
#               without a network, to test the launcher and compute-node
#               programs in isolation (ini-cluster run --inid PATH)
CLUSTER_OBJS := $(addprefix $(OBJ)/tools/,ini-cluster.o cluster_util.o cluster_net.o cluster_launch.o)

BINS += $(BIN)/ini-cluster $(BIN)/ini-ping $(BIN)/cluster-fake-inid

$(BIN)/ini-cluster: $(CLUSTER_OBJS) $(LIBINI)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(CONFIG_LIBS) -lpthread

$(BIN)/ini-ping: $(OBJ)/tools/ini-ping.o $(OBJ)/tools/cli.o $(LIBINI)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(CONFIG_LIBS) -lpthread -lm

$(BIN)/cluster-fake-inid: $(OBJ)/tools/cluster_fake_inid.o $(LIBINI)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(CONFIG_LIBS) -lpthread

include tools/model/module.mk
-include tools/trace/module.mk
-include tools/synth/module.mk
-include tools/bench/module.mk
