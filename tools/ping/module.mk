# tools/ping/: ini-ping, the round-trip and integrity test run under the
# launcher (ini-cluster run CONFIG -- ini-ping), and loss_vs_size.sh, its
# delivery times under frame loss (docs/results/loss-vs-size.txt).
BINS += $(BIN)/ini-ping
$(OBJ)/tools/ping/ini-ping.o $(OBJ)/tools/ping/incast.o $(OBJ)/tools/ping/ping_msg.o: EXTRA := -Itools
$(BIN)/ini-ping: $(OBJ)/tools/ping/ini-ping.o $(OBJ)/tools/ping/incast.o $(OBJ)/tools/ping/ping_msg.o $(CLI_OBJ) $(CNPROG_OBJ) $(LIBINI)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(CONFIG_LIBS) -lpthread -lm
