import ChatDomain
import ChatSystem

extension StoreWriter {
    /// Finishes the start of conversation `id` (queued here by `chatdir create`) once the server
    /// has it as conversation `started` with details `info`: a Matrix room, whose folder is named
    /// from its room ID (``ConversationID/matrixRoom(_:)``) like on every other device.
    ///
    /// The order, so that a kill at any step leaves a state the next sync finishes (never a
    /// second room, never a lost outbox message, never a conversation left without its room):
    /// 1. `id`'s `conversation.json` becomes `info` (naming the room). From here the creation is
    ///    written down: a sync that finds `outbox/create.json` beside a room finishes these
    ///    steps without asking the server again (before this step it finds the room by its key).
    /// 2. With no folder `started` yet, `id`'s folder is renamed to it, outbox and all, in one
    ///    atomic rename. If a listing met the room first and made that folder, each outbox
    ///    message file is renamed into its outbox instead, oldest first (one atomic step each,
    ///    so a message is in exactly one outbox at every moment), then `id`'s folder is renamed
    ///    hidden (`.<id>.<pid>.<random>.tmp`, which a killed run leaves for the next writer to
    ///    sweep) and removed. Both under `id`'s outbox lock, so a `send` waiting on it lands
    ///    in the moved folder or fails, never in the removed one.
    /// 3. `outbox/create.json` is removed: only now may the messages go out. Until then
    ///    `create.json` stays in the one visible folder that holds the queued messages.
    ///
    /// Its messages never move while a sync could deliver them: the worker sends none of a
    /// conversation's messages while its `create.json` is there.
    /// - Throws: ``StoreError/unsupported(path:reason:)`` when `id` holds messages already (a
    ///   conversation started here has none) and the folder `started` exists; the call that
    ///   failed otherwise. Nothing is lost either way; the next sync tries again.
    public func finishStart(of id: ConversationID, as started: ConversationID, info: ConversationInfo)
        throws(StoreError)
    {
        let conversation = try checkedConversation(id)
        try system { () throws(SystemError) in
            try DurableFile.write(info.encode(), to: StoreLayout.conversationInfo, in: conversation.directory)
        }
        if started != id {
            let target = try checkedConversation(started)
            if target.exists {
                try merge(conversation, into: target)
                try? StartedFile.record(id, movedTo: started, storeRoot: store.root)
                return
            }
            try system { () throws(SystemError) in
                let outbox = try FileDescriptor.open(conversation.outboxDirectory, [.directory, .noFollow])
                try outbox.lockExclusiveWaiting(path: conversation.outboxDirectory)
                try Sys.rename(conversation.directory, target.directory)
                try Sys.fsyncPath(store.root + "/" + StoreLayout.conversations)
                outbox.close()
            }
            // A hint for commands still given `id`; the move stands without it.
            try? StartedFile.record(id, movedTo: started, storeRoot: store.root)
        }
        try removeCreation(in: started)
    }

    /// Step 2 of ``finishStart(of:as:info:)`` when the room's folder exists: the outbox messages
    /// moved into it, oldest first, then `conversation`'s folder hidden and removed.
    private func merge(_ conversation: Conversation, into target: Conversation) throws(StoreError) {
        guard try conversation.segmentRanges().isEmpty else {
            throw .unsupported(
                path: conversation.relativePath,
                reason:
                    "it holds messages, so it cannot be merged into \(target.relativePath), the room it was started as; move its outbox files there by hand and remove it"
            )
        }
        let conversations = store.root + "/" + StoreLayout.conversations
        let hidden = DurableFile.hiddenBuildPath(for: conversation.id.rawValue, in: conversations)
        try system { () throws(SystemError) in
            try DurableFile.makeDirectories(target.outboxDirectory)
            let outbox = try FileDescriptor.open(conversation.outboxDirectory, [.directory, .noFollow])
            try outbox.lockExclusiveWaiting(path: conversation.outboxDirectory)
            let names = Conversation.queueOrder(try Sys.listDirectory(conversation.outboxDirectory))
            for name in names {
                try Sys.rename(conversation.outboxDirectory + "/" + name, target.outboxDirectory + "/" + name)
            }
            if !names.isEmpty {
                try Sys.fsyncPath(target.outboxDirectory)
                try Sys.fsyncPath(conversation.outboxDirectory)
            }
            try Sys.rename(conversation.directory, hidden)
            try Sys.fsyncPath(conversations)
            outbox.close()
        }
        DurableFile.removeHiddenBuild(hidden)
    }
}
