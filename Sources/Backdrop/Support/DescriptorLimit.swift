#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's limit on open files.
package enum DescriptorLimit {
    #if canImport(Glibc)
    private static let resource = Int32(RLIMIT_NOFILE.rawValue)
    #else
    private static let resource = Int32(RLIMIT_NOFILE)
    #endif

    /// The soft limit, if it can be read.
    static var current: Int? {
        var limit = rlimit()
        return getrlimit(self.resource, &limit) == 0 ? Int(clamping: limit.rlim_cur) : nil
    }

    /// Raises the soft limit to the hard one, as nginx and Go servers do: every client connection takes a descriptor,
    /// and a soft limit of 1024 is still a common default.
    package static func raiseToHardLimit() {
        var limit = rlimit()
        guard getrlimit(self.resource, &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(self.resource, &limit)
    }
}
