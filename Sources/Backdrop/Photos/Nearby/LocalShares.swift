import Foundation

/// Clients' shares counted in this replica (no cluster database, or one that cannot answer now): calls by the minute,
/// a share spent while the last 61 minutes hold `perHour` of them, as the database counts them (``ClusterSchema``).
/// Bounded: only networks that made calls within the hour are kept, and there are no more of those than calls granted.
actor LocalShares {
    private let clock: any WallClock
    private var minutes = [String: [Int64: Int]]()

    init(clock: any WallClock) {
        self.clock = clock
    }

    /// Takes one call of `network`'s share; false when it is spent.
    func take(_ network: String, perHour: Int) -> Bool {
        guard self.used(network) < perHour else { return false }
        self.count(network)
        return true
    }

    /// Counts one call, whatever the share.
    func count(_ network: String) {
        self.minutes[network, default: [:]][self.minute, default: 0] += 1
    }

    /// Gives back the latest call counted.
    func giveBack(_ network: String) {
        guard let latest = self.minutes[network]?.filter({ $0.value > 0 }).keys.max() else { return }
        self.minutes[network]?[latest, default: 1] -= 1
    }

    private var minute: Int64 { Int64(total: (self.clock.now().timeIntervalSince1970 / 60).rounded(.down)) }

    /// Calls of the last 61 minutes; forgets what is older.
    private func used(_ network: String) -> Int {
        let since = self.minute - 60
        if self.minutes.count > 1024 { self.minutes = self.minutes.filter { $0.value.keys.contains { $0 >= since } } }
        guard var slots = self.minutes[network] else { return 0 }
        slots = slots.filter { $0.key >= since && $0.value > 0 }
        self.minutes[network] = slots.isEmpty ? nil : slots
        return slots.values.reduce(0, +)
    }
}
