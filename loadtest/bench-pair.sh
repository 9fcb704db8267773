#!/usr/bin/env bash
# Two static brokers loaded AT THE SAME TIME by two wrk processes, so that the noise of a shared
# machine falls on both alike (bench-throughput.sh loads its brokers in turns): per round each
# one's req/s, p50, broker CPU per request (utime+stime from /proc/PID/stat) and the ratios B/A.
# The rounds from a cold start show the warm-up of both. Stubs at 0 ms, trip planner, wrk.
#   loadtest/bench-pair.sh NAME_A CLASSPATH_A "JVM_OPTS_A" NAME_B CLASSPATH_B "JVM_OPTS_B" ROUNDS SECONDS CONNECTIONS [JAVA_A] [JAVA_B]
# CLASSPATH "-" is this build; JAVA defaults to ./moses java. Example (this build on JDK 17 against 25):
#   loadtest/bench-pair.sh jdk17 - "" jdk25 - "" 10 20 8 /usr/lib/jvm/java-17-openjdk-amd64/bin/java
set -euo pipefail
[[ $# -ge 9 ]] || { sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
command -v wrk >/dev/null || { echo "bench: wrk is not installed (apt-get install wrk)" >&2; exit 2; }
NA="$1" CPA="$2" OA="$3" NB="$4" CPB="$5" OB="$6" ROUNDS="$7" SECS="$8" C="$9"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/moses" build
JAVA="$("$ROOT/moses" java)"
JA="${10:-$JAVA}" JB="${11:-$JAVA}"
BROKER_CP="$ROOT/broker-core/target/classes:$(cat "$ROOT/broker-core/target/classpath.txt")"
[[ "$CPA" == - ]] && CPA="$BROKER_CP"; [[ "$CPB" == - ]] && CPB="$BROKER_CP"
D=$(mktemp -d /tmp/moses-bench-pair.XXXXXX); PIDS=()
trap 'for p in "${PIDS[@]}"; do kill $p 2>/dev/null || true; done; for p in "${PIDS[@]}"; do wait $p 2>/dev/null || true; done; rm -rf "$D"' EXIT
"$JAVA" -cp "$ROOT/loadtest/target/classes:$(cat "$ROOT/loadtest/target/classpath.txt")" io.moses.loadtest.stubs.StubServer --port 0 > $D/stubs.log 2>&1 & PIDS+=($!)
port() { local i p; for i in $(seq 3000); do p=$(grep -oE "$2 on http://[^:]+:[0-9]+" $1 2>/dev/null | grep -oE "[0-9]+$" || true); [[ -n "$p" ]] && { echo $p; return; }; sleep 0.2; done; echo "no port in $1" >&2; exit 1; }
SP=$(port $D/stubs.log "stubs listening")
for s in flight hotel weather car attraction payment; do for v in a b; do curl -sf -X PUT -H 'Content-Type: application/json' -d '{"latencyMs":0,"distribution":"fixed"}' "http://127.0.0.1:$SP/admin/services/$s-$v" >/dev/null; done; done
start() { # name java cp opts
  # shellcheck disable=SC2086
  "$2" $4 -cp "$3" io.moses.core.Main --port 0 --work $D/work-$1 --db mem:$1 --binding static --monitors qos,ws,paths --deploy $ROOT/bpel-processes/trip-planner --seed $ROOT/loadtest/bench/trip-planner-single-services.yaml --set STUBS=http://127.0.0.1:$SP > $D/broker-$1.log 2>&1 &
  PIDS+=($!); echo $! > $D/$1.pid
}
start "$NA" "$JA" "$CPA" "$OA"; start "$NB" "$JB" "$CPB" "$OB"
T0=$(date +%s.%N)
PA=$(port $D/broker-$NA.log "broker listening"); TA=$(date +%s.%N)
PB=$(port $D/broker-$NB.log "broker listening"); TB=$(date +%s.%N)
echo "start: $NA listening after $(awk -v a=$T0 -v b=$TA 'BEGIN{printf "%.1f", b-a}') s, $NB after $(awk -v a=$T0 -v b=$TB 'BEGIN{printf "%.1f", b-a}') s (both started at once; the second is polled after the first)"
PIDA=$(cat $D/$NA.pid) PIDB=$(cat $D/$NB.pid)
echo "pair: $NA ($JA $OA) vs $NB ($JB $OB), $C connections each, $ROUNDS x $SECS s, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%FT%TZ)"
ticks() { awk '{print $14 + $15}' /proc/$1/stat; }
HZ=$(getconf CLK_TCK)
for r in $(seq $ROUNDS); do
  a0=$(ticks $PIDA) b0=$(ticks $PIDB)
  wrk -t1 -c$C -d${SECS}s --timeout 10s -s $ROOT/loadtest/wrk/trip.lua http://127.0.0.1:$PA > $D/wa 2>&1 &
  WA=$!
  wrk -t1 -c$C -d${SECS}s --timeout 10s -s $ROOT/loadtest/wrk/trip.lua http://127.0.0.1:$PB > $D/wb 2>&1
  wait $WA
  a1=$(ticks $PIDA) b1=$(ticks $PIDB)
  ra=$(sed -n 's/^RESULT rps=\([0-9.]*\) p50_ms=\([0-9.]*\).*non2xx=\([0-9]*\) errors=\([0-9]*\).*/\1 \2 \3 \4/p' $D/wa)
  rb=$(sed -n 's/^RESULT rps=\([0-9.]*\) p50_ms=\([0-9.]*\).*non2xx=\([0-9]*\) errors=\([0-9]*\).*/\1 \2 \3 \4/p' $D/wb)
  awk -v r=$r -v ra="$ra" -v rb="$rb" -v ta=$((a1-a0)) -v tb=$((b1-b0)) -v hz=$HZ -v s=$SECS -v na=$NA -v nb=$NB -v la="$(cut -d' ' -f1 /proc/loadavg)" 'BEGIN{
    split(ra,A," "); split(rb,B," ");
    ca=(A[1]>0)? ta*1000/hz/(A[1]*s):0; cb=(B[1]>0)? tb*1000/hz/(B[1]*s):0;
    printf "round %d load %5s  %-8s %7.1f req/s p50 %7.1f ms cpu %6.2f ms/req err %d | %-8s %7.1f req/s p50 %7.1f ms cpu %6.2f ms/req err %d | %s/%s rps %.2f cpu %.2f\n",
      r, la, na, A[1], A[2], ca, A[3]+A[4], nb, B[1], B[2], cb, B[3]+B[4], nb, na, (A[1]>0)?B[1]/A[1]:0, (ca>0)?cb/ca:0 }'
done
echo "rss $NA $(awk '/VmRSS/{printf "%d MB", $2/1024}' /proc/$PIDA/status), $NB $(awk '/VmRSS/{printf "%d MB", $2/1024}' /proc/$PIDB/status)"
