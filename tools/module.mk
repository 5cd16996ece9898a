# tools/: the programs around the INI, one directory per program (or per
# family of programs), each with its module.mk and, beside it, the scripts
# that drive it.  The top floor: programs may include any module's headers.
$(OBJ)/tools/%.o: INC = -Itools $(INI_INC) -Imgs
#
# (The command-line skeleton every program's main uses, cli.[ch], is in
# ini/, the floor of inid and water: CLI_OBJ, ini/module.mk.)
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
# replay/   the replay of a traced run (`ini-trace whatif`), a library
# model/    ini-model, the chapter 6 model
# bench/    ini-bench, the layer-by-layer benchmark
# thesis/   the chapter 5 experiments and make-run.sh (`make run`)
# vtime/   ini-vtime-bench, what the virtual-time machine's turn costs on this host
# inimeasure/  the measurement scripts' one Python package (runs.py's
#           readers, stats.py, the tables' scripts), run as
#           `python3 -m inimeasure.NAME` with tools/ on PYTHONPATH
# lib/      options.sh, the shell drivers' one option preamble (and the one
#           place that sets PYTHONPATH)
# lwip.mk, install-deps.sh: the build's lwIP and dependencies.
CNPROG_OBJ  := $(OBJ)/tools/cnprog.o

# apps/    the applications: Water (apps/water) and EM3D (apps/em3d).  They
#           sit above MGS and the compute-node library and see nothing of
#           the daemon.
$(OBJ)/tools/apps/water/%.o: INC = -Itools/apps/water -Imgs $(INI_LIB_INC)
$(OBJ)/tools/apps/em3d/%.o:  INC = -Itools/apps/em3d -Imgs $(INI_LIB_INC)
include tools/apps/water/module.mk
include tools/apps/em3d/module.mk
include tools/cluster/module.mk
include tools/ping/module.mk
include tools/litmus/module.mk
include tools/model/module.mk
include tools/replay/module.mk
-include tools/trace/module.mk
-include tools/synth/module.mk
-include tools/bench/module.mk
include tools/vtime/module.mk

# pkg/: the installed libraries, ini.pc, `make install`, `make deb`
include tools/pkg/module.mk
