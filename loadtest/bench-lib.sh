# Shared by the request-path benchmarks (bench-throughput.sh, bench-pair.sh, bench-soak.sh,
# bench-shed.sh, bench-warmup.sh; bench-cluster.sh for ticks, median and jvm_threads): sourced,
# not run. start_stubs_at_zero expects ROOT and JAVA to be set (STUBS_CP: another class path).

bench_scratch() { # name [keep] -> TMP (a new folder) and PIDS (processes stopped on exit); TMP is removed on exit unless keep is 1
  TMP="$(mktemp -d "/tmp/moses-$1.XXXXXX")" BENCH_KEEP="${2:-0}"
  PIDS=()
  trap bench_cleanup EXIT
  trap "exit 130" INT TERM
}
bench_cleanup() {
  local p
  for p in "${PIDS[@]+"${PIDS[@]}"}"; do kill "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]+"${PIDS[@]}"}"; do wait "$p" 2>/dev/null || true; done
  [[ "$BENCH_KEEP" == 1 ]] || rm -rf "$TMP"
}

await_port() { # log pattern -> the port a "PATTERN on http://host:port" line in the log names
  local log="$1" pattern="$2" i port
  for ((i = 0; i < 1200; i++)); do
    port="$(grep -oE "$pattern on http://[^:]+:[0-9]+" "$log" 2>/dev/null | head -1 | grep -oE '[0-9]+$' || true)"
    [[ -n "$port" ]] && { echo "$port"; return; }
    sleep 0.1
  done
  echo "bench: no '$pattern' in $log after 120 s:" >&2; tail -20 "$log" >&2; exit 1
}

median() { # numbers separated by spaces or lines on stdin -> their median (0 for none)
  tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END{if (NR == 0) print 0; else if (NR % 2) print a[(NR+1)/2]; else printf "%.2f\n", (a[NR/2]+a[NR/2+1])/2}'
}

ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; } # utime + stime of a process, in clock ticks
# pid file -> that /proc file of every live thread. A thread may end between the glob and the
# read (the JVM stops idle compiler threads, pools shrink): it is left out, not an error that
# set -e and pipefail would turn into the script's silent exit.
task_files() { cat "/proc/$1"/task/*/"$2" 2>/dev/null || true; }
rss_mb() { awk '/VmRSS/{printf "%d", $2/1024}' "/proc/$1/status"; } # a process's resident memory, MB
HZ="$(getconf CLK_TCK)"
thread_groups() { # pid -> "NAME<TAB>ticks" per group of threads named alike (numbers, and hex after @, folded to #), sorted by name
  task_files "$1" stat | awk '{c = substr($0, index($0, "(") + 1); c = substr(c, 1, index(c, ")") - 1)
    split(substr($0, index($0, ") ") + 2), f, " "); gsub(/@[0-9a-f]+/, "@#", c); gsub(/[0-9]+/, "#", c); g[c] += f[12] + f[13]}
    END {for (k in g) print k "\t" g[k]}' | sort
}
jvm_threads() { # pid -> "JIT GC" ticks of the JIT-compiler threads and the GC (and VM) threads now alive
  thread_groups "$1" | awk -F'\t' '$1 ~ /CompilerThre/ {jit += $2} $1 ~ /^(GC Thread|G# |VM Thread)/ {gc += $2} END {print jit + 0, gc + 0}'
}
broker_binding() { # "live" or anything else -> BINDING: ./moses run's arguments for the seed's plan with the monitors and the optimizer
  # (adaptive binding), or for the static binding to the -a providers
  if [[ "$1" == live ]]; then BINDING=(--binding adaptive --seed "$ROOT/bpel-processes/trip-planner/seed.yaml")
  else BINDING=(--binding static --seed "$ROOT/loadtest/bench/trip-planner-single-services.yaml"); fi
}

wrk_result() { # url script connections seconds -> "rps p50 p99 non2xx errors [max]" (max ms: trip.lua only)
  local threads=$(( $3 < 2 ? 1 : 2 ))
  wrk -t"$threads" -c"$3" -d"$4"s --timeout 10s -s "$ROOT/loadtest/wrk/$2" "$1" 2>&1 |
    sed -n 's/^RESULT rps=\([0-9.]*\) p50_ms=\([0-9.]*\) p99_ms=\([0-9.]*\) non2xx=\([0-9]*\) errors=\([0-9]*\)\(.* max_ms=\([0-9]*\)\)\{0,1\}.*/\1 \2 \3 \4 \5 \7/p'
}

# A broker that stops answering for seconds hides behind the p99 (16 requests wait, a run has
# thousands): a request that waited over a second is called a stall, and the logs are kept.
STALLS=""
stalled() { # name when connections max-ms
  (( ${4:-0} > 1000 )) || return 0
  STALLS+="  $2, $1 at c=$3: a request waited $4 ms"$'\n'; BENCH_KEEP=1
}
report_stalls() {
  if [[ -n "$STALLS" ]]; then printf 'stalls (a request waited over 1 s; logs kept in %s):\n%s' "$TMP" "$STALLS"
  else echo "no stall: no request waited over 1 s after each broker's first 10 s of load"; fi
}

# The warm-up of one broker, from its 10 s steps of req/s (stdin): its steady throughput is the
# median of the steps from 60 s on; it is warm at the first step within 10 % of that.
steady_of_steps() { tr ' ' '\n' | grep -v '^$' | tail -n +7 | median; }
warm_after() { tr ' ' '\n' | grep -v '^$' | awk -v s="$1" '$1 >= 0.9 * s {print NR * 10; exit}'; } # steady -> seconds, "" if never

start_stubs_at_zero() { # starts the stub services, every one answering at once; sets STUB_PORT
  "$JAVA" -cp "${STUBS_CP:-$ROOT/loadtest/target/classes:$(cat "$ROOT/loadtest/target/classpath.txt")}" \
    io.moses.loadtest.stubs.StubServer --port 0 >"$TMP/stubs.log" 2>&1 &
  PIDS+=($!)
  STUB_PORT="$(await_port "$TMP/stubs.log" "stubs listening")"
  local s v
  for s in flight hotel weather car attraction payment; do for v in a b; do
    curl -sf -X PUT -H 'Content-Type: application/json' -d '{"latencyMs":0,"distribution":"fixed"}' \
      "http://127.0.0.1:$STUB_PORT/admin/services/$s-$v" >/dev/null
  done; done
}
