# tools/vtime/: the virtual-time mode's tools: ini-vtime-bench, what the machine's turn
# costs on this host (the thesis cost set's fit is inimeasure/thesis_costs.py).
BINS += $(BIN)/ini-vtime-bench
$(BIN)/ini-vtime-bench: $(OBJ)/tools/vtime/ini-vtime-bench.o $(OBJ)/ini/vtime/vt_machine.o $(CLI_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ -lpthread
