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

#endif
