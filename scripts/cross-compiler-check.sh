#!/usr/bin/env bash
# Same seed, same run, whatever the compiler: runs every design under every fault profile for
# 200 seeds with two builds of oversim (g++ and clang++ in CI) and diffs one fingerprint line per
# run (design, profile, seed, run hash, violated properties, fault plan). Any difference fails
# and is printed.
#   scripts/cross-compiler-check.sh build/oversim build-clang/oversim [seeds, default 1..100]
# then the same for 20 seeds of runs that draw a log-normal call, Zipf SKUs and ramp arrivals.
set -euo pipefail
a="$1"
b="$2"
seeds="${3:-1..100}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "cross-compiler check: $a vs $b, every design x every profile x seeds $seeds"
"$a" hash --variants all --faults all --seeds "$seeds" --jobs 2 > "$tmp/a.tsv"
"$b" hash --variants all --faults all --seeds "$seeds" --jobs 2 > "$tmp/b.tsv"
runs=$(wc -l < "$tmp/a.tsv")
if ! diff "$tmp/a.tsv" "$tmp/b.tsv" > "$tmp/diff"; then
  differ=$(grep -c '^<' "$tmp/diff" || true)
  echo "cross-compiler check: $differ of $runs runs differ between the two builds (first 20):"
  head -40 "$tmp/diff"
  exit 1
fi
echo "cross-compiler check: all $runs runs identical"
# The draws that use floating point (a log-normal call, Zipf SKUs, a ramp of arrivals), on every
# design under the profiles that touch every design: they must draw the same on both builds.
drawn=(--remote-call p50=20ms,p99=80ms --sku-skew 1.2 --skus 3 --stock 3 --arrival ramp --burst-window 50ms --db-latency p50=300us,p99=3ms --lock-latency 100us..900us --replication-lag p50=5ms,p99=60ms)
"$a" hash --variants all --faults none,gc-pause,app-crash,chaos --seeds 1..20 --jobs 2 "${drawn[@]}" > "$tmp/a2.tsv"
"$b" hash --variants all --faults none,gc-pause,app-crash,chaos --seeds 1..20 --jobs 2 "${drawn[@]}" > "$tmp/b2.tsv"
if ! diff "$tmp/a2.tsv" "$tmp/b2.tsv" > "$tmp/diff2"; then
  echo "cross-compiler check: runs with drawn latencies, SKUs and arrivals differ between the two builds (first 20):"
  head -40 "$tmp/diff2"
  exit 1
fi
echo "cross-compiler check: all $(wc -l < "$tmp/a2.tsv") runs with a log-normal call and links, a drawn replication lag, Zipf SKUs and ramp arrivals identical"
# A group of Sentinels draws its decision ticks and desyncs: the Redis designs under the profiles
# that make Sentinel act, with three sentinels.
group=(--variants redis_lock_read_modify_write,redis_lock_plain_del,redis_lock_conditional,redis_lock_watchdog,redis_fenced,redis_fenced_stale_read,article_recipe
  --faults failover,partition,chaos --sentinels 3)
"$a" hash "${group[@]}" --seeds 1..20 --jobs 2 > "$tmp/a3.tsv"
"$b" hash "${group[@]}" --seeds 1..20 --jobs 2 > "$tmp/b3.tsv"
if ! diff "$tmp/a3.tsv" "$tmp/b3.tsv" > "$tmp/diff3"; then
  echo "cross-compiler check: runs with three Sentinels differ between the two builds (first 20):"
  head -40 "$tmp/diff3"
  exit 1
fi
echo "cross-compiler check: all $(wc -l < "$tmp/a3.tsv") runs with a group of three Sentinels identical"
