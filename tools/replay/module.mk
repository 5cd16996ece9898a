# tools/replay/: the replay of a traced run through modelled INIs, the
# library behind `ini-trace whatif` (docs/traces.md, "Asking a run what
# if").  replay.c sets a replay up from the run's graph (tools/trace/
# run_graph.h) and writes its synthetic traces, replay_deps.c its
# requests and joins, replay_sim.c the event loop, replay_flow.c the
# transport's window and acks and a turn's own cost.  replay_rules.h holds
# the rules shared with the daemon (ini/daemon/inid_limits.h) and the
# stack (stack/swp*.c), checked against the stack itself by test_replay.
REPLAY_OBJS := $(addprefix $(OBJ)/tools/replay/,replay.o replay_deps.o replay_flow.o replay_sim.o)
$(REPLAY_OBJS): EXTRA := -Itools/replay -Itools/trace
REPLAY_LIB  := $(BUILD)/libreplay.a
# Made afresh: `ar r` would keep the members of sources since removed.
$(REPLAY_LIB): $(REPLAY_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^
