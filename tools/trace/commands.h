/*
 * commands.h - the commands of ini-trace besides `report` (ini-trace.c
 * dispatches; each reads its own flags from argv[2..] and returns the
 * exit status, exiting 2 itself on bad input as cli.h does).
 *
 *   whatif.c     ini-trace whatif RUN_DIR ...   replay with other INIs (replay.h)
 *   timeline.c   ini-trace timeline RUN_DIR -o FILE.json   Chrome trace events
 *   critical.c   ini-trace critical RUN_DIR     critical path per barrier step
 *   profile.c    ini-trace profile RUN_DIR      the communication profile
 */
#ifndef TRACE_COMMANDS_H
#define TRACE_COMMANDS_H

#include <stdio.h>

struct run_files;
struct clock_table;

/* A command's operand: arg when it is the first (the RUN_DIR), else exit 2
 * ("unexpected argument"; an unknown flag: "unknown option"). */
const char *cmd_operand(const char *arg, const char *dir);
/* The run's traces loaded and joined (run_graph.h), else exit 2 with the
 * loader's one line. */
void cmd_load(struct run_files *rf, const char *dir);

/* The command line of a command whose only flag is --format: its
 * RUN_DIR (NULL if none), the format's index in formats into *fmt. */
const char *cmd_format_only(int argc, char **argv, const char *const *formats, int *fmt);

/* The run's clocks, one line to o: how many hosts, the largest
 * uncertainty of their offsets (clocks.tsv), and a second line warning
 * when twice that (two hosts' errors) is larger than size_ns, what the
 * command reports that the offsets bear on (`what`, e.g. "the shortest
 * wire span drawn between hosts"); no warning when size_ns is NAN. */
void cmd_clock_note(FILE *o, const struct run_files *rf, const char *what, double size_ns);
/* The same from the table alone (not virtual time); what NULL: a reader
 * that uses no offsets (`report`), which says so and never warns. */
void cmd_clock_table_note(FILE *o, const struct clock_table *t, const char *what, double size_ns);

int cmd_whatif(int argc, char **argv);
int cmd_timeline(int argc, char **argv);
int cmd_critical(int argc, char **argv);
int cmd_profile(int argc, char **argv);

/* The run's program time from RUN_DIR/time-c*.txt (tools/thesis/
 * timed-water.sh: "START_NS END_NS" per cluster): last end minus first
 * start, in ns; NAN when there are none (a name that is not a regular
 * file is passed over, never opened). */
double run_program_time_ns(const char *dir);

#endif
