#!/usr/bin/env python3
"""Rewrites the command output shown in docs/guide.md by running the commands, so the guide
shows what the build prints now (a developer tool; CI does not run it).

Two shapes are recognised:
  * a fenced block holding one line that starts with `oversim `, followed by a fenced block:
    the second block becomes that command's output (stdout, then stderr);
  * a fenced block whose lines start with `$ `: a transcript; every `$ ` command is run in one
    shell, in order (so `echo $?` sees the command before it), and its output follows it.
A fenced block right after a line ending in "`NAME.plan`:" or "`NAME.toml`:" is written to that file first, so
commands can read it. The narrative around the output is not touched: read the diff.

    scripts/update-guide.py [build dir, default build]
"""
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GUIDE = os.path.join(ROOT, "docs", "guide.md")


def blocks(lines):
    """(start, end) line indexes of each fenced block: lines[start] and lines[end] are fences."""
    out, start = [], None
    for i, line in enumerate(lines):
        if line.startswith("```"):
            if start is None:
                start = i
            else:
                out.append((start, i))
                start = None
    return out


def run(script, workdir, env):
    # One stream, stderr and stdout interleaved as a terminal shows them.
    r = subprocess.run(["bash", "-c", script + " 2>&1"], cwd=workdir, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=1800)
    return r.stdout


def main():
    build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build"))
    if not os.access(os.path.join(build, "oversim"), os.X_OK):
        sys.exit(f"update-guide: no oversim in {build} (build first)")
    env = dict(os.environ, PATH=build + os.pathsep + os.environ.get("PATH", ""))
    lines = open(GUIDE).read().split("\n")
    workdir = tempfile.mkdtemp(prefix="oversim-guide-")
    replacements = []  # (start, end, new inner lines)
    found = blocks(lines)
    for k, (s, e) in enumerate(found):
        inner = lines[s + 1:e]
        before = next((lines[j] for j in range(s - 1, -1, -1) if lines[j].strip()), "")
        m = re.search(r"`([\w.-]+\.(?:plan|toml))`:\s*$", before)
        if m:
            with open(os.path.join(workdir, m.group(1)), "w") as f:
                f.write("\n".join(inner) + "\n")
            continue
        if inner and inner[0].startswith("$ "):
            cmds = [l[2:] for l in inner if l.startswith("$ ")]
            script = ""
            for i, c in enumerate(cmds):
                script += f"__rc=$?; printf '\\001{i}\\n'; (exit $__rc); {c} 2>&1\n"
            text = run(script, workdir, env)
            parts = re.split(r"\x01(\d+)\n", text)
            new = []
            for i, c in enumerate(cmds):
                idx = parts.index(str(i)) if str(i) in parts else -1
                output = parts[idx + 1] if idx >= 0 else ""
                new.append("$ " + c)
                new.extend(output.rstrip("\n").split("\n") if output.strip() else [])
            replacements.append((s, e, new))
            continue
        if len(inner) == 1 and inner[0].startswith("oversim ") and k + 1 < len(found):
            ns, ne = found[k + 1]
            if all(not l.strip() for l in lines[e + 1:ns]):
                output = run(inner[0], workdir, env)
                replacements.append((ns, ne, output.rstrip("\n").split("\n")))
    for s, e, new in sorted(replacements, reverse=True):
        lines[s + 1:e] = new
    open(GUIDE, "w").write("\n".join(lines))
    print(f"update-guide: {len(replacements)} outputs rewritten in {GUIDE}")


if __name__ == "__main__":
    main()
