# tools/trace/: the trace post-processor, ini-trace (docs/traces.md).
# trace_load.c is the loaders' one skeleton (open, header, records in
# chunks, a run's files); trace_file.c reads and validates the
# ini<ID>.trace files on it, report.c computes the tables
# (report_breakdown.c tables 5.1 and 5.2), report_print.c formats them
# (`report`); cn_file.c reads the compute nodes' cn<C>.trace files,
# run_graph.c joins a run's traces on one clock, and on that graph
# tools/replay/ replays it with other INIs (`whatif`), critical_path.c
# finds each step's critical path (`critical`), timeline.c writes Chrome
# trace events (`timeline`, checked by check_timeline.py) and profile.c
# the communication profile (`profile`); commands.c is their shared
# command line.  The writers are ini/trace/trace.c and
# ini/trace/trace_cn.c, on the record layout both readers share
# (trace.h).  trace_cost.sh measures what tracing costs the INI.
TRACE_TOOL_OBJS := $(addprefix $(OBJ)/tools/trace/,trace_load.o trace_file.o report.o report_breakdown.o report_print.o \
                     cn_file.o run_graph.o critical_path.o)
TRACE_LIB_OBJS  := $(OBJ)/ini/trace/trace.o $(OBJ)/ini/trace/trace_cn.o $(OBJ)/ini/util/file_util.o $(OBJ)/ini/config/config_names.o \
                   $(TRACE_TOOL_OBJS) $(REPLAY_LIB)
$(TRACE_TOOL_OBJS): EXTRA := -Itools/trace -Itools/model
TRACE_CMD_OBJS  := $(addprefix $(OBJ)/tools/trace/,ini-trace.o commands.o whatif.o timeline.o critical.o profile.o)
$(TRACE_CMD_OBJS): EXTRA := -Itools/trace -Itools/replay -Itools -Itools/model -Imgs

BINS += $(BIN)/ini-trace
$(BIN)/ini-trace: $(TRACE_CMD_OBJS) $(TRACE_LIB_OBJS) $(OBJ)/tools/model/model.o $(OBJ)/mgs/mgs_names.o $(CLI_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ -lm

# test_trace: the writer (ini/trace/trace.c) and reading back, with the file
# checks; test_trace_report: the report numbers on hand-built runs;
# test_trace_mem: the in-memory reader agrees with the file reader;
# test_replay: the replay (tools/replay/) on hand-built runs, and its rules
# against the stack's (tests/module.mk links the stack for it).
UNIT_TESTS += $(BIN)/test_trace $(BIN)/test_trace_report $(BIN)/test_trace_mem $(BIN)/test_replay
$(OBJ)/tests/unit/test_trace.o $(OBJ)/tests/unit/test_trace_report.o: EXTRA := -Itools/trace
$(OBJ)/tests/unit/test_trace_mem.o: EXTRA := -Itools/trace
$(BIN)/test_replay: $(TRACE_LIB_OBJS)
$(BIN)/test_trace: $(TRACE_LIB_OBJS)
$(BIN)/test_trace_mem: $(TRACE_LIB_OBJS)
$(BIN)/test_trace_report: $(TRACE_LIB_OBJS)
# test_clock: the launcher's least-delay clock sample (tools/cluster/
# cluster_clock.c) and clocks.tsv as the tools read it back.
UNIT_TESTS += $(BIN)/test_clock
$(BIN)/test_clock: $(OBJ)/tools/cluster/cluster_clock.o $(TRACE_LIB_OBJS) $(CLI_OBJ)
# test_timeline: `ini-trace timeline` in process, on hand-built runs.
UNIT_TESTS += $(BIN)/test_timeline
$(OBJ)/tests/unit/test_timeline.o: EXTRA := -Itools/trace -Itools
$(BIN)/test_timeline: $(OBJ)/tools/trace/timeline.o $(OBJ)/tools/trace/commands.o $(TRACE_LIB_OBJS) \
                      $(OBJ)/tools/model/model.o $(OBJ)/mgs/mgs_names.o $(CLI_OBJ)
