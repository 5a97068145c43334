import COpenSSL
import ChatSystem

/// TLS over a connected socket, through the system OpenSSL: the one type that holds OpenSSL's
/// pointers. Nothing else in chatdir sees them. OpenSSL is opened when the first
/// ``Context`` is made, not at start (COpenSSL.h).
///
/// ``Context`` is the configuration (`SSL_CTX`): a client's trust (the system store, or a CA
/// file) or a server's certificate chain and key. ``Session`` is one connection (`SSL`) over a
/// socket its caller owns; the socket must be non-blocking, and every call takes a deadline: a
/// `WANT_READ`/`WANT_WRITE` from OpenSSL waits in `poll(2)` until the deadline at most.
public enum TLS {
    /// Why TLS failed, sorted by what the caller does next.
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        public enum Kind: Sendable, Equatable {
            /// The peer's certificate was refused (unknown authority, expired, another host):
            /// permanent for that server until someone changes the trust or the certificate.
            case untrusted
            /// The peer does not speak acceptable TLS (plain HTTP, TLS 1.0 only, no shared
            /// cipher), or the local files are unusable: permanent too.
            case handshake
            /// Nothing (or not all of it) came before the deadline.
            case timedOut
            /// The peer closed the connection.
            case closed
            /// A system call on the socket failed (a reset, for one).
            case failed
        }

        public var kind: Kind
        public var detail: String

        public init(_ kind: Kind, _ detail: String) {
            self.kind = kind
            self.detail = detail
        }

        public var description: String { detail }
    }

    /// What one ``Session/read(until:)`` found.
    public enum Read: Sendable, Equatable {
        case bytes([UInt8])
        case timedOut
        case closed
    }

    /// A configuration shared by many sessions (`SSL_CTX`); TLS 1.2 or newer, always.
    public final class Context: @unchecked Sendable {
        // OpenSSL's SSL_CTX is safe to share between threads once configured; it is never
        // changed after init.
        fileprivate let pointer: OpaquePointer
        /// Client contexts verify the peer; servers do not ask for client certificates.
        public let isClient: Bool

        private init(pointer: OpaquePointer, isClient: Bool) {
            self.pointer = pointer
            self.isClient = isClient
        }

        deinit { chatdir_SSL_CTX_free(pointer) }

        /// A client that trusts the system store (OpenSSL's default paths, `/etc/ssl/certs`),
        /// plus the PEM certificates in `caFile` when given. Verification cannot be turned off.
        public static func client(caFile: String?) throws(Failure) -> Context {
            try loadOpenSSL()
            guard let pointer = chatdir_SSL_CTX_new(chatdir_TLS_client_method()) else {
                throw openSSLFailure(.handshake, "cannot set up TLS")
            }
            let context = Context(pointer: pointer, isClient: true)
            try context.restrictVersions()
            chatdir_SSL_CTX_set_verify(pointer, SSL_VERIFY_PEER, nil)
            _ = chatdir_SSL_CTX_set_default_verify_paths(pointer)
            if let caFile {
                chatdir_ERR_clear_error()
                guard chatdir_SSL_CTX_load_verify_locations(pointer, caFile, nil) == 1 else {
                    throw openSSLFailure(
                        .handshake,
                        "\(caFile): cannot read it as PEM CA certificates; pass a file of `-----BEGIN CERTIFICATE-----` blocks"
                    )
                }
            }
            return context
        }

        /// A server with the PEM certificate chain in `certificateFile` (the server's own first)
        /// and the PEM private key in `keyFile`.
        public static func server(certificateFile: String, keyFile: String) throws(Failure) -> Context {
            try loadOpenSSL()
            guard let pointer = chatdir_SSL_CTX_new(chatdir_TLS_server_method()) else {
                throw openSSLFailure(.handshake, "cannot set up TLS")
            }
            let context = Context(pointer: pointer, isClient: false)
            try context.restrictVersions()
            chatdir_ERR_clear_error()
            guard chatdir_SSL_CTX_use_certificate_chain_file(pointer, certificateFile) == 1 else {
                throw openSSLFailure(.handshake, "\(certificateFile): cannot read it as a PEM certificate chain")
            }
            guard chatdir_SSL_CTX_use_PrivateKey_file(pointer, keyFile, SSL_FILETYPE_PEM) == 1 else {
                throw openSSLFailure(.handshake, "\(keyFile): cannot read it as a PEM private key")
            }
            guard chatdir_SSL_CTX_check_private_key(pointer) == 1 else {
                throw openSSLFailure(.handshake, "\(keyFile) is not the key of the certificate in \(certificateFile)")
            }
            return context
        }

        /// Opens the system OpenSSL the first time a context is made (`dlopen`, once per
        /// process): a command that never speaks TLS never loads it.
        private static func loadOpenSSL() throws(Failure) {
            if let failure = chatdir_openssl_load() { throw Failure(.handshake, String(cString: failure)) }
        }

        private func restrictVersions() throws(Failure) {
            guard chatdir_SSL_CTX_set_min_proto_version(pointer, chatdir_TLS1_2_VERSION()) == 1 else {
                throw Self.openSSLFailure(.handshake, "cannot require TLS 1.2")
            }
            chatdir_SSL_CTX_set_moving_buffers(pointer)
            chatdir_SSL_CTX_ignore_unexpected_eof(pointer)
        }

        fileprivate static func openSSLFailure(_ kind: Failure.Kind, _ what: String) -> Failure {
            Failure(kind, what + TLS.errorQueueText())
        }
    }

    /// One TLS connection over a non-blocking socket `fd` that the caller keeps open (and
    /// closes after this session is gone). Used by one thread at a time; the socket may be shut
    /// down from another thread to wake a blocked read.
    public final class Session: @unchecked Sendable {
        // The SSL object is touched only by the thread using the session (one at a time, the
        // ByteStream contract); `shutdown` from another thread acts on the socket, not on it.
        private let ssl: OpaquePointer
        private let fd: Int32
        /// What the peer is called in messages: `127.0.0.1:8443`.
        private let peer: String
        /// The name or address the certificate must match (clients only).
        private let host: String?
        private let context: Context
        /// What the first failed certificate check saw (clients only), for the refusal's words.
        private let record: UnsafeMutablePointer<chatdir_verify_record>

        /// A client session to `host` (checked against the certificate: a DNS name by
        /// `X509_VERIFY_PARAM_set1_host` and sent as SNI, an IP address by `set1_ip_asc`), or a
        /// server session when `host` is nil.
        public init(context: Context, fd: Int32, host: String?, peer: String) throws(Failure) {
            // OpenSSL writes with write(2), not send(MSG_NOSIGNAL): a peer gone away must be EPIPE.
            Signal.brokenPipe.ignore()
            guard let ssl = chatdir_SSL_new(context.pointer) else {
                throw Context.openSSLFailure(.handshake, "cannot set up TLS")
            }
            self.ssl = ssl
            self.fd = fd
            self.peer = peer
            self.context = context
            self.host = host
            record = .allocate(capacity: 1)
            record.initialize(to: chatdir_verify_record())
            guard chatdir_SSL_set_fd(ssl, fd) == 1 else {
                throw Context.openSSLFailure(.failed, "cannot attach TLS to the socket")
            }
            if let host, context.isClient {
                let parameters = chatdir_SSL_get0_param(ssl)
                if chatdir_X509_VERIFY_PARAM_set1_ip_asc(parameters, host) != 1 {
                    chatdir_ERR_clear_error()
                    guard chatdir_X509_VERIFY_PARAM_set1_host(parameters, host, 0) == 1,
                        chatdir_SSL_set_tlsext_host_name(ssl, host) == 1
                    else {
                        throw Context.openSSLFailure(.handshake, "\(host): not a host name TLS can check")
                    }
                }
                chatdir_SSL_verify_recording(ssl, record)
                chatdir_SSL_set_connect_state(ssl)
            } else {
                chatdir_SSL_set_accept_state(ssl)
            }
        }

        deinit {
            chatdir_SSL_free(ssl)
            record.deallocate()
        }

        /// Runs the handshake to its end by `deadline`; for a client, that includes verifying
        /// the peer's certificate.
        public func handshake(until deadline: ContinuousClock.Instant) throws(Failure) {
            while true {
                chatdir_ERR_clear_error()
                chatdir_clear_errno()
                let result = chatdir_SSL_do_handshake(ssl)
                if result == 1 { return }
                let code = chatdir_SSL_get_error(ssl, result)
                switch code {
                case SSL_ERROR_WANT_READ: try wait(readable: true, until: deadline, doing: "the TLS handshake")
                case SSL_ERROR_WANT_WRITE: try wait(readable: false, until: deadline, doing: "the TLS handshake")
                default: throw handshakeFailure(code)
                }
            }
        }

        /// Sends every byte by `deadline`.
        public func write(_ bytes: [UInt8], until deadline: ContinuousClock.Instant) throws(Failure) {
            var offset = 0
            while offset < bytes.count {
                chatdir_ERR_clear_error()
                chatdir_clear_errno()
                let result = bytes.withUnsafeBytes { buffer in
                    chatdir_SSL_write(
                        ssl, buffer.baseAddress.map { $0 + offset }, Int32(clamping: buffer.count - offset))
                }
                if result > 0 {
                    offset += Int(result)
                    continue
                }
                let code = chatdir_SSL_get_error(ssl, result)
                switch code {
                case SSL_ERROR_WANT_READ: try wait(readable: true, until: deadline, doing: "sending")
                case SSL_ERROR_WANT_WRITE: try wait(readable: false, until: deadline, doing: "sending")
                case SSL_ERROR_ZERO_RETURN:
                    throw Failure(.closed, "\(peer) closed the TLS connection while we were sending")
                default: throw ioFailure(code, doing: "sending")
                }
            }
        }

        /// Waits until `deadline` at most for bytes from the peer. Bytes OpenSSL already holds
        /// (`SSL_pending`) come at once: `poll` on the socket would not see them.
        public func read(until deadline: ContinuousClock.Instant) throws(Failure) -> Read {
            let size = max(Int(chatdir_SSL_pending(ssl)), 16 * 1024)
            var buffer = [UInt8](repeating: 0, count: size)
            while true {
                chatdir_ERR_clear_error()
                chatdir_clear_errno()
                let result = buffer.withUnsafeMutableBytes {
                    chatdir_SSL_read(ssl, $0.baseAddress, Int32(clamping: $0.count))
                }
                if result > 0 { return .bytes(Array(buffer[0..<Int(result)])) }
                let code = chatdir_SSL_get_error(ssl, result)
                do throws(Failure) {
                    switch code {
                    case SSL_ERROR_WANT_READ: try wait(readable: true, until: deadline, doing: "reading")
                    case SSL_ERROR_WANT_WRITE: try wait(readable: false, until: deadline, doing: "reading")
                    case SSL_ERROR_ZERO_RETURN: return .closed
                    // EOF under a record, or our own shutdown from another thread: the socket ended.
                    case SSL_ERROR_SYSCALL where chatdir_errno() == 0: return .closed
                    default: throw ioFailure(code, doing: "reading")
                    }
                } catch  where error.kind == .timedOut {
                    return .timedOut
                }
            }
        }

        /// Whether OpenSSL holds decrypted bytes not yet read: `poll` on the socket cannot see them.
        public var hasPendingBytes: Bool { chatdir_SSL_pending(ssl) > 0 }

        /// Sends close_notify if the socket takes it at once (never waits): a polite end before
        /// the caller closes the socket.
        public func close() {
            chatdir_ERR_clear_error()
            _ = chatdir_SSL_shutdown(ssl)
            chatdir_ERR_clear_error()
        }

        /// Waits for the socket to become readable (or writable) until `deadline`.
        private func wait(readable: Bool, until deadline: ContinuousClock.Instant, doing what: String) throws(Failure) {
            let left = deadline - .now
            guard left > .zero else { throw Failure(.timedOut, "\(what) with \(peer) timed out") }
            let parts = left.components
            let milliseconds = max(1, Int(clamping: parts.seconds * 1000 + parts.attoseconds / 1_000_000_000_000_000))
            let ready: PollResult
            do {
                ready = try Poll.wait([fd], writable: !readable, timeoutMilliseconds: milliseconds)[0]
            } catch {
                throw Failure(.failed, "\(what) with \(peer): \(error)")
            }
            if !(ready.readable || ready.writable || ready.hungUp), ContinuousClock.now >= deadline {
                throw Failure(.timedOut, "\(what) with \(peer) timed out")
            }
        }

        private func ioFailure(_ code: Int32, doing what: String) -> Failure {
            if code == SSL_ERROR_SYSCALL {
                let errno = chatdir_errno()
                if errno == 0 { return Failure(.closed, "\(peer) closed the TLS connection while \(what)") }
                return Failure(.failed, "\(what) with \(peer) failed: \(Errno(rawValue: errno))")
            }
            return Failure(.failed, "TLS failed \(what) with \(peer)" + TLS.errorQueueText())
        }

        /// Why the handshake failed, in words a person can act on.
        private func handshakeFailure(_ code: Int32) -> Failure {
            let verify = Int32(truncatingIfNeeded: chatdir_SSL_get_verify_result(ssl))
            if context.isClient, verify != X509_V_OK {
                return certificateFailure(verify)
            }
            let reason = TLS.errorQueueText()
            if code == SSL_ERROR_SYSCALL {
                let errno = chatdir_errno()
                if errno == 0 {
                    return Failure(
                        .handshake,
                        "TLS handshake with \(peer) failed: the server closed the connection (is it a TLS server?)")
                }
                return Failure(.failed, "TLS handshake with \(peer) failed: \(Errno(rawValue: errno))")
            }
            if reason.contains("wrong version number") || reason.contains("packet length too long")
                || reason.contains("http request")
            {
                return Failure(
                    .handshake,
                    "TLS handshake with \(peer) failed: the server did not answer in TLS (a plain http:// server?)\(reason)"
                )
            }
            if reason.contains("unsupported protocol") || reason.contains("protocol version") {
                return Failure(
                    .handshake,
                    "TLS handshake with \(peer) failed: the server offers no TLS 1.2 or newer, which chatdir requires\(reason)"
                )
            }
            return Failure(.handshake, "TLS handshake with \(peer) failed\(reason)")
        }

        private func certificateFailure(_ verify: Int32) -> Failure {
            let name = host ?? peer
            let seen = record.pointee
            let issuer = TLS.text(seen.issuer).map { " (CN=\($0))" } ?? ""
            let subject = TLS.text(seen.subject).map { " (CN=\($0))" } ?? ""
            switch verify {
            case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT, X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN,
                X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT,
                X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY, X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
                return Failure(
                    .untrusted,
                    "certificate for \(name) is signed by an unknown authority\(issuer); pass --ca-file with that authority's certificate"
                )
            case X509_V_ERR_CERT_HAS_EXPIRED:
                let when = TLS.text(seen.notAfter).map { " on \($0)" } ?? ""
                return Failure(
                    .untrusted,
                    "certificate for \(name) expired\(when)\(subject); the server needs a renewed certificate")
            case X509_V_ERR_CERT_NOT_YET_VALID:
                let when = TLS.text(seen.notBefore).map { " before \($0)" } ?? ""
                return Failure(
                    .untrusted, "certificate for \(name) is not valid\(when)\(subject); check this machine's clock")
            case X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH:
                return Failure(
                    .untrusted,
                    "certificate of \(peer) is not for \(name)\(subject); connect by a name or address the certificate lists"
                )
            default:
                let text =
                    chatdir_X509_verify_cert_error_string(Int(verify)).map { String(cString: $0) } ?? "error \(verify)"
                return Failure(.untrusted, "certificate for \(name) was refused: \(text)\(subject)")
            }
        }
    }

    /// OpenSSL's queued errors as `: reason; reason`, emptied (an empty string when none).
    fileprivate static func errorQueueText() -> String {
        var reasons: [String] = []
        while true {
            let code = chatdir_ERR_get_error()
            if code == 0 { break }
            if let reason = chatdir_ERR_reason_error_string(code) {
                reasons.append(String(cString: reason))
            } else {
                var buffer = [CChar](repeating: 0, count: 256)
                chatdir_ERR_error_string_n(code, &buffer, buffer.count)
                reasons.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            }
        }
        return reasons.isEmpty ? "" : ": " + reasons.joined(separator: "; ")
    }

    /// A C string in a fixed-size field (a tuple of CChar), nil when empty.
    fileprivate static func text<Field>(_ field: Field) -> String? {
        withUnsafeBytes(of: field) { raw in
            let bytes = raw.prefix { $0 != 0 }
            return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
        }
    }
}
