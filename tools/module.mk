# tools/: the programs around the INI, one directory per program (or per
# family of programs), each with its module.mk and, beside it, the scripts
# that drive it.  The top floor: programs may include any module's headers.
$(OBJ)/tools/%.o: INC = -Itools -Iini -Iloadbal -Istack -Itimers -Imgs
#
# cli.[ch]  the command-line skeleton every program's main uses (--help,
#           --version, "PROGRAM: what: why" and exit 2); linked into each
#           program, including inid and water.  The version is the one
#           line of VERSION at the top of the tree.
# cnprog.[ch]  the start shared by the programs that run as compute nodes
#           (ini-ping, ini-synth): attach, check the config, policies
# cluster/  ini-cluster, the launcher, and cluster-fake-inid, the
#           forwarding stand-in for inid ("no INI" baseline, launcher tests)
# ping/     ini-ping, round trips and integrity under the launcher, and
#           loss_vs_size.sh, delivery time under frame loss
# litmus/   mgs-litmus, MGS's litmus tests.  It is a program on top of MGS
#           and the launcher like ini-ping, not part of the library, so it
#           sits with the tools rather than in mgs/ (which holds the library
#           and the Water application that the thesis measures)
# synth/    ini-synth, synth-queue; fig63.sh, knob_sweep.sh, policy_compare.sh
# trace/    ini-trace; trace_cost.sh, what tracing costs
# model/    ini-model, the chapter 6 model
# bench/    ini-bench, the layer-by-layer benchmark
# thesis/   the chapter 5 experiments and make-run.sh (`make run`)
# lwip.mk, install-deps.sh: the build's lwIP and dependencies.
INI_VERSION := $(shell cat VERSION)
CLI_OBJ     := $(OBJ)/tools/cli.o
$(CLI_OBJ): EXTRA := -DINI_VERSION='"$(INI_VERSION)"'
$(CLI_OBJ): VERSION
CNPROG_OBJ  := $(OBJ)/tools/cnprog.o

# The programs built outside tools/ use the skeleton too: inid
# (ini/module.mk) and water (mgs/water/module.mk).  Only their mains
# include cli.h; the libraries below them never do.
$(OBJ)/ini/inid.o $(OBJ)/mgs/water/water_main.o: EXTRA += -Itools
$(BIN)/inid $(BIN)/water: $(CLI_OBJ)

include tools/cluster/module.mk
include tools/ping/module.mk
include tools/litmus/module.mk
include tools/model/module.mk
-include tools/trace/module.mk
-include tools/synth/module.mk
-include tools/bench/module.mk

# pkg/: the installed libraries, ini.pc, `make install`, `make deb`
include tools/pkg/module.mk
