# tools/synth/: the synthetic contention workload of thesis chapter 6 and
# the figure 6-3 experiment (docs/synth.md).
#
# ini-synth    every PE repeats the compute/request cycle of figure 6-2,
#              run under the launcher (ini-cluster run CONFIG -- ini-synth)
# synth-queue  the model's INI queue length Q_o from a run's traces
#              (time-averaged over a steady-state window)
# Beside them, the experiments that drive ini-synth under the launcher:
# fig63.sh        the figure 6-3 experiment (docs/results/fig6-3.png)
# knob_sweep.sh   cycle time R against one knob (docs/synth.md)
# policy_compare.sh  load balancing against static scheduling (docs/synth.md)
BINS += $(BIN)/ini-synth $(BIN)/synth-queue

$(OBJ)/tools/synth/ini-synth.o: EXTRA := -Itools
$(BIN)/ini-synth: $(OBJ)/tools/synth/ini-synth.o $(CLI_OBJ) $(CNPROG_OBJ) $(LIBINI)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(CONFIG_LIBS) -lpthread -lm

# The trace reader of tools/trace/ (trace_file.c, and ini/trace/trace.c for the
# record codec).
$(OBJ)/tools/synth/synth-queue.o: EXTRA := -Itools/trace -Itools
$(BIN)/synth-queue: $(OBJ)/tools/synth/synth-queue.o $(OBJ)/tools/trace/trace_file.o $(OBJ)/tools/trace/trace_load.o $(OBJ)/ini/trace/trace.o $(OBJ)/ini/util/file_util.o \
                    $(CLI_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ -lm
