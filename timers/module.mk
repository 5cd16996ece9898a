# timers/: the software SEND and ACK timers of the sliding-window transport
# (send_timers / ack_timers, thesis figure 3-2); see timers/timer_list.h.
# The ground floor: its own headers only.
$(OBJ)/timers/%.o: INC = -Itimers
$(OBJ)/timers/%.o: OPT = -O3           # on the per-message path, as stack/
TIMERS_OBJS := $(OBJ)/timers/timer_list.o

UNIT_TESTS += $(BIN)/test_timers
$(BIN)/test_timers: $(TIMERS_OBJS)
