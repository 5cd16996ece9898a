# tools/litmus/: mgs-litmus, the litmus tests of MGS, run under ini-cluster
# (tests/integration/mgs_litmus.sh).  It links MGS (mgs/module.mk) and
# the compute-node API.
BINS += $(BIN)/mgs-litmus
$(OBJ)/tools/litmus/mgs-litmus.o: EXTRA := -Itools
$(BIN)/mgs-litmus: $(OBJ)/tools/litmus/mgs-litmus.o $(CLI_OBJ) $(LIBMGS) $(LIBINI)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(CONFIG_LIBS) -lpthread -lm
