import Foundation
import Synchronization

@testable import Backdrop

/// A clock that stands still at `date`.
struct FixedClock: WallClock {
    let date: Date
    func now() -> Date { self.date }
}

/// A clock tests can move.
final class MovableClock: WallClock {
    private let date: Mutex<Date>
    init(_ date: Date) { self.date = Mutex(date) }
    func now() -> Date { self.date.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { self.date.withLock { $0 = $0.addingTimeInterval(seconds) } }
}
