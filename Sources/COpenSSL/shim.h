// The system OpenSSL (libssl-dev, 3.0) for ChatTLS, the one module that calls it.
// OpenSSL spells several calls as macros, which Swift does not import: wrapped here once.
#ifndef CHATDIR_COPENSSL_SHIM_H
#define CHATDIR_COPENSSL_SHIM_H

#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <errno.h>
#include <string.h>
#include <time.h>

static inline long chatdir_SSL_set_tlsext_host_name(SSL *ssl, const char *name) {
    return SSL_set_tlsext_host_name(ssl, name);
}

static inline int chatdir_SSL_CTX_set_min_proto_version(SSL_CTX *context, int version) {
    return (int)SSL_CTX_set_min_proto_version(context, version);
}

static inline int chatdir_TLS1_2_VERSION(void) { return TLS1_2_VERSION; }

// Retried writes may pass a buffer at another address (a Swift array is not pinned).
static inline void chatdir_SSL_CTX_set_moving_buffers(SSL_CTX *context) {
    SSL_CTX_set_mode(context, SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_ENABLE_PARTIAL_WRITE);
}

// An EOF without close_notify reads as a close (SSL_ERROR_ZERO_RETURN), as over plain TCP.
static inline void chatdir_SSL_CTX_ignore_unexpected_eof(SSL_CTX *context) {
    SSL_CTX_set_options(context, SSL_OP_IGNORE_UNEXPECTED_EOF);
}

// errno right after an OpenSSL call (SSL_ERROR_SYSCALL), before Swift code can change it.
static inline int chatdir_errno(void) { return errno; }
static inline void chatdir_clear_errno(void) { errno = 0; }

// A certificate's notAfter (after != 0) or notBefore as "2026-01-31 12:00:00 UTC"; 0 on failure.
static inline int chatdir_X509_time_text(X509 *certificate, int after, char *buffer, size_t size) {
    const ASN1_TIME *time = after ? X509_get0_notAfter(certificate) : X509_get0_notBefore(certificate);
    struct tm parts;
    memset(&parts, 0, sizeof parts);
    if (time == NULL || ASN1_TIME_to_tm(time, &parts) != 1) return 0;
    return strftime(buffer, size, "%Y-%m-%d %H:%M:%S UTC", &parts) > 0;
}

// What the first failed check of a peer's chain saw: OpenSSL keeps no peer certificate after
// a refused handshake, so the refusal's words (whose CA, which name, what date) come from here.
typedef struct {
    char issuer[256];
    char subject[256];
    char notAfter[64];
    char notBefore[64];
    int recorded;
} chatdir_verify_record;

static inline void chatdir_copy_common_name(X509_NAME *name, char *buffer, int size) {
    if (name == NULL || X509_NAME_get_text_by_NID(name, NID_commonName, buffer, size) < 0) buffer[0] = 0;
}

static inline int chatdir_verify_callback(int ok, X509_STORE_CTX *store) {
    if (ok) return ok;
    SSL *ssl = X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx());
    chatdir_verify_record *record = ssl ? (chatdir_verify_record *)SSL_get_app_data(ssl) : NULL;
    X509 *certificate = X509_STORE_CTX_get_current_cert(store);
    if (record == NULL || certificate == NULL || record->recorded) return ok;
    record->recorded = 1;
    chatdir_copy_common_name(X509_get_issuer_name(certificate), record->issuer, sizeof record->issuer);
    chatdir_copy_common_name(X509_get_subject_name(certificate), record->subject, sizeof record->subject);
    chatdir_X509_time_text(certificate, 1, record->notAfter, sizeof record->notAfter);
    chatdir_X509_time_text(certificate, 0, record->notBefore, sizeof record->notBefore);
    return ok;
}

// Verifies the peer (refusing on the first failure) and records that failure in `record`.
static inline void chatdir_SSL_verify_recording(SSL *ssl, chatdir_verify_record *record) {
    SSL_set_app_data(ssl, record);
    SSL_set_verify(ssl, SSL_VERIFY_PEER, chatdir_verify_callback);
}

#endif
