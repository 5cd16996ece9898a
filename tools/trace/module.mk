# tools/trace/: the trace post-processor, `ini-trace report RUN_DIR`
# (docs/traces.md).  trace_file.c reads and validates the ini<ID>.trace
# files, report.c computes the tables, report_print.c formats them; the
# daemon's side, the trace buffer and writer, is ini/trace.c.
# trace_cost.sh measures what tracing costs the INI (docs/traces.md).
TRACE_TOOL_OBJS := $(addprefix $(OBJ)/tools/trace/,trace_file.o report.o report_print.o)
TRACE_LIB_OBJS  := $(OBJ)/ini/trace.o $(OBJ)/ini/file_util.o $(OBJ)/ini/config_names.o $(TRACE_TOOL_OBJS)
$(TRACE_TOOL_OBJS): EXTRA := -Itools/trace
$(OBJ)/tools/trace/ini-trace.o: EXTRA := -Itools/trace -Itools

BINS += $(BIN)/ini-trace
$(BIN)/ini-trace: $(OBJ)/tools/trace/ini-trace.o $(TRACE_LIB_OBJS) $(CLI_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ -lm

# test_trace: the writer (ini/trace.c) and reading back, with the file
# checks; test_trace_report: the report numbers on hand-built runs;
# test_trace_mem: the in-memory reader agrees with the file reader.
UNIT_TESTS += $(BIN)/test_trace $(BIN)/test_trace_report $(BIN)/test_trace_mem
$(OBJ)/tests/unit/test_trace.o $(OBJ)/tests/unit/test_trace_report.o: EXTRA := -Itools/trace
$(OBJ)/tests/unit/test_trace_mem.o: EXTRA := -Itools/trace
$(BIN)/test_trace: $(TRACE_LIB_OBJS)
$(BIN)/test_trace_mem: $(TRACE_LIB_OBJS)
$(BIN)/test_trace_report: $(TRACE_LIB_OBJS)
