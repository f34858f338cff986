#ifndef ADHOCBUILD_CLIBCRYPTO_SHIM_H
#define ADHOCBUILD_CLIBCRYPTO_SHIM_H

/* OpenSSL 3's libcrypto: digests now; X.509 and CMS for signature checks. */
#include <openssl/evp.h>
#include <openssl/err.h>
#include <openssl/x509.h>
#include <openssl/cms.h>
#include <openssl/bio.h>

#endif
