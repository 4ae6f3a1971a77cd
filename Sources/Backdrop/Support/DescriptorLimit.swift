#if canImport(Glibc)
import Glibc
#endif

/// The process's limit on open files.
public enum DescriptorLimit {
    /// The soft limit, if it can be read.
    static var current: Int? {
        var limit = rlimit()
        return getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 ? Int(clamping: limit.rlim_cur) : nil
    }

    /// Raises the soft limit to the hard one, as nginx and Go servers do: cache files held open for `sendfile` and
    /// client connections both count against it, and a soft limit of 1024 is still a common default.
    public static func raiseToHardLimit() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
}
