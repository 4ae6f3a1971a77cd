import Foundation
import Synchronization

/// Where image hosts resolve, kept a while: every download checks where its host's name points (``ImageHostPolicy``),
/// and without this each would ask the system's resolver again.
///
/// An answer is kept ``keep`` (a minute): the system's resolver (`getaddrinfo`) does not tell a record's TTL, and a
/// minute is within what the media hosts' records are given, so a host that moves is followed within a minute. A name
/// that resolved to nothing is asked again after ``keepFailure``. Concurrent downloads to a host not yet known wait
/// for one lookup. At most ``capacity`` names are kept (the expired go first, then the oldest). Lookups run on threads
/// of their own (``ImageHostPolicy/systemResolve(_:)``), not the shared blocking pool the disk cache reads on.
final class HostAddresses: Sendable {
    static let keep: TimeInterval = 60
    static let keepFailure: TimeInterval = 5
    static let capacity = 256

    private enum Entry {
        case known([String], until: Date)
        case asking([CheckedContinuation<[String], Never>])
    }

    private let lookup: @Sendable (String) async -> [String]
    private let clock: any WallClock
    private let entries = Mutex<[String: Entry]>([:])

    init(lookup: @escaping @Sendable (String) async -> [String], clock: any WallClock = SystemClock()) {
        self.lookup = lookup
        self.clock = clock
    }

    /// The names kept or being asked (for tests).
    var kept: Int { self.entries.withLock { $0.count } }

    /// How many wait for the lookup of `host` under way (for tests).
    func waiting(_ host: String) -> Int {
        self.entries.withLock { entries in
            if case .asking(let list) = entries[host] { return list.count }
            return 0
        }
    }

    /// Every address `host` resolves to: the answer kept, or one lookup shared by whoever asks meanwhile.
    func resolve(_ host: String) async -> [String] {
        let now = self.clock.now()
        enum Step {
            case answer([String])
            case ask
            case wait
        }
        let step = self.entries.withLock { entries -> Step in
            switch entries[host] {
            case .known(let addresses, let until) where until > now: return .answer(addresses)
            case .asking: return .wait
            default:
                entries[host] = .asking([])
                return .ask
            }
        }
        switch step {
        case .answer(let addresses): return addresses
        case .ask: break
        case .wait:
            return await withCheckedContinuation { continuation in
                let known = self.entries.withLock { entries -> [String]? in
                    if case .asking(let waiting) = entries[host] {
                        entries[host] = .asking(waiting + [continuation])
                        return nil
                    }
                    if case .known(let addresses, _) = entries[host] { return addresses }
                    return []
                }
                if let known { continuation.resume(returning: known) }
            }
        }
        let addresses = await self.lookup(host)
        let until = self.clock.now().addingTimeInterval(addresses.isEmpty ? Self.keepFailure : Self.keep)
        let waiting = self.entries.withLock { entries -> [CheckedContinuation<[String], Never>] in
            var waiting = [CheckedContinuation<[String], Never>]()
            if case .asking(let list) = entries[host] { waiting = list }
            entries[host] = .known(addresses, until: until)
            if entries.count > Self.capacity { Self.trim(&entries, now: self.clock.now()) }
            return waiting
        }
        for continuation in waiting { continuation.resume(returning: addresses) }
        return addresses
    }

    /// Drops the expired answers, then the soonest to expire, down to the capacity (names being asked stay).
    private static func trim(_ entries: inout [String: Entry], now: Date) {
        var known = entries.compactMap { name, entry -> (String, Date)? in
            if case .known(_, let until) = entry { return (name, until) }
            return nil
        }
        known.sort { $0.1 < $1.1 }
        for (name, until) in known where until <= now || entries.count > Self.capacity {
            entries[name] = nil
        }
    }
}
