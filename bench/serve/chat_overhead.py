#!/usr/bin/env python3
"""Server CPU of POST /v1/chat/completions against POST /v1/answer for the same questions (issue 15:
the chat face must cost <= 1.2x the server CPU of /v1/answer).

Indexes a folder of markdown files (default: this repository's docs/) into a fresh data directory,
starts `attest serve --no-cache` (every request runs the whole pipeline), then asks every question
through both routes in alternating rounds, sequentially, and reads the server's CPU time
(utime + stime of /proc/PID/stat) around each batch. Prints one line per route and the ratio.

  python3 bench/serve/chat_overhead.py --attest build/attest [--docs docs] [--rounds 5] [--stream]
"""
import argparse
import http.client
import json
import os
import re
import subprocess
import sys
import tempfile
import time

QUESTIONS = [
    "How does the answer cache work?", "What is the revocation delay?", "How are API keys stored?",
    "What does the extractive writer do?", "How are errors mapped to HTTP statuses?",
    "What is a snapshot?", "How does live fetch decide to refresh pages?", "What is the rate limit per credential?",
    "How are threads kept?", "What does the verifier check?", "How are sentences retracted in a stream?",
    "What is the audit log?", "How does the crawler respect robots.txt?", "What does the LLM judge do?",
    "How are documents deleted?", "What is reciprocal rank fusion?", "How are tenants isolated?",
    "What happens when the disk is full?", "How is a JWT validated?", "What does the planner do with follow-ups?",
]


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def post(port, path, key, body):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    c.request("POST", path, json.dumps(body), {"Authorization": "Bearer " + key, "Content-Type": "application/json"})
    r = c.getresponse()
    data = r.read()
    c.close()
    if r.status != 200:
        raise SystemExit(f"{path}: HTTP {r.status}: {data[:300]!r}")
    return data


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--attest", required=True)
    ap.add_argument("--docs", default=os.path.join(os.path.dirname(__file__), "..", "..", "docs"))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--stream", action="store_true", help="stream both (SSE events vs chat chunks)")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "data")
        run = lambda *args: subprocess.run([a.attest, "--data", data, *args], check=True, capture_output=True, text=True)
        run("ingest", a.docs)
        key = json.loads(run("keys", "create", "--json", "--tenant", "default", "--user", "bench").stdout)["key"]
        srv = subprocess.Popen([a.attest, "--data", data, "serve", "--port", "0", "--no-cache", "--rate-limit", "0"],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            port = int(re.search(r"127\.0\.0\.1:(\d+)", srv.stdout.readline()).group(1))
            answer = lambda q: post(port, "/v1/answer", key, {"query": q, "stream": a.stream})
            chat = lambda q: post(port, "/v1/chat/completions", key,
                                  {"model": "attest-extractive", "stream": a.stream,
                                   "messages": [{"role": "user", "content": q}]})
            for q in QUESTIONS:  # warm up both paths
                answer(q)
                chat(q)
            spent = {"answer": 0.0, "chat": 0.0}
            for r in range(a.rounds):
                order = [("answer", answer), ("chat", chat)] if r % 2 == 0 else [("chat", chat), ("answer", answer)]
                for name, fn in order:
                    before = cpu_seconds(srv.pid)
                    for q in QUESTIONS:
                        fn(q)
                    spent[name] += cpu_seconds(srv.pid) - before
            n = a.rounds * len(QUESTIONS)
            for name in ("answer", "chat"):
                print(f"{name}: {n} requests, server CPU {spent[name]:.2f} s, {1000 * spent[name] / n:.2f} ms/request")
            print(f"ratio chat/answer: {spent['chat'] / spent['answer']:.3f}")
        finally:
            srv.terminate()
            srv.wait(timeout=10)


if __name__ == "__main__":
    sys.exit(main())
