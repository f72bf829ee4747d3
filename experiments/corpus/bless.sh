#!/usr/bin/env bash
# Regenerates the expectations of the corpus from rustc, the reference implementation,
# and checks the annotations of the rejected programs against rustc's diagnostics.
#
#   ./bless.sh            bless everything: rewrite run/*.stdout and run/*.exit, check fail/ and unsupported/
#   ./bless.sh --check    write nothing; report every expectation that differs from rustc
#   ./bless.sh NAME...    only the programs whose name (file or directory stem) is listed
#
# Exits non-zero if any program does not behave as its directory and annotations say.
# See README.md for the format.
set -euo pipefail
cd "$(dirname "$0")"
command -v rustc >/dev/null || { echo "bless.sh: rustc not found" >&2; exit 2; }
exec python3 - "$@" <<'PY'
import json, os, re, subprocess, sys, tempfile
from concurrent.futures import ThreadPoolExecutor

# The oracle's flags, exactly as LANGUAGE.md ("The reference implementation") states them.
FLAGS = ["--edition", "2021", "-C", "overflow-checks=off", "-A", "warnings",
         "-A", "arithmetic_overflow", "-A", "unconditional_panic"]
RUN_TIMEOUT_S = 10

args = sys.argv[1:]
check_only = "--check" in args
only = {a for a in args if not a.startswith("--")}
tmp = tempfile.mkdtemp(prefix="rill-bless-")

def programs(kind):
    """(name, root file, files of the program) for every program in a directory."""
    out = []
    for entry in sorted(os.listdir(kind)):
        path = os.path.join(kind, entry)
        if os.path.isdir(path):
            root = os.path.join(path, "main.rs")
            if not os.path.exists(root):
                out.append((entry, None, []))
                continue
            files = sorted(os.path.join(d, f) for d, _, fs in os.walk(path)
                           for f in fs if f.endswith(".rs"))
            out.append((entry, root, files))
        elif entry.endswith(".rs"):
            out.append((entry[:-3], path, [path]))
    return [p for p in out if not only or p[0] in only]

def rustc(root, name, extra=()):
    exe = os.path.join(tmp, name.replace("/", "_"))
    p = subprocess.run(["rustc", *FLAGS, *extra, root, "-o", exe],
                       capture_output=True, text=True)
    return p, exe

ANNOT = re.compile(r"//~(\^*|\|)\s*ERROR\s+(.*?)\s*$")

def annotations(files):
    """[(file, line, substring)] from `//~ ERROR`, `//~^ ERROR` and `//~| ERROR`."""
    out = []
    for f in files:
        prev = None
        with open(f) as fh:
            for n, text in enumerate(fh, 1):
                m = ANNOT.search(text)
                if not m:
                    continue
                where = m.group(1)
                line = prev if where == "|" else n - len(where)
                if line is None:
                    raise SystemExit(f"{f}:{n}: `//~|` without a previous annotation")
                out.append((os.path.normpath(f), line, m.group(2)))
                prev = line
    return out

def primary_location(span):
    # Follow macro expansions back to the code the user wrote.
    while span.get("expansion") and span["file_name"].startswith("<"):
        span = span["expansion"]["span"]
    return os.path.normpath(span["file_name"]), span["line_start"]

def errors(stderr):
    """[(file, line, message)] of rustc's errors; spanless ones get file None."""
    out = []
    for line in stderr.splitlines():
        try:
            d = json.loads(line)
        except ValueError:
            continue
        if d.get("$message_type") != "diagnostic" or d.get("level") != "error":
            continue
        if d["message"].startswith("aborting due to"):
            continue
        prim = [s for s in d["spans"] if s["is_primary"]]
        if prim:
            f, l = primary_location(prim[0])
            out.append((f, l, d["message"]))
        else:
            out.append((None, 0, d["message"]))
    return out

def do_run(prog):
    name, root, _ = prog
    problems = []
    if root is None:
        return [f"run/{name}: directory without main.rs"]
    p, exe = rustc(root, "run_" + name)
    if p.returncode != 0:
        return [f"run/{name}: rustc rejects it:\n{p.stderr}"]
    try:
        r = subprocess.run([exe], capture_output=True, timeout=RUN_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return [f"run/{name}: did not finish within {RUN_TIMEOUT_S}s"]
    finally:
        os.path.exists(exe) and os.remove(exe)
    code = r.returncode
    if code not in (0, 101):
        return [f"run/{name}: exit code {code} (only 0 and 101 are comparable)"]
    # Programs that panic on purpose say so in their name; anything else is a slip.
    if (code == 101) != name.startswith("panic_"):
        problems.append(f"run/{name}: exit code {code}, but the name "
                        f"{'does not start' if code == 101 else 'starts'} with `panic_`")
    for ext, data in ((".stdout", r.stdout), (".exit", f"{code}\n".encode())):
        path = os.path.join("run", name + ext)
        old = open(path, "rb").read() if os.path.exists(path) else None
        if old != data:
            if check_only:
                problems.append(f"{path}: differs from what rustc's program produces")
            else:
                with open(path, "wb") as fh:
                    fh.write(data)
    return problems

def do_fail(prog):
    name, root, files = prog
    if root is None:
        return [f"fail/{name}: directory without main.rs"]
    p, exe = rustc(root, "fail_" + name, ["--error-format=json"])
    if p.returncode == 0:
        os.remove(exe)
        return [f"fail/{name}: rustc accepts it"]
    want = annotations(files)
    got = errors(p.stderr)
    if not want:
        return [f"fail/{name}: no `//~ ERROR` annotation"]
    problems = []
    unmatched = list(got)
    for f, l, sub in want:
        hit = next((e for e in unmatched if e[0] == f and e[1] == l and sub in e[2]), None)
        if hit:
            unmatched.remove(hit)
        else:
            here = [e[2] for e in got if e[0] == f and e[1] == l]
            problems.append(f"{f}:{l}: expected an error containing {sub!r}; "
                            f"rustc reports here: {here or 'nothing'}")
    for f, l, msg in unmatched:
        problems.append(f"{f or root}:{l}: unannotated error: {msg}")
    return problems

def do_unsupported(prog):
    name, root, files = prog
    if root is None:
        return [f"unsupported/{name}: directory without main.rs"]
    with open(root) as fh:
        first = fh.readline().strip()
    m = re.fullmatch(r"// rustc: (accepts|rejects)", first)
    if not m:
        return [f"{root}:1: must start with `// rustc: accepts` or `// rustc: rejects`"]
    p, exe = rustc(root, "unsupported_" + name)
    os.path.exists(exe) and os.remove(exe)
    problems = []
    verdict = "accepts" if p.returncode == 0 else "rejects"
    if verdict != m.group(1):
        problems.append(f"{root}:1: says rustc {m.group(1)} it, but rustc {verdict} it"
                        + (f":\n{p.stderr}" if p.returncode else ""))
    ann = annotations(files)
    if not ann or any(sub != "unsupported" for _, _, sub in ann):
        problems.append(f"unsupported/{name}: needs `//~ ERROR unsupported` annotations only")
    return problems

jobs = [(do_run, p) for p in programs("run")] + \
       [(do_fail, p) for p in programs("fail")] + \
       [(do_unsupported, p) for p in programs("unsupported")]
with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
    results = list(pool.map(lambda j: j[0](j[1]), jobs))
os.rmdir(tmp) if not os.listdir(tmp) else None

problems = [x for r in results for x in r]
# Expectations whose program is gone would silently linger: report them.
if not only:
    names = {p[0] for p in programs("run")}
    for entry in sorted(os.listdir("run")):
        stem, ext = os.path.splitext(entry)
        if ext in (".stdout", ".exit") and stem not in names:
            problems.append(f"run/{entry}: expectation without a program")
for x in problems:
    print(x, file=sys.stderr)
counts = {k: sum(1 for f, _ in jobs if f.__name__ == "do_" + k) for k in ("run", "fail", "unsupported")}
print(f"bless.sh: {counts['run']} run, {counts['fail']} fail, {counts['unsupported']} unsupported; "
      f"{len(problems)} problem(s)" + (" (check only)" if check_only else ""))
sys.exit(1 if problems else 0)
PY
