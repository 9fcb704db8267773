# Shared by the request-path benchmarks (bench-throughput.sh, bench-pair.sh, bench-soak.sh,
# bench-shed.sh, bench-warmup.sh; bench-cluster.sh for ticks and median): sourced, not run.
# start_stubs_at_zero expects JAVA and STUBS_CP to be set.

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
HZ="$(getconf CLK_TCK)"

start_stubs_at_zero() { # starts the stub services, every one answering at once; sets STUB_PORT
  "$JAVA" -cp "$STUBS_CP" io.moses.loadtest.stubs.StubServer --port 0 >"$TMP/stubs.log" 2>&1 &
  PIDS+=($!)
  STUB_PORT="$(await_port "$TMP/stubs.log" "stubs listening")"
  local s v
  for s in flight hotel weather car attraction payment; do for v in a b; do
    curl -sf -X PUT -H 'Content-Type: application/json' -d '{"latencyMs":0,"distribution":"fixed"}' \
      "http://127.0.0.1:$STUB_PORT/admin/services/$s-$v" >/dev/null
  done; done
}
