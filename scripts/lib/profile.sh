# Shared by make-example-profile.sh and make-demo-identity.sh: writes a development provisioning
# profile's plist and wraps it in a CMS (PKCS #7) envelope with openssl, as Apple's are (signed here
# by a throwaway certificate, not Apple's). Valid from now for 90 days, for three made-up devices.
# Source this file; it defines one function:
#
#   write_profile OUT.mobileprovision SIGNER_CERT.pem SIGNER_KEY.pem NAME APP_ID_NAME TEAM_ID TEAM_NAME UUID \
#       ENTITLEMENTS_XML [DEVELOPER_CERT.pem]
#
# ENTITLEMENTS_XML is the inside of the Entitlements <dict> (one element a line, a tab for each level inside it); with
# DEVELOPER_CERT.pem the profile lists that certificate (DER, base64) under DeveloperCertificates.
write_profile() {
    local out="$1" signer="$2" key="$3" name="$4" app_id_name="$5" team="$6" team_name="$7" uuid="$8"
    local entitlements="$9" developer="${10:-}"
    local plist
    plist="$(mktemp)"
    local created expires certificates=""
    created="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    expires="$(date -u -d '+90 days' +%Y-%m-%dT%H:%M:%SZ)"
    if [ -n "$developer" ]; then
        certificates="	<key>DeveloperCertificates</key>
	<array>
		<data>$(openssl x509 -in "$developer" -outform DER | base64 -w0)</data>
	</array>
"
    fi
    cat > "$plist" <<PLIST
<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
	<key>AppIDName</key>
	<string>$app_id_name</string>
	<key>ApplicationIdentifierPrefix</key>
	<array>
		<string>$team</string>
	</array>
	<key>CreationDate</key>
	<date>$created</date>
${certificates}	<key>Entitlements</key>
	<dict>
$(printf '%s\n' "$entitlements" | sed '/^[[:space:]]*$/d; s/^/\t\t/')
	</dict>
	<key>ExpirationDate</key>
	<date>$expires</date>
	<key>Name</key>
	<string>$name</string>
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
		<string>$team</string>
	</array>
	<key>TeamName</key>
	<string>$team_name</string>
	<key>TimeToLive</key>
	<integer>90</integer>
	<key>UUID</key>
	<string>$uuid</string>
	<key>Version</key>
	<integer>1</integer>
</dict>
</plist>
PLIST
    openssl cms -sign -binary -nodetach -outform DER -in "$plist" -signer "$signer" -inkey "$key" -out "$out"
    rm -f "$plist"
}
