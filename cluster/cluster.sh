#!/usr/bin/env bash
# ./moses cluster up [--replicas N] [--db SPEC|galera[:N]] [--tls-cert PEM] [--binding B] [--seed FILE] [--stubs URL] [--deploy DIR] | down | status | db-stop [NODE] [--kill] | db-start [NODE]
# A MOSES cluster as plain processes on this machine: MariaDB (a throwaway data directory, or
# the server given with --db, or with --db galera[:N] a Galera cluster of N nodes, 3 by default,
# started by cluster/galera.sh, the replicas connected to all of them), the stub services, N broker replicas and HAProxy in front
# (configured from cluster/haproxy.cfg.in), every one on a free port on 127.0.0.1. State, logs
# and data live in work/cluster/ (MOSES_CLUSTER_DIR to change); `down` stops what `up` started.
# HAProxy has two fronts: plain HTTP (the URL `up` prints on stdout, FRONT_PORT in the state
# file: what the scripts and tests use) and TLS (TLS_FRONT_PORT; printed on stderr and by
# status), with the operator's certificate and key (--tls-cert, one PEM file, HAProxy's format)
# or else a self-signed one made for 127.0.0.1 and localhost and kept in DIR/tls (cluster/tls-cert.sh;
# clients trust DIR/tls/front.crt, or with --tls-cert its chain copied to DIR/tls/operator.crt:
# TLS_CA in the state file, for curl --cacert).
# MOSES_BROKER_CP / MOSES_STUBS_CP: class paths to use instead of the build's (tests).
# --binding, --seed and --stubs are for ./moses bench: the replicas' binding (static|adaptive),
# another seed than the trip planner's, and stub services already running (not started, not stopped).
# --deploy (repeatable): a unit every replica deploys besides the trip planner (the takeover demo's).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIR="${MOSES_CLUSTER_DIR:-$ROOT/work/cluster}"
STATE="$DIR/state"
JAVA="$("$ROOT/moses" java)" # the JDK ./moses runs brokers on (MOSES_JAVA overrides)
BROKER_JVM="$("$ROOT/moses" jvm-options)" # the heap, collector and JIT options ./moses run gives brokers (MOSES_JAVA_OPTS chooses)
HAPROXY="${HAPROXY:-$(command -v haproxy || echo /usr/sbin/haproxy)}"
DRAIN_MS=2000

say() { printf 'cluster: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

classpath() { # module
  local m="$1" var="MOSES_${2}_CP"
  if [[ -n "${!var:-}" ]]; then echo "${!var}"; else echo "$ROOT/$m/target/classes:$(cat "$ROOT/$m/target/classpath.txt")"; fi
}

# shellcheck source=cluster/ports.sh
source "$ROOT/cluster/ports.sh"

alive() { [[ -n "${1:-}" ]] && kill -0 "$1" 2>/dev/null; }

# Waits until the command succeeds; $1 seconds, $2 what, rest the command.
wait_until() {
  local secs="$1" what="$2"; shift 2
  local end=$(( SECONDS + secs ))
  until "$@" >/dev/null 2>&1; do
    (( SECONDS < end )) || return 1
    sleep 0.2
  done
}

http_status() { # url -> status code (curl if present, else java's built-in client is too slow: bash /dev/tcp)
  if command -v curl >/dev/null; then curl -s -o /dev/null -w '%{http_code}' --max-time 3 "$1"; return; fi
  local hostport="${1#http://}"; hostport="${hostport%%/*}"; local path="/${1#http://*/}"
  exec 3<>"/dev/tcp/${hostport%:*}/${hostport#*:}" || { echo 000; return; }
  printf 'GET %s HTTP/1.0\r\nHost: %s\r\n\r\n' "$path" "$hostport" >&3
  local line; read -r line <&3 || line="x 000"; exec 3<&-
  echo "$line" | awk '{print $2}'
}
ready() { [[ "$(http_status "$1")" == 200 ]]; }
http_body() {
  if command -v curl >/dev/null; then curl -s --max-time 3 "$1"; return; fi
  local hostport="${1#http://}"; hostport="${hostport%%/*}"; local path="/${1#http://*/}"
  exec 3<>"/dev/tcp/${hostport%:*}/${hostport#*:}" || return 1
  printf 'GET %s HTTP/1.0\r\nHost: %s\r\n\r\n' "$path" "$hostport" >&3
  sed '1,/^\r$/d' <&3; exec 3<&-
}

save() { printf '%s=%q\n' "$1" "$2" >> "$STATE"; }

mariadb_bin() { for n in "$@"; do for d in /usr/sbin /usr/bin /usr/local/sbin /usr/local/bin; do [[ -x $d/$n ]] && { echo "$d/$n"; return; }; done; done; return 1; }

start_mariadb() {
  local server install client port data="$DIR/mariadb"
  server=$(mariadb_bin mariadbd mysqld) || die "no mariadbd: install mariadb-server (bash .ci/run --install), or pass --db"
  install=$(mariadb_bin mariadb-install-db mysql_install_db) || die "no mariadb-install-db"
  client=$(mariadb_bin mariadb mysql) || die "no mariadb client"
  free_port port
  # its own tmpdir: a starting server deletes the #sql temporary files it finds there (galera.sh)
  mkdir -p "$data/tmp"
  local user=(); [[ $(id -u) == 0 ]] && user=(--user=root)
  "$install" --no-defaults --datadir="$data/data" --tmpdir="$data/tmp" --auth-root-authentication-method=normal --skip-test-db "${user[@]}" \
    > "$DIR/logs/mariadb-install.log" 2>&1 || die "mariadb-install-db failed: $DIR/logs/mariadb-install.log"
  # kept as a script: `cluster db-start` starts the same server again after `cluster db-stop`
  {
    printf '#!/usr/bin/env bash\n'
    printf 'nohup %q --no-defaults --datadir=%q --port=%q --bind-address=127.0.0.1 --socket=%q --pid-file=%q --log-error=%q ' \
      "$server" "$data/data" "$port" "$data/mariadbd.sock" "$data/mariadbd.pid" "$DIR/logs/mariadb.log"
    printf -- '--tmpdir=%q ' "$data/tmp"
    printf -- '--skip-name-resolve --character-set-server=utf8mb4 --collation-server=utf8mb4_bin --innodb-buffer-pool-size=64M '
    printf -- '--max-connections=200 %s >/dev/null 2>&1 &\necho $!\n' "${user[*]}"
  } > "$data/start.sh"
  save MARIADB_PID "$(bash "$data/start.sh")"
  save MARIADB_PORT "$port"
  wait_until 60 "MariaDB" "$client" --no-defaults --socket="$data/mariadbd.sock" -uroot -e 'SELECT 1' \
    || die "MariaDB did not start: $DIR/logs/mariadb.log"
  local password; password="pw$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
  "$client" --no-defaults --socket="$data/mariadbd.sock" -uroot -e "
    CREATE DATABASE moses CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    CREATE USER 'moses'@'%' IDENTIFIED BY '$password'; CREATE USER 'moses'@'localhost' IDENTIFIED BY '$password';
    GRANT ALL PRIVILEGES ON moses.* TO 'moses'@'%'; GRANT ALL PRIVILEGES ON moses.* TO 'moses'@'localhost';"
  ( umask 077; printf '%s' "$password" > "$DIR/db-password" )
  DB="jdbc:mariadb://127.0.0.1:$port/moses"
  say "MariaDB on 127.0.0.1:$port (data in $data, user moses, password in $DIR/db-password)"
}

# N Galera nodes (cluster/galera.sh); the replicas get a URL naming all of them, in order:
# MDAL connects to the first that is Synced in the primary component, else the next (README).
start_galera() { # N
  local n="$1" hosts password
  say "starting a Galera cluster of $n nodes (the first bootstraps, the others join by state transfer) ..."
  hosts=$(bash "$ROOT/cluster/galera.sh" up "$DIR/galera" "$n" 2>>"$DIR/logs/galera.log") \
    || die "the Galera cluster did not start: $DIR/logs/galera.log"
  save GALERA_NODES "$n"
  password="pw$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
  # users and databases replicate: made once, on node 1
  bash "$ROOT/cluster/galera.sh" sql "$DIR/galera" 1 "
    CREATE DATABASE moses CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    CREATE USER 'moses'@'%' IDENTIFIED BY '$password'; CREATE USER 'moses'@'localhost' IDENTIFIED BY '$password';
    GRANT ALL PRIVILEGES ON moses.* TO 'moses'@'%'; GRANT ALL PRIVILEGES ON moses.* TO 'moses'@'localhost';" >/dev/null
  ( umask 077; printf '%s' "$password" > "$DIR/db-password" )
  DB="jdbc:mariadb://$hosts/moses"
  say "Galera cluster of $n nodes Synced: $hosts (data in $DIR/galera, user moses, password in $DIR/db-password)"
}

start_replica() { # name port seed?
  local name="$1" port="$2" seed="$3" args=()
  args=(--port "$port" --work "$DIR/$name" --db "$DB" --deploy "$ROOT/bpel-processes/trip-planner" --replica "$name" --drain "$DRAIN_MS" --trusted-proxy 127.0.0.1)
  local unit; for unit in "${DEPLOY[@]}"; do args+=(--deploy "$unit"); done
  [[ $seed == yes ]] && args+=(--seed "$SEED" --set "STUBS=$STUBS_URL")
  [[ -n $BINDING ]] && args+=(--binding "$BINDING")
  MOSES_DB_USER="${DB_USER:-}" MOSES_DB_PASSWORD_FILE="${DB_PASSWORD_FILE:-}" \
    nohup "$JAVA" $BROKER_JVM ${MOSES_JAVA_OPTS:-} -cp "$(classpath broker-core BROKER)" io.moses.core.Main "${args[@]}" > "$DIR/logs/$name.log" 2>&1 &
  save "PID_$name" $!
  save "PORT_$name" "$port"
}

cmd_up() {
  local replicas=2 db="" stubs="" tls_cert=""
  BINDING="" SEED="$ROOT/bpel-processes/trip-planner/seed.yaml" DEPLOY=()
  while (( $# )); do
    case "$1" in
      --deploy) [[ -d ${2:?--deploy needs a unit directory} ]] || die "--deploy $2: no such directory"; DEPLOY+=("$(cd "$2" && pwd)"); shift 2 ;;
      --replicas) replicas="${2:?--replicas needs a number}"; shift 2 ;;
      --db) db="${2:?--db needs a JDBC URL or galera[:N]}"; shift 2 ;;
      --binding) BINDING="${2:?--binding needs static or adaptive}"; shift 2 ;;
      --seed) SEED="${2:?--seed needs a file}"; shift 2 ;;
      --stubs) stubs="${2:?--stubs needs the base URL of the stubs}"; shift 2 ;;
      --tls-cert) tls_cert="${2:?--tls-cert needs a PEM file (certificate chain and key)}"; shift 2 ;;
      *) die "unknown option $1 (up [--replicas N] [--db SPEC] [--tls-cert PEM] [--binding B] [--seed FILE] [--stubs URL] [--deploy DIR])" ;;
    esac
  done
  [[ -f $SEED ]] || die "no seed file $SEED"
  [[ $replicas =~ ^[1-9][0-9]*$ ]] || die "--replicas needs a positive number, got '$replicas'"
  [[ -x $HAPROXY ]] || die "no haproxy: apt-get install haproxy"
  if [[ -n $tls_cert ]]; then # said before anything starts
    [[ -r $tls_cert ]] || die "--tls-cert $tls_cert: no such file, or not readable"
    grep -q -- '-----BEGIN CERTIFICATE-----' "$tls_cert" && grep -q -- '-----BEGIN .*PRIVATE KEY-----' "$tls_cert" \
      || die "--tls-cert $tls_cert: needs the certificate chain and its private key in one PEM file (HAProxy's format)"
    tls_cert="$(cd "$(dirname "$tls_cert")" && pwd)/$(basename "$tls_cert")"
  fi
  local tls_ca=""
  if [[ -f $STATE ]]; then
    # shellcheck disable=SC1090
    source "$STATE"
    if alive "${HAPROXY_PID:-}"; then die "a cluster is already up (./moses cluster status; ./moses cluster down)"; fi
    say "removing the state of a cluster that is no longer running"; cmd_down quiet
  fi
  mkdir -p "$DIR/logs"; : > "$STATE"
  save REPLICAS "$replicas"
  # the TLS front's certificate, before anything starts
  if [[ -n $tls_cert ]]; then
    tls_ca="$DIR/tls/operator.crt"; mkdir -p "$DIR/tls"
    # the chain alone, for clients (curl --cacert) when the operator's issuer is not in their store
    sed -n '/-----BEGIN CERTIFICATE-----/,/-----END CERTIFICATE-----/p' "$tls_cert" > "$tls_ca"
  elif command -v openssl >/dev/null; then
    tls_cert=$(bash "$ROOT/cluster/tls-cert.sh" "$DIR/tls") || die "no certificate for the TLS front (cluster/tls-cert.sh)"
    tls_ca="$DIR/tls/front.crt"
  else
    say "no openssl: HAProxy gets no TLS front (apt-get install openssl, or pass --tls-cert PEM)"
  fi
  # a failure half-way stops what was started
  trap 'say "start failed; stopping what was started"; cmd_down quiet; exit 1' ERR
  if [[ $db =~ ^galera(:([1-9][0-9]*))?$ ]]; then
    start_galera "${BASH_REMATCH[2]:-3}"; DB_USER=moses; DB_PASSWORD_FILE="$DIR/db-password"
  elif [[ -n $db ]]; then
    DB="$db"; DB_USER="${MOSES_DB_USER:-}"; DB_PASSWORD_FILE="${MOSES_DB_PASSWORD_FILE:-}"
    [[ -n ${MOSES_DB_PASSWORD:-} && -z $DB_PASSWORD_FILE ]] && { ( umask 077; printf '%s' "$MOSES_DB_PASSWORD" > "$DIR/db-password" ); DB_PASSWORD_FILE="$DIR/db-password"; }
    say "knowledge base: the given server"
  else
    start_mariadb; DB_USER=moses; DB_PASSWORD_FILE="$DIR/db-password"
  fi
  save DB "$DB"
  rm -f "$DIR/logs/stubs.log" "$DIR/logs/haproxy.log" "$DIR"/logs/r[0-9]*.log  # before the children open them: a stale line must not be read as theirs
  if [[ -n $stubs ]]; then
    STUBS_URL="${stubs%/}"; STUBS_PORT="${STUBS_URL##*:}"
    save STUBS_PORT "$STUBS_PORT"
    say "stub services: the given ones at $STUBS_URL"
  else
    nohup "$JAVA" -Xmx256m -cp "$(classpath loadtest STUBS)" io.moses.loadtest.stubs.StubServer --port 0 > "$DIR/logs/stubs.log" 2>&1 &
    save STUBS_PID $!
    wait_until 60 "stubs" grep -q "stubs listening on" "$DIR/logs/stubs.log" || die "stubs did not start: $DIR/logs/stubs.log"
    STUBS_PORT=$(sed -n 's/.*stubs listening on http:\/\/[^:]*:\([0-9]*\).*/\1/p' "$DIR/logs/stubs.log" | head -1)
    STUBS_URL="http://127.0.0.1:$STUBS_PORT"
    save STUBS_PORT "$STUBS_PORT"
    say "stub services on 127.0.0.1:$STUBS_PORT"
  fi
  local servers="" i port
  for i in $(seq 1 "$replicas"); do
    free_port port
    start_replica "r$i" "$port" "$([[ $i == 1 ]] && echo yes || echo no)"
    servers+="    server r$i 127.0.0.1:$port check"$'\n'
    # the first replica seeds the knowledge base: the others start when it is ready
    if [[ $i == 1 ]]; then
      wait_until 300 "r1" ready "http://127.0.0.1:$port/health" || die "replica r1 did not become ready: $DIR/logs/r1.log"
      say "replica r1 ready on 127.0.0.1:$port (seeded the knowledge base)"
    fi
  done
  # shellcheck disable=SC1090
  source "$STATE"
  for i in $(seq 2 "$replicas"); do
    local pvar="PORT_r$i"
    wait_until 300 "r$i" ready "http://127.0.0.1:${!pvar}/health" || die "replica r$i did not become ready: $DIR/logs/r$i.log"
    say "replica r$i ready on 127.0.0.1:${!pvar}"
  done
  local front stats tls_front; free_port front; free_port stats; free_port tls_front
  local tmpl; tmpl=$(<"$ROOT/cluster/haproxy.cfg.in")
  tmpl="${tmpl//@BIND@/127.0.0.1}"; tmpl="${tmpl//@FRONT_PORT@/$front}"; tmpl="${tmpl//@STATS_PORT@/$stats}"
  if [[ -n $tls_cert ]]; then
    tmpl="${tmpl//@TLS_BIND@/    bind 127.0.0.1:$tls_front ssl crt \"$tls_cert\" ssl-min-ver TLSv1.2 alpn http/1.1}"
  else
    tmpl="${tmpl//@TLS_BIND@/    # no TLS front: no openssl to make its certificate, and no --tls-cert}"
  fi
  tmpl="${tmpl//@SERVERS@/${servers%$'\n'}}"
  printf '%s\n' "$tmpl" > "$DIR/haproxy.cfg"
  "$HAPROXY" -c -q -f "$DIR/haproxy.cfg" || die "haproxy rejects $DIR/haproxy.cfg"
  nohup "$HAPROXY" -f "$DIR/haproxy.cfg" -db > "$DIR/logs/haproxy.log" 2>&1 &
  save HAPROXY_PID $!
  save FRONT_PORT "$front"
  save STATS_PORT "$stats"
  if [[ -n $tls_cert ]]; then save TLS_FRONT_PORT "$tls_front"; save TLS_CA "$tls_ca"; fi
  wait_until 20 "HAProxy" ready "http://127.0.0.1:$stats/" || die "HAProxy did not start: $DIR/logs/haproxy.log"
  trap - ERR
  say "HAProxy stats on http://127.0.0.1:$stats/"
  [[ -z $tls_cert ]] || say "TLS front on https://127.0.0.1:$tls_front (certificate $tls_ca: curl --cacert $tls_ca https://127.0.0.1:$tls_front/health)"
  echo "http://127.0.0.1:$front"
}

stop_pid() { # pid what seconds
  local pid="$1" what="$2" secs="${3:-30}"
  alive "$pid" || return 0
  kill -TERM "$pid" 2>/dev/null || return 0
  local end=$(( SECONDS + secs ))
  while alive "$pid"; do
    if (( SECONDS >= end )); then say "$what did not stop in ${secs} s: SIGKILL"; kill -KILL "$pid" 2>/dev/null || true; break; fi
    sleep 0.2
  done
}

cmd_down() {
  local quiet="${1:-}"
  [[ -f $STATE ]] || { [[ -n $quiet ]] || say "no cluster state in $DIR: nothing to stop"; return 0; }
  # shellcheck disable=SC1090
  source "$STATE"
  stop_pid "${HAPROXY_PID:-}" HAProxy 10
  local i
  for i in $(seq 1 "${REPLICAS:-0}"); do
    local v="PID_r$i"; stop_pid "${!v:-}" "replica r$i" 30 &
  done
  wait
  stop_pid "${STUBS_PID:-}" stubs 10
  stop_pid "${MARIADB_PID:-}" MariaDB 60
  [[ -n ${GALERA_NODES:-} ]] && bash "$ROOT/cluster/galera.sh" down "$DIR/galera" 2>>"$DIR/logs/galera.log"
  rm -rf "$DIR/mariadb" "$DIR/galera" "$DIR/db-password" "$STATE"
  for i in $(seq 1 "${REPLICAS:-0}"); do rm -rf "$DIR/r$i"; done
  [[ -n $quiet ]] || say "stopped (logs kept in $DIR/logs)"
}

cmd_status() {
  [[ -f $STATE ]] || { say "no cluster (./moses cluster up)"; return 3; }
  # shellcheck disable=SC1090
  source "$STATE"
  local bad=0 i
  state_of() { if alive "$1"; then echo running; else echo STOPPED; bad=1; fi; }
  if [[ -n ${MARIADB_PID:-} ]]; then printf '%-10s %-8s 127.0.0.1:%s\n' mariadb "$(state_of "$MARIADB_PID")" "$MARIADB_PORT"
  elif [[ -n ${GALERA_NODES:-} ]]; then
    # each node's Galera state (Synced, Donor/Desynced, Joining, Joined) and the cluster size it sees
    local g; g=$(bash "$ROOT/cluster/galera.sh" status "$DIR/galera" 2>/dev/null) || true
    printf '%s\n' "$g"
    grep -q -v ' Synced .* Primary' <<<"$g" && bad=1
  else printf '%-10s %-8s %s\n' database given "$DB"; fi
  if [[ -n ${STUBS_PID:-} ]]; then printf '%-10s %-8s 127.0.0.1:%s\n' stubs "$(state_of "$STUBS_PID")" "$STUBS_PORT"
  else printf '%-10s %-8s 127.0.0.1:%s\n' stubs given "$STUBS_PORT"; fi
  for i in $(seq 1 "$REPLICAS"); do
    local p="PID_r$i" q="PORT_r$i" h
    h=$(http_body "http://127.0.0.1:${!q}/health" 2>/dev/null | tr -d '\n' | sed 's/  */ /g' || true)
    local st lead plan
    st=$(sed -n 's/.*"status" : "\([A-Z]*\)".*/\1/p' <<<"$h"); lead=$(sed -n 's/.*"optimizerLeader" : \([a-z]*\).*/\1/p' <<<"$h")
    plan=$(sed -n 's/.*"planVersion" : \([0-9]*\).*/\1/p' <<<"$h")
    [[ $st == UP ]] || bad=1
    printf '%-10s %-8s 127.0.0.1:%-6s readiness %-9s plan %-4s %s\n' "r$i" "$(state_of "${!p}")" "${!q}" "${st:-none}" "${plan:--}" \
      "$([[ $lead == true ]] && echo 'optimizer leader' || true)"
  done
  printf '%-10s %-8s front http://127.0.0.1:%s  stats http://127.0.0.1:%s/\n' haproxy "$(state_of "$HAPROXY_PID")" "$FRONT_PORT" "$STATS_PORT"
  [[ -n ${TLS_FRONT_PORT:-} ]] && printf '%-10s %-8s front https://127.0.0.1:%s  (curl --cacert %s)\n' "" "" "$TLS_FRONT_PORT" "$TLS_CA"
  if alive "$HAPROXY_PID"; then
    http_body "http://127.0.0.1:$STATS_PORT/;csv" 2>/dev/null | awk -F, '$1=="replicas" && $2!="BACKEND" {printf "  haproxy sees %s %s\n", $2, $18}'
  fi
  return $bad
}

# An outage drill: stop the cluster's own MariaDB (SIGTERM) and start it again, same data and port.
# With Galera, one node (1..N): db-stop NODE [--kill] (SIGTERM, or SIGKILL: a crash), db-start NODE (it rejoins).
cmd_db() {
  [[ -f $STATE ]] || die "no cluster"
  # shellcheck disable=SC1090
  source "$STATE"
  if [[ -n ${GALERA_NODES:-} ]]; then
    [[ -n ${2:-} ]] || die "which Galera node? db-$1 NODE (1..$GALERA_NODES)"
    case "$1" in
      stop) bash "$ROOT/cluster/galera.sh" node-stop "$DIR/galera" "$2" "${3:-}" ;;
      start) bash "$ROOT/cluster/galera.sh" node-start "$DIR/galera" "$2" ;;
    esac
    return
  fi
  [[ -n ${MARIADB_PID:-} ]] || die "the knowledge base is a server given with --db: stop it there"
  case "$1" in
    stop) stop_pid "$MARIADB_PID" MariaDB 60; say "MariaDB stopped" ;;
    start)
      alive "$MARIADB_PID" && die "MariaDB is running"
      save MARIADB_PID "$(bash "$DIR/mariadb/start.sh")"
      local client; client=$(mariadb_bin mariadb mysql)
      wait_until 60 MariaDB "$client" --no-defaults --socket="$DIR/mariadb/mariadbd.sock" -uroot -e 'SELECT 1' || die "MariaDB did not start"
      say "MariaDB running again on 127.0.0.1:$MARIADB_PORT" ;;
  esac
}

case "${1:-}" in
  up) shift; cmd_up "$@" ;;
  db-stop) shift; cmd_db stop "$@" ;;
  db-start) shift; cmd_db start "$@" ;;
  down) shift; cmd_down ;;
  status) shift; cmd_status ;;
  *) echo "usage: moses cluster up [--replicas N] [--db SPEC|galera[:N]] [--tls-cert PEM] | down | status | db-stop [NODE] [--kill] | db-start [NODE]" >&2; exit 2 ;;
esac
