"""Signs requests with botocore's S3 signers (an oracle nobody here wrote) at a fixed time.

Usage: sigv4_oracle.py < cases.json. Each case: method, url (scheme://host/encoded-path, no query),
query ([[name, value], ...], plain), headers ([[name, value], ...]), body (text or null),
sign_payload (bool), access_key, secret_key, token (or null), region, timestamp (20260102T030405Z),
presign_expires (seconds, or null for an Authorization header). Prints one JSON object per case:
the canonical request, string to sign, signature, and the signed headers or the presigned URL,
from botocore.auth.S3SigV4Auth or S3SigV4QueryAuth.
"""
import datetime
import json
import sys

import botocore.auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials


class S3Config:
    def __init__(self, sign_payload):
        self.s3 = {"payload_signing_enabled": sign_payload}


def capturing(base):
    class Capture(base):
        def canonical_request(self, request):
            self.captured_canonical = super().canonical_request(request)
            return self.captured_canonical

        def string_to_sign(self, request, canonical_request):
            self.captured_sts = super().string_to_sign(request, canonical_request)
            return self.captured_sts

        def signature(self, string_to_sign, request):
            self.captured_signature = super().signature(string_to_sign, request)
            return self.captured_signature

    return Capture


def sign(case):
    moment = datetime.datetime.strptime(case["timestamp"], "%Y%m%dT%H%M%SZ").replace(tzinfo=datetime.timezone.utc)
    botocore.auth.get_current_datetime = lambda: moment
    credentials = Credentials(case["access_key"], case["secret_key"], case["token"])
    body = case["body"].encode("utf-8") if case["body"] is not None else None
    request = AWSRequest(
        method=case["method"], url=case["url"], headers=dict(case["headers"]), data=body,
        params=dict(case["query"]))
    request.context["client_config"] = S3Config(case["sign_payload"])
    if case["presign_expires"] is None:
        signer = capturing(botocore.auth.S3SigV4Auth)(credentials, "s3", case["region"])
    else:
        signer = capturing(botocore.auth.S3SigV4QueryAuth)(
            credentials, "s3", case["region"], expires=case["presign_expires"])
    signer.add_auth(request)
    return {
        "canonical_request": signer.captured_canonical,
        "string_to_sign": signer.captured_sts,
        "signature": signer.captured_signature,
        "headers": [[name, value] for name, value in request.headers.items()],
        "url": request.url,
    }


def main():
    cases = json.load(sys.stdin)
    json.dump([sign(case) for case in cases], sys.stdout)


if __name__ == "__main__":
    main()
