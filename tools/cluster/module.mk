# tools/cluster/: the launcher and the forwarding stand-in for inid.
#
# ini-cluster        the launcher (ini-cluster.c + cluster_util.c,
#                    cluster_net.c, cluster_launch.c, cluster_program.c:
#                    the programs' contract; docs/launcher.md) and its
#                    configuration generator (cluster_gen.c, `gen`)
# cluster-fake-inid  a stand-in for inid that forwards through the segments
#                    without a network: the "no INI" baseline of the thesis's
#                    experiments, and the daemon of the launcher's own tests
#                    (ini-cluster run --inid PATH)
CLUSTER_OBJS := $(addprefix $(OBJ)/tools/cluster/,ini-cluster.o cluster_util.o cluster_net.o cluster_launch.o \
                  cluster_telemetry.o cluster_input.o cluster_reap.o cluster_remote.o cluster_gen.o cluster_program.o \
                  cluster_clock.o)
$(CLUSTER_OBJS) $(OBJ)/tools/cluster/cluster_fake_inid.o: EXTRA := -Itools

BINS += $(BIN)/ini-cluster $(BIN)/cluster-fake-inid

$(BIN)/ini-cluster: $(CLUSTER_OBJS) $(CLI_OBJ) $(LIBINI)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(CONFIG_LIBS) -lpthread

$(BIN)/cluster-fake-inid: $(OBJ)/tools/cluster/cluster_fake_inid.o $(CLI_OBJ) $(LIBINI)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(CONFIG_LIBS) -lpthread
