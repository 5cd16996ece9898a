# tools/cluster/: the launcher and the forwarding stand-in for inid.
#
# ini-cluster        the launcher (ini-cluster.c + cluster_util.c,
#                    cluster_net.c, cluster_launch.c, cluster_program.c:
#                    the programs' contract, cluster_supervise.c: daemons
#                    restarted, cluster_secret.c: the run's epoch and key;
#                    docs/launcher.md) and its
#                    configuration generator (cluster_gen.c, `gen`)
# cluster-fake-inid  a stand-in for inid that forwards through the segments
#                    without a network: the "no INI" baseline of the thesis's
#                    experiments, and the daemon of the launcher's own tests
#                    (ini-cluster run --inid PATH)
CLUSTER_OBJS := $(addprefix $(OBJ)/tools/cluster/,ini-cluster.o cluster_util.o cluster_net.o cluster_launch.o \
                  cluster_telemetry.o cluster_input.o cluster_reap.o cluster_remote.o cluster_gen.o cluster_program.o \
                  cluster_clock.o cluster_supervise.o cluster_secret.o cluster_vtime.o)
$(CLUSTER_OBJS) $(OBJ)/tools/cluster/cluster_fake_inid.o: EXTRA := -Itools

BINS += $(BIN)/ini-cluster $(BIN)/cluster-fake-inid

# The capture's option parsers are inid's (ini/daemon/capture.c): one check of
# --capture-limit/-ring/-snap for both.
$(BIN)/ini-cluster: $(CLUSTER_OBJS) $(OBJ)/ini/daemon/capture.o $(CLI_OBJ) $(LIBINI)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(CONFIG_LIBS) -lpthread

# The stand-in's O server is inid's knob stage (ini/daemon/inid_knobs.c, inline
# TSC reads from DPDK's headers; no DPDK library).
FAKE_OBJS := $(addprefix $(OBJ)/tools/cluster/,cluster_fake_inid.o fake_service.o)
$(FAKE_OBJS): EXTRA := -Itools
$(FAKE_OBJS): DPDK := yes
$(BIN)/cluster-fake-inid: $(FAKE_OBJS) $(OBJ)/ini/daemon/inid_knobs.o $(CLI_OBJ) $(LIBINI)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(CONFIG_LIBS) -lpthread -lm
