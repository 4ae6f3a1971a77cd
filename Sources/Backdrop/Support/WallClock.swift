import Foundation

/// Where time comes from; tests pass a fixed clock.
package protocol WallClock: Sendable {
    func now() -> Date
}

package struct SystemClock: WallClock {
    package init() {}
    package func now() -> Date { Date() }
}
