/// The disk cache's render files handed out open for sending (`sendfile`), by file name, held weakly: each is revoked
/// when its entry leaves the index, so that the open-file budget bounds the disk (a removed file's blocks are freed once
/// no send is under way). Owned by ``DiskCache``, on its thread.
struct HandedOutFiles {
    /// Render files read or written stay open within this budget; nil keeps none open.
    let budget: OpenFileBudget?
    private var files = [String: [WeakFile]]()

    private struct WeakFile {
        weak var file: CachedFile?
    }

    init(budget: OpenFileBudget?) {
        self.budget = budget
    }

    /// Hands `descriptor`, the file `name` holding `entry`, to a ``CachedFile`` when asked to and the budget allows,
    /// else closes it.
    mutating func keep(_ descriptor: CInt, name: String, entry: CacheEntry, if wanted: Bool) -> CachedFile? {
        guard wanted, let budget = self.budget else {
            CacheFileIO.close(descriptor)
            return nil
        }
        guard let file = CachedFile.adopt(descriptor, payload: entry.payloadRange, budget: budget) else { return nil }
        self.files[name, default: []].removeAll { $0.file == nil }
        self.files[name, default: []].append(WeakFile(file: file))
        return file
    }

    /// Closes the files handed out for `name`: its entry has left the index.
    mutating func revoke(_ name: String) {
        for held in self.files.removeValue(forKey: name) ?? [] { held.file?.revoke() }
    }

    mutating func revokeAll() {
        for name in Array(self.files.keys) { self.revoke(name) }
    }
}
