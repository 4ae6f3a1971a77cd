extension Settings {
    /// `images`: what a source image may cost to decode.
    package struct Images: Sendable, Equatable {
        package var maxSourceMegapixels = 50
        package var maxDecoderMemoryMB = 512
        package var maxProgressiveScans = 100

        package init() {}

        package var limits: DecodeLimits {
            DecodeLimits(
                maxPixels: self.maxSourceMegapixels * 1_000_000,
                maxDecoderMemory: self.maxDecoderMemoryMB << 20,
                maxProgressiveScans: self.maxProgressiveScans
            )
        }
    }
}

extension Settings.Images: SettingsSection {
    static let name = "images"

    mutating func read(_ section: inout SectionReader) throws {
        self.maxSourceMegapixels = try section.int("maxSourceMegapixels", default: self.maxSourceMegapixels, in: 1...500)
        self.maxDecoderMemoryMB = try section.int("maxDecoderMemoryMB", default: self.maxDecoderMemoryMB, in: 16...16384)
        self.maxProgressiveScans = try section.int("maxProgressiveScans", default: self.maxProgressiveScans, in: 1...10000)
    }
}
