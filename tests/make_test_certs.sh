#!/usr/bin/env bash
# Makes the certificates the TLS tests use, fresh in <dir>, with the openssl
# command line (P-256 keys: fast to make):
#   ca.pem ca.key                 a CA
#   server.pem server.key         issued by ca for localhost and 127.0.0.1
#   client.pem client.key         issued by ca for client authentication
#   other-ca.pem other-ca.key     a second CA that issued none of them
# Keys get mode 0600. Valid for two days from now.
#
# usage: make_test_certs.sh <dir>
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 <dir>" >&2; exit 2; }
command -v openssl >/dev/null || { echo "make_test_certs: openssl is not installed" >&2; exit 1; }
D=$1
mkdir -p "$D"
umask 077
cat >"$D/openssl.cnf" <<'EOF'
[req]
distinguished_name = dn
prompt = no
[dn]
CN = unused
[ca_ext]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
[server_ext]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = DNS:localhost,IP:127.0.0.1
[client_ext]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature
extendedKeyUsage = clientAuth
EOF
ec=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
for ca in ca other-ca; do
    openssl req -x509 -config "$D/openssl.cnf" -extensions ca_ext "${ec[@]}" -days 2 \
        -subj "/CN=zkpipe test $ca" -keyout "$D/$ca.key" -out "$D/$ca.pem" 2>/dev/null
done
serial=2
for who in server client; do
    openssl req -new -config "$D/openssl.cnf" "${ec[@]}" -subj "/CN=zkpipe test $who" \
        -keyout "$D/$who.key" -out "$D/$who.csr" 2>/dev/null
    openssl x509 -req -in "$D/$who.csr" -CA "$D/ca.pem" -CAkey "$D/ca.key" -set_serial $serial \
        -days 2 -extfile "$D/openssl.cnf" -extensions "${who}_ext" -out "$D/$who.pem" 2>/dev/null
    serial=$((serial + 1))
    rm -f "$D/$who.csr"
done
chmod 600 "$D"/*.key
chmod 644 "$D"/*.pem
