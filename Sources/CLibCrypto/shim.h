#ifndef ADHOCBUILD_CLIBCRYPTO_SHIM_H
#define ADHOCBUILD_CLIBCRYPTO_SHIM_H

/* OpenSSL 3's libcrypto: digests, X.509 and CMS for signature checks. */
#include <openssl/evp.h>
#include <openssl/err.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/x509_vfy.h>
#include <openssl/cms.h>
#include <openssl/bio.h>
#include <openssl/objects.h>
#include <openssl/asn1.h>
#include <openssl/pkcs12.h>
#include <openssl/pem.h>
#include <openssl/provider.h>
#include <openssl/rand.h>
#include <openssl/crypto.h>

/* The stack and memory calls below are macros in OpenSSL 3, which Swift cannot call; these
   wrappers give them a function to call and add nothing else. */
static inline int shim_sk_X509_num(const STACK_OF(X509) *stack) { return sk_X509_num(stack); }
static inline X509 *shim_sk_X509_value(const STACK_OF(X509) *stack, int index) { return sk_X509_value(stack, index); }
static inline STACK_OF(X509) *shim_sk_X509_new_null(void) { return sk_X509_new_null(); }
static inline int shim_sk_X509_push(STACK_OF(X509) *stack, X509 *cert) { return sk_X509_push(stack, cert); }
/* Frees the stack only (the certificates belong to someone else). */
static inline void shim_sk_X509_free(STACK_OF(X509) *stack) { sk_X509_free(stack); }
/* Frees the stack and every certificate in it (for CMS_get1_certs). */
static inline void shim_sk_X509_pop_free(STACK_OF(X509) *stack) { sk_X509_pop_free(stack, X509_free); }

static inline int shim_sk_CMS_SignerInfo_num(STACK_OF(CMS_SignerInfo) *stack) { return sk_CMS_SignerInfo_num(stack); }
static inline CMS_SignerInfo *shim_sk_CMS_SignerInfo_value(STACK_OF(CMS_SignerInfo) *stack, int index) {
    return sk_CMS_SignerInfo_value(stack, index);
}

static inline int shim_sk_ASN1_TYPE_num(const STACK_OF(ASN1_TYPE) *stack) { return sk_ASN1_TYPE_num(stack); }
static inline ASN1_TYPE *shim_sk_ASN1_TYPE_value(const STACK_OF(ASN1_TYPE) *stack, int index) { return sk_ASN1_TYPE_value(stack, index); }
static inline STACK_OF(ASN1_TYPE) *shim_sk_ASN1_TYPE_new_null(void) { return sk_ASN1_TYPE_new_null(); }
static inline int shim_sk_ASN1_TYPE_push(STACK_OF(ASN1_TYPE) *stack, ASN1_TYPE *value) { return sk_ASN1_TYPE_push(stack, value); }
static inline void shim_sk_ASN1_TYPE_pop_free(STACK_OF(ASN1_TYPE) *stack) { sk_ASN1_TYPE_pop_free(stack, ASN1_TYPE_free); }

static inline int shim_sk_PKCS7_num(const STACK_OF(PKCS7) *stack) { return sk_PKCS7_num(stack); }
static inline PKCS7 *shim_sk_PKCS7_value(const STACK_OF(PKCS7) *stack, int index) { return sk_PKCS7_value(stack, index); }
static inline void shim_sk_PKCS7_pop_free(STACK_OF(PKCS7) *stack) { sk_PKCS7_pop_free(stack, PKCS7_free); }
static inline int shim_PKCS7_type_is_data(const PKCS7 *p7) { return PKCS7_type_is_data(p7); }
static inline int shim_PKCS7_type_is_encrypted(const PKCS7 *p7) { return PKCS7_type_is_encrypted(p7); }

static inline int shim_sk_PKCS12_SAFEBAG_num(const STACK_OF(PKCS12_SAFEBAG) *stack) { return sk_PKCS12_SAFEBAG_num(stack); }
static inline PKCS12_SAFEBAG *shim_sk_PKCS12_SAFEBAG_value(const STACK_OF(PKCS12_SAFEBAG) *stack, int index) {
    return sk_PKCS12_SAFEBAG_value(stack, index);
}
static inline void shim_sk_PKCS12_SAFEBAG_pop_free(STACK_OF(PKCS12_SAFEBAG) *stack) {
    sk_PKCS12_SAFEBAG_pop_free(stack, PKCS12_SAFEBAG_free);
}

static inline void shim_OPENSSL_free(void *pointer) { OPENSSL_free(pointer); }
static inline long shim_BIO_get_mem_data(BIO *bio, char **data) { return BIO_get_mem_data(bio, data); }

#endif
