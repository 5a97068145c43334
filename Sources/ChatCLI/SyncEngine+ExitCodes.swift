import ChatSync

// The sysexits statuses of `chatdir sync` and `chatdir history`, chosen from what went wrong
// (the case of the outcome or error), never from its words: the one place they are decided.

extension SyncEngine.Report.Outcome {
    /// 0 all done; 65 a message was rejected; 74 the store could not be written; 75 try again
    /// later; 76 the server broke the contract; 77 the token, or the server's TLS certificate, was refused.
    var exitCode: Int32 {
        switch self {
        case .complete: 0
        case .messageRejected: 65 // EX_DATAERR
        case .storeFailed: 74 // EX_IOERR, as for every command's failed write
        case .incomplete: 75 // EX_TEMPFAIL
        case .contractBroken: 76 // EX_PROTOCOL
        case .tokenRefused: 77 // EX_NOPERM
        case .serverUntrusted: 77 // EX_NOPERM: the server's certificate or TLS was refused
        }
    }
}

extension SyncEngine.Report {
    /// The exit status of `chatdir sync` after this pass.
    var exitCode: Int32 { outcome.exitCode }
}

extension SyncError {
    /// The exit status of a command that is one request to the server (`chatdir history`):
    /// 77 the token was refused; 75 try again later; 76 the server broke the contract or
    /// refused the request (it will not succeed unchanged).
    var exitCode: Int32 {
        switch self {
        case .unauthorized, .untrusted: 77
        case .temporary, .transport: 75
        case .contract, .rejected: 76
        }
    }
}

/// The exit status of `chatdir sync --live`: 0 when stopped, else that of the error that ended it.
func liveExitCode(_ ended: SyncError?) -> Int32 {
    ended?.exitCode ?? 0
}
