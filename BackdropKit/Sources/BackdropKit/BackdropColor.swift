import Foundation

/// An sRGB colour, 0...255 a channel, as `#rrggbb`.
public struct BackdropColor: Sendable, Hashable, Decodable, CustomStringConvertible {
    public let red: UInt8
    public let green: UInt8
    public let blue: UInt8

    /// The colour shown when there is no background to show: the window of the last one has ended and no new one
    /// could be fetched (a dark slate, under which white text stays legible, as it does over the light effect).
    public static let stock = BackdropColor(red: 0x3a, green: 0x44, blue: 0x50)

    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// `#rrggbb` (either case); nil for anything else.
    public init?(hex: String) {
        let digits = hex.utf8
        guard digits.count == 7, digits.first == UInt8(ascii: "#"), hex.dropFirst().allSatisfy(\.isHexDigit),
            let value = UInt32(hex.dropFirst(), radix: 16)
        else { return nil }
        self.init(red: UInt8(value >> 16 & 0xff), green: UInt8(value >> 8 & 0xff), blue: UInt8(value & 0xff))
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let color = BackdropColor(hex: text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a #rrggbb colour: \(text)")
        }
        self = color
    }

    public var description: String {
        "#" + [self.red, self.green, self.blue].map { String($0, radix: 16).leftPadded(to: 2) }.joined()
    }

    /// The channels as fractions 0...1, as SwiftUI's `Color(red:green:blue:)` and `UIColor` take them.
    public var components: (red: Double, green: Double, blue: Double) {
        (Double(self.red) / 255, Double(self.green) / 255, Double(self.blue) / 255)
    }
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String {
        String(repeating: "0", count: max(0, length - self.count)) + self
    }
}
