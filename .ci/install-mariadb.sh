#!/usr/bin/env bash
# Installs Debian's MariaDB server binaries for the MDAL tests without starting the system
# service: the tests run their own mariadbd in a temporary data directory on a free port
# (io.moses.mdal.testing.MariaDbServer). Idempotent; needs root (apt-get).
set -euo pipefail
if [[ -x /usr/sbin/mariadbd && -x /usr/bin/mariadb-install-db ]] && command -v mariadb >/dev/null; then
  echo "mariadb-server already installed: $(/usr/sbin/mariadbd --version)"
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
# Keep the package's postinst from starting the system service (as Docker images do); restore
# whatever policy was there before.
policy=/usr/sbin/policy-rc.d
backup=""
if [[ -e $policy ]]; then backup=$(mktemp); cp -p "$policy" "$backup"; fi
restore() { if [[ -n $backup ]]; then mv -f "$backup" "$policy"; else rm -f "$policy"; fi; }
trap restore EXIT
printf '#!/bin/sh\nexit 101\n' > "$policy"
chmod +x "$policy"
apt-get update -qq
apt-get install -y -qq --no-install-recommends mariadb-server >/dev/null
echo "installed: $(/usr/sbin/mariadbd --version)"
