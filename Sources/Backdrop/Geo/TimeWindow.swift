import Foundation

/// A fixed slice of wall-clock time (15 minutes by default) during which a cell keeps one photo.
public struct TimeWindow: Sendable, Hashable, CustomStringConvertible {
    /// Windows since the Unix epoch.
    public let index: Int64
    public let seconds: Int

    public init(containing date: Date, seconds: Int) {
        precondition(seconds > 0, "window length must be positive")
        self.seconds = seconds
        self.index = Int64((date.timeIntervalSince1970 / Double(seconds)).rounded(.down))
    }

    public init(index: Int64, seconds: Int) {
        self.index = index
        self.seconds = seconds
    }

    public var start: Date { Date(timeIntervalSince1970: Double(self.index) * Double(self.seconds)) }
    public var end: Date { Date(timeIntervalSince1970: Double(self.index + 1) * Double(self.seconds)) }

    /// Whole seconds from `date` to the end of the window, at least 1 while inside it.
    public func secondsLeft(at date: Date) -> Int {
        max(0, Int((self.end.timeIntervalSince(date)).rounded(.up)))
    }

    public var description: String { "\(self.index)" }
}

