#!/usr/bin/env python3
# How many corpus logs a `loadscope` binary gets right: for each
# tests/corpus/logs/NAME.log, the findings (id, severity, start) of
# `loadscope triage --format json` and its exit status against
# expected/NAME.ids and the exit status the spec implies (README.md, "The
# spec"). Any binary, old or new, so a pass rate can be compared across
# versions of the tool on the same corpus (test_triage_corpus checks the
# library in the tree and prints the same count).
#   tests/corpus/passrate.py LOADSCOPE [-v]
import glob, json, os, subprocess, sys

def main():
    tool, verbose = sys.argv[1], "-v" in sys.argv[2:]
    root = os.path.dirname(os.path.abspath(__file__))
    logs = sorted(glob.glob(os.path.join(root, "logs", "*.log")))
    ok = 0
    for log in logs:
        stem = os.path.basename(log)[:-4]
        want = set()
        with open(os.path.join(root, "expected", stem + ".ids")) as f:
            for line in f:
                w = line.split("#")[0].split()
                if len(w) == 3:
                    want.add((w[0], w[1], int(w[2])))
        sevs = {w[1] for w in want}
        noteval = any(w[0] == "not-evaluated" for w in want)
        exit_ = 2 if "fail" in sevs else 1 if "warn" in sevs else 3 if not want or noteval else 0
        p = subprocess.run([tool, "triage", "--format", "json", log], capture_output=True, text=True)
        try:
            got = {(f["id"], f["severity"], f["start"]) for f in json.loads(p.stdout)["findings"]}
        except (ValueError, KeyError):
            got = {("unparsable-output", "", 0)}
        if got == want and p.returncode == exit_:
            ok += 1
        elif verbose:
            print(f"{stem}\n  spec {sorted(want)} exit {exit_}\n  tool {sorted(got)} exit {p.returncode}")
    print(f"{ok} of {len(logs)} logs match their spec")

main()
