#!/usr/bin/env bash
# cluster/tls-cert.sh DIR [NAME]...: a self-signed certificate for a demo's TLS front, made with
# openssl once and kept (made again only when it expires within a day): DIR/front.crt, the
# certificate (what clients trust: curl --cacert DIR/front.crt), and DIR/front.pem, the
# certificate and its key in one file (HAProxy's crt format; readable by its owner only).
# Valid for 127.0.0.1, localhost and each NAME (a DNS name). Not a CA: nothing else it signs.
# Prints DIR/front.pem.
set -euo pipefail
dir="${1:?usage: tls-cert.sh DIR [NAME]...}"; shift
command -v openssl >/dev/null || { echo "tls-cert: no openssl (apt-get install openssl)" >&2; exit 1; }
crt="$dir/front.crt" pem="$dir/front.pem"
if [[ -f $crt && -f $pem ]] && openssl x509 -checkend 86400 -noout -in "$crt" >/dev/null 2>&1; then echo "$pem"; exit 0; fi
mkdir -p "$dir"
san="DNS:localhost,IP:127.0.0.1"
for n in "$@"; do san+=",DNS:$n"; done
( umask 077
  openssl req -x509 -newkey rsa:2048 -nodes -keyout "$dir/front.key" -out "$crt" -days 365 \
    -subj "/CN=localhost" -addext "subjectAltName=$san" -addext "basicConstraints=critical,CA:FALSE" >/dev/null 2>&1 \
    || { echo "tls-cert: openssl could not make a certificate in $dir" >&2; exit 1; }
  cat "$crt" "$dir/front.key" > "$pem"
  rm -f "$dir/front.key" )
chmod 644 "$crt"
echo "$pem"
