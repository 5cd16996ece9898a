# tools/apps/em3d/: EM3D, the second application (docs/em3d.md): the generator,
# the reference and the ghosts in libem3d.a (what the unit tests link), the
# versions over par.h (em3d_mgs.c) and over the compute-node API
# (em3d_am*.c) in the program.  em3d links libmgs.a, whose par_mgs.o
# defines par_* over MGS or the renamed pthreads implementation.
LIBEM3D_SRCS := tools/apps/em3d/em3d_graph.c tools/apps/em3d/em3d_grid.c tools/apps/em3d/em3d_ghost.c tools/apps/em3d/em3d_ref.c
LIBEM3D := $(BUILD)/libem3d.a
$(LIBEM3D): $(LIBEM3D_SRCS:%.c=$(OBJ)/%.o)
	@mkdir -p $(dir $@)
	$(AR) rcs $@ $^

EM3D_OBJS := $(OBJ)/tools/apps/em3d/em3d_main.o $(OBJ)/tools/apps/em3d/em3d_mgs.o $(OBJ)/tools/apps/em3d/em3d_am.o \
	$(OBJ)/tools/apps/em3d/em3d_am_xfer.o $(OBJ)/tools/apps/em3d/em3d_am_trace.o
BINS += $(BIN)/em3d
$(BIN)/em3d: $(EM3D_OBJS) $(CLI_OBJ) $(LIBEM3D) $(LIBMGS) $(LIBINI)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(CONFIG_LIBS) -lpthread -lm

# test_em3d: the generator, the ghosts and the reference; test_em3d_par:
# Simple and Ghost over plain threads (mgs/par_threads.c) against it.
UNIT_TESTS += $(BIN)/test_em3d $(BIN)/test_em3d_par $(BIN)/test_em3d_local
$(BIN)/test_em3d: $(LIBEM3D)
# test_em3d_local: the local graph (em3d_grid.c) against its geometry.
$(BIN)/test_em3d_local: $(LIBEM3D)
$(BIN)/test_em3d_par: $(OBJ)/tools/apps/em3d/em3d_mgs.o $(OBJ)/mgs/par_threads.o $(LIBEM3D)

.PHONY: em3d
em3d: $(BIN)/em3d $(BIN)/test_em3d $(BIN)/test_em3d_par $(BIN)/test_em3d_local
