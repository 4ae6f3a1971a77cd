import Foundation

/// The CPUs this process may use by its cgroup's quota (a container's `limits.cpu`), rounded up; nil when no quota is
/// set. Read once, from cgroup v2's `cpu.max` along the process's own cgroup and its ancestors (the smallest wins), or
/// cgroup v1's `cpu.cfs_quota_us` and `cpu.cfs_period_us`.
enum CPUQuota {
    static func current() -> Int? { Self.detected }

    private static let detected: Int? = Self.read(root: "/sys/fs/cgroup", selfCgroup: Self.contents("/proc/self/cgroup") ?? "")

    /// The quota under `root` for the process whose `/proc/self/cgroup` reads `selfCgroup` (for tests: any folder).
    static func read(root: String, selfCgroup: String) -> Int? {
        let path = selfCgroup.split(separator: "\n").first { $0.hasPrefix("0::") }.map { String($0.dropFirst(3)) } ?? "/"
        var quotas = [Double]()
        var folder = path
        while true {
            if let text = Self.contents("\(root)\(folder == "/" ? "" : folder)/cpu.max") {
                let fields = text.split(whereSeparator: \.isWhitespace)
                if fields.count == 2, let quota = Double(fields[0]), let period = Double(fields[1]), period > 0 { quotas.append(quota / period) }
            }
            guard folder != "/", !folder.isEmpty else { break }
            folder = (folder as NSString).deletingLastPathComponent
        }
        if quotas.isEmpty,
            let quota = Self.contents("\(root)/cpu/cpu.cfs_quota_us").flatMap({ Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }),
            let period = Self.contents("\(root)/cpu/cpu.cfs_period_us").flatMap({ Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }),
            quota > 0, period > 0
        {
            quotas.append(quota / period)
        }
        return quotas.min().map { max(1, Int(total: $0.rounded(.up))) }
    }

    private static func contents(_ path: String) -> String? {
        FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
    }
}
