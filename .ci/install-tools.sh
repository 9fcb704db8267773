#!/usr/bin/env bash
# Installs the Debian packages of .ci/tools that this machine lacks (a package is missing when any
# command or file listed for it is). Idempotent; needs root (apt-get). Packages that would start a
# system service on install (mariadb-server) do not: the tests start their own servers.
#   .ci/install-tools.sh           install what is missing
#   .ci/install-tools.sh --check   print what is missing, exit 1 if anything is
set -euo pipefail
self="$(cd "$(dirname "$0")" && pwd)/$(basename "$0")"
cd "$(dirname "$self")"
missing=()
while read -r package uses; do
  uses="${uses%%#*}"
  for use in $uses; do
    if [[ "$use" == /* ]]; then
      compgen -G "$use" >/dev/null || { missing+=("$package"); break; }
    else
      command -v "$use" >/dev/null || { missing+=("$package"); break; }
    fi
  done
done < <(grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' tools)
if [[ "${1:-}" == --check ]]; then
  (( ${#missing[@]} == 0 )) || { echo "missing: ${missing[*]}"; exit 1; }
  echo "every tool in .ci/tools is installed"; exit 0
fi
(( ${#missing[@]} )) || { echo "every tool in .ci/tools is installed"; exit 0; }
echo "installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# Keep postinst scripts from starting system services (as Docker images do); restore whatever
# policy was there before.
policy=/usr/sbin/policy-rc.d
backup=""
if [[ -e $policy ]]; then backup=$(mktemp); cp -p "$policy" "$backup"; fi
restore() { if [[ -n $backup ]]; then mv -f "$backup" "$policy"; else rm -f "$policy"; fi; }
trap restore EXIT
printf '#!/bin/sh\nexit 101\n' > "$policy"
chmod +x "$policy"
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
bash "$self" --check
