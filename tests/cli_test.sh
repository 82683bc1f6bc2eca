#!/usr/bin/env bash
# The command's contract: exit statuses (0 holds, 1 violation, 2 bad usage with one line on
# stderr naming the problem, 4 a limit ran out, 5 vacuous, 6 a planned fault never happened),
# and determinism across processes (the same seed gives the same trace hash in two separate runs). Usage: cli_test.sh path/to/oversim
set -u
oversim="$1"
failures=0
passes=0

expect() {  # expect <status> <stderr-substring or -> <args...>
  local want="$1" needle="$2"
  shift 2
  local out err status
  err=$("$oversim" "$@" 2>&1 >/dev/null)
  status=$?
  if [ "$status" != "$want" ]; then
    echo "FAIL: oversim $* exited $status, expected $want; stderr: $err"
    failures=$((failures + 1))
    return
  fi
  if [ "$needle" != "-" ]; then
    if [ "$(printf '%s\n' "$err" | wc -l)" != 1 ] || [[ "$err" != *"$needle"* ]]; then
      echo "FAIL: oversim $*: expected one stderr line containing '$needle', got: $err"
      failures=$((failures + 1))
      return
    fi
  fi
  passes=$((passes + 1))
}

# expect_violated <status> "<violated properties>" <args...>: the exit status, and exactly these
# properties reported VIOLATED in the property table (asserted or not; explore says "observed
# broken in k/N" of one it does not assert), in catalogue order.
expect_violated() {
  local want="$1" violated="$2"
  shift 2
  local out status got
  out=$("$oversim" "$@" 2>/dev/null)
  status=$?
  got=$(printf '%s\n' "$out" | awk '/^property /{f=1;next} f&&/^$/{f=0} f&&(/VIOLATED/||/observed broken in [1-9]/){printf "%s%s", sep, $1; sep=" "}')
  if [ "$status" != "$want" ] || [ "$got" != "$violated" ]; then
    echo "FAIL: oversim $*: exit $status with VIOLATED '$got'; expected exit $want with '$violated'"
    failures=$((failures + 1))
    return
  fi
  passes=$((passes + 1))
}

# Good runs and verdicts.
expect 0 - --version
expect 0 - list variants
expect 0 - list faults
expect 0 - list properties
# The article's recipe tells a buyer "sold out" after its own retried purchase took the last unit
# (an ambiguous reply, then the retry's conditional decrement finds none left): no_told_wrong.
expect_violated 1 "no_told_wrong lock_mutual_exclusion" run --variant article_recipe --faults chaos --seed 1 --trace none
expect_violated 1 "no_oversell ledger_conservation no_lost_update" run --variant read_modify_write --buyers 2 --stock 1 --trace none
expect_violated 0 "" check --variant db_conditional_update --faults gc-pause --seeds 5 --jobs 2
expect_violated 1 "no_oversell ledger_conservation lock_mutual_exclusion no_lost_update" check --variant redis_lock_read_modify_write --faults gc-pause --seeds 20 --jobs 2
expect_violated 0 "lock_mutual_exclusion" check --variant redis_lock_conditional --faults gc-pause --seeds 10
expect_violated 1 "lock_mutual_exclusion" check --variant redis_lock_conditional --faults gc-pause --seeds 10 --properties lock_mutual_exclusion
expect_violated 1 "no_oversell ledger_conservation lock_mutual_exclusion no_foreign_unlock no_lost_update" check --variant redis_lock_plain_del --faults clock-jump --seeds 20 --properties no_foreign_unlock
expect_violated 0 "no_oversell ledger_conservation lock_mutual_exclusion no_lost_update" check --variant redis_lock_read_modify_write --faults clock-jump --seeds 20 --properties no_foreign_unlock
expect 0 - compare --seeds 1 --variants db_conditional_update --faults none,gc-pause
expect 0 - demo --trace none

# Bad input: exit 2, one line naming the problem.
expect 2 "unknown variant 'nope'" run --variant nope
expect 2 "--variant is required" run
expect 2 "unknown profile 'gc-paws'" check --variant article_recipe --faults gc-paws
expect 2 "unknown fault 'explode'" run --variant article_recipe --faults 'at 1s explode db'
expect 2 "--no-shrink excludes --keep-faults" check --variant article_recipe --keep-faults --no-shrink
expect 2 "--keep-faults excludes --drop-faults" check --variant article_recipe --keep-faults --drop-faults
expect 2 "unknown arrival 'lumpy'" run --variant article_recipe --arrival lumpy
expect 2 "names unknown node 'app-7'" run --variant article_recipe --faults 'at 1s crash app-7'
expect 2 "'1.5s' is not a duration" run --variant article_recipe --faults 'at 1.5s crash db'
expect 2 "--lock-ttl: 'soon' is not a duration" run --variant article_recipe --lock-ttl soon
expect 2 "--double-click: '3/2' is not a ratio" run --variant article_recipe --double-click 3/2
expect 2 "--buyers: -1 is out of range" run --variant article_recipe --buyers -1
expect 2 "unknown property 'no_magic'" check --variant article_recipe --properties no_magic
expect 2 "is a 'sometimes' property" check --variant article_recipe --properties sold_out
expect 2 "unknown list 'things'" list things
expect 2 "--trace: unknown format 'xml'" run --variant article_recipe --trace xml
expect 2 "The following argument was not expected: --bogus" run --variant article_recipe --bogus
expect 2 "--seeds" check --variant article_recipe --seeds 0

# Hostile input (each once accepted, run as something else, or crashed): exit 2, one line naming it.
v="--variant article_recipe"
expect 2 "--seed: '-1' is not a seed (an integer 0..18446744073709551615)" run $v --seed -1
expect 2 "--seed: 18446744073709551616 is out of range (0..18446744073709551615)" run $v --seed 18446744073709551616
expect 2 "--seed: an empty value (leave it out for its default, 1)" run $v --seed ''
expect 2 "--buyers: an empty value (leave it out for its default, 20)" run $v --buyers ''
expect 2 "--stock: an empty value (leave it out for its default, 5)" run $v --stock ''
expect 2 "--stock: '+3' is not a number" run $v --stock +3
expect 2 "--apps: '2x' is not a number" run $v --apps 2x
expect 2 "--jobs: '-1' is not a number (an integer 1..256)" check $v --jobs -1
expect 2 "--first-seed 18446744073709551615 with --seeds 2 runs past the last seed, 18446744073709551615" check $v --first-seed 18446744073709551615 --seeds 2
expect 2 "--seeds: '5..3' ends before it starts" check $v --seeds 5..3
expect 2 "--seeds: '1..3' is a range; it cannot be combined with --first-seed" check $v --seeds 1..3 --first-seed 4
expect 2 "--seeds: '0..18446744073709551615' has more than 1000000 seeds" hash --seeds 0..18446744073709551615
expect 2 "--seeds: '' is not a seed" hash --seeds ..
expect 2 "--lock-ttl: '+-9999999999s' is not a duration" run $v --lock-ttl +-9999999999s
expect 2 "--lock-ttl: '--5s' is not a duration" run $v --lock-ttl --5s
expect 2 "--lock-ttl: '721h' is out of range (1ms..720h)" run $v --lock-ttl 721h
expect 2 "--remote-call: '-5ms' is out of range (0..1h)" run $v --remote-call -5ms
expect 2 "--lock-ttl: '99999999999999999999s' is out of range (1ms..720h)" run $v --lock-ttl 99999999999999999999s
expect 2 "--horizon: '0' is out of range (1s..720h)" run $v --horizon 0
expect 2 "--double-click: '1/0' is not a ratio" run $v --double-click 1/0
expect 2 "--double-click: '-1/4' is not a ratio" run $v --double-click -1/4
expect 2 "bad fault 'at +-200002208m crash db': '+-200002208m' is not a duration" run $v --faults 'at +-200002208m crash db'
expect 2 "bad fault 'at 1s pause app-1 for --5s': '--5s' is not a duration" run $v --faults 'at 1s pause app-1 for --5s'
expect 2 "fault 'at 700s crash db' comes at or after the run's horizon of 10m" run $v --faults 'at 700s crash db'
expect 2 "the plan settles at 598s; with the 5s quiet time" run $v --faults 'at 1s pause app-1 for 597s'
expect 0 - run $v --faults 'at 700s crash db; at 701s restart db' --horizon 20m --trace none
expect 2 "'app-1' is on both sides: a node cannot be partitioned from itself" run $v --faults 'at 1s partition app-1 | app-1,db'
expect 2 "a link from 'db' to itself carries no messages" run $v --faults 'at 1s cut db -> db'
expect 2 "a link from 'app-1' to itself carries no messages" run $v --faults 'at 1s delay-next app-1 -> app-1 by 1s'
expect 2 "',db' has an empty node name" run $v --faults 'at 1s partition ,db | app-1'
expect 2 "the clock jumps on 'db' add up to more than 87600h" run $v --faults "$(for i in $(seq 130); do printf 'at 1s clock-jump db -720h; '; done)"
expect 2 "--faults: an empty value (leave it out for its default, none)" run $v --faults ''
expect 2 "--faults: the plan has no faults (use 'none' for no faults)" run $v --faults '# nothing'
expect 2 "--variants: ',' has an empty name" compare --variants ,
expect 2 "--variants: 'article_recipe,,db_for_update' has an empty name" compare --variants article_recipe,,db_for_update
expect 2 "--faults: ',' has an empty name" compare --faults ,
expect 2 "--variants: 'article_recipe,article_recipe' names 'article_recipe' twice" hash --variants article_recipe,article_recipe
expect 2 "--properties: ',' has an empty name" check $v --properties ,
expect 2 "fault 'at 1s crash nope' names unknown node 'nope' (nodes: stock, app-1, app-2, app-3)" demo --faults 'at 1s crash nope' --check-determinism
expect 2 "the demo takes a plan or 'none', not a profile ('gc-pause')" demo --faults gc-pause
# A profile's plan is checked for every seed, not only the first; a workload a profile cannot
# build a plan for is bad input, not an internal error.
expect 2 "lock-ttl is past the limit of 720h" run --variant redis_lock_read_modify_write --faults gc-pause --lock-ttl 720h
expect 2 "--strategy: 'pct:2:5' is a run's exact schedule; here give pct or pct:D" check --variant redis_lock_conditional --faults "at 1ms pause app-1 for 1s" --strategy pct:2:5 --seeds 3
expect 2 "--lock-ttl: '1500us' is not a whole number of milliseconds (Redis PX)" run $v --lock-ttl 1500us
# A plan separated by tabs is a plan (decided by parsing, not by looking for a space).
expect 0 - run $v --faults "$(printf 'at\t1s\tcrash\tdb;\tat\t2s\trestart\tdb')" --trace none
expect 1 - run --variant redis_lock_read_modify_write --faults "$(printf 'at\t23ms\tpause\tapp-1\tfor\t1493ms')" --seed 2 --buyers 2 --stock 1 --apps 1 --trace none

# Which property failed, not only the status.
out=$("$oversim" run --variant redis_lock_read_modify_write --seed 2 --faults 'at 23ms pause app-1 for 1493ms' --buyers 2 --stock 1 --apps 1 --trace none)
if ! printf '%s\n' "$out" | grep -q '^no_oversell .*yes .*VIOLATED'; then echo "FAIL: the gc-pause classic does not report no_oversell VIOLATED: $out"; failures=$((failures + 1)); else passes=$((passes + 1)); fi
# The reproduce line is a command the parser accepts, and it replays the same run.
line=$(printf '%s\n' "$out" | sed -n 's/^reproduce: oversim //p')
h1=$(printf '%s\n' "$out" | sed -n 's/.*trace hash \([0-9a-f]*\).*/\1/p')
h2=$(eval "\"\$oversim\" $line --trace none" | sed -n 's/.*trace hash \([0-9a-f]*\).*/\1/p')
if [ -z "$h1" ] || [ "$h1" != "$h2" ]; then echo "FAIL: the reproduce line '$line' gave hash '$h2', not '$h1'"; failures=$((failures + 1)); else passes=$((passes + 1)); fi

# `hash`: one tab-separated fingerprint per run, in order, equal to what `run` reports.
hash_lines=$("$oversim" hash --variants article_recipe,redis_lock_read_modify_write --faults none,gc-pause --seeds 4..5)
if [ "$(printf '%s\n' "$hash_lines" | wc -l)" != 8 ] || [ "$(printf '%s\n' "$hash_lines" | cut -f1-3 | head -3 | tr '\t\n' ' ;')" != "article_recipe none 4;article_recipe none 5;article_recipe gc-pause 4;" ]; then
  echo "FAIL: hash output is not 8 ordered lines: $hash_lines"; failures=$((failures + 1)); else passes=$((passes + 1)); fi
run_hash=$("$oversim" run --variant redis_lock_read_modify_write --faults gc-pause --seed 5 --trace none | sed -n 's/.*trace hash \([0-9a-f]*\).*/\1/p')
if [ "$(printf '%s\n' "$hash_lines" | awk -F'\t' '$1=="redis_lock_read_modify_write" && $2=="gc-pause" && $3==5 {print $4}')" != "$run_hash" ]; then
  echo "FAIL: hash and run disagree on redis_lock_read_modify_write gc-pause seed 5 ($run_hash)"; failures=$((failures + 1)); else passes=$((passes + 1)); fi

# Determinism across processes: the same seed, the same hash, twice.
hash_of() { "$oversim" run "$@" --trace none | sed -n 's/.*trace hash \([0-9a-f]*\).*/\1/p'; }
a=$(hash_of --variant redis_lock_conditional --faults chaos --seed 7)
b=$(hash_of --variant redis_lock_conditional --faults chaos --seed 7)
c=$(hash_of --variant redis_lock_conditional --faults chaos --seed 8)
if [ -z "$a" ] || [ "$a" != "$b" ]; then echo "FAIL: two processes gave different hashes: '$a' vs '$b'"; failures=$((failures + 1)); else passes=$((passes + 1)); fi
if [ "$a" = "$c" ]; then echo "FAIL: seeds 7 and 8 gave the same hash $a"; failures=$((failures + 1)); else passes=$((passes + 1)); fi
d1=$("$oversim" demo --trace none | tail -1)
d2=$("$oversim" demo --trace none | tail -1)
if [ "$d1" != "$d2" ]; then echo "FAIL: demo hashes differ: $d1 vs $d2"; failures=$((failures + 1)); else passes=$((passes + 1)); fi
expect 0 - --check-determinism
# JSON lines: every line one object that jq parses, with the documented fields and types, and
# the same events as the text trace.
json=$("$oversim" run --variant article_recipe --seed 2 --trace json)
text_events=$("$oversim" run --variant article_recipe --seed 2 --trace text | grep -cE '^ +[0-9]+\.[0-9]{6}s #[0-9]+ ')
bad=$(printf '%s\n' "$json" | grep '^{' | jq -c 'select((.at_ns|type) != "number" or (.step|type) != "number" or (.node|type) != "string" or (.kind|type) != "string" or (.fields|type) != "object" or ([.fields[]|type] - ["string"] | length) != 0)' 2>&1)
objects=$(printf '%s\n' "$json" | grep -c '^{')
parsed=$(printf '%s\n' "$json" | grep '^{' | jq -s 'length' 2>/dev/null)
if [ -z "$json" ] || [ -n "$bad" ] || [ "$parsed" != "$objects" ] || [ "$objects" != "$text_events" ] || [ "$objects" -lt 10 ]; then
  echo "FAIL: --trace json: $objects object lines, $parsed parsed by jq, $text_events text events; bad: $bad"; failures=$((failures + 1)); else passes=$((passes + 1)); fi
first=$(printf '%s\n' "$json" | grep -m1 '"kind":"redis"' | jq -r '.fields.cmd')
if [[ "$first" != SET\ * ]]; then echo "FAIL: the first redis event's cmd is '$first'"; failures=$((failures + 1)); else passes=$((passes + 1)); fi

# explore: a proof within bounds exits 0, a violation 1, bad input 2, a budget that ran out 4;
# the counterexample's reproduce line replays the violation with `run`.
expect_violated 0 "lock_mutual_exclusion" explore --variant redis_lock_conditional
expect_violated 1 "no_oversell ledger_conservation lock_mutual_exclusion no_lost_update" explore --variant redis_lock_read_modify_write
expect 4 - explore --variant redis_lock_conditional --max-executions 5
expect 2 "--max-faults: 4 is out of range" explore --variant redis_lock_conditional --max-faults 4
expect 2 "unknown fault point 'after_lunch'" explore --variant redis_lock_conditional --points after_lunch
expect 2 "--buyers: 9 is more than explore covers" explore --variant redis_lock_conditional --buyers 9
expect 2 "--faults: 'pause here for 2x lunch'" explore --variant redis_lock_conditional --faults 'pause here for 2x lunch'
expect 2 "--latency: '5ms..1ms' ends below where it starts" explore --variant redis_lock_conditional --latency 5ms..1ms
expect 2 "the explorer would run only its lower end" explore --variant redis_lock_conditional --latency 100us..400us
expect 2 "use --burst-window 0" explore --variant redis_lock_conditional --burst-window 5ms
expect 2 "--double-click 1/100 has more outcomes" explore --variant redis_lock_conditional --double-click 1/100
expect 2 "choice list" run --variant redis_lock_conditional --strategy 'choices:1.x'
expect 2 "a choice list is a run's exact schedule" check --variant redis_lock_conditional --strategy 'choices:1'
repro=$("$oversim" explore --variant redis_lock_plain_del 2>/dev/null | sed -n 's/^reproduce: oversim //p')
replayed=$(eval "\"\$oversim\" $repro --trace none" 2>/dev/null); status=$?
if [ -z "$repro" ] || [ "$status" != 1 ] || ! printf '%s\n' "$replayed" | grep -q '^no_oversell .*VIOLATED'; then
  echo "FAIL: explore's reproduce line '$repro' exited $status without no_oversell VIOLATED"; failures=$((failures + 1)); else passes=$((passes + 1)); fi

# --json: the verdict's kind, machine-readable.
tmpjson=$(mktemp)
"$oversim" explore --variant redis_lock_conditional --json "$tmpjson" >/dev/null 2>&1
kind=$(jq -r '.verdict.kind + " " + (.verdict.complete|tostring) + " " + (.verdict.holds|tostring)' "$tmpjson" 2>/dev/null)
if [ "$kind" != "exhaustive true true" ]; then echo "FAIL: explore --json verdict: '$kind'"; failures=$((failures + 1)); else passes=$((passes + 1)); fi
"$oversim" check --variant redis_lock_read_modify_write --faults gc-pause --seeds 20 --strategy random --json "$tmpjson" >/dev/null 2>&1
kind=$(jq -r '.verdict.kind + " " + .verdict.search + " " + (.verdict.holds|tostring) + " " + (.verdict.exit_status|tostring) + " " + (.counterexample.buyers|tostring)' "$tmpjson" 2>/dev/null)
if [ "$kind" != "violated random false 1 2" ]; then echo "FAIL: check --json verdict: '$kind'"; failures=$((failures + 1)); else passes=$((passes + 1)); fi
rm -f "$tmpjson"
expect 2 "--json: cannot write" check --variant db_conditional_update --seeds 1 --json /nonexistent/dir/out.json

# Lock services follow the design: RedLock designs, their flags, and profiles by role.
expect 2 "--masters: 0 is out of range (1..9)" check --variant redlock_conditional --masters 0
expect 2 "--persistence: unknown setting 'sometimes'" check --variant redlock_conditional --persistence sometimes
expect 2 "--faults: failover does not apply to db_conditional_update: the design uses no lock service" check --variant db_conditional_update --faults failover
expect 2 "its lock service (redlock) has no replica to take over" run --variant redlock_conditional --faults failover
expect 2 "names unknown node 'redis-1'" run --variant redlock_conditional --faults 'at 1ms crash redis-1'
expect_violated 1 "no_oversell ledger_conservation lock_mutual_exclusion no_lost_update" run --variant redlock_no_validity_check --seed 1 --buyers 2 --stock 1 --remote-call 100ms --faults 'on 3rd during_acquire in app-1 pause here for 600ms' --trace none
expect_violated 0 "" run --variant redlock_read_modify_write --seed 1 --buyers 2 --stock 1 --remote-call 100ms --faults 'on 3rd during_acquire in app-1 pause here for 600ms' --trace none
if ! "$oversim" list variants | grep -q '^redlock_no_validity_check '; then echo "FAIL: list variants lacks the RedLock designs"; failures=$((failures + 1)); else passes=$((passes + 1)); fi
expect 2 "'redlock' is a set of profiles (clock-jump, clock-drift, lock-restart, acquire-pause)" check --variant redlock_conditional --faults redlock
sets=$("$oversim" compare --variants redlock_conditional --faults redlock --seeds 1 2>/dev/null | grep -c '^redlock_conditional')
if [ "$sets" != 4 ]; then echo "FAIL: compare --faults redlock showed $sets rows, expected 4"; failures=$((failures + 1)); else passes=$((passes + 1)); fi
# ZooKeeper: its settings are checked before anything runs; a holder cut off from the ensemble
# oversells read-then-write in the window between expiry on the leader and LOST on its client.
expect 2 "--zk-servers: 0 is out of range (1..9)" check --variant zk_lock_conditional --zk-servers 0
expect 2 "--lock-ttl 100ms: a ZooKeeper design takes it as its session timeout" check --variant zk_lock_conditional --lock-ttl 100ms
expect 2 "names unknown node 'redis-1'" run --variant zk_lock_conditional --faults 'at 1ms crash redis-1'
expect_violated 1 "no_oversell ledger_conservation lock_mutual_exclusion no_lost_update" run --variant zk_lock_read_modify_write --seed 1 --buyers 2 --stock 1 --remote-call 750ms --lock-wait 10s --gateway-timeout 15s --faults 'on after_acquire partition here | zk-1,zk-2,zk-3; on after_acquire after 3s heal' --trace none
expect_violated 0 "lock_mutual_exclusion" run --variant zk_lock_fenced --seed 1 --buyers 2 --stock 1 --remote-call 750ms --lock-wait 10s --gateway-timeout 15s --faults 'on after_acquire partition here | zk-1,zk-2,zk-3; on after_acquire after 3s heal' --trace none
if ! "$oversim" list variants | grep -q '^zk_herd_lock '; then echo "FAIL: list variants lacks the ZooKeeper designs"; failures=$((failures + 1)); else passes=$((passes + 1)); fi
herd=$("$oversim" compare --variants zk_lock_conditional,zk_herd_lock --faults none --seeds 2 --buyers 40 --stock 40 2>/dev/null | awk '$2 == "none" {print $1, $(NF-1)}')
recipe_msgs=$(printf '%s\n' "$herd" | awk '$1 == "zk_lock_conditional" {print $2}')
herd_msgs=$(printf '%s\n' "$herd" | awk '$1 == "zk_herd_lock" {print $2}')
if ! awk -v r="$recipe_msgs" -v h="$herd_msgs" 'BEGIN { exit !(r > 0 && h > 3 * r) }'; then echo "FAIL: compare msgs/buy: recipe '$recipe_msgs', herd '$herd_msgs' (expected the herd above 3x)"; failures=$((failures + 1)); else passes=$((passes + 1)); fi
row=$("$oversim" compare --variants db_for_update,redlock_conditional --faults failover,acquire-pause --seeds 2 2>/dev/null | grep -c 'does not apply')
if [ "$row" != 3 ]; then echo "FAIL: compare showed $row 'does not apply' rows, expected 3 (db_for_update under both, redlock_conditional/failover)"; failures=$((failures + 1)); else passes=$((passes + 1)); fi

# Model settings: checked like every flag, carried into the reproduce line, and a design's
# requirement never overrides a flag the user typed.
expect 2 "--isolation: serializable is not modeled" run --variant read_modify_write --isolation serializable
expect 2 "--pool-size: 0 is out of range (1..1000)" check --variant db_for_update --pool-size 0
expect 2 "--check-constraint: 'maybe' is not on or off" run --variant db_decrement_checked --check-constraint maybe
expect 2 "--check-constraint on: design 'db_decrement_mysql57' requires --check-constraint off" run --variant db_decrement_mysql57 --check-constraint on
# Beside other designs, one that requires what the user typed otherwise is a row saying so (compare,
# lint) or left out (hash), never the end of the whole command.
row=$("$oversim" compare --variants db_decrement_checked,db_decrement_mysql57 --faults none --seeds 1 --check-constraint on 2>/dev/null); status=$?
if [ "$status" != 0 ] || ! printf '%s\n' "$row" | grep -q '^db_decrement_mysql57 .*does not apply: requires --check-constraint off .*--check-constraint on was typed' \
  || ! printf '%s\n' "$row" | grep -qE '^db_decrement_checked +none +\.'; then
  echo "FAIL: compare with a typed --check-constraint on (exit $status): $row"; failures=$((failures + 1)); else passes=$((passes + 1)); fi
lint=$("$oversim" lint --check-constraint on 2>/dev/null)
if ! printf '%s\n' "$lint" | grep -q '^db_decrement_mysql57 .*does not apply'; then echo "FAIL: lint of every design with --check-constraint on: $lint"; failures=$((failures + 1)); else passes=$((passes + 1)); fi
hashes=$("$oversim" hash --variants db_decrement_checked,db_decrement_mysql57 --faults none --seeds 1..2 --check-constraint on 2>/dev/null); status=$?
if [ "$status" != 0 ] || [ "$(printf '%s\n' "$hashes" | grep -c '^db_decrement_checked')" != 2 ] || printf '%s\n' "$hashes" | grep -q mysql57; then
  echo "FAIL: hash with a typed --check-constraint on (exit $status): $hashes"; failures=$((failures + 1)); else passes=$((passes + 1)); fi
expect 2 "--check-constraint on: design 'db_decrement_mysql57' requires --check-constraint off" compare --variants db_decrement_mysql57 --check-constraint on --seeds 1
# Sentinel: a group and its quorum; a Redis configuration that could never work is refused.
expect 2 "--sentinels: 9 is out of range (1..7)" run --variant redis_lock_conditional --sentinels 9
expect 2 "--sentinel-quorum: 'most' is not a number (an integer 1..7), or majority" run --variant redis_lock_conditional --sentinel-quorum most
expect 2 "--sentinel-quorum 4 with 3 sentinel(s): no failover could ever start" run --variant redis_lock_conditional --sentinels 3 --sentinel-quorum 4
expect 2 "--min-replicas 2 with 1 Redis replica(s)" check --variant redis_lock_conditional --min-replicas 2
expect 2 "--sentinels 3 with --redis-replicas 0" run --variant article_recipe --sentinels 3 --redis-replicas 0
expect_violated 0 "" check --variant redis_lock_read_modify_write --faults partition --seeds 3 --sentinels 2 --sentinel-quorum 1 --properties lock_mutual_exclusion
if ! "$oversim" run --variant redis_lock_conditional --sentinels 3 --sentinel-quorum 2 --trace none 2>/dev/null | grep "^reproduce:" | grep -q -- '--sentinels 3 --sentinel-quorum 2'; then
  echo "FAIL: the reproduce line lacks --sentinels 3 --sentinel-quorum 2"; failures=$((failures + 1)); else passes=$((passes + 1)); fi
# A typed setting for a service the design does not use is named on stderr, never silently dropped.
if ! "$oversim" run --variant redlock_conditional --min-replicas 1 --trace none 2>&1 >/dev/null | grep -q '^oversim: --min-replicas sets the redis service, which redlock_conditional does not use'; then
  echo "FAIL: --min-replicas on a RedLock design was ignored without a word"; failures=$((failures + 1)); else passes=$((passes + 1)); fi
if "$oversim" compare --variants redis_lock_conditional,redlock_conditional --faults none --seeds 1 --min-replicas 1 2>&1 >/dev/null | grep -q 'changes nothing'; then
  echo "FAIL: compare warned about --min-replicas although redis_lock_conditional uses it"; failures=$((failures + 1)); else passes=$((passes + 1)); fi
expect_violated 0 "" check --variant read_modify_write --isolation repeatable-read --seeds 5 --faults none --properties no_oversell
expect_violated 0 "progress" check --variant read_modify_write --isolation repeatable-read --patience 0 --seeds 5 --faults none --properties no_oversell
# A faultless counterexample's reproduce line ('--faults none --strategy choices:...') runs.
line=$("$oversim" check --variant db_decrement_mysql57 --faults none --seeds 5 2>/dev/null | sed -n 's/^reproduce: oversim //p')
if [[ "$line" != *"--faults none --strategy choices:"* ]]; then
  echo "FAIL: check under no faults printed no exact faultless reproduce line: $line"
  failures=$((failures + 1))
else
  eval "\"\$oversim\" $line --trace none" >/dev/null 2>&1
  status=$?
  if [ "$status" != 1 ]; then echo "FAIL: oversim $line exited $status, expected 1"; failures=$((failures + 1)); else passes=$((passes + 1)); fi
fi
if ! "$oversim" check --variant read_modify_write --pool-size 2 --pool-timeout 200ms --seeds 2 --faults none --no-shrink 2>/dev/null | grep "^reproduce:" | grep -q -- '--pool-size 2 --pool-timeout 200ms'; then
  echo "FAIL: the inspect/reproduce line lacks --pool-size 2 --pool-timeout 200ms"; failures=$((failures + 1)); else passes=$((passes + 1)); fi
# lint: the article's checklist. A 500ms lease under an 800ms call fails (exit 1); the article's
# recipe passes at its defaults; --prove backs the answer with the sale.
lint=$("$oversim" lint --variant redis_lock_conditional --remote-call 800ms --gateway-timeout 5s 2>&1); status=$?
if [ "$status" != 1 ] || ! printf '%s\n' "$lint" | grep -q '^lease      FAIL'; then echo "FAIL: lint did not flag --lock-ttl 500ms under --remote-call 800ms (exit $status)"; failures=$((failures + 1)); else passes=$((passes + 1)); fi
lint=$("$oversim" lint --variant article_recipe 2>&1); status=$?
if [ "$status" != 0 ] || printf '%s\n' "$lint" | grep -qE '^[a-z]+ +(FAIL|WARN)'; then echo "FAIL: lint article_recipe at its defaults: exit $status: $lint"; failures=$((failures + 1)); else passes=$((passes + 1)); fi
if ! "$oversim" lint --variant redis_lock_conditional --remote-call 800ms --gateway-timeout 5s --prove --seeds 3 2>&1 | grep -q 'lock_mutual_exclusion VIOLATED under none in 3 of 3 runs'; then
  echo "FAIL: lint --prove did not back the lease answer"; failures=$((failures + 1)); else passes=$((passes + 1)); fi
expect 2 "unknown variant 'nope'" lint --variant nope
if ! "$oversim" check --variant redis_lock_conditional --remote-call 800ms --gateway-timeout 5s --seeds 1 2>&1 >/dev/null | grep -q '^oversim: lint lease FAIL'; then
  echo "FAIL: check did not print the lint warning for the short lease"; failures=$((failures + 1)); else passes=$((passes + 1)); fi
# An item lists every reason at once: SELECT ... FOR UPDATE holds the row through the call and a
# pool of one connection carries every purchase, both too slow for the sale. check prints a line
# per reason on stderr; lint's detailed view, a line per reason under the question.
n=$("$oversim" check --variant db_for_update --buyers 200 --stock 200 --pool-size 1 --apps 1 --seeds 1 2>&1 >/dev/null | grep -c '^oversim: lint capacity WARN: no: ')
if [ "$n" != 2 ]; then echo "FAIL: check printed $n capacity reasons, not 2 (row lock and pool)"; failures=$((failures + 1)); else passes=$((passes + 1)); fi
n=$("$oversim" lint --variant db_for_update --buyers 200 --stock 200 --pool-size 1 --apps 1 2>&1 | awk '/^capacity +WARN/ {on = 1; next} /^[a-z]/ {on = 0} on && /^ +no: / {n++} END {print n + 0}')
if [ "$n" != 2 ]; then echo "FAIL: lint listed $n capacity reasons, not 2 (row lock and pool)"; failures=$((failures + 1)); else passes=$((passes + 1)); fi
# A run whose lock service is overloaded says so: a thousand buyers polling tryLock every 1ms
# push the Redis primary to what it serves; the same sale failing fast (--lock-wait 0) does not.
out=$("$oversim" run --variant redis_lock_conditional --buyers 1000 --lock-retry 1ms --lock-wait 1s --patience 0 --gateway-timeout 5s --trace none 2>/dev/null)
if ! printf '%s\n' "$out" | grep -q '^lock service overloaded: redis-1 received [0-9]* requests in its busiest second (from 0s), [0-9]*% of the 100000 a second it serves (one at a time, 10us each); a request waited up to '; then
  echo "FAIL: run did not report the overloaded Redis primary: $out"; failures=$((failures + 1)); else passes=$((passes + 1)); fi
if "$oversim" run --variant redis_lock_conditional --buyers 1000 --lock-retry 1ms --lock-wait 0 --patience 0 --gateway-timeout 5s --trace none 2>/dev/null | grep -q 'lock service overloaded'; then
  echo "FAIL: run reported an overloaded lock service for buyers who fail fast"; failures=$((failures + 1)); else passes=$((passes + 1)); fi

# --require: a sweep that never reaches a required 'sometimes' property fails as vacuous (5).
expect 5 - check --variant redis_lock_conditional --faults none --seeds 3 --require lease_expired_while_held
expect 0 - check --variant redis_lock_conditional --faults gc-pause --seeds 3 --require lease_expired_while_held,lock_contended
expect 2 "--require: 'no_oversell' is asserted with --properties" check --variant redis_lock_conditional --require no_oversell

# No silent pass. Each way a result can fail to test what it was asked has its own exit status,
# its own verdict line and its own JSON kind (never "holds": true): 4 a limit ran out (explore's
# budget, a run's horizon), 5 vacuous, 6 a planned fault never happened.
# json_of <file> <jq filter>: one line of the JSON result.
json_of() { jq -r "$2" "$1" 2>/dev/null; }
# expect_verdict <status> <verdict line prefix> <args...>: the exit status and the verdict line.
expect_verdict() {
  local want="$1" line="$2"
  shift 2
  local out status
  out=$("$oversim" "$@" 2>/dev/null)
  status=$?
  if [ "$status" != "$want" ] || ! printf '%s\n' "$out" | grep -q "^verdict: $line"; then
    echo "FAIL: oversim $*: exit $status, verdict '$(printf '%s\n' "$out" | grep '^verdict:')'; expected exit $want with 'verdict: $line'"
    failures=$((failures + 1))
    return
  fi
  passes=$((passes + 1))
}
tmpjson=$(mktemp)
# Two buyers make two commits: a crash on the 9th never happens. The run is the fault-free sale.
never=(--variant db_conditional_update --buyers 2 --stock 2 --faults 'on 9th before_commit crash here')
expect_verdict 6 "UNFIRED: 1 of 1 planned fault never happened" run "${never[@]}" --trace none
if ! "$oversim" run "${never[@]}" --trace none 2>/dev/null | grep -q '^faults: 0 of 1 planned fault happened'; then
  echo "FAIL: run does not count the fault that never happened"; failures=$((failures + 1)); else passes=$((passes + 1)); fi
expect 6 - run "${never[@]}" --trace json
expect_verdict 0 "every asserted property held in this run" run --variant db_conditional_update --buyers 2 --stock 2 --faults 'on 1st before_commit crash here' --trace none
expect_verdict 6 "UNFIRED: in 3 of 3 runs a fault of the plan never happened (first seed 1; 0 of 3 planned faults happened)" check "${never[@]}" --seeds 3 --json "$tmpjson"
got=$(json_of "$tmpjson" '[.verdict.kind, .verdict.holds, .verdict.exit_status, .fault_plan.typed, .fault_plan.planned, .fault_plan.fired, .fault_plan.runs_unfired, .fault_plan.first_unfired_seed] | map(tostring) | join(" ")')
if [ "$got" != "unfired false 6 true 3 0 3 1" ]; then echo "FAIL: check --json of a plan that never fired: '$got'"; failures=$((failures + 1)); else passes=$((passes + 1)); fi
# compare: a cell whose faults never happened says so where '.' would read as "missed"; a report, so 0.
row=$("$oversim" compare --variants redis_lock_conditional --buyers 2 --stock 2 --faults 'on 9th before_commit crash here' --seeds 2 2>/dev/null); status=$?
cells=$(printf '%s\n' "$row" | awk '$2 == "plan" {print $14, $15}')
if [ "$status" != 0 ] || [ "$cells" != "unfired unfired" ] || ! printf '%s\n' "$row" | grep -q '(unfired: in 2 of 2 runs a planned fault never happened, first seed 1; 0 of 2 planned faults happened)'; then
  echo "FAIL: compare of a plan that never fired (exit $status): insale/hit '$cells': $row"; failures=$((failures + 1)); else passes=$((passes + 1)); fi
# A profile draws a plan per seed; a later fault whose trigger point an earlier one removed is
# counted, not a failure: app-crash's second crash on db_conditional_update seed 4.
expect_verdict 0 "every asserted property held in all 4 runs" check --variant db_conditional_update --faults app-crash --seeds 4 --json "$tmpjson"
got=$(json_of "$tmpjson" '[.verdict.kind, .verdict.holds, .fault_plan.typed, .fault_plan.runs_unfired, .fault_plan.first_unfired_seed] | map(tostring) | join(" ")')
if [ "$got" != "random true false 1 4" ]; then echo "FAIL: check --json of a partly fired profile: '$got'"; failures=$((failures + 1)); else passes=$((passes + 1)); fi
# The horizon: 200 buyers, one lock holder at a time for 100ms, need 20s; the runs stop at 6s.
short=(--variant redis_lock_conditional --buyers 200 --stock 200 --remote-call 100ms --horizon 6s)
expect_verdict 4 "INCOMPLETE: the run stopped at its limit (virtual-time horizon of 6s reached) before the sale ended" run "${short[@]}" --trace none
expect_verdict 4 "INCOMPLETE: 2 of 2 runs stopped at their horizon before the sale ended (first seed 1)" check "${short[@]}" --seeds 2 --json "$tmpjson"
got=$(json_of "$tmpjson" '[.verdict.kind, .verdict.holds, .verdict.exit_status, .runs.horizon, .runs.first_horizon_seed] | map(tostring) | join(" ")')
if [ "$got" != "incomplete false 4 2 1" ]; then echo "FAIL: check --json of runs stopped at the horizon: '$got'"; failures=$((failures + 1)); else passes=$((passes + 1)); fi
# Vacuous: JSON says so, and --require's failure is the same kind.
"$oversim" check --variant db_conditional_update --faults gc-pause --stock 0 --seeds 3 --json "$tmpjson" >/dev/null 2>&1; status=$?
got=$(json_of "$tmpjson" '[.verdict.kind, .verdict.holds, .verdict.exit_status, (.unreached|join(","))] | map(tostring) | join(" ")')
if [ "$status" != 5 ] || [ "$got" != "vacuous false 5 fault_struck_during_sale" ]; then echo "FAIL: check --json of a vacuous sweep (exit $status): '$got'"; failures=$((failures + 1)); else passes=$((passes + 1)); fi
# --help documents --require and every exit status.
help=$("$oversim" check --help 2>&1)
if ! printf '%s\n' "$help" | grep -q -- '--require TEXT' || ! printf '%s\n' "$help" | grep -q 'exits 5 (VACUOUS)' || ! printf '%s\n' "$help" | grep -q '6 unfired: a planned fault never happened'; then
  echo "FAIL: check --help lacks --require or the exit statuses"; failures=$((failures + 1)); else passes=$((passes + 1)); fi
# explore: a search cut short by its budget is incomplete in JSON as in text, never "holds".
"$oversim" explore --variant redis_lock_conditional --max-executions 5 --json "$tmpjson" >/dev/null 2>&1; status=$?
got=$(json_of "$tmpjson" '[.verdict.kind, .verdict.search, .verdict.holds, .verdict.complete, .verdict.exit_status] | map(tostring) | join(" ")')
if [ "$status" != 4 ] || [ "$got" != "incomplete exhaustive false false 4" ]; then echo "FAIL: explore --json of an incomplete search (exit $status): '$got'"; failures=$((failures + 1)); else passes=$((passes + 1)); fi
rm -f "$tmpjson"
# explore judges only what it asserts: the pause breaks the lock in some executions while the
# conditional decrement keeps the stock; that is observed, not "held".
out=$("$oversim" explore --variant redis_lock_conditional 2>/dev/null)
if ! printf '%s\n' "$out" | grep -qE '^lock_mutual_exclusion +always +no +observed broken in [1-9][0-9]*/512 \(not asserted\)$' \
  || ! printf '%s\n' "$out" | grep -qE '^no_oversell +always +yes +held in 512/512$' || printf '%s\n' "$out" | grep -E ' no +' | grep -q 'held'; then
  echo "FAIL: explore's unasserted rows: $out"; failures=$((failures + 1)); else passes=$((passes + 1)); fi
# explore's bounds line is the whole claim: every setting that differs from its default is in it.
b1=$("$oversim" explore --variant redis_lock_conditional --max-executions 1 2>/dev/null | grep '^bounds:')
b2=$("$oversim" explore --variant redis_lock_conditional --max-executions 1 --lock-ttl 1s 2>/dev/null | grep '^bounds:')
b3=$("$oversim" explore --variant redlock_conditional --max-executions 1 --masters 3 --isolation repeatable-read --patience 0 2>/dev/null | grep '^bounds:')
if [ -z "$b1" ] || [ "$b1" = "$b2" ] || [[ "$b2" != *"other settings --lock-ttl 1s;"* ]] || [[ "$b1" != *"every other setting at its default;"* ]] \
  || [[ "$b3" != *"--masters 3"* ]] || [[ "$b3" != *"--isolation repeatable-read"* ]] || [[ "$b3" != *"--patience 0"* ]]; then
  echo "FAIL: explore's bounds lines: '$b1' / '$b2' / '$b3'"; failures=$((failures + 1)); else passes=$((passes + 1)); fi

# A profile's widening is one stderr line for every design it widens the same way (Redis and
# ZooKeeper failover), one per group where it differs (partition), each group named.
notes=$("$oversim" compare --variants redis_lock_conditional,zk_lock_conditional --faults failover,partition --seeds 1 2>&1 >/dev/null)
lines="$(printf '%s\n' "$notes" | grep -c '^oversim: failover sets') $(printf '%s\n' "$notes" | grep -c '^oversim: partition sets .* for redis_lock_conditional (') $(printf '%s\n' "$notes" | grep -c '^oversim: partition sets .* for zk_lock_conditional (')"
if [ "$lines" != "1 1 1" ]; then echo "FAIL: compare's widening notes (failover, partition for redis, for zk: $lines, expected 1 1 1): $notes"; failures=$((failures + 1)); else passes=$((passes + 1)); fi
# Combinations: one run suffers a fault of each profile; a list is for compare.
expect 0 - check --variant redis_lock_conditional --faults gc-pause+failover --seeds 2 --require failover_happened,fault_hit_held_lock
expect 2 "'gc-pause,failover' is a list of profiles" check --variant redis_lock_conditional --faults gc-pause,failover
expect 2 "'all' is a list of profiles" run --variant redis_lock_conditional --faults all
expect 2 "combination 'gc-pause+gc-pause': 'gc-pause+gc-pause' names gc-pause twice" check --variant redis_lock_conditional --faults gc-pause+gc-pause
expect 2 "combination 'none+gc-pause': 'none' does not combine" compare --faults none+gc-pause
# compare's columns: the lock's coverage by default ('-' without a lock service), any property by name.
# Columns 12-15: expired, contend, insale (the fault struck while units remained), hit.
row=$("$oversim" compare --variants db_conditional_update,redis_lock_conditional --faults gc-pause --seeds 2 2>/dev/null | awk '$2 == "gc-pause" {print $1, $12, $13, $14, $15}')
if [ "$row" != "$(printf 'db_conditional_update - - 2 -\nredis_lock_conditional 2 2 2 2')" ]; then echo "FAIL: compare coverage columns: '$row'"; failures=$((failures + 1)); else passes=$((passes + 1)); fi
row=$("$oversim" compare --variants db_decrement_mysql57 --faults none --seeds 2 --properties no_oversell,check_constraint_fired 2>/dev/null | awk '$2 == "none" {print $3, $4}')
if [ "$row" != "2 ." ]; then echo "FAIL: compare --properties no_oversell,check_constraint_fired on db_decrement_mysql57: '$row'"; failures=$((failures + 1)); else passes=$((passes + 1)); fi
expect 2 "--properties: unknown property 'nope'" compare --properties nope

# Bad input that passes (issue 29): an empty value is bad input, never "not given".
expect 2 "--properties: an empty value (leave it out instead)" check $v --properties ''
expect 2 "--json: an empty value (leave it out instead)" check $v --json ''
expect 2 "--require: an empty value (leave it out instead)" check $v --require ''
expect 2 "--latency: an empty value (leave it out instead)" run $v --latency ''
expect 2 "--variants: an empty value (leave it out for its default, all)" compare --variants ''
expect 2 "--points: an empty value (leave it out for its default, all)" explore --variant redis_lock_conditional --points ''
expect 2 "--variant: an empty value (it needs one)" run --variant ''
expect 2 "list what: an empty value (leave it out instead)" list ''
expect 2 "help command: an empty value (leave it out instead)" help ''

# A result file is replaced whole at the end, never emptied first: bad input, or a sweep
# interrupted with SIGINT or SIGTERM, leaves the previous result as it was.
results=$(mktemp -d)
"$oversim" check --variant db_conditional_update --seeds 3 --json "$results/r.json" >/dev/null 2>&1
before=$(cksum < "$results/r.json")
expect 2 "--seeds: 0 is out of range" check --variant db_conditional_update --seeds 0 --json "$results/r.json"
expect 2 "--variant: unknown variant 'nope'" explore --variant nope --json "$results/r.json"
timeout -s INT 1 "$oversim" check --variant redis_lock_conditional --faults gc-pause --seeds 3000 --json "$results/r.json" >/dev/null 2>&1; int_status=$?
timeout -s TERM 1 "$oversim" check --variant redis_lock_conditional --faults gc-pause --seeds 3000 --json "$results/r.json" >/dev/null 2>&1; term_status=$?
if [ "$int_status" != 124 ] || [ "$term_status" != 124 ] || [ "$(cksum < "$results/r.json")" != "$before" ] || ! jq -e '.verdict.executions == 3' "$results/r.json" >/dev/null \
  || [ "$(ls -A "$results")" != r.json ]; then
  echo "FAIL: the previous --json result did not survive bad input and interrupts (SIGINT exit $int_status, SIGTERM exit $term_status): $(ls -A "$results")"; failures=$((failures + 1)); else passes=$((passes + 1)); fi
expect 2 "--json: cannot write '$results': it is a directory" check --variant db_conditional_update --seeds 1 --json "$results"
expect 2 "--json: cannot write '$results/none/r.json': no directory '$results/none'" check --variant db_conditional_update --seeds 1 --json "$results/none/r.json"
rm -rf "$results"

# The header is flushed before the sweep: a `check | cat` killed mid-sweep still shows what ran.
out=$(timeout -s KILL 3 "$oversim" check --variant redis_lock_conditional --faults gc-pause --seeds 3000 2>/dev/null | cat)
if ! printf '%s\n' "$out" | head -1 | grep -q '^oversim check: variant redis_lock_conditional, faults gc-pause' || ! printf '%s\n' "$out" | grep -q '^asserting: '; then
  echo "FAIL: check killed mid-sweep left no header on its pipe: '$out'"; failures=$((failures + 1)); else passes=$((passes + 1)); fi
out=$(timeout -s KILL 8 "$oversim" compare --variants redis_lock_conditional --faults gc-pause,failover --seeds 20000 2>/dev/null | cat)
if ! printf '%s\n' "$out" | grep -q '^variant  *faults  *oversell'; then
  echo "FAIL: compare killed mid-sweep left no table header on its pipe: '$out'"; failures=$((failures + 1)); else passes=$((passes + 1)); fi

# A fault on an unknown point, or on one no sale of the design reaches, is refused before the run
# (it would never happen); a point the design's own code may not reach is a note, not a refusal.
expect 2 "waits on an unknown fault point 'after_raed' (did you mean after_read? points: after_acquire, after_read," run $v --faults 'on after_raed pause app-1 for 1s'
expect 2 "waits on during_acquire, which only the RedLock client marks (the redlock service); db_conditional_update builds no redlock service (it uses the database only): the fault would never happen" run --variant db_conditional_update --faults 'on during_acquire pause here for 1s'
expect 2 "waits on after_acquire, which the lock steps mark while a buyer holds a lock; read_modify_write has no lock service" check --variant read_modify_write --faults 'on after_acquire pause here for 1s' --seeds 2
expect 2 "waits on write_unreplicated, which only the Redis primary marks (the redis service); zk_lock_conditional builds no redis service (its services: zookeeper)" run --variant zk_lock_conditional --faults 'on write_unreplicated crash here'
expect 2 "never in this deployment (--redis-replicas 0: a standalone Redis has no replica" run --variant redis_lock_conditional --redis-replicas 0 --faults 'on write_unreplicated crash here'
expect 2 "waits on after_read in db, but only the app nodes (app-1, app-2) reach after_read" run --variant redis_lock_conditional --faults 'on after_read in db crash db'
expect 2 "--points: during_acquire, which only the RedLock client marks" explore --variant redis_lock_conditional --points during_acquire
expect 2 "--faults: fault 'on during_acquire pause here for 1s' waits on during_acquire" compare --variants redlock_conditional,db_for_update --faults 'on during_acquire pause here for 1s' --seeds 1
note=$("$oversim" run --variant db_conditional_update --faults 'on after_read pause here for 1s' --trace none 2>&1 >/dev/null); status=$?  # the fault then never fires: unfired, exit 6
if [ "$status" != 6 ] || ! printf '%s\n' "$note" | grep -q "^oversim: --faults: 'on after_read pause here for 1s': a faultless run of db_conditional_update (seed 1) never reaches after_read while faults can strike"; then
  echo "FAIL: a point the design's sale never reached was not noted (exit $status): $note"; failures=$((failures + 1)); else passes=$((passes + 1)); fi
note=$("$oversim" check --variant db_conditional_update --faults 'on 30th before_write pause here for 1s' --seeds 2 2>&1 >/dev/null)
if ! printf '%s\n' "$note" | grep -q "reaches before_write only 20 times while faults can strike, never a 30th"; then
  echo "FAIL: an occurrence past what a faultless sale reaches was not noted: $note"; failures=$((failures + 1)); else passes=$((passes + 1)); fi
if "$oversim" run --variant read_modify_write --faults 'on after_read pause here for 1s' --trace none 2>&1 >/dev/null | grep -q 'a faultless run'; then
  echo "FAIL: a point the sale reaches was noted as unreached"; failures=$((failures + 1)); else passes=$((passes + 1)); fi

# A flag that changes nothing for the chosen design or command is named on stderr, one line each
# (the run is the same: the hash with and without the flag).
notes_of() { "$oversim" "$@" 2>&1 >/dev/null | grep 'it changes nothing here'; }
expect_note() {  # expect_note "<expected lines, ';' separated>" <args...>
  local want="$1"
  shift
  local got
  got=$(notes_of "$@" | tr '\n' ';' | sed 's/;$//')
  if [ "$got" != "$want" ]; then echo "FAIL: oversim $*: notes '$got', expected '$want'"; failures=$((failures + 1)); else passes=$((passes + 1)); fi
}
expect_note "oversim: --masters sets the redlock service, which redis_lock_conditional does not use (services: redis): it changes nothing here" \
  run --variant redis_lock_conditional --masters 3 --trace none
expect_note "oversim: --zk-servers sets the zookeeper service, which db_conditional_update does not use (the database only): it changes nothing here" \
  check --variant db_conditional_update --zk-servers 5 --seeds 1
expect_note "oversim: --lock-ttl sets a lock service, which db_for_update does not use (the database only): it changes nothing here;oversim: --persistence sets the redis or redlock service, which db_for_update does not use (the database only): it changes nothing here" \
  run --variant db_for_update --lock-ttl 2s --persistence always --trace none
expect_note "oversim: --optimistic-retries is how often a version check tries again after a conflict; article_recipe writes the stock with no version check: it changes nothing here" \
  run --variant article_recipe --optimistic-retries 5 --trace none
expect_note "" run --variant db_optimistic_version --optimistic-retries 5 --trace none
expect_note "oversim: --poisson-mean sets the gaps of poisson arrivals; with --arrival burst the arrivals spread over --burst-window: it changes nothing here;oversim: --backoff spaces a buyer's clicks again; with --patience 0 each buyer clicks once: it changes nothing here" \
  run --variant db_conditional_update --poisson-mean 5ms --patience 0 --backoff 1s --trace none
expect_note "oversim: --replication-lag delays the Redis replica's copy; with --redis-replicas 0 there is no replica: it changes nothing here" \
  run --variant redis_lock_conditional --redis-replicas 0 --replication-lag 50ms --trace none
expect_note "oversim: --faults: 'at 1s clock-jump db +0' jumps the clock by 0: it changes nothing here" run $v --faults 'at 1s clock-jump db +0s' --trace none
expect_note "oversim: --seeds is for the sweeps of --prove; lint without it runs nothing: it changes nothing here" lint --variant article_recipe --seeds 5
expect_note "" compare --variants redis_lock_conditional,redlock_conditional --faults none --seeds 1 --masters 3
# ... but a flag whose quantity the faults scale by is used, lock service or not.
expect_note "" run --variant db_conditional_update --faults gc-pause --lock-ttl 2s --trace none
expect_note "" run --variant db_conditional_update --faults 'on before_write pause here for 2x lock-ttl' --lock-ttl 2s --trace none
expect_note "" explore --variant db_conditional_update --lock-ttl 2s
a=$("$oversim" run --variant redis_lock_conditional --seed 3 --trace none 2>/dev/null | sed -n 's/.*trace hash \([0-9a-f]*\).*/\1/p')
b=$("$oversim" run --variant redis_lock_conditional --seed 3 --masters 3 --zk-servers 5 --trace none 2>/dev/null | sed -n 's/.*trace hash \([0-9a-f]*\).*/\1/p')
if [ -z "$a" ] || [ "$a" != "$b" ]; then echo "FAIL: flags noted as changing nothing changed the run: $a vs $b"; failures=$((failures + 1)); else passes=$((passes + 1)); fi

# A request past the cost limits (2h of CPU, 4 GiB of memory; docs/guide.md#limits) is refused
# before anything runs, unless --force; a large one under them says what it will cost.
expect 2 "past the limit of 2.0h of CPU (docs/guide.md#limits)" compare --seeds 100000
expect 2 "past the limit of 2.0h of CPU (docs/guide.md#limits); ask for less, or add --force to run it anyway" check --variant redis_lock_conditional --faults gc-pause --seeds 1000000
expect 2 "(the costliest: 100000 buyers on redis_lock_conditional): past the limit of 4.0 GiB of memory" run --variant redis_lock_conditional --buyers 100000 --trace text
expect 2 "(the costliest: 20 buyers on zk_lock_conditional, 700.0h of virtual time after the sale): past the limit of 4.0 GiB of memory" run --variant zk_lock_conditional --faults 'at 700h crash db; at 700h restart db' --horizon 720h
expect 0 - run --variant db_conditional_update --faults 'at 700h crash db; at 700h restart db' --horizon 720h --trace none
err=$("$oversim" run --variant redis_lock_conditional --buyers 100000 --trace text --force --horizon 1s --faults 'at 2s crash db' 2>&1 >/dev/null); status=$?
if [ "$status" != 2 ] || ! printf '%s\n' "$err" | head -1 | grep -q 'past the limit of 4.0 GiB of memory, run anyway (--force)$' || ! printf '%s\n' "$err" | grep -q "comes at or after the run's horizon"; then
  echo "FAIL: --force did not take the request past the memory limit to the command's own checks (exit $status): $err"; failures=$((failures + 1)); else passes=$((passes + 1)); fi
err=$(timeout -s KILL 3 "$oversim" check --variant db_conditional_update --seeds 1000000 2>&1 >/dev/null)
if ! printf '%s\n' "$err" | grep -q '^oversim: estimate: about [0-9]*m of CPU ([0-9]*m wall with 2 jobs) and up to [0-9]* MiB of memory for 1000000 runs (the costliest: 20 buyers on db_conditional_update)$'; then
  echo "FAIL: a long check under the limits did not print its estimate first: $err"; failures=$((failures + 1)); else passes=$((passes + 1)); fi
if "$oversim" compare --seeds 1 --variants db_conditional_update --faults none 2>&1 >/dev/null | grep -q estimate; then
  echo "FAIL: a small compare printed an estimate"; failures=$((failures + 1)); else passes=$((passes + 1)); fi

# Scenario files: a bad file is one line naming the file, the line and the problem, exit 2; flags
# typed on the command line override the file and the header says which; --faults @FILE reads a
# plan with comments (a ';' inside one splits nothing).
sdir=$(mktemp -d)
printf 'design = "redis_lock_read_modify_write"\nbuyerz = 3\n' >"$sdir/typo.toml"
expect 2 "typo.toml:2: 'buyerz' at the file's top level is not a flag of \`oversim run\`" run "$sdir/typo.toml"
printf 'design = "redis_lock_read_modify_write"\n[check]\nseedz = 3\n' >"$sdir/typo2.toml"
expect 2 "typo2.toml:3: 'seedz' at [check] is not a flag of \`oversim check\`" run "$sdir/typo2.toml"
printf 'design = "redis_lock_read_modify_write"\n[workload]\nbuyers = "many"\n' >"$sdir/value.toml"
expect 2 "(set in $sdir/value.toml:3)" run "$sdir/value.toml"
printf 'design = "redis_lock_read_modify_write"\n[workload]\nlock-ttl = 0.5\n' >"$sdir/float.toml"
expect 2 "float.toml:3: [workload] lock-ttl: write durations and ratios as strings" check "$sdir/float.toml"
printf 'design = "redis_lock_read_modify_write\n' >"$sdir/syntax.toml"
expect 2 "syntax.toml:1:" run "$sdir/syntax.toml"
printf '[expect]\ncheck = "fine"\n' >"$sdir/expect.toml"
expect 2 "expect.toml:2: [expect] check: one of holds, violated, incomplete, vacuous, unfired" check "$sdir/expect.toml" --variant db_conditional_update
printf 'faults = "none"\n' >"$sdir/nodesign.toml"
expect 2 "no design" run "$sdir/nodesign.toml"
expect 2 "no such scenario file" check "$sdir/missing.toml"
printf 'design = "db_conditional_update"\n[workload]\nbuyers = 7\nstock = 3\n' >"$sdir/ok.toml"
out=$("$oversim" run "$sdir/ok.toml" --stock 2 --trace none 2>/dev/null)
if ! printf '%s\n' "$out" | grep -q "^workload: 7 buyers, 1 sku x 2 units" || ! printf '%s\n' "$out" | grep -q "^scenario: $sdir/ok.toml, with --stock from the command line$"; then
  echo "FAIL: a typed flag did not override the scenario file, or the header did not say so: $out"; failures=$((failures + 1)); else passes=$((passes + 1)); fi
printf '# the incident; it started at 1s\n at 1s crash db   # the primary; restarted below\n\nat 2s restart db\n' >"$sdir/incident.plan"
out=$("$oversim" run --variant db_conditional_update --faults "@$sdir/incident.plan" --trace none 2>/dev/null)
if ! printf '%s\n' "$out" | grep -q "^oversim run: variant db_conditional_update, seed 1, faults: at 1s crash db; at 2s restart db$"; then
  echo "FAIL: --faults @FILE did not read the plan: $out"; failures=$((failures + 1)); else passes=$((passes + 1)); fi
expect 2 "--faults: cannot read the plan file" run --variant db_conditional_update --faults "@$sdir/none.plan"
expect 2 "--faults: cannot read the plan file '/dev/zero' (not a regular file)" run --variant db_conditional_update --faults @/dev/zero
expect 2 "--emit-scenario" run --variant db_conditional_update --emit-scenario "$sdir"
# run --emit-scenario writes a file that replays to the same trace hash.
"$oversim" run --variant redis_lock_read_modify_write --faults gc-pause --seed 4 --buyers 6 --trace none --emit-scenario "$sdir/run.toml" >"$sdir/a.txt" 2>/dev/null
"$oversim" run "$sdir/run.toml" --trace none >"$sdir/b.txt" 2>/dev/null
a=$(sed -n 's/.*trace hash \([0-9a-f]*\).*/\1/p' "$sdir/a.txt"); b=$(sed -n 's/.*trace hash \([0-9a-f]*\).*/\1/p' "$sdir/b.txt")
if [ -z "$a" ] || [ "$a" != "$b" ] || ! grep -q "^expected: run violated, as $sdir/run.toml states$" "$sdir/b.txt"; then
  echo "FAIL: run --emit-scenario did not round-trip ($a vs $b)"; failures=$((failures + 1)); else passes=$((passes + 1)); fi
rm -rf "$sdir"

expect 2 "--format: unknown format 'xml' (expected text or json)" run --variant db_conditional_update --format xml
expect 2 "--format json prints the result; --trace prints the events: pick one" run --variant db_conditional_update --format json --trace text

# Progress: on a terminal, one line on stderr redrawn in place (runs done, violations, time left);
# through a pipe, nothing extra.
if "$oversim" check --variant db_conditional_update --seeds 20 2>&1 >/dev/null | grep -q "runs,"; then
  echo "FAIL: check drew progress into a pipe"; failures=$((failures + 1)); else passes=$((passes + 1)); fi
if command -v script >/dev/null; then
  tty_out=$(TERM=xterm script -qec "'$oversim' check --variant redis_lock_conditional --faults failover --seeds 40 --no-shrink" /dev/null | tr '\r' '\n')
  if ! printf '%s\n' "$tty_out" | grep -aq "^check: [0-9]*/40 runs, 0 violating, .* elapsed, about .* left"; then
    echo "FAIL: check on a terminal showed no progress line"; failures=$((failures + 1)); else passes=$((passes + 1)); fi
fi

# CI conventions (issue 34): OVERSIM_SEEDS and OVERSIM_SEED stand for --seeds and --first-seed
# (--seed on run), a typed flag wins; --first-seed random draws a seed, says which seeds it chose,
# and the sweep runs exactly those.
env_out=$(OVERSIM_SEEDS=3 OVERSIM_SEED=7 "$oversim" check --variant db_conditional_update 2>/dev/null)
if ! printf '%s\n' "$env_out" | grep -q "seeds 7..9, "; then
  echo "FAIL: OVERSIM_SEEDS=3 OVERSIM_SEED=7 did not sweep seeds 7..9: $(printf '%s\n' "$env_out" | head -1)"; failures=$((failures + 1)); else passes=$((passes + 1)); fi
env_out=$(OVERSIM_SEEDS=3 OVERSIM_SEED=7 "$oversim" check --variant db_conditional_update --seeds 2 --first-seed 5 2>/dev/null)
if ! printf '%s\n' "$env_out" | grep -q "seeds 5..6, "; then
  echo "FAIL: typed --seeds 2 --first-seed 5 did not win over the environment"; failures=$((failures + 1)); else passes=$((passes + 1)); fi
if ! OVERSIM_SEED=42 "$oversim" run --variant db_conditional_update 2>/dev/null | grep -q "^reproduce: oversim run --variant db_conditional_update --seed 42 "; then
  echo "FAIL: OVERSIM_SEED=42 did not set run's seed"; failures=$((failures + 1)); else passes=$((passes + 1)); fi
rdir=$(mktemp -d)
"$oversim" check --variant db_conditional_update --first-seed random --seeds 4 >"$rdir/out.txt" 2>"$rdir/err.txt"
drawn=$(sed -n 's/^oversim: --first-seed random drew \([0-9]*\): run these seeds again with --seeds \([0-9]*\)\.\.\([0-9]*\)$/\1 \2 \3/p' "$rdir/err.txt")
set -- $drawn
if [ -z "$drawn" ] || [ "$1" != "$2" ] || [ "$3" != "$(( $1 + 3 ))" ] || ! grep -q "seeds $2..$3, " "$rdir/out.txt"; then
  echo "FAIL: --first-seed random did not say which seeds it ran: $(cat "$rdir/err.txt") / $(head -1 "$rdir/out.txt")"; failures=$((failures + 1)); else passes=$((passes + 1)); fi
rm -rf "$rdir"
expect 2 "--seeds: '1..5' is a range; it cannot be combined with --first-seed" check --variant db_conditional_update --first-seed random --seeds 1..5
expect 2 "--first-seed: 'soon' is not a seed" check --variant db_conditional_update --first-seed soon

echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
