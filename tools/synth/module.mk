# tools/synth/: the synthetic contention workload of thesis chapter 6 and
# the figure 6-3 experiment (docs/synth.md).
#
# ini-synth    every PE repeats the compute/request cycle of figure 6-2,
#              run under the launcher (ini-cluster run CONFIG -- ini-synth)
# synth-queue  the model's INI queue length Q_o from a run's traces
#              (time-averaged over a steady-state window)
# tools/synth/fig63.sh runs the experiment and draws docs/results/fig6-3.png.
BINS += $(BIN)/ini-synth $(BIN)/synth-queue

$(OBJ)/tools/synth/ini-synth.o: EXTRA := -Itools
$(BIN)/ini-synth: $(OBJ)/tools/synth/ini-synth.o $(OBJ)/tools/cli.o $(LIBINI)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(CONFIG_LIBS) -lpthread -lm

# The trace reader of tools/trace/ (trace_file.c, and ini/trace.c for the
# record codec).
$(OBJ)/tools/synth/synth-queue.o: EXTRA := -Itools/trace
$(BIN)/synth-queue: $(OBJ)/tools/synth/synth-queue.o $(OBJ)/tools/trace/trace_file.o $(OBJ)/ini/trace.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ -lm
