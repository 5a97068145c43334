// COpenSSL.h's functions: OpenSSL opened at first use, and the shims over its macros.
#include "COpenSSL.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

// Every OpenSSL function called, as a pointer of the library's own type (no symbol of libssl
// or libcrypto is referenced: a direct call here would fail to link, as it should).
#define CHATDIR_OPENSSL_FUNCTIONS(X) \
    X(SSL_CTX_check_private_key) \
    X(SSL_CTX_free) \
    X(SSL_CTX_load_verify_locations) \
    X(SSL_CTX_new) \
    X(SSL_CTX_set_default_verify_paths) \
    X(SSL_CTX_set_verify) \
    X(SSL_CTX_use_PrivateKey_file) \
    X(SSL_CTX_use_certificate_chain_file) \
    X(SSL_do_handshake) \
    X(SSL_free) \
    X(SSL_get0_param) \
    X(SSL_get_error) \
    X(SSL_get_verify_result) \
    X(SSL_new) \
    X(SSL_pending) \
    X(SSL_read) \
    X(SSL_set_accept_state) \
    X(SSL_set_connect_state) \
    X(SSL_set_fd) \
    X(SSL_shutdown) \
    X(SSL_write) \
    X(TLS_client_method) \
    X(TLS_server_method) \
    X(X509_VERIFY_PARAM_set1_host) \
    X(X509_VERIFY_PARAM_set1_ip_asc) \
    X(X509_verify_cert_error_string) \
    X(ERR_clear_error) \
    X(ERR_error_string_n) \
    X(ERR_get_error) \
    X(ERR_reason_error_string) \
    X(SSL_ctrl) \
    X(SSL_CTX_ctrl) \
    X(SSL_CTX_set_options) \
    X(X509_get0_notAfter) \
    X(X509_get0_notBefore) \
    X(ASN1_TIME_to_tm) \
    X(X509_NAME_get_text_by_NID) \
    X(X509_STORE_CTX_get_ex_data) \
    X(SSL_get_ex_data_X509_STORE_CTX_idx) \
    X(SSL_get_ex_data) \
    X(SSL_set_ex_data) \
    X(X509_STORE_CTX_get_current_cert) \
    X(X509_get_issuer_name) \
    X(X509_get_subject_name) \
    X(SSL_set_verify)

#define CHATDIR_POINTER(name) static __typeof__(&name) chatdir_p_##name;
CHATDIR_OPENSSL_FUNCTIONS(CHATDIR_POINTER)

// OpenSSL's macros below (SSL_set_tlsext_host_name, SSL_CTX_set_mode, SSL_get_app_data...)
// expand to these functions: through the pointers too.
#define SSL_ctrl chatdir_p_SSL_ctrl
#define SSL_CTX_ctrl chatdir_p_SSL_CTX_ctrl
#define SSL_CTX_set_options chatdir_p_SSL_CTX_set_options
#define X509_get0_notAfter chatdir_p_X509_get0_notAfter
#define X509_get0_notBefore chatdir_p_X509_get0_notBefore
#define ASN1_TIME_to_tm chatdir_p_ASN1_TIME_to_tm
#define X509_NAME_get_text_by_NID chatdir_p_X509_NAME_get_text_by_NID
#define X509_STORE_CTX_get_ex_data chatdir_p_X509_STORE_CTX_get_ex_data
#define SSL_get_ex_data_X509_STORE_CTX_idx chatdir_p_SSL_get_ex_data_X509_STORE_CTX_idx
#define SSL_get_ex_data chatdir_p_SSL_get_ex_data
#define SSL_set_ex_data chatdir_p_SSL_set_ex_data
#define X509_STORE_CTX_get_current_cert chatdir_p_X509_STORE_CTX_get_current_cert
#define X509_get_issuer_name chatdir_p_X509_get_issuer_name
#define X509_get_subject_name chatdir_p_X509_get_subject_name
#define SSL_set_verify chatdir_p_SSL_set_verify

#define CHATDIR_STRING(x) #x
#define CHATDIR_SONAME(version) "libssl.so." CHATDIR_STRING(version)

static pthread_once_t chatdir_openssl_once = PTHREAD_ONCE_INIT;
static const char *chatdir_openssl_failure;
static char chatdir_openssl_failure_text[512];

static void chatdir_openssl_open(void) {
    const char *soname = CHATDIR_SONAME(OPENSSL_SHLIB_VERSION);
    void *library = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *reason = dlerror();
        snprintf(chatdir_openssl_failure_text, sizeof chatdir_openssl_failure_text,
                 "cannot load the system OpenSSL (%s): %s; install it (Debian: apt-get install libssl3)", soname, reason ? reason : "not found");
        chatdir_openssl_failure = chatdir_openssl_failure_text;
        return;
    }
#define CHATDIR_RESOLVE(name) \
    chatdir_p_##name = (__typeof__(chatdir_p_##name))dlsym(library, #name); \
    if (chatdir_p_##name == NULL) { \
        snprintf(chatdir_openssl_failure_text, sizeof chatdir_openssl_failure_text, \
                 "the system OpenSSL (%s) has no function %s; chatdir needs OpenSSL 3", soname, #name); \
        chatdir_openssl_failure = chatdir_openssl_failure_text; \
        return; \
    }
    CHATDIR_OPENSSL_FUNCTIONS(CHATDIR_RESOLVE)
}

const char *chatdir_openssl_load(void) {
    pthread_once(&chatdir_openssl_once, chatdir_openssl_open);
    return chatdir_openssl_failure;
}

int chatdir_SSL_CTX_check_private_key(const SSL_CTX *ctx) { return chatdir_p_SSL_CTX_check_private_key(ctx); }
void chatdir_SSL_CTX_free(SSL_CTX *ctx) { chatdir_p_SSL_CTX_free(ctx); }
int chatdir_SSL_CTX_load_verify_locations(SSL_CTX *ctx, const char *file, const char *path) { return chatdir_p_SSL_CTX_load_verify_locations(ctx, file, path); }
SSL_CTX *chatdir_SSL_CTX_new(const SSL_METHOD *method) { return chatdir_p_SSL_CTX_new(method); }
int chatdir_SSL_CTX_set_default_verify_paths(SSL_CTX *ctx) { return chatdir_p_SSL_CTX_set_default_verify_paths(ctx); }
void chatdir_SSL_CTX_set_verify(SSL_CTX *ctx, int mode, SSL_verify_cb callback) { chatdir_p_SSL_CTX_set_verify(ctx, mode, callback); }
int chatdir_SSL_CTX_use_PrivateKey_file(SSL_CTX *ctx, const char *file, int type) { return chatdir_p_SSL_CTX_use_PrivateKey_file(ctx, file, type); }
int chatdir_SSL_CTX_use_certificate_chain_file(SSL_CTX *ctx, const char *file) { return chatdir_p_SSL_CTX_use_certificate_chain_file(ctx, file); }
int chatdir_SSL_do_handshake(SSL *ssl) { return chatdir_p_SSL_do_handshake(ssl); }
void chatdir_SSL_free(SSL *ssl) { chatdir_p_SSL_free(ssl); }
X509_VERIFY_PARAM *chatdir_SSL_get0_param(SSL *ssl) { return chatdir_p_SSL_get0_param(ssl); }
int chatdir_SSL_get_error(const SSL *ssl, int result) { return chatdir_p_SSL_get_error(ssl, result); }
long chatdir_SSL_get_verify_result(const SSL *ssl) { return chatdir_p_SSL_get_verify_result(ssl); }
SSL *chatdir_SSL_new(SSL_CTX *ctx) { return chatdir_p_SSL_new(ctx); }
int chatdir_SSL_pending(const SSL *ssl) { return chatdir_p_SSL_pending(ssl); }
int chatdir_SSL_read(SSL *ssl, void *buffer, int count) { return chatdir_p_SSL_read(ssl, buffer, count); }
void chatdir_SSL_set_accept_state(SSL *ssl) { chatdir_p_SSL_set_accept_state(ssl); }
void chatdir_SSL_set_connect_state(SSL *ssl) { chatdir_p_SSL_set_connect_state(ssl); }
int chatdir_SSL_set_fd(SSL *ssl, int fd) { return chatdir_p_SSL_set_fd(ssl, fd); }
int chatdir_SSL_shutdown(SSL *ssl) { return chatdir_p_SSL_shutdown(ssl); }
int chatdir_SSL_write(SSL *ssl, const void *buffer, int count) { return chatdir_p_SSL_write(ssl, buffer, count); }
const SSL_METHOD *chatdir_TLS_client_method(void) { return chatdir_p_TLS_client_method(); }
const SSL_METHOD *chatdir_TLS_server_method(void) { return chatdir_p_TLS_server_method(); }
int chatdir_X509_VERIFY_PARAM_set1_host(X509_VERIFY_PARAM *param, const char *name, size_t length) { return chatdir_p_X509_VERIFY_PARAM_set1_host(param, name, length); }
int chatdir_X509_VERIFY_PARAM_set1_ip_asc(X509_VERIFY_PARAM *param, const char *address) { return chatdir_p_X509_VERIFY_PARAM_set1_ip_asc(param, address); }
const char *chatdir_X509_verify_cert_error_string(long code) { return chatdir_p_X509_verify_cert_error_string(code); }
void chatdir_ERR_clear_error(void) { chatdir_p_ERR_clear_error(); }
void chatdir_ERR_error_string_n(unsigned long code, char *buffer, size_t size) { chatdir_p_ERR_error_string_n(code, buffer, size); }
unsigned long chatdir_ERR_get_error(void) { return chatdir_p_ERR_get_error(); }
const char *chatdir_ERR_reason_error_string(unsigned long code) { return chatdir_p_ERR_reason_error_string(code); }

long chatdir_SSL_set_tlsext_host_name(SSL *ssl, const char *name) {
    return SSL_set_tlsext_host_name(ssl, name);
}

int chatdir_SSL_CTX_set_min_proto_version(SSL_CTX *context, int version) {
    return (int)SSL_CTX_set_min_proto_version(context, version);
}

int chatdir_TLS1_2_VERSION(void) { return TLS1_2_VERSION; }

void chatdir_SSL_CTX_set_moving_buffers(SSL_CTX *context) {
    SSL_CTX_set_mode(context, SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_ENABLE_PARTIAL_WRITE);
}

void chatdir_SSL_CTX_ignore_unexpected_eof(SSL_CTX *context) {
    SSL_CTX_set_options(context, SSL_OP_IGNORE_UNEXPECTED_EOF);
}

int chatdir_errno(void) { return errno; }
void chatdir_clear_errno(void) { errno = 0; }

// A certificate's notAfter (after != 0) or notBefore as "2026-01-31 12:00:00 UTC"; 0 on failure.
static int chatdir_X509_time_text(X509 *certificate, int after, char *buffer, size_t size) {
    const ASN1_TIME *time = after ? X509_get0_notAfter(certificate) : X509_get0_notBefore(certificate);
    struct tm parts;
    memset(&parts, 0, sizeof parts);
    if (time == NULL || ASN1_TIME_to_tm(time, &parts) != 1) return 0;
    return strftime(buffer, size, "%Y-%m-%d %H:%M:%S UTC", &parts) > 0;
}

static void chatdir_copy_common_name(X509_NAME *name, char *buffer, int size) {
    if (name == NULL || X509_NAME_get_text_by_NID(name, NID_commonName, buffer, size) < 0) buffer[0] = 0;
}

static int chatdir_verify_callback(int ok, X509_STORE_CTX *store) {
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

void chatdir_SSL_verify_recording(SSL *ssl, chatdir_verify_record *record) {
    SSL_set_app_data(ssl, record);
    SSL_set_verify(ssl, SSL_VERIFY_PEER, chatdir_verify_callback);
}
