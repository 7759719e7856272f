#!/usr/bin/env python3
"""Reference answers for the robots.txt differential test (tests/crawl_robots_differential_test.cc).

Reads a JSON list of cases {"robots": text, "agent": name, "paths": [path...]} from argv[1] and
writes, to argv[2], a JSON list holding for each case the list of protego's can_fetch answers.
Protego (Debian's python3-protego, BSD) is a separate process; exit status 3 means it is missing.
"""
import json
import sys

try:
    from protego import Protego
except ImportError:
    sys.stderr.write("python3-protego is not installed (apt-get install python3-protego)\n")
    sys.exit(3)


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        cases = json.load(f)
    answers = []
    for case in cases:
        parser = Protego.parse(case["robots"])
        answers.append([bool(parser.can_fetch(p, case["agent"])) for p in case["paths"]])
    with open(sys.argv[2], "w", encoding="utf-8") as f:
        json.dump(answers, f)


if __name__ == "__main__":
    main()
