"""inimeasure - the measurement scripts' one package: the readers of the
experiments' layout (runs.py), the statistics (stats.py), the wrapper of
ini-model (ini_model.py) and the scripts that make the tables from them
(tables.py, sweep_fit.py, logp.py, ...), each a module with a main().

Run a script as a module, with tools/ on PYTHONPATH:

    PYTHONPATH=tools python3 -m inimeasure.tables OUT "COMMAND LINE"

The drivers (tools/*/*.sh) get PYTHONPATH from tools/lib/options.sh, the
one place that sets it.  A module run as a file (python3
tools/inimeasure/tables.py) stops with one line saying how to run it
(its `if not __package__` guard), since its imports of the package
cannot work then.
"""
import sys


def dier(prog, code=2):
    """The die() of the script PROG: one line 'PROG: MSG' on stderr and exit
    CODE (or the code given), the one way every script reports bad input,
    so that the messages keep naming the script the user ran."""
    default = code

    def die(msg, code=default):
        sys.stderr.write("%s: %s\n" % (prog, msg))
        sys.exit(code)
    return die



def tsv_rows(path, width, prog):
    """The data rows of the tab-separated table PATH (its first line the
    header) as (line number, fields), each of WIDTH fields; a file that
    cannot be read or a row of another width stops the script PROG with
    one line naming the file and line."""
    die = dier(prog)
    try:
        lines = open(path).read().splitlines()
    except OSError as e:
        die(f"{path}: {e.strerror}")
    for n, line in enumerate(lines[1:], 2):
        f = line.split("\t")
        if len(f) != width:
            die(f"{path}:{n}: not {width} tab-separated fields")
        yield n, f
