// The system OpenSSL (libssl-dev, 3.x) for ChatTLS, the one module that calls it.
//
// libssl and libcrypto are not linked: `chatdir_openssl_load()` opens them (dlopen) the first
// time TLS is set up, so commands that never use https or wss do not pay for mapping and
// relocating them at every start. ChatTLS calls OpenSSL only through the
// `chatdir_` functions below, which call the library's own functions. OpenSSL spells several
// calls as macros, which Swift does not import: those are wrapped here too.
#ifndef CHATDIR_COPENSSL_H
#define CHATDIR_COPENSSL_H

#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <stddef.h>

// Opens libssl (and with it libcrypto) and finds every function chatdir calls, once per
// process; NULL when that worked, else what failed (the library or the missing function).
// Every other function here may be called only after it returned NULL.
const char *chatdir_openssl_load(void);

int chatdir_SSL_CTX_check_private_key(const SSL_CTX *ctx);
void chatdir_SSL_CTX_free(SSL_CTX *ctx);
int chatdir_SSL_CTX_load_verify_locations(SSL_CTX *ctx, const char *file, const char *path);
SSL_CTX *chatdir_SSL_CTX_new(const SSL_METHOD *method);
int chatdir_SSL_CTX_set_default_verify_paths(SSL_CTX *ctx);
void chatdir_SSL_CTX_set_verify(SSL_CTX *ctx, int mode, SSL_verify_cb callback);
int chatdir_SSL_CTX_use_PrivateKey_file(SSL_CTX *ctx, const char *file, int type);
int chatdir_SSL_CTX_use_certificate_chain_file(SSL_CTX *ctx, const char *file);
int chatdir_SSL_do_handshake(SSL *ssl);
void chatdir_SSL_free(SSL *ssl);
X509_VERIFY_PARAM *chatdir_SSL_get0_param(SSL *ssl);
int chatdir_SSL_get_error(const SSL *ssl, int result);
long chatdir_SSL_get_verify_result(const SSL *ssl);
SSL *chatdir_SSL_new(SSL_CTX *ctx);
int chatdir_SSL_pending(const SSL *ssl);
int chatdir_SSL_read(SSL *ssl, void *buffer, int count);
void chatdir_SSL_set_accept_state(SSL *ssl);
void chatdir_SSL_set_connect_state(SSL *ssl);
int chatdir_SSL_set_fd(SSL *ssl, int fd);
int chatdir_SSL_shutdown(SSL *ssl);
int chatdir_SSL_write(SSL *ssl, const void *buffer, int count);
const SSL_METHOD *chatdir_TLS_client_method(void);
const SSL_METHOD *chatdir_TLS_server_method(void);
int chatdir_X509_VERIFY_PARAM_set1_host(X509_VERIFY_PARAM *param, const char *name, size_t length);
int chatdir_X509_VERIFY_PARAM_set1_ip_asc(X509_VERIFY_PARAM *param, const char *address);
const char *chatdir_X509_verify_cert_error_string(long code);
void chatdir_ERR_clear_error(void);
void chatdir_ERR_error_string_n(unsigned long code, char *buffer, size_t size);
unsigned long chatdir_ERR_get_error(void);
const char *chatdir_ERR_reason_error_string(unsigned long code);

long chatdir_SSL_set_tlsext_host_name(SSL *ssl, const char *name);
int chatdir_SSL_CTX_set_min_proto_version(SSL_CTX *context, int version);
int chatdir_TLS1_2_VERSION(void);

// Retried writes may pass a buffer at another address (a Swift array is not pinned).
void chatdir_SSL_CTX_set_moving_buffers(SSL_CTX *context);

// An EOF without close_notify reads as a close (SSL_ERROR_ZERO_RETURN), as over plain TCP.
void chatdir_SSL_CTX_ignore_unexpected_eof(SSL_CTX *context);

// errno right after an OpenSSL call (SSL_ERROR_SYSCALL), before Swift code can change it.
int chatdir_errno(void);
void chatdir_clear_errno(void);

// What the first failed check of a peer's chain saw: OpenSSL keeps no peer certificate after
// a refused handshake, so the refusal's words (whose CA, which name, what date) come from here.
typedef struct {
    char issuer[256];
    char subject[256];
    char notAfter[64];
    char notBefore[64];
    int recorded;
} chatdir_verify_record;

// Verifies the peer (refusing on the first failure) and records that failure in `record`.
void chatdir_SSL_verify_recording(SSL *ssl, chatdir_verify_record *record);

#endif
