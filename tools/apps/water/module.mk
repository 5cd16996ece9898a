# tools/apps/water/: the Water application (SPLASH-2 water-nsquared, see
# docs/water.md) over the portable interface mgs/par.h, here implemented with
# pthreads (mgs/par_threads.c). Everything except main() goes into libwater.a
# so that the unit tests link the same objects as the program.
LIBWATER_SRCS := mgs/par_threads.c \
	tools/apps/water/water_input.c tools/apps/water/water_setup.c tools/apps/water/water_split.c \
	tools/apps/water/water_integrate.c tools/apps/water/water_intra.c tools/apps/water/water_pair.c \
	tools/apps/water/water_worker.c tools/apps/water/water_report.c
LIBWATER := $(BUILD)/libwater.a
$(LIBWATER): $(LIBWATER_SRCS:%.c=$(OBJ)/%.o)
	@mkdir -p $(dir $@)
	$(AR) rcs $@ $^

# water: the program; water_compare: compares "FULL" lines of two outputs
# (used by tests/integration/water_*.sh).  water links libmgs.a first, for
# `water --mgs` (par.h over MGS, run under ini-cluster; see mgs/module.mk for
# how par_* then reaches either implementation).
BINS += $(BIN)/water $(BIN)/water_compare
$(BIN)/water: $(OBJ)/tools/apps/water/water_main.o $(CLI_OBJ) $(LIBMGS) $(LIBWATER) $(LIBINI)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(CONFIG_LIBS) -lpthread -lm
$(BIN)/water_compare: $(OBJ)/tools/apps/water/water_compare.o $(CLI_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ -lm

WATER_UNIT_TESTS := input setup integrate step par
UNIT_TESTS += $(WATER_UNIT_TESTS:%=$(BIN)/test_water_%)
# water_input.c words its errors with ini_fail (ini/util/file_util.c, in libini
# for the program).
$(WATER_UNIT_TESTS:%=$(BIN)/test_water_%): $(LIBWATER) $(OBJ)/ini/util/file_util.o

.PHONY: water
water: $(BIN)/water $(BIN)/water_compare $(WATER_UNIT_TESTS:%=$(BIN)/test_water_%)
