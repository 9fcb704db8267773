# Free ports for the servers cluster.sh and galera.sh start on 127.0.0.1 (sourced by both).
#
# free_port VAR sets VAR to a port nothing listens on now (probed by connecting: bash's
# /dev/tcp, no extra tools) that this script has not handed out before. It picks below the
# kernel's ephemeral range (net.ipv4.ip_local_port_range), or above it when the range starts too
# low: a port inside it can become the local end of some outgoing connection between the probe
# and the server's bind, and the server then fails with "Address already in use" (a Galera node
# did so once in CI, 2026-11-28; io.moses.mdal.testing.FreePorts does the same for the tests'
# servers). Under MOSES_PORT_SLICE=k/n (set by the test runner when test JVMs run at once) it
# picks only ports p with p mod n = k - 1, as FreePorts does in that JVM. It sets VAR rather than printing the port, because a $(...) subshell would lose the
# record of the ports handed out; its locals are prefixed so that no caller's VAR is one of them.
TAKEN_PORTS=" "
free_port() {
  local _fp_p _fp_lo=10000 _fp_hi=32767 _fp_eph_lo _fp_eph_hi
  if read -r _fp_eph_lo _fp_eph_hi < /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null; then
    if (( _fp_eph_lo > _fp_lo + 1000 )); then _fp_hi=$(( _fp_eph_lo - 1 ))
    elif (( _fp_eph_hi < 64535 )); then _fp_lo=$(( _fp_eph_hi + 1 )); _fp_hi=65535
    else _fp_lo=$_fp_eph_lo; _fp_hi=$_fp_eph_hi; fi # no room outside it
  fi
  for _ in $(seq 1 200); do
    _fp_p=$(( _fp_lo + (RANDOM * 32768 + RANDOM) % (_fp_hi - _fp_lo + 1) ))
    # MOSES_PORT_SLICE=k/n (test JVMs running at once): only ports p with p mod n = k - 1
    if [[ "${MOSES_PORT_SLICE:-}" =~ ^([0-9]+)/([0-9]+)$ ]] && (( BASH_REMATCH[2] > 1 && BASH_REMATCH[1] >= 1 )); then
      _fp_p=$(( _fp_p + ((BASH_REMATCH[1] - 1 - _fp_p) % BASH_REMATCH[2] + BASH_REMATCH[2]) % BASH_REMATCH[2] ))
      (( _fp_p > _fp_hi )) && continue
    fi
    [[ $TAKEN_PORTS == *" $_fp_p "* ]] && continue
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$_fp_p") 2>/dev/null; then
      TAKEN_PORTS+="$_fp_p "
      printf -v "$1" "%s" "$_fp_p"
      return
    fi
  done
  die "no free port found"
}
