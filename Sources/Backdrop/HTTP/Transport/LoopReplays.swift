import Foundation
import NIOCore
import Synchronization

/// The hits replayed beneath the router, one ``HitReplays`` table for each event loop: a connection's handlers use the
/// table of the loop that serves it, so a replay is only ever looked up by that loop's thread and its locks are never
/// contended.
///
/// With one table for the whole server, every hit on every loop took the same lock; under load the two loops of a
/// 2-core machine met on it at each request, and a contended `Mutex` (a priority-inheritance futex on Linux) sends
/// both threads into the kernel: at 130 kB answers the server spent about 30 µs more system time per hit than nginx,
/// and served 0.62x its requests per second. What a loop learns (a replay the route offered, the bytes of a request a
/// replay answers) it writes to every table; a table made later starts with what the others hold
/// (``HitReplays/learn(from:at:)``). A hit reads its own loop's table alone. Each table holds at most `limit` replays.
final class LoopReplays: Sendable {
    let limit: Int
    let clock: any WallClock
    private let tables = Mutex<[ObjectIdentifier: HitReplays]>([:])

    init(limit: Int = HitReplays.defaultLimit, clock: any WallClock) {
        self.limit = limit
        self.clock = clock
    }

    /// The table of `loop`, made when its first connection is set up, with what the others hold: a replay the others
    /// learned before it was made, and a request's bytes, would otherwise be learned again on this loop, the bytes
    /// only by decoding them once more. Made under the lock through which a table finds the others when it learns
    /// something: either the learner finds it, or it learns from the learner, which has already written its own table.
    func table(for loop: any EventLoop) -> HitReplays {
        let id = ObjectIdentifier(loop)
        return self.tables.withLock { tables in
            if let table = tables[id] { return table }
            let table = HitReplays(limit: self.limit, clock: self.clock) { [weak self] in self?.tables(except: id) ?? [] }
            table.learn(from: Array(tables.values), at: self.clock.now())
            tables[id] = table
            return table
        }
    }

    /// The tables of the loops other than `loop`: asked only when a table learns something (a route's answer, a new
    /// request's bytes), never for a hit.
    private func tables(except loop: ObjectIdentifier) -> [HitReplays] {
        self.tables.withLock { tables in tables.compactMap { $0.key == loop ? nil : $0.value } }
    }

    /// How many tables there are: one for each loop that has served a connection.
    var tableCount: Int { self.tables.withLock { $0.count } }
}
