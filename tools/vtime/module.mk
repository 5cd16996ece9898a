# tools/vtime/: the virtual-time mode's tools: vt-bench, what the machine's turn
# costs on this host (the thesis cost set's fit is inimeasure/thesis_costs.py).
BINS += $(BIN)/vt-bench
$(BIN)/vt-bench: $(OBJ)/tools/vtime/vt-bench.o $(OBJ)/ini/vtime/vt_machine.o $(CLI_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ -lpthread
