#!/usr/bin/env bash
# Makes a certificate authority and certificates for trying TLS and for tests
# (not for production: keys are unencrypted and the CA lives beside them).
#
#   scripts/dev-certs.sh DIR [NAME_OR_IP ...]
#
# Writes DIR/ca.pem (the CA certificate: give it as --tls_ca and
# --tls_client_ca) and, for each of arena, referee and bot, NAME.pem and
# NAME.key (give them as --tls_cert and --tls_key). Every certificate is valid
# for localhost, 127.0.0.1, ::1 and each NAME_OR_IP given, as a server and as
# a client (so the arena's certificate is also its client certificate towards
# mutual-TLS referees). Also DIR/other-ca.pem and DIR/stranger.pem/.key: a
# second CA and a certificate it signed, for checking that strangers are
# refused. Existing files are replaced. Needs openssl.
set -euo pipefail
if [ $# -lt 1 ]; then sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 2; fi
dir=$1; shift
mkdir -p "$dir"
cd "$dir"
san="DNS:localhost,IP:127.0.0.1,IP:::1"
for extra in "$@"; do
  if [[ $extra =~ ^[0-9.]+$ || $extra == *:* ]]; then san="$san,IP:$extra"; else san="$san,DNS:$extra"; fi
done
days=825
make_ca() {  # make_ca NAME SUBJECT
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -sha256 \
    -days "$days" -keyout "$1.key" -out "$1.pem" -subj "$2" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
    2>/dev/null
}
make_cert() {  # make_cert NAME CA
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -sha256 \
    -keyout "$1.key" -out "$1.csr" -subj "/CN=tarock-$1" 2>/dev/null
  printf 'subjectAltName=%s\nextendedKeyUsage=serverAuth,clientAuth\nkeyUsage=critical,digitalSignature\nbasicConstraints=critical,CA:FALSE\n' \
    "$san" > "$1.ext"
  openssl x509 -req -in "$1.csr" -CA "$2.pem" -CAkey "$2.key" -CAcreateserial -days "$days" \
    -sha256 -extfile "$1.ext" -out "$1.pem" 2>/dev/null
  rm -f "$1.csr" "$1.ext"
  chmod 600 "$1.key"
}
make_ca ca "/CN=Tarock Arena development CA"
for name in arena referee bot; do make_cert "$name" ca; done
make_ca other-ca "/CN=Some other CA"
make_cert stranger other-ca
rm -f ./*.srl
chmod 600 ca.key other-ca.key
echo "dev-certs: CA $dir/ca.pem; certificates arena, referee, bot (.pem/.key); valid for $san"
