# Top-level build.  `make` builds everything into build/ (fetching lwIP's
# source into .cache/lwip the first time, tools/lwip.mk); `make run` and
# `make test` first install what is missing (tools/install-deps.sh), then
# build, then run.  Each module contributes a fragment (*/module.mk) that
# appends to BINS (programs in build/bin) and UNIT_TESTS (cmocka programs run
# by `make test`), and declares its objects with the helpers below.
#
# Parallel by default (one job per core) unless the command line says -jN.
# One short line per target (`CC ini/daemon/inid.c`, `LD build/bin/inid`,
# `AR build/libini.a`); `make V=1` prints the full commands instead.
# `make clean` removes build/, build-san/ and build-fuzz/ but keeps the lwIP cache;
# `make distclean` removes that too.

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
# SAN=1 builds everything with AddressSanitizer and UBSan (into build-san/),
# and with the core's assertions on (INI_DEBUG: timers/ini_assert.h).
ifeq ($(SAN),1)
BUILD   := build-san
BIN     := $(BUILD)/bin
OBJ     := $(BUILD)/obj
CFLAGS  += -fsanitize=address,undefined -fno-omit-frame-pointer -DINI_DEBUG
LDFLAGS += -fsanitize=address,undefined
endif

# Lazily evaluated: pkg-config is only asked once dependencies are installed.
DPDK_CFLAGS = $(shell pkg-config --cflags libdpdk 2>/dev/null)
DPDK_LIBS   = $(shell pkg-config --libs libdpdk 2>/dev/null)
CONFIG_LIBS = $(shell pkg-config --libs libconfig 2>/dev/null)
CMOCKA_LIBS = $(shell pkg-config --libs cmocka 2>/dev/null)
# libsodium: the transport's MAC (stack/swp.c), for whatever links the stack.
SODIUM_LIBS = $(shell pkg-config --libs libsodium 2>/dev/null)

# Parallel by default.  A -jN on the command line wins over this; a sub-make
# (`run`, `test`) shares its parent's jobs.
ifeq ($(MAKELEVEL)$(filter -j%,$(MAKEFLAGS)),0)
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 2)
endif

# Short output.  The fragments' recipes call plain $(CC) and $(AR), so in
# short mode those two variables print the target's line (make's $(info),
# when the recipe is expanded) and then name the tool, and .SILENT stops make
# from echoing the command.  CC_TOOL and AR_TOOL are the tools themselves,
# passed to the sub-make of `run` and `test` through the environment; CC and
# AR are not exported, or every recipe's environment would print a line.
ifeq ($(origin CC_TOOL),undefined)
CC_TOOL := $(CC)
AR_TOOL := $(AR)
endif
export CC_TOOL AR_TOOL
ifeq ($(V),1)
say :=
else
ifeq ($(findstring s,$(firstword -$(MAKEFLAGS))),)
say = $(info $(1) $(2))
endif
.SILENT:
unexport CC AR
override CC = $(if $(filter %.o,$@),$(call say,CC,$<),$(call say,LD,$@))$(CC_TOOL)
override AR = $(call say,AR,$@)$(AR_TOOL)
endif

# A failed recipe leaves no half-written target; objects that are only a
# step to a program (the unit tests' own) are kept, so that a second `make`
# has nothing to do.
.DELETE_ON_ERROR:
.SECONDARY:

BINS       :=
UNIT_TESTS :=

.PHONY: all deps run test unit-tests integration-tests clean distclean
all: build-all

include tools/lwip.mk
include timers/module.mk
include stack/module.mk
include loadbal/module.mk
include ini/module.mk
include mgs/module.mk
include tools/module.mk
include tests/module.mk
include tests/fuzz/module.mk

build-all: $(BINS) $(UNIT_TESTS)

deps:
	LWIP_CACHE='$(LWIP_CACHE)' bash tools/install-deps.sh

# The two commands of the README.
run: deps
	@$(MAKE) --no-print-directory all
	@bash tools/thesis/make-run.sh

test: deps
	@$(MAKE) --no-print-directory all
	@bash tests/run-all.sh

# Every object waits for the lwIP source (order-only: fetched once, it never
# makes an object out of date), since several include lwIP's headers.
$(OBJ)/%.o: %.c | $(LWIP_READY)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) $(EXTRA) $(if $(DPDK),$(DPDK_CFLAGS)) -c $< -o $@

clean:
	$(call say,CLEAN,build build-san build-fuzz)
	rm -rf build build-san build-fuzz

distclean: clean
	$(call say,CLEAN,$(LWIP_CACHE) $(dir $(LWIP_CACHE))apt)
	rm -rf $(LWIP_CACHE) $(LWIP_CACHE).tmp $(dir $(LWIP_CACHE))apt

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
