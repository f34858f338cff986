#!/usr/bin/env bash
# Writes a development provisioning profile for the example app: a real CMS (PKCS #7) envelope made
# with openssl and a throwaway self-signed certificate (not Apple's), valid from now for 90 days, for
# the App ID ABCDE12345.* and three made-up devices. adhocbuild reads profiles without checking
# Apple's signature, so this lets the demo and the end-to-end test verify and release the sample.
# Usage: make-example-profile.sh OUT.mobileprovision
set -euo pipefail
out="${1:?usage: make-example-profile.sh OUT.mobileprovision}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
created="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
expires="$(date -u -d '+90 days' +%Y-%m-%dT%H:%M:%SZ)"
cat > "$work/profile.plist" <<PLIST
<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
	<key>AppIDName</key>
	<string>ShoutOut Example</string>
	<key>CreationDate</key>
	<date>$created</date>
	<key>Entitlements</key>
	<dict>
		<key>application-identifier</key>
		<string>ABCDE12345.*</string>
		<key>aps-environment</key>
		<string>development</string>
		<key>get-task-allow</key>
		<true/>
	</dict>
	<key>ExpirationDate</key>
	<date>$expires</date>
	<key>Name</key>
	<string>ShoutOut Example Development</string>
	<key>Platform</key>
	<array>
		<string>iOS</string>
	</array>
	<key>ProvisionedDevices</key>
	<array>
		<string>00008101-000A1B2C3D4E5F60</string>
		<string>00008030-001122334455667A</string>
		<string>0123456789abcdef0123456789abcdef01234567</string>
	</array>
	<key>TeamIdentifier</key>
	<array>
		<string>ABCDE12345</string>
	</array>
	<key>TeamName</key>
	<string>Example Team</string>
	<key>UUID</key>
	<string>5E0A1B2C-3D4E-4F60-8A1B-2C3D4E5F6071</string>
</dict>
</plist>
PLIST
openssl req -x509 -newkey rsa:2048 -nodes -days 90 -subj "/CN=adhocbuild example signer" \
    -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null
openssl smime -sign -binary -nodetach -outform der -in "$work/profile.plist" \
    -signer "$work/cert.pem" -inkey "$work/key.pem" -out "$out"
echo "$out"
