#!/usr/bin/env bash
# Durable conversations: the order-confirmation process (bpel-processes/order-confirmation,
# durable as shipped) on each knowledge base, one broker per knowledge base, all started at once
# and loaded IN TURNS, round after round (interleaved), so that whatever else runs on the machine
# weighs on all alike. A conversation is placeOrder then, once "placed" is answered, confirm on
# the same connection (loadtest/wrk/order.lua; C connections, C conversations at a time). The
# inventory stub answers at once (0 ms).
#
#   loadtest/bench-durable.sh [--rounds 3] [--seconds 15] [--connections 4] [--warmup 10]
#                             [--variants memory,h2,mariadb,galera]
#
# Variants: memory: the same unit with deploy.xml's <in-memory>true</in-memory> (the reference:
# no knowledge-base call per request); h2: durable on H2 (the default knowledge base, a file);
# mariadb: one MariaDB (started here, temporary directory, free port; InnoDB's
# defaults: a log flush per commit); galera: three Galera nodes on this machine (cluster/galera.sh;
# innodb_flush_log_at_trx_commit=2, as galera.sh starts them), the broker on the first.
# Per round and variant: conversations started (placed) and completed (confirmed) per second,
# p50/p99 of a step (either request), failed steps, the CPU per conversation of the broker and of
# its database server(s), and the knowledge base's statements per step (a step: one request),
# counted by the database itself and less what the idle broker does in the same time (plan
# poll, lease, ...; measured over --idle seconds before the rounds): on MariaDB and Galera the
# server's Com_* and Handler_* counters (node 1's, the one the broker uses; Galera also the
# write sets it replicated); on H2 its QUERY_STATISTICS (statements by first word; H2 counts no
# commit issued through JDBC's commit(), only COMMIT statements). At the end: the medians over
# the rounds, ratios to the first variant, and the rows each completed conversation left in ODE's
# tables. Traffic only to 127.0.0.1; everything is started in a temporary directory and stopped
# (by PID) at the end. Record results in the benchmark journal, docs/benchmarks/ (docs/performance.md).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROUNDS=3 SECS=15 CONNS=4 WARMUP=10 IDLE=8 VARIANTS="memory,h2,mariadb,galera"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rounds) ROUNDS="$2"; shift 2 ;;
    --seconds) SECS="$2"; shift 2 ;;
    --connections) CONNS="$2"; shift 2 ;;
    --warmup) WARMUP="$2"; shift 2 ;;
    --idle) IDLE="$2"; shift 2 ;;
    --variants) VARIANTS="$2"; shift 2 ;;
    *) sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
  esac
done
(( ROUNDS >= 1 && ROUNDS <= 20 && SECS >= 3 && SECS <= 120 && CONNS >= 1 && CONNS <= 32 )) ||
  { echo "bench-durable: rounds 1..20, seconds 3..120, connections 1..32" >&2; exit 2; }
command -v wrk >/dev/null || { echo "bench-durable: wrk is not installed (apt-get install wrk)" >&2; exit 2; }
"$ROOT/moses" build
JAVA="$("$ROOT/moses" java)"
# shellcheck source=loadtest/bench-lib.sh
source "$ROOT/loadtest/bench-lib.sh"
# shellcheck source=cluster/ports.sh
source "$ROOT/cluster/ports.sh"
bench_scratch bench-durable
chmod 755 "$TMP" # Galera's nodes run as the mysql user (galera.sh) and must reach their directories
T_START=$SECONDS
say() { printf '[%3ds] %s\n' $((SECONDS - T_START)) "$*"; }
bin() { for n in "$@"; do for d in /usr/sbin /usr/bin /usr/local/sbin /usr/local/bin; do [[ -x $d/$n ]] && { echo "$d/$n"; return; }; done; done; return 1; }
H2_JAR="$(tr ':' '\n' <"$ROOT/broker-core/target/classpath.txt" | grep -m1 '/h2-[0-9.]*\.jar$')"
IFS=, read -r -a NAMES <<<"$VARIANTS"

# --- the units: as shipped, and a copy in memory ---------------------------------
UNIT="$ROOT/bpel-processes/order-confirmation"
# the copies keep the unit's name (its directory's): the same process and services
mkdir -p "$TMP/unit-memory"; cp -r "$UNIT" "$TMP/unit-memory/"
unit_for() {
  case "$1" in
    memory) echo "$TMP/unit-memory/order-confirmation" ;;
    *) echo "$UNIT" ;;
  esac
}
sed -i 's|<in-memory>false</in-memory>|<in-memory>true</in-memory>|' "$TMP/unit-memory/order-confirmation/deploy.xml"
grep -q '<in-memory>true</in-memory>' "$TMP/unit-memory/order-confirmation/deploy.xml"

# --- databases ---------------------------------------------------------------------------------
declare -A DB DBPIDS SQL_VIA
start_mariadb() { # one server in $TMP/mariadb on a free port
  local data="$TMP/mariadb" port password user=()
  free_port port
  mkdir -p "$data/tmp"
  [[ $(id -u) == 0 ]] && user=(--user=root)
  "$(bin mariadb-install-db mysql_install_db)" --no-defaults --datadir="$data/data" --tmpdir="$data/tmp" \
    --auth-root-authentication-method=normal --skip-test-db "${user[@]}" >"$data/install.log" 2>&1 ||
    { echo "bench-durable: mariadb-install-db failed: $data/install.log" >&2; return 1; }
  "$(bin mariadbd mysqld)" --no-defaults --datadir="$data/data" --port="$port" --bind-address=127.0.0.1 \
    --socket="$data/mariadbd.sock" --pid-file="$data/mariadbd.pid" --log-error="$data/error.log" --tmpdir="$data/tmp" \
    --skip-name-resolve --character-set-server=utf8mb4 --collation-server=utf8mb4_bin --innodb-buffer-pool-size=64M \
    --max-connections=200 "${user[@]}" >/dev/null 2>&1 &
  PIDS+=($!); DBPIDS[mariadb]=$!
  local i
  for ((i = 0; i < 600; i++)); do mariadb_sql mariadb "SELECT 1" >/dev/null 2>&1 && break; sleep 0.1; done
  password="pw$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
  mariadb_sql mariadb "CREATE DATABASE moses CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    CREATE USER 'moses'@'localhost' IDENTIFIED BY '$password'; CREATE USER 'moses'@'127.0.0.1' IDENTIFIED BY '$password';
    GRANT ALL PRIVILEGES ON moses.* TO 'moses'@'localhost'; GRANT ALL PRIVILEGES ON moses.* TO 'moses'@'127.0.0.1';"
  DB[mariadb]="jdbc:mariadb://127.0.0.1:$port/moses?user=moses&password=$password"
  say "MariaDB $("$(bin mariadbd mysqld)" --version | awk '{print $3}') on 127.0.0.1:$port (pid ${DBPIDS[mariadb]})"
}
start_galera() { # three nodes in $TMP/galera (cluster/galera.sh)
  local hosts password
  hosts="$(bash "$ROOT/cluster/galera.sh" up "$TMP/galera" 3 2>"$TMP/galera.log")" ||
    { echo "bench-durable: the Galera cluster did not start: $(tail -3 "$TMP/galera.log")" >&2; return 1; }
  GALERA_UP=1
  # shellcheck disable=SC1091
  DBPIDS[galera]="$(source "$TMP/galera/galera.state"; echo "$PID_1 $PID_2 $PID_3")"
  password="pw$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
  mariadb_sql galera "CREATE DATABASE moses CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    CREATE USER 'moses'@'localhost' IDENTIFIED BY '$password'; CREATE USER 'moses'@'127.0.0.1' IDENTIFIED BY '$password';
    GRANT ALL PRIVILEGES ON moses.* TO 'moses'@'localhost'; GRANT ALL PRIVILEGES ON moses.* TO 'moses'@'127.0.0.1';"
  DB[galera]="jdbc:mariadb://$hosts/moses?user=moses&password=$password"
  say "Galera: 3 nodes Synced on $hosts (pids ${DBPIDS[galera]})"
}
GALERA_UP=0
stop_galera() { [[ $GALERA_UP == 1 ]] && bash "$ROOT/cluster/galera.sh" down "$TMP/galera" 2>/dev/null; GALERA_UP=0; }
trap 'stop_galera; bench_cleanup' EXIT
mariadb_sql() { # mariadb|galera SQL -> rows, tab-separated, as root on the server's (node 1's) socket
  local sock="$TMP/mariadb/mariadbd.sock"
  [[ $1 == galera ]] && sock="$TMP/galera/n1/mariadbd.sock"
  "$(bin mariadb mysql)" --no-defaults --socket="$sock" -uroot --batch --skip-column-names -e "$2"
}
h2_sql() { # SQL -> rows (the broker's H2 file, through its AUTO_SERVER port)
  "$JAVA" -cp "$H2_JAR" org.h2.tools.Shell -url "jdbc:h2:file:$TMP/h2-$1/kb;AUTO_SERVER=TRUE" -user sa -password "" -sql "$2" |
    sed '1d;$d' | tr -d ' ' | tr '|' '\t'
}
# counters -> "NAME VALUE" lines: statements by kind, rows written, commits (what the database can count)
counters() { # variant
  case "$1" in
    memory) echo "none 0" ;;
    h2)
      h2_sql "$1" "SELECT UPPER(REGEXP_SUBSTR(TRIM(SQL_STATEMENT), '^[A-Za-z]+')) K, SUM(EXECUTION_COUNT) FROM INFORMATION_SCHEMA.QUERY_STATISTICS
        WHERE SQL_STATEMENT NOT LIKE '%QUERY_STATISTICS%' GROUP BY K" | awk -F'\t' '{print tolower($1), $2}' ;;
    mariadb|galera)
      mariadb_sql "$1" "SHOW GLOBAL STATUS WHERE Variable_name IN ('Com_insert','Com_update','Com_delete','Com_select','Com_commit','Com_rollback',
        'Handler_write','Handler_update','Handler_delete','Innodb_data_fsyncs','wsrep_replicated','wsrep_replicated_bytes')" |
        awk '{n = tolower($1); sub(/^com_/, "", n); print n, $2}' ;;
  esac
}
delta() { # before-file after-file -> "NAME DELTA" for every counter of after
  awk 'NR == FNR {b[$1] = $2; next} {print $1, $2 - (($1 in b) ? b[$1] : 0)}' "$1" "$2"
}

say "bench-durable: variants ${NAMES[*]} (reference ${NAMES[0]}), order-confirmation, $CONNS conversations at a time, $ROUNDS rounds of $SECS s each, in turns; $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $("$JAVA" -version 2>&1 | head -1), $(date -u +%FT%TZ), commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')"
start_stubs_at_zero
curl -sf -X PUT -H 'Content-Type: application/json' -d '{"latencyMs":0,"distribution":"fixed"}' \
  "http://127.0.0.1:$STUB_PORT/admin/services/inventory" >/dev/null
FAILED_VARIANTS=""
OK=()
for n in "${NAMES[@]}"; do
  case "$n" in
    memory) DB[$n]="mem:durable-bench-memory" ;;
    h2) DB[$n]="jdbc:h2:file:$TMP/h2-$n/kb;LOCK_TIMEOUT=10000;WRITE_DELAY=0;QUERY_STATISTICS=TRUE;QUERY_STATISTICS_MAX_ENTRIES=5000;AUTO_SERVER=TRUE" ;;
    mariadb) start_mariadb || { FAILED_VARIANTS+="  mariadb: the server did not start"$'\n'; continue; } ;;
    galera) say "starting 3 Galera nodes (state transfers one at a time) ..."
      start_galera || { FAILED_VARIANTS+="  galera: $(tail -1 "$TMP/galera.log")"$'\n'; continue; } ;;
    *) echo "bench-durable: unknown variant $n" >&2; exit 2 ;;
  esac
  OK+=("$n")
done
declare -A PID PORT
for n in "${OK[@]}"; do
  MOSES_BROKER_CP="${MOSES_BROKER_CP:-}" "$ROOT/moses" run --port 0 --work "$TMP/work-$n" --db "${DB[$n]}" \
    --binding static --seed "$UNIT/seed.yaml" --deploy "$(unit_for "$n")" --request-timeout 10000 \
    --set "STUBS=http://127.0.0.1:$STUB_PORT" >"$TMP/broker-$n.log" 2>&1 &
  PID[$n]=$!; PIDS+=($!)
done
for n in "${OK[@]}"; do
  PORT[$n]="$(await_port "$TMP/broker-$n.log" "broker listening")"
  say "$n: broker pid ${PID[$n]} on 127.0.0.1:${PORT[$n]}, $(grep -o 'deployed order-confirmation ([^)]*)' "$TMP/broker-$n.log" | head -1)"
done
run_wrk() { # variant seconds tag -> RESULT line in $TMP/wrk-$n
  ORDER_PREFIX="$3" timeout $(($2 + 30)) wrk -t"$CONNS" -c"$CONNS" -d"$2"s --timeout 20s -s "$ROOT/loadtest/wrk/order.lua" \
    "http://127.0.0.1:${PORT[$1]}" >"$TMP/wrk-$1" 2>&1 || true
}
field() { sed -n "s/^RESULT.* $2=\([0-9.]*\).*/\1/p; s/^RESULT $2=\([0-9.]*\).*/\1/p" "$TMP/wrk-$1" | head -1; }
for n in "${OK[@]}"; do
  run_wrk "$n" "$WARMUP" "warm-$n"
  say "$n: warm-up ${WARMUP} s: $(field "$n" completed_per_s) conversations/s completed, $(field "$n" failed) failed steps"
  grep -h '^FIRST-ERROR' "$TMP/wrk-$n" | cut -c1-300 || true
done
# what the idle broker does to its knowledge base (plan poll, lease, ...): per second
declare -A IDLE_RATE
for n in "${OK[@]}"; do counters "$n" >"$TMP/idle0-$n"; done
sleep "$IDLE"
for n in "${OK[@]}"; do
  counters "$n" >"$TMP/idle1-$n"
  delta "$TMP/idle0-$n" "$TMP/idle1-$n" | awk -v s="$IDLE" '{printf "%s %.3f\n", $1, $2 / s}' >"$TMP/idle-rate-$n"
done
say "idle knowledge-base traffic per second: $(for n in "${OK[@]}"; do printf '%s: %s; ' "$n" "$(awk '$1 ~ /^(select|insert|update|delete|commit)$/ {printf "%s %s ", $1, $2}' "$TMP/idle-rate-$n")"; done)"

db_ticks() { local t=0 p; for p in ${DBPIDS[$1]:-}; do t=$((t + $(ticks "$p"))); done; echo "$t"; }
declare -A R # R[variant,metric] = per-round values, space-separated
KINDS="insert update delete select commit rollback"
for ((r = 1; r <= ROUNDS; r++)); do
  for n in "${OK[@]}"; do
    counters "$n" >"$TMP/c0-$n"; b0="$(ticks "${PID[$n]}")" d0="$(db_ticks "$n")"
    run_wrk "$n" "$SECS" "r$r-$n"
    b1="$(ticks "${PID[$n]}")" d1="$(db_ticks "$n")"; counters "$n" >"$TMP/c1-$n"
    steps="$(( $(field "$n" placed) + $(field "$n" confirmed) + $(field "$n" failed) ))"
    conv="$(field "$n" confirmed)"; secs="$(field "$n" seconds)"
    # statements per step, less the idle rate over the round's seconds
    delta "$TMP/c0-$n" "$TMP/c1-$n" | awk -v s="$secs" -v k="$steps" 'NR == FNR {idle[$1] = $2; next}
      {v = $2 - idle[$1] * s; printf "%s %.2f\n", $1, (k > 0) ? v / k : 0}' "$TMP/idle-rate-$n" - >"$TMP/per-step-$n"
    pstep() { awk -v k="$1" '$1 == k {print $2; f = 1} END {if (!f) print "-"}' "$TMP/per-step-$n"; }
    writes="$(awk '$1 ~ /^(insert|update|delete|merge)$/ {w += $2} END {printf "%.1f", w}' "$TMP/per-step-$n")"
    [[ $n == memory ]] && writes=0
    cpu_b="$(awk -v t=$((b1 - b0)) -v hz="$HZ" -v c="$conv" 'BEGIN{printf "%.1f", (c > 0) ? t * 1000 / hz / c : 0}')"
    cpu_d="$(awk -v t=$((d1 - d0)) -v hz="$HZ" -v c="$conv" 'BEGIN{printf "%.1f", (c > 0) ? t * 1000 / hz / c : 0}')"
    for m in started_per_s completed_per_s p50_ms p99_ms max_ms failed; do R[$n,$m]+="$(field "$n" $m) "; done
    R[$n,writes]+="$writes " R[$n,cpu_broker]+="$cpu_b " R[$n,cpu_db]+="$cpu_d "
    for m in $KINDS handler_write handler_update handler_delete innodb_data_fsyncs wsrep_replicated wsrep_replicated_bytes; do
      v="$(pstep "$m")"; [[ "$v" != - ]] && R[$n,$m]+="$v "
    done
    line="round $r $n: $(field "$n" started_per_s) started/s $(field "$n" completed_per_s) completed/s, step p50 $(field "$n" p50_ms) ms p99 $(field "$n" p99_ms) ms max $(field "$n" max_ms) ms, failed steps $(field "$n" failed), cpu/conversation broker $cpu_b ms db $cpu_d ms"
    [[ $n != memory ]] && line+=", per step: writes $writes (insert $(pstep insert) update $(pstep update) delete $(pstep delete)) select $(pstep select) commit $(pstep commit)"
    say "$line"
    grep -h '^FIRST-ERROR' "$TMP/wrk-$n" | cut -c1-300 || true
  done
done

echo
echo "medians over $ROUNDS rounds (ratios: to ${OK[0]}):"
printf '  %-12s %9s %9s %8s %8s %7s %9s %9s %8s %8s %8s %8s %8s\n' variant started/s done/s p50_ms p99_ms failed cpu_brk cpu_db writes select commit rows_w ratio
ref="${OK[0]}"
ref_done="$(echo "${R[$ref,completed_per_s]}" | median)"
for n in "${OK[@]}"; do
  md() { if [[ -n "${R[$n,$1]:-}" ]]; then echo "${R[$n,$1]}" | median; else echo -; fi; }
  d="$(md completed_per_s)"
  printf '  %-12s %9s %9s %8s %8s %7s %9s %9s %8s %8s %8s %8s %8s\n' "$n" "$(md started_per_s)" "$d" "$(md p50_ms)" "$(md p99_ms)" \
    "$(echo "${R[$n,failed]}" | tr ' ' '\n' | awk '{s += $1} END {print s + 0}')" "$(md cpu_broker)" "$(md cpu_db)" \
    "$( [[ $n == memory ]] && echo 0 || md writes)" "$(md select)" "$(md commit)" "$(md handler_write)" \
    "$(awk -v x="$d" -v y="$ref_done" 'BEGIN{printf "%.2f", (y > 0) ? x / y : 0}')"
done
echo "  (started/s, done/s: conversations placed, confirmed per second; p50/p99: one step, either request; failed: failed steps, all rounds;"
echo "   cpu_brk, cpu_db: CPU ms per completed conversation of the broker and its database server(s); writes, select, commit: statements per step"
echo "   the database counted, less the idle broker's; rows_w: InnoDB rows inserted per step (Handler_write); ratio: completed/s to $ref's)"
for n in "${OK[@]}"; do
  case "$n" in
    galera) echo "  galera: write sets replicated per step $(echo "${R[$n,wsrep_replicated]:-0}" | median), bytes per step $(echo "${R[$n,wsrep_replicated_bytes]:-0}" | median); fsyncs per step $(echo "${R[$n,innodb_data_fsyncs]:-0}" | median)" ;;
    mariadb) echo "  mariadb: InnoDB fsyncs per step $(echo "${R[$n,innodb_data_fsyncs]:-0}" | median), rows updated $(echo "${R[$n,handler_update]:-0}" | median), deleted $(echo "${R[$n,handler_delete]:-0}" | median) per step" ;;
  esac
done
# what the completed conversations left behind, a few seconds after the last round
sleep 3
TABLES="ODE_PROCESS_INSTANCE ODE_SCOPE ODE_XML_DATA ODE_MESSAGE ODE_MESSAGE_EXCHANGE ODE_EVENT ODE_JOB ODE_MESSAGE_ROUTE"
for n in "${OK[@]}"; do
  [[ $n == memory ]] && continue
  sql=""
  for t in $TABLES; do sql+="${sql:+ UNION ALL }SELECT '$t', COUNT(*) FROM $(case $n in mariadb|galera) echo moses.;; esac)$t"; done
  case "$n" in
    h2) rows="$(h2_sql "$n" "$sql" | awk -F'\t' '{printf "%s %s, ", $1, $2}')"
      done_inst="$(h2_sql "$n" "SELECT COUNT(*) FROM ODE_PROCESS_INSTANCE WHERE INSTANCE_STATE = 30" | head -1)" ;;
    *) rows="$(mariadb_sql "$n" "$sql" | awk '{printf "%s %s, ", $1, $2}')"
      done_inst="$(mariadb_sql "$n" "SELECT COUNT(*) FROM moses.ODE_PROCESS_INSTANCE WHERE INSTANCE_STATE = 30")" ;;
  esac
  echo "rows left in ODE's tables ($n): ${rows%, }; completed instances still stored: $done_inst"
done
for n in "${OK[@]}"; do echo "rss $n broker: $(rss_mb "${PID[$n]}") MB"; done
[[ -n "$FAILED_VARIANTS" ]] && printf 'not measured:\n%s' "$FAILED_VARIANTS"
say "done"
