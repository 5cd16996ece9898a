# tools/vtime/: the virtual-time mode's tools: ini-vtime-bench, what the machine's turn
# costs on this host (the thesis cost set's fit is inimeasure/thesis_costs.py).
BINS += $(BIN)/ini-vtime-bench
$(BIN)/ini-vtime-bench: $(OBJ)/tools/vtime/ini-vtime-bench.o $(OBJ)/ini/vtime/vt_machine.o $(CLI_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ -lpthread

# ini-vtime-queue: M/D/1's known answer through one INI in virtual time
# (tests/integration/vtime_queue.sh).
BINS += $(BIN)/ini-vtime-queue
$(OBJ)/tools/vtime/ini-vtime-queue.o: EXTRA := -Itools
$(BIN)/ini-vtime-queue: $(OBJ)/tools/vtime/ini-vtime-queue.o $(CLI_OBJ) $(CNPROG_OBJ) $(LIBINI)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(CONFIG_LIBS) -lpthread -lm
