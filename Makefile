# Top-level build.  `make` builds everything into build/; `make run` and
# `make test` first install what is missing (tools/install-deps.sh), then
# build, then run.  Each module contributes a fragment (*/module.mk) that
# appends to BINS (programs in build/bin) and UNIT_TESTS (cmocka programs run
# by `make test`), and declares its objects with the helpers below.

BUILD   ?= build
BIN     := $(BUILD)/bin
OBJ     := $(BUILD)/obj
CC      ?= gcc
OPT     ?= -O2
# Link-time optimisation: lwIP's many small functions (pbuf header moves,
# byte order, address checks) and ours inline across files into the INI's
# per-message path: 8% fewer instructions per round trip
# (docs/performance.md).
LTO     ?= -flto=auto
CFLAGS  ?= $(OPT) -g $(LTO)
LDFLAGS += $(LTO)
WARN    := -Wall -Wextra -Wno-unused-parameter
# No include path is common to all: each module.mk gives the objects of its
# directory the paths of its own floor and those below (INC, set per
# directory), so that an include of a floor above fails to compile
# (docs/architecture.md, "Floors").
BASE_CFLAGS = -std=c11 -D_GNU_SOURCE -MMD -MP $(WARN) $(INC)
# SAN=1 builds everything with AddressSanitizer and UBSan (into build-san/).
ifeq ($(SAN),1)
BUILD   := build-san
BIN     := $(BUILD)/bin
OBJ     := $(BUILD)/obj
CFLAGS  += -fsanitize=address,undefined -fno-omit-frame-pointer
LDFLAGS += -fsanitize=address,undefined
endif

# Lazily evaluated: pkg-config is only asked once dependencies are installed.
DPDK_CFLAGS = $(shell pkg-config --cflags libdpdk 2>/dev/null)
DPDK_LIBS   = $(shell pkg-config --libs libdpdk 2>/dev/null)
CONFIG_LIBS = $(shell pkg-config --libs libconfig 2>/dev/null)
CMOCKA_LIBS = $(shell pkg-config --libs cmocka 2>/dev/null)

BINS       :=
UNIT_TESTS :=

.PHONY: all deps run test unit-tests integration-tests clean
all: build-all

include tools/lwip.mk
include timers/module.mk
include stack/module.mk
include loadbal/module.mk
include ini/module.mk
include mgs/module.mk
include tools/module.mk
include tests/module.mk

build-all: $(BINS) $(UNIT_TESTS)

deps:
	@bash tools/install-deps.sh

# The two commands of the README.
run: deps
	@$(MAKE) --no-print-directory all
	@bash tools/thesis/make-run.sh

test: deps
	@$(MAKE) --no-print-directory all
	@bash tests/run-all.sh

$(OBJ)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) $(EXTRA) $(if $(DPDK),$(DPDK_CFLAGS)) -c $< -o $@

clean:
	rm -rf build build-san

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
