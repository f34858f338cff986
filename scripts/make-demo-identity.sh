#!/usr/bin/env bash
# Makes a throwaway demo signing identity with openssl, for re-signing the example app on Linux:
#   OUTDIR/demo-ca.pem                  a self-signed "Demo Root CA" (stands in for Apple's WWDR CA)
#   OUTDIR/demo.p12                     an RSA 2048 "Apple Development: Demo Signer (DEMO123456)" certificate
#                                       issued by that CA, with its key and the CA, password from
#                                       ADHOCBUILD_DEMO_PASSWORD (default "demo")
#   OUTDIR/ShoutOut.mobileprovision     development profiles for DEMO123456.APP_ID and
#   OUTDIR/ShoutOutShare.mobileprovision  DEMO123456.APP_ID.share, signed by the demo CA,
#                                       naming the demo certificate and three made-up devices, 90 days
# APP_ID is com.example.shoutout unless given (the demo signs the Staging build, com.example.shoutout.staging).
# Nothing here is trusted by a real device; it lets the signer and its tests run end to end.
# Usage: make-demo-identity.sh OUTDIR [APP_ID]
set -euo pipefail
out="${1:?usage: make-demo-identity.sh OUTDIR [APP_ID]}"
app_id="${2:-com.example.shoutout}"
. "$(dirname "$0")/lib/profile.sh"
team=DEMO123456
export ADHOCBUILD_DEMO_PASSWORD="${ADHOCBUILD_DEMO_PASSWORD:-demo}"
mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

cat > "$work/ca.cnf" <<'CNF'
[req]
distinguished_name = name
x509_extensions = ca
[name]
[ca]
basicConstraints = critical, CA:true
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
[leaf]
basicConstraints = critical, CA:false
keyUsage = critical, digitalSignature
extendedKeyUsage = critical, codeSigning
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
CNF
openssl req -x509 -config "$work/ca.cnf" -newkey rsa:2048 -nodes -days 365 -subj "/CN=Demo Root CA/O=Demo Team/C=US" \
    -keyout "$work/ca.key" -out "$out/demo-ca.pem" 2>/dev/null
openssl req -new -newkey rsa:2048 -nodes -keyout "$work/leaf.key" -out "$work/leaf.csr" \
    -subj "/CN=Apple Development: Demo Signer ($team)/OU=$team/O=Demo Team/C=US" 2>/dev/null
openssl x509 -req -in "$work/leaf.csr" -CA "$out/demo-ca.pem" -CAkey "$work/ca.key" -set_serial "0x$(openssl rand -hex 8)" \
    -days 90 -extfile "$work/ca.cnf" -extensions leaf -out "$work/leaf.pem" 2>/dev/null
openssl pkcs12 -export -inkey "$work/leaf.key" -in "$work/leaf.pem" -certfile "$out/demo-ca.pem" \
    -name "Apple Development: Demo Signer ($team)" -passout env:ADHOCBUILD_DEMO_PASSWORD -out "$out/demo.p12"

# One profile per bundle: the app and its share extension.
profile() {
    local bundle_id="$1" file="$2" app_id_name="$3"
    write_profile "$out/$file" "$out/demo-ca.pem" "$work/ca.key" "$app_id_name Development" "$app_id_name" \
        "$team" "Demo Team" "$(tr '[:lower:]' '[:upper:]' < /proc/sys/kernel/random/uuid)" "
<key>application-identifier</key>
<string>$team.$bundle_id</string>
<key>com.apple.developer.team-identifier</key>
<string>$team</string>
<key>get-task-allow</key>
<true/>
<key>keychain-access-groups</key>
<array>
	<string>$team.*</string>
</array>" "$work/leaf.pem"
}
profile "$app_id" ShoutOut.mobileprovision "ShoutOut Demo"
profile "$app_id.share" ShoutOutShare.mobileprovision "ShoutOut Share Demo"
ls "$out"/demo.p12 "$out"/demo-ca.pem "$out"/ShoutOut.mobileprovision "$out"/ShoutOutShare.mobileprovision
