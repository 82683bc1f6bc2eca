#!/usr/bin/env python3
"""The shipped CI examples, run as their engines would run them (issue 34).

examples/ci/kubernetes/oversim-shards.yaml: each of `completions` pods gets JOB_COMPLETION_INDEX
0..completions-1 and the container's env; here each pod's command runs as a process with that
environment (OVERSIM_SEEDS cut to a test's size, RESULTS a temporary directory).
examples/ci/github-actions/oversim.yml: each matrix job's shard step runs with ${{ matrix.shard }}
and ${{ github.run_number }} filled in, then the merge step, in one working directory with the
binary at bin/oversim (the design `my_design` stands for one of oversim's own).

Both merges must equal the unsharded check of the same seeds. Usage:
ci_examples_test.py path/to/oversim path/to/source
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

oversim, source = os.path.realpath(sys.argv[1]), os.path.realpath(sys.argv[2])
failures = []


def run(cmd, env, cwd):
    return subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True)


def sorted_json(path):
    with open(path) as f:
        return json.dumps(json.load(f), sort_keys=True)


def whole_check(args, cwd, env):
    out = os.path.join(cwd, "whole.json")
    p = run([oversim, "check", *args, "--json", out], env, cwd)
    return p.returncode, out


def kubernetes(tmp):
    with open(os.path.join(source, "examples/ci/kubernetes/oversim-shards.yaml")) as f:
        job = yaml.safe_load(f)
    spec = job["spec"]
    if job["kind"] != "Job" or spec["completionMode"] != "Indexed":
        failures.append("kubernetes: not an Indexed Job")
        return
    container = spec["template"]["spec"]["containers"][0]
    env_of = {e["name"]: e["value"] for e in container["env"]}
    if int(env_of["SHARDS"]) != spec["completions"]:
        failures.append(f"kubernetes: SHARDS {env_of['SHARDS']} is not completions {spec['completions']}")
    bindir = os.path.join(tmp, "bin")
    os.makedirs(bindir)
    os.symlink(oversim, os.path.join(bindir, "oversim"))
    results = os.path.join(tmp, "results")
    os.makedirs(results)
    env = dict(os.environ, **env_of)
    env.update(OVERSIM_SEEDS="24", RESULTS=results, PATH=bindir + os.pathsep + os.environ["PATH"])
    for index in range(spec["completions"]):
        pod = dict(env, JOB_COMPLETION_INDEX=str(index))
        p = run(container["command"] + container["args"], pod, tmp)
        if p.returncode != 0:
            failures.append(f"kubernetes: pod {index} exited {p.returncode}: {p.stderr.strip()}")
            return
    shards = sorted(os.listdir(results))
    if len(shards) != spec["completions"]:
        failures.append(f"kubernetes: {len(shards)} shard files for {spec['completions']} pods")
        return
    merged = os.path.join(tmp, "merged.json")
    p = run([oversim, "merge", *[os.path.join(results, s) for s in shards], "--json", merged], env, tmp)
    # The pods' command, unsharded: the check line of the script, as one run.
    script = container["args"][0]
    flags = re.search(r"oversim check (.*?)\\\n", script).group(1).split()
    status, whole = whole_check(flags, tmp, env)
    if p.returncode != status or sorted_json(merged) != sorted_json(whole):
        failures.append(f"kubernetes: the merge (exit {p.returncode}) differs from the unsharded check (exit {status})")
    else:
        print(f"kubernetes: {len(shards)} pods, merged equal to the unsharded check (exit {status})")


def github_actions(tmp, design):
    with open(os.path.join(source, "examples/ci/github-actions/oversim.yml")) as f:
        flow = yaml.safe_load(f)
    jobs = flow["jobs"]
    shards = jobs["shard"]["strategy"]["matrix"]["shard"]
    if shards != list(range(1, len(shards) + 1)):
        failures.append(f"github actions: the matrix {shards} is not 1..N")
        return
    work = os.path.join(tmp, "work")
    os.makedirs(os.path.join(work, "bin"))
    shutil.copy(oversim, os.path.join(work, "bin", "oversim"))
    env = dict(os.environ, **{k: str(v) for k, v in flow["env"].items()})
    env["OVERSIM_SEEDS"] = "24"

    def script(step, shard=None):
        text = step["run"].replace("${{ github.run_number }}", "7").replace("--variant my_design", f"--variant {design}")
        if shard is not None:
            text = text.replace("${{ matrix.shard }}", str(shard))
        if "${{" in text:
            failures.append(f"github actions: an expression this test does not fill in: {text}")
        return ["bash", "-e", "-c", text]

    shard_step = next(s for s in jobs["shard"]["steps"] if "run" in s)
    if f"/{len(shards)} " not in shard_step["run"]:
        failures.append(f"github actions: the shard step does not say /{len(shards)}")
        return
    for shard in shards:
        p = run(script(shard_step, shard), env, work)
        if p.returncode != 0:
            failures.append(f"github actions: shard {shard} failed ({p.returncode}): {p.stderr.strip()}")
            return
    merge_step = next(s for s in jobs["merge"]["steps"] if "run" in s)
    p = run(script(merge_step), env, work)
    env_check = dict(env, OVERSIM_SEED=str(7 * 1000000))
    status, whole = whole_check(["--variant", design, "--faults", "gc-pause"], tmp, env_check)
    if p.returncode != status or sorted_json(os.path.join(work, "oversim.json")) != sorted_json(whole):
        failures.append(f"github actions: the merge (exit {p.returncode}) differs from the unsharded check (exit {status}): {p.stderr.strip()}")
        return
    for produced in ("oversim.xml", "oversim.html"):
        if not os.path.exists(os.path.join(work, produced)):
            failures.append(f"github actions: the merge wrote no {produced}")
    print(f"github actions: {len(shards)} matrix jobs, merged equal to the unsharded check (exit {status})")


with tempfile.TemporaryDirectory() as tmp:
    os.makedirs(os.path.join(tmp, "k8s"))
    kubernetes(os.path.join(tmp, "k8s"))
    os.makedirs(os.path.join(tmp, "gha"))
    github_actions(os.path.join(tmp, "gha"), "redis_lock_read_modify_write")
for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
