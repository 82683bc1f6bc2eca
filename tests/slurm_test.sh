#!/usr/bin/env bash
# A sharded sweep on Slurm (issue 34): starts a single-node cluster of its own (munged, slurmctld,
# slurmd from Debian's slurm-wlm and munge, in a temporary directory, on free loopback ports),
# submits examples/ci/slurm/oversim-shards.sbatch as an array of 4, waits, merges the shards and
# compares the merge with the unsharded run (the whole JSON result: counts, first failing seed,
# shrunk counterexample). Every daemon it started is stopped by its process id, whatever happens.
# Usage: slurm_test.sh path/to/oversim path/to/source
set -u
oversim=$(realpath "$1")
source_dir=$(realpath "$2")
for tool in munged mungekey slurmctld slurmd sbatch sinfo; do
  command -v "$tool" >/dev/null || { echo "FAIL: $tool not found (scripts/install-deps.sh installs slurm-wlm and munge)"; exit 1; }
done
dir=$(mktemp -d /tmp/oversim-slurm.XXXXXX)
chmod 755 "$dir"
pids=()
stop() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null; done
  rm -rf "$dir"
}
trap stop EXIT
fail() { echo "FAIL: $*"; for f in "$dir"/log/*; do echo "== $f"; tail -20 "$f"; done; exit 1; }

# Two free loopback ports, for slurmctld and slurmd.
read -r ctld_port d_port < <(python3 -c '
import socket
socks = [socket.socket() for _ in range(2)]
for s in socks: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in socks])')
node=$(hostname -s)
user=$(id -un)
mkdir -p "$dir/munge" "$dir/state" "$dir/spool" "$dir/log" "$dir/shards"
chmod 700 "$dir/munge"
mungekey -c -k "$dir/munge/munge.key" || fail "mungekey could not make a key"
munged -F -f --socket="$dir/munge/socket" --key-file="$dir/munge/munge.key" --pid-file="$dir/munge/pid" --seed-file="$dir/munge/seed" \
  --log-file="$dir/log/munged.log" >"$dir/log/munged.out" 2>&1 &
pids+=($!)
cat >"$dir/slurm.conf" <<CONF
ClusterName=oversim-test
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$d_port
AuthType=auth/munge
AuthInfo=socket=$dir/munge/socket
CredType=cred/munge
SlurmUser=$user
SlurmdUser=$user
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
NodeName=$node NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=oversim Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$dir/slurm.conf"
for i in $(seq 1 50); do [ -S "$dir/munge/socket" ] && break; sleep 0.1; done
slurmctld -D -f "$SLURM_CONF" >"$dir/log/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" -N "$node" >"$dir/log/slurmd.out" 2>&1 &
pids+=($!)
idle=""
for i in $(seq 1 60); do
  idle=$(sinfo -h -N -o '%T' 2>/dev/null | head -1)
  [ "$idle" = "idle" ] && break
  sleep 0.5
done
[ "$idle" = "idle" ] || fail "the single-node cluster did not come up (node state '$idle')"

# The sweep: a design that fails first at seed 15 of 1..40 (shard 2 of 4), shrunk.
sweep=(check --variant redlock_read_modify_write --faults clock-jump --seeds 40)
"$oversim" "${sweep[@]}" --json "$dir/whole.json" >"$dir/whole.txt" 2>/dev/null
whole_status=$?
timeout 900 sbatch --wait --array=1-4 --output="$dir/log/shard-%a.log" --chdir="$dir" \
  "$source_dir/examples/ci/slurm/oversim-shards.sbatch" "$dir/shards" "$oversim" "${sweep[@]}" >"$dir/log/sbatch.out" 2>&1 ||
  fail "the array job failed: $(cat "$dir/log/sbatch.out")"
shards=$(ls "$dir"/shards/shard-*.json 2>/dev/null | wc -l)
[ "$shards" = 4 ] || fail "the array wrote $shards shard files, not 4"
"$oversim" merge "$dir"/shards/shard-*.json --json "$dir/merged.json" >"$dir/merged.txt" 2>/dev/null
merged_status=$?
[ "$merged_status" = "$whole_status" ] || fail "the merge exited $merged_status, the unsharded check $whole_status"
cmp -s <(jq -S . "$dir/whole.json") <(jq -S . "$dir/merged.json") || fail "the merged result differs from the unsharded check's: $(diff <(jq -S . "$dir/whole.json") <(jq -S . "$dir/merged.json") | head -10)"
jq -e '.verdict.kind == "violated" and .verdict.first_failing_seed == 15' "$dir/merged.json" >/dev/null || fail "the merge is not the expected violation at seed 15"
echo "slurm: 4 array tasks on node $node, merged equal to the unsharded check (exit $whole_status, first failing seed 15)"
