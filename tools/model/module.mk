# tools/model/: the analytical model of INI contention (thesis chapter 6).
#
# ini-model   solves equations 6.1-6.10 for one N or a sweep of N
# test_model  cmocka tests of the solver (tests/unit/test_model.c)
BINS += $(BIN)/ini-model

$(OBJ)/tools/model/ini-model.o: EXTRA := -Itools
$(BIN)/ini-model: $(OBJ)/tools/model/ini-model.o $(OBJ)/tools/model/model.o $(CLI_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ -lm

UNIT_TESTS += $(BIN)/test_model
$(BIN)/test_model: $(OBJ)/tools/model/model.o
