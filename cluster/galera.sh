#!/usr/bin/env bash
# A MariaDB Galera cluster as plain processes on this machine, for `./moses cluster up --db galera`
# and for the tests (io.moses.mdal.testing.GaleraCluster runs this script).
#   galera.sh up DIR [N]        N nodes (3 by default) on free ports on 127.0.0.1, data in DIR/nI;
#                               the first bootstraps the cluster, the others join by state transfer
#                               (rsync); returns when all N are Synced. Prints the JDBC hosts list.
#   galera.sh node-stop DIR I [--kill]   stops node I (SIGTERM; --kill: SIGKILL, a crash)
#   galera.sh node-start DIR I  starts node I again (same data, same ports); it rejoins (IST or SST)
#   galera.sh status DIR        one line per node: state, Galera state, cluster size
#   galera.sh sql DIR I SQL     runs SQL as root on node I (its Unix socket)
#   galera.sh down DIR          stops every node (by PID) and deletes DIR's node data
# State (ports, PIDs) is in DIR/galera.state. Every node has its own client port, group
# communication port (gmcast.listen_addr), IST port and SST port. Started as root, the nodes run
# as the `mysql` user (mariadbd --user=mysql): rsync's state transfer fails as root.
set -euo pipefail
PROVIDER="${GALERA_PROVIDER:-/usr/lib/galera/libgalera_smm.so}"
SYNC_TIMEOUT="${GALERA_SYNC_TIMEOUT:-180}"

say() { printf 'galera: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }
alive() { [[ -n "${1:-}" ]] && kill -0 "$1" 2>/dev/null; }
bin() { for n in "$@"; do for d in /usr/sbin /usr/bin /usr/local/sbin /usr/local/bin; do [[ -x $d/$n ]] && { echo "$d/$n"; return; }; done; done; return 1; }

# shellcheck source=cluster/ports.sh
source "$(dirname "${BASH_SOURCE[0]}")/ports.sh"

missing() { # why a Galera cluster cannot run here, if it cannot
  bin mariadbd mysqld >/dev/null || { echo "no mariadbd (apt-get install mariadb-server)"; return; }
  bin mariadb-install-db mysql_install_db >/dev/null || { echo "no mariadb-install-db"; return; }
  [[ -f $PROVIDER ]] || { echo "no Galera provider $PROVIDER (apt-get install galera-4)"; return; }
  command -v rsync >/dev/null || { echo "no rsync (apt-get install rsync): the state transfer needs it"; return; }
  bin wsrep_sst_rsync >/dev/null || { echo "no wsrep_sst_rsync (mariadb-server)"; return; }
  if [[ $(id -u) == 0 ]] && ! id mysql >/dev/null 2>&1; then echo "no mysql user to run the nodes as"; return; fi
  return 0
}

load() { # DIR
  STATE="$1/galera.state"
  [[ -f $STATE ]] || die "no Galera cluster in $1"
  # shellcheck disable=SC1090
  source "$STATE"
}
save() { printf '%s=%q\n' "$1" "$2" >> "$STATE"; }

client() { # I SQL...
  local i="$1"; shift
  "$(bin mariadb mysql)" --no-defaults --socket="$DIR/n$i/mariadbd.sock" -uroot --batch --skip-column-names "$@"
}

# wsrep_local_state_comment and wsrep_cluster_size of node I ("-" when it does not answer)
node_state() {
  local out
  out=$(client "$1" --connect-timeout=2 -e "SHOW GLOBAL STATUS WHERE Variable_name IN ('wsrep_local_state_comment','wsrep_cluster_size','wsrep_cluster_status')" 2>/dev/null) || { echo "- - -"; return; }
  awk '{v[$1]=$2} END {printf "%s %s %s\n", (v["wsrep_local_state_comment"]==""?"-":v["wsrep_local_state_comment"]), (v["wsrep_cluster_size"]==""?"-":v["wsrep_cluster_size"]), (v["wsrep_cluster_status"]==""?"-":v["wsrep_cluster_status"])}' <<<"$out"
}

synced() { # I N: node I is Synced in a primary component of N nodes
  local s; s=$(node_state "$1")
  [[ $s == "Synced $2 Primary" ]]
}

wait_synced() { # I N what
  local end=$(( SECONDS + SYNC_TIMEOUT ))
  until synced "$1" "$2"; do
    local pv="PID_$1"
    alive "${!pv}" || die "node $1 exited while $3: $(tail -n 5 "$DIR/n$1/error.log" 2>/dev/null)"
    (( SECONDS < end )) || die "node $1 not Synced in a cluster of $2 within ${SYNC_TIMEOUT} s ($(node_state "$1")): $DIR/n$1/error.log"
    sleep 0.3
  done
}

write_start_script() { # I
  local i="$1" d="$DIR/n$1" user=() addr="" j
  [[ $(id -u) == 0 ]] && user=(--user=mysql)
  for j in $(seq 1 "$NODES"); do local g="GCOMM_$j"; addr+="${addr:+,}127.0.0.1:${!g}"; done
  # The donor of a state transfer, last node first: the replicas use the first Synced node of
  # their URL, and a full transfer (rsync, after a crash) locks its donor's tables until it is
  # done, which held their commits (the leader's lease renewals) for 8 s in the drill when the
  # donor was the node they used. The trailing comma: any other node when none of these can.
  local donors=""
  for j in $(seq "$NODES" -1 1); do [[ $j != "$i" ]] && donors+="n$j,"; done
  local p="PORT_$i" g="GCOMM_$i" ist="IST_$i" sst="SST_$i"
  # The first start of node 1 bootstraps the cluster; every later start joins the others.
  {
    printf '#!/usr/bin/env bash\n# starts Galera node %s; "new" as $1 bootstraps a new cluster\n' "$i"
    printf 'new=(); [[ ${1:-} == new ]] && new=(--wsrep-new-cluster)\n'
    printf 'nohup %q --no-defaults --datadir=%q --port=%q --bind-address=127.0.0.1 --socket=%q --pid-file=%q --log-error=%q ' \
      "$(bin mariadbd mysqld)" "$d/data" "${!p}" "$d/mariadbd.sock" "$d/mariadbd.pid" "$d/error.log"
    printf -- '--tmpdir=%q ' "$d/tmp"
    printf -- '--skip-name-resolve --character-set-server=utf8mb4 --collation-server=utf8mb4_bin --max-connections=200 '
    printf -- '--innodb-buffer-pool-size=64M --innodb-flush-log-at-trx-commit=2 --innodb-log-file-size=48M '
    printf -- '--binlog-format=ROW --default-storage-engine=InnoDB --innodb-autoinc-lock-mode=2 '
    printf -- '--wsrep-on=ON --wsrep-provider=%q --wsrep-cluster-name=moses --wsrep-node-name=n%s ' "$PROVIDER" "$i"
    printf -- '--wsrep-cluster-address=gcomm://%s --wsrep-node-address=127.0.0.1:%s ' "$addr" "${!g}"
    printf -- '--wsrep-provider-options=%q ' "gmcast.listen_addr=tcp://127.0.0.1:${!g};ist.recv_addr=127.0.0.1:${!ist};gcache.size=64M;evs.suspect_timeout=PT3S;evs.inactive_timeout=PT6S"
    printf -- '--wsrep-sst-method=rsync --wsrep-sst-receive-address=127.0.0.1:%s --wsrep-sst-donor=%q %s "${new[@]}" >/dev/null 2>&1 &\necho $!\n' \
      "${!sst}" "$donors" "${user[*]}"
  } > "$d/start.sh"
}

cmd_up() { # DIR N
  DIR="$1"; local n="${2:-3}" i
  [[ $n =~ ^[1-9][0-9]*$ ]] || die "the number of nodes must be a positive number, got '$n'"
  local why; why=$(missing) || true
  [[ -z $why ]] || die "cannot run Galera here: $why"
  mkdir -p "$DIR"; DIR="$(cd "$DIR" && pwd)"
  STATE="$DIR/galera.state"
  if [[ -f $STATE ]]; then
    # shellcheck disable=SC1090
    source "$STATE"
    for i in $(seq 1 "${NODES:-0}"); do local pv="PID_$i"; alive "${!pv:-}" && die "a Galera cluster is already running in $DIR"; done
    rm -rf "$DIR"/n[0-9]* "$STATE"
  fi
  : > "$STATE"; NODES="$n"; save NODES "$n"
  for i in $(seq 1 "$n"); do
    for k in PORT GCOMM IST SST; do local v; free_port v; save "${k}_$i" "$v"; printf -v "${k}_$i" '%s' "$v"; done
    # a temporary directory of its own: a starting server deletes the #sql temporary files it finds
    # in its tmpdir, and a shared /tmp holds other servers' (test JVMs start servers at once)
    mkdir -p "$DIR/n$i/data" "$DIR/n$i/tmp"
  done
  # the nodes run as mysql (when root): their directories must be theirs, and every directory
  # above them open to it
  if [[ $(id -u) == 0 ]]; then
    chmod 755 "$DIR" && chown -R mysql:mysql "$DIR"/n[0-9]*
    runuser -u mysql -- test -w "$DIR/n1/data" ||
      die "the nodes run as the mysql user, which cannot reach $DIR: open its parent directories to others (chmod o+x) or use another directory"
  fi
  local user=(); [[ $(id -u) == 0 ]] && user=(--user=mysql)
  "$(bin mariadb-install-db mysql_install_db)" --no-defaults --datadir="$DIR/n1/data" --tmpdir="$DIR/n1/tmp" --auth-root-authentication-method=normal \
    --skip-test-db "${user[@]}" > "$DIR/n1/install.log" 2>&1 || die "mariadb-install-db failed: $DIR/n1/install.log"
  for i in $(seq 1 "$n"); do write_start_script "$i"; done
  save PID_1 "$(bash "$DIR/n1/start.sh" new)"; source "$STATE"
  wait_synced 1 1 "bootstrapping"
  # joiners one at a time: each takes a full state transfer from a donor, which it blocks meanwhile
  for i in $(seq 2 "$n"); do
    save "PID_$i" "$(bash "$DIR/n$i/start.sh")"; source "$STATE"
    wait_synced "$i" "$i" "joining"
  done
  hosts
}

hosts() { local i h=""; for i in $(seq 1 "$NODES"); do local p="PORT_$i"; h+="${h:+,}127.0.0.1:${!p}"; done; echo "$h"; }

node_index() { [[ $1 =~ ^[0-9]+$ ]] && (( $1 >= 1 && $1 <= NODES )) || die "no node '$1' (1..$NODES)"; }

cmd_node_stop() { # DIR I [--kill]
  DIR="$1"; load "$DIR"; node_index "$2"
  local pv="PID_$2" sig=TERM; [[ ${3:-} == --kill ]] && sig=KILL
  alive "${!pv:-}" || { say "node $2 is not running"; return 0; }
  kill -"$sig" "${!pv}"
  local end=$(( SECONDS + 60 ))
  while alive "${!pv}"; do
    (( SECONDS < end )) || { say "node $2 did not stop in 60 s: SIGKILL"; kill -KILL "${!pv}" 2>/dev/null || true; }
    sleep 0.2
  done
  say "node $2 stopped (SIG$sig)"
}

cmd_node_start() { # DIR I
  DIR="$1"; load "$DIR"; node_index "$2"
  local pv="PID_$2"
  alive "${!pv:-}" && die "node $2 is running"
  # the others may all be down: then this node cannot join anyone, and must be told to bootstrap
  local i others=0
  for i in $(seq 1 "$NODES"); do local q="PID_$i"; [[ $i != "$2" ]] && alive "${!q:-}" && others=$((others + 1)); done
  if (( others == 0 )); then
    sed -i "s/^safe_to_bootstrap: 0/safe_to_bootstrap: 1/" "$DIR/n$2/data/grastate.dat" 2>/dev/null || true
    save "PID_$2" "$(bash "$DIR/n$2/start.sh" new)"
  else
    save "PID_$2" "$(bash "$DIR/n$2/start.sh")"
  fi
  source "$STATE"
  local end=$(( SECONDS + SYNC_TIMEOUT ))
  until [[ $(node_state "$2") == Synced* ]]; do
    alive "${!pv}" || die "node $2 exited while rejoining: $(tail -n 5 "$DIR/n$2/error.log" 2>/dev/null)"
    (( SECONDS < end )) || die "node $2 not Synced within ${SYNC_TIMEOUT} s: $DIR/n$2/error.log"
    sleep 0.3
  done
  say "node $2 Synced ($(node_state "$2" | awk '{print "cluster size " $2}'))"
}

cmd_status() { # DIR
  DIR="$1"; load "$DIR"
  local i
  for i in $(seq 1 "$NODES"); do
    local pv="PID_$i" pp="PORT_$i" st s
    if alive "${!pv:-}"; then st=running; else st=STOPPED; fi
    read -r s size prim <<<"$(node_state "$i")"
    printf 'galera-n%-3s %-8s 127.0.0.1:%-6s %-10s cluster size %-2s %s\n' "$i" "$st" "${!pp}" "$s" "$size" "$prim"
  done
}

cmd_down() { # DIR
  DIR="$1"; STATE="$DIR/galera.state"
  [[ -f $STATE ]] || return 0
  # shellcheck disable=SC1090
  source "$STATE"
  local i
  # the last one down is the one safest to bootstrap from again; stop in reverse order
  for i in $(seq "${NODES:-0}" -1 1); do local pv="PID_$i"; alive "${!pv:-}" && cmd_node_stop "$DIR" "$i" 2>/dev/null; done
  rm -rf "$DIR"/n[0-9]* "$STATE"
}

case "${1:-}" in
  up) cmd_up "${2:?DIR}" "${3:-3}" ;;
  node-stop) cmd_node_stop "${2:?DIR}" "${3:?node}" "${4:-}" ;;
  node-start) cmd_node_start "${2:?DIR}" "${3:?node}" ;;
  status) cmd_status "${2:?DIR}" ;;
  sql) DIR="${2:?DIR}"; load "$DIR"; node_index "${3:?node}"; client "$3" -e "${4:?SQL}" ;;
  hosts) DIR="${2:?DIR}"; load "$DIR"; hosts ;;
  missing) why=$(missing) || true; [[ -z $why ]] || { echo "$why"; exit 1; } ;;
  down) cmd_down "${2:?DIR}" ;;
  *) echo "usage: galera.sh up DIR [N] | node-stop DIR I [--kill] | node-start DIR I | status DIR | sql DIR I SQL | hosts DIR | missing | down DIR" >&2; exit 2 ;;
esac
