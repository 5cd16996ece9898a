"""ini_model.py - ini-model (the chapter 6 contention model, and LoPC and
LoGPC) called from the scripts, in one place: the command line it is given
and the reading of its CSV.  Used by tools/sweeps/ (sweep_fit.py,
models.py, water_model.py) as a module and by tools/synth/fig63.sh from
the shell.

    import ini_model
    ini_model.solve(N=4, W=2000, o=50, O=100)       -> {"R": 2995.88..., "Q_o": ..., ...}
    ini_model.solve(N=2, W=..., o=..., O=..., model="logpc", cv2=1)

    ini_model.py [--bin PATH] [--model M] [--cv2 C] --N N --W W --o o --O O [--l l] [--L L] --print COL[,COL...]
        prints the named columns of the solution, space-separated, on one line

Times in any common unit (the scripts use microseconds or the thesis's
cycles).  l and L default to 0: on memif the wires cost nothing measurable
against O.  W, o and O are passed with six decimals (what every caller
passed before this helper; the committed tables were made so).  The
program: PATH, else $INI_MODEL, else build/bin/ini-model of this tree.
Exit status 0, 1 when ini-model fails, 2 on bad arguments.
"""
import csv
import os
import subprocess
import sys

BIN = os.environ.get("INI_MODEL") or os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                   "../../build/bin/ini-model")


class Error(Exception):
    """ini-model could not be run or refused its arguments."""


def solve(N, W, o, O, l=0, L=0, model=None, cv2=None, bin=None):
    """The model's solution at one point: the first CSV row, numbers as floats."""
    args = [bin or BIN]
    if model:
        args += ["--model", model]
    if cv2 is not None:
        args += ["--cv2", str(cv2)]
    args += ["--N", str(N), "--W", "%.6f" % W, "--o", "%.6f" % o, "--O", "%.6f" % O,
             "--l", "%g" % l, "--L", "%g" % L, "--format", "csv"]
    try:
        r = subprocess.run(args, capture_output=True, text=True)
    except OSError as e:
        raise Error("%s: %s" % (args[0], e.strerror))
    if r.returncode != 0:
        raise Error(r.stderr.strip() or "%s exited with %d" % (args[0], r.returncode))
    rows = list(csv.DictReader(r.stdout.splitlines()))
    if not rows:
        raise Error("%s: no solution in its output" % args[0])
    return {k: float(v) for k, v in rows[0].items()}


def main(argv):
    def bad(msg):
        sys.stderr.write("ini_model.py: %s\n" % msg)
        sys.exit(2)
    if len(argv) > 1 and argv[1] in ("-h", "--help"):
        sys.stdout.write(__doc__)
        return 0
    kw, cols, args = {}, None, argv[1:]
    while args:
        flag = args.pop(0)
        if not args:
            bad("%s: unknown option or missing value" % flag)
        val = args.pop(0)
        key = {"--bin": "bin", "--model": "model", "--cv2": "cv2", "--N": "N", "--W": "W", "--o": "o", "--O": "O",
               "--l": "l", "--L": "L", "--print": "print"}.get(flag)
        if key is None:
            bad("unknown option '%s'" % flag)
        if key == "print":
            cols = val.split(",")
        elif key in ("bin", "model"):
            kw[key] = val
        else:
            try:
                kw[key] = int(val) if key == "N" else float(val)
            except ValueError:
                bad("%s: '%s' is not a number" % (flag, val))
    for need in ("N", "W", "o", "O"):
        if need not in kw:
            bad("--%s is needed" % need)
    if not cols:
        bad("--print COL[,COL...] is needed")
    try:
        sol = solve(**kw)
    except Error as e:
        sys.stderr.write("ini_model.py: %s\n" % e)
        return 1
    missing = [c for c in cols if c not in sol]
    if missing:
        bad("--print: no column %s (there are %s)" % (", ".join(missing), ", ".join(sol)))
    print(" ".join(repr(sol[c]) for c in cols))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
