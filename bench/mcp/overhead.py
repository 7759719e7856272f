# Server CPU per ask, side by side: POST /v1/answer against POST /mcp tools/call ask (issue 15 bar:
# MCP costs <= 1.2x). Usage: python3 bench/mcp/overhead.py build/attest [ASKS_PER_FACE]. Starts its own
# `attest serve --no-cache` on 127.0.0.1 over a temporary data directory with 300 small documents,
# alternates rounds of the same questions through each face and reads the server's CPU from /proc.
import json, os, re, shutil, subprocess, sys, tempfile, urllib.request
attest = sys.argv[1]; n = int(sys.argv[2]) if len(sys.argv) > 2 else 40
d = tempfile.mkdtemp(); data = d + "/data"
def run(*a): return subprocess.run([attest, "--data", data, *a], capture_output=True, text=True)
key = json.loads(run("keys", "create", "--tenant", "acme", "--user", "root", "--admin", "--json").stdout)
key = key.get("key") or key.get("plaintext") or key.get("api_key")
p = subprocess.Popen([attest, "--data", data, "serve", "--port", "0", "--no-cache", "--no-web"], stdout=subprocess.PIPE, text=True)
port = None
while port is None:
    line = p.stdout.readline(); m = re.search(r"127\.0\.0\.1:(\d+)", line)
    if m: port = int(m.group(1))
def post(path, body, headers={}):
    h = {"Authorization": "Bearer " + key, "Content-Type": "application/json", **headers}
    r = urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{port}{path}", json.dumps(body).encode(), h))
    return json.loads(r.read())
docs = [{"id": f"d{i}", "title": f"Product {i} manual", "text": f"The Model {i} kettle has a warranty of {i % 5 + 1} years. It boils water in {i % 7 + 2} minutes. Returns are accepted within {i % 4 + 2} weeks."} for i in range(300)]
post("/v1/documents:batch", {"documents": docs})
qs = [f"How long is the warranty of the Model {i} kettle?" for i in range(0, 300, 7)]
meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
def cpu():
    f = open(f"/proc/{p.pid}/stat").read().split(")")[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")
def answer(q): post("/v1/answer", {"query": q})
def mcp(q):
    r = post("/mcp", {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "ask", "arguments": {"question": q}, "_meta": meta}},
             {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "ask"})
    assert r["result"]["structuredContent"]["outcome"] in ("answer", "fallback"), r
for q in qs[:5]: answer(q); mcp(q)  # warm up
tot = {"answer": 0.0, "mcp": 0.0}
for rnd in range(n // len(qs) + 1):
    for name, fn in (("answer", answer), ("mcp", mcp)) if rnd % 2 == 0 else (("mcp", mcp), ("answer", answer)):
        c0 = cpu()
        for q in qs: fn(q)
        tot[name] += cpu() - c0
rounds = n // len(qs) + 1
print(f"asks per face: {rounds * len(qs)}  server CPU /v1/answer: {tot['answer']:.2f} s  /mcp ask: {tot['mcp']:.2f} s  ratio mcp/answer: {tot['mcp'] / tot['answer']:.3f}")
p.terminate(); p.wait()
shutil.rmtree(d, ignore_errors=True)
