# tests/fuzz/: libFuzzer harnesses (clang, ASan and UBSan) of every parser
# of outside input: the receive path (fuzz_rx), the configuration loader
# (fuzz_config), the trace reader (fuzz_trace), the fault-spec, knob and
# command-line number parsers (fuzz_parsers).  Seeds in tests/fuzz/corpus/
# NAME/, inputs that once crashed (kept as regressions) in
# tests/fuzz/regress/NAME/.
#
#   make fuzz [FUZZ_SECONDS=60] [FUZZ_RUNS=N] [FUZZ_ONLY=rx,config]
#       builds the harnesses into build-fuzz/ (a separate tree: lwIP and
#       our objects compiled by clang with coverage and the sanitizers)
#       and runs each in turn, one at a time, for FUZZ_SECONDS (default
#       60), or FUZZ_RUNS executions (capped at FUZZ_SECONDS if both are
#       given); prints executions, exec/s and findings
#       (crashing inputs in build-fuzz/findings/)
#   make fuzz-regress
#       runs each harness once over its seeds and regression inputs
#       (tests/integration/fuzz_regress.sh)
FUZZ_BUILD   := build-fuzz
FUZZ_NAMES   := rx config trace parsers
FUZZ_SECONDS ?=
FUZZ_RUNS    ?=
FUZZ_ONLY    ?=
FUZZ_CFLAGS  := -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined \
                -fno-sanitize-recover=undefined
FUZZ_LDFLAGS := -fsanitize=fuzzer,address,undefined

.PHONY: fuzz fuzz-build fuzz-regress fuzz-bins
fuzz-build:
	$(MAKE) --no-print-directory BUILD=$(FUZZ_BUILD) CC=clang CC_TOOL=clang LTO= \
	    CFLAGS='$(FUZZ_CFLAGS)' LDFLAGS='$(FUZZ_LDFLAGS)' fuzz-bins

fuzz: fuzz-build
	FUZZ_SECONDS='$(FUZZ_SECONDS)' FUZZ_RUNS='$(FUZZ_RUNS)' FUZZ_ONLY='$(FUZZ_ONLY)' \
	    bash tests/fuzz/run.sh fuzz $(FUZZ_BUILD)/bin $(FUZZ_NAMES)

fuzz-regress: fuzz-build
	bash tests/fuzz/run.sh regress $(FUZZ_BUILD)/bin $(FUZZ_NAMES)

FUZZ_BINS := $(FUZZ_NAMES:%=$(BIN)/fuzz_%)
fuzz-bins: $(FUZZ_BINS)

$(OBJ)/tests/fuzz/fuzz_rx.o: EXTRA := $(LWIP_CFLAGS)
$(OBJ)/tests/fuzz/fuzz_rx.o: DPDK := yes
$(OBJ)/tests/fuzz/fuzz_trace.o: EXTRA := -Itools/trace -Itools/replay

$(BIN)/fuzz_rx: $(OBJ)/tests/fuzz/fuzz_rx.o $(STACK_TEST_OBJS) $(LIBLWIP)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(DPDK_LIBS) $(SODIUM_LIBS) -lpthread -lm
$(BIN)/fuzz_config: $(OBJ)/tests/fuzz/fuzz_config.o $(LIBINI)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(CONFIG_LIBS) -lm
$(BIN)/fuzz_trace: $(OBJ)/tests/fuzz/fuzz_trace.o $(TRACE_LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ -lm
# --wrap=exit: the cli parsers' exit(2) on bad input returns to the harness.
$(BIN)/fuzz_parsers: $(OBJ)/tests/fuzz/fuzz_parsers.o $(CLI_OBJ) $(LIBINI)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -Wl,--wrap=exit -o $@ $^ $(CONFIG_LIBS) -lm
