import Foundation

/// A fixed slice of wall-clock time (15 minutes by default) during which a cell keeps one photo.
package struct TimeWindow: Sendable, Hashable, CustomStringConvertible {
    /// Windows since the Unix epoch.
    package let index: Int64
    package let seconds: Int

    package init(containing date: Date, seconds: Int) {
        precondition(seconds > 0, "window length must be positive")
        self.seconds = seconds
        self.index = Int64(total: (date.timeIntervalSince1970 / Double(seconds)).rounded(.down))
    }

    package init(index: Int64, seconds: Int) {
        self.index = index
        self.seconds = seconds
    }

    package var start: Date { Date(timeIntervalSince1970: Double(self.index) * Double(self.seconds)) }
    package var end: Date { Date(timeIntervalSince1970: Double(self.index + 1) * Double(self.seconds)) }

    /// Whole seconds from `date` to the end of the window, at least 1 while inside it.
    package func secondsLeft(at date: Date) -> Int {
        max(0, Int(total: (self.end.timeIntervalSince(date)).rounded(.up)))
    }

    package var description: String { "\(self.index)" }
}
