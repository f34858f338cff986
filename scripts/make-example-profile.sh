#!/usr/bin/env bash
# Writes a development provisioning profile for the example app: a real CMS (PKCS #7) envelope made
# with openssl and a throwaway self-signed certificate (not Apple's), valid from now for 90 days, for
# the App ID ABCDE12345.* and three made-up devices. adhocbuild reads profiles without checking
# Apple's signature, so this lets the demo and the end-to-end test verify and release the sample.
# (make-demo-identity.sh writes profiles that also name a demo signing certificate, for re-signing.)
# Usage: make-example-profile.sh OUT.mobileprovision
set -euo pipefail
out="${1:?usage: make-example-profile.sh OUT.mobileprovision}"
. "$(dirname "$0")/lib/profile.sh"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
openssl req -x509 -newkey rsa:2048 -nodes -days 90 -subj "/CN=adhocbuild example signer" \
    -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null
write_profile "$out" "$work/cert.pem" "$work/key.pem" "ShoutOut Example Development" "ShoutOut Example" \
    ABCDE12345 "Example Team" 5E0A1B2C-3D4E-4F60-8A1B-2C3D4E5F6071 "
<key>application-identifier</key>
<string>ABCDE12345.*</string>
<key>aps-environment</key>
<string>development</string>
<key>get-task-allow</key>
<true/>"
echo "$out"
