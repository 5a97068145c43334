import ChatSystem

extension InotifyMask {
    /// What a directory watch of the store asks for: committed writes (rename into place, close
    /// after writing, link, unlink) and the directory itself going away.
    public static let storeWatch: InotifyMask = [
        .closeWrite, .movedFrom, .movedTo, .create, .delete, .deleteSelf, .moveSelf, .onlyDirectory,
    ]
}
