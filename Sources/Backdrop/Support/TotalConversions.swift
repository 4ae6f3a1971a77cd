/// Conversions from floating point to integers that cannot trap. Swift's `Int(someDouble)` stops the process for a
/// value that is not finite or out of range, and on a path upstream data reaches that is one page edit away (a
/// Commons `GPSLatitude` of `1e300` once reached the civil-time grid's `Int(...)` and killed every replica). Every
/// conversion in Sources goes through these.
extension FixedWidthInteger {
    /// `value` rounded toward zero, clamped to the type's range; not a number is 0.
    init<Source: BinaryFloatingPoint>(total value: Source) {
        if value.isNaN {
            self = 0
        } else if value <= Source(Self.min) {
            self = .min
        } else if value >= Source(Self.max) {
            // `Source(Self.max)` rounds up to a power of two for wide types: anything below it fits.
            self = .max
        } else {
            self = Self(value)
        }
    }
}

extension Int {
    /// ``init(total:)`` for the floating-point types the service converts, each in its own instructions: the generic
    /// one goes through the standard library's generic conversion, a call per value, which tripled the legibility
    /// histogram's time (a conversion per sample).
    init(total value: Double) {
        if value.isNaN {
            self = 0
        } else if value <= -0x1p63 {
            self = .min
        } else if value >= 0x1p63 {
            self = .max
        } else {
            self = Int(value)
        }
    }

    init(total value: Float) {
        self.init(total: Double(value))
    }

    /// `value` rounded toward zero and clamped into `range`; not a number is `range`'s lower bound.
    init(clamping value: Double, to range: ClosedRange<Int>) {
        self = value.isNaN ? range.lowerBound : Swift.min(Swift.max(Int(total: value), range.lowerBound), range.upperBound)
    }
}
