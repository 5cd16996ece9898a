# tools/vtime/: the virtual-time mode's tools: vt-bench (what the machine's
# turn costs on this host) and thesis_costs.py (the thesis cost set's fit).
BINS += $(BIN)/vt-bench
$(BIN)/vt-bench: $(OBJ)/tools/vtime/vt-bench.o $(OBJ)/ini/vtime/vt_machine.o $(CLI_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ -lpthread
