# mgs/: the multigrain shared memory (docs/mgs.md) and the applications on it.
# (mgs-litmus, the litmus tests, is built by tools/litmus/module.mk.)
# Above the compute-node API (ini/) and what its headers include.
$(OBJ)/mgs/%.o: INC = -Imgs $(INI_LIB_INC)
#
# libmgs.a   the MGS library and par_mgs.c, which defines par.h's par_*
#            functions and forwards them to MGS or to the pthreads
#            implementation.  For the latter, mgs/par_threads.c is compiled a
#            second time with every par_* function renamed par_threads_*, so
#            one program holds both (water --mgs; tools/litmus/mgs-litmus).  Programs
#            link libmgs.a before libwater.a: par_mgs.o then defines par_*,
#            and libwater.a's par_threads.o is never pulled in.
LIBMGS_SRCS := mgs/mgs_core.c mgs/mgs_page.c mgs/mgs_sync.c mgs/mgs_stats.c mgs/mgs_diff.c mgs/mgs_trace.c \
	mgs/mgs_names.c mgs/mgs_dilate.c mgs/mgs_vtime.c mgs/par_mgs.c
LIBMGS := $(BUILD)/libmgs.a
PAR_RENAMED_FUNCS := init finalize malloc locks_create lock unlock barrier sum self nthreads run work vtime_seconds
PAR_THREADS_RENAMED := $(OBJ)/mgs/par_threads_renamed.o
$(PAR_THREADS_RENAMED): mgs/par_threads.c
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) $(foreach f,$(PAR_RENAMED_FUNCS),-Dpar_$(f)=par_threads_$(f)) -c $< -o $@
$(LIBMGS): $(LIBMGS_SRCS:%.c=$(OBJ)/%.o) $(PAR_THREADS_RENAMED)
	@mkdir -p $(dir $@)
	$(AR) rcs $@ $^

UNIT_TESTS += $(BIN)/test_mgs_diff $(BIN)/test_mgs_standalone $(BIN)/test_mgs_subunit $(BIN)/test_mgs_dilate
$(BIN)/test_mgs_diff: $(OBJ)/mgs/mgs_diff.o
$(BIN)/test_mgs_standalone: $(LIBMGS) $(LIBINI)
$(BIN)/test_mgs_subunit: $(LIBMGS) $(LIBINI)
$(BIN)/test_mgs_dilate: $(OBJ)/mgs/mgs_dilate.o $(LIBINI)

.PHONY: mgs
mgs: $(LIBMGS) $(BIN)/mgs-litmus $(BIN)/test_mgs_diff $(BIN)/test_mgs_standalone $(BIN)/test_mgs_subunit $(BIN)/test_mgs_dilate $(BIN)/water



