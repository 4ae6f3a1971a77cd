/// A boosted cascade of LBP stumps, as OpenCV trains and evaluates them (`CascadeClassifier` with an LBP model): a
/// window passes stage after stage, each summing its stumps' leaf values and stopping the window when the sum falls
/// below the stage's threshold. A stump reads one feature: a 3 x 3 grid of equal blocks whose eight outer sums,
/// compared with the centre's, make an 8-bit code, and the leaf is chosen by whether the code is in the stump's set.
/// The model compiled in is OpenCV's frontal-face cascade (``frontalFace``, made by `Tools/face_model.py`).
struct FaceCascade: Sendable {
    struct Stump: Sendable {
        let feature: Int
        /// The codes (0 to 255) that take `pass`: bit `code % 32` of word `code / 32`.
        let codes: [UInt32]
        let pass: Float
        let fail: Float
    }

    struct Stage: Sendable {
        let threshold: Float
        let stumps: [Stump]
    }

    /// One block of a feature's grid, in window pixels.
    struct Block: Sendable, Equatable {
        let x: Int
        let y: Int
        let width: Int
        let height: Int
    }

    let width: Int
    let height: Int
    let stages: [Stage]
    let features: [Block]

    /// OpenCV's LBP frontal-face cascade (24 x 24 windows, 20 stages), from Debian's opencv-data.
    static let frontalFace = FaceCascade(numbers: frontalFaceNumbers)

    /// Reads the numbers `Tools/face_model.py` writes; a malformed text gives a cascade that finds nothing (the tests
    /// read the one compiled in whole).
    init(numbers text: String) {
        var lines = text.split(separator: "\n").map { $0.split(separator: " ") }[...]
        let size = lines.popFirst() ?? []
        (self.width, self.height) = (size.count == 2 ? Int(size[0]) ?? 0 : 0, size.count == 2 ? Int(size[1]) ?? 0 : 0)
        var stages = [Stage]()
        var features = [Block]()
        while let line = lines.popFirst() {
            if line.first == "stage", line.count == 3, let threshold = Float(line[1]), let count = Int(line[2]) {
                let stumps = lines.prefix(count).compactMap(Self.stump)
                lines = lines.dropFirst(count)
                stages.append(Stage(threshold: threshold, stumps: stumps))
            } else if line.first == "features", line.count == 2, let count = Int(line[1]) {
                let values = lines.joined().compactMap { Int($0) }  // four numbers a block, eight blocks a line
                lines = []
                guard values.count == 4 * count else { break }
                features = stride(from: 0, to: values.count, by: 4).map {
                    Block(x: values[$0], y: values[$0 + 1], width: values[$0 + 2], height: values[$0 + 3])
                }
            }
        }
        let complete = stages.allSatisfy { $0.stumps.allSatisfy { $0.feature < features.count } }
        self.stages = complete ? stages : []
        self.features = features
    }

    private static func stump(_ numbers: [Substring]) -> Stump? {
        guard numbers.count == 11, let feature = Int(numbers[0]), feature >= 0, let pass = Float(numbers[9]), let fail = Float(numbers[10]) else {
            return nil
        }
        let words = numbers[1...8].compactMap { Int32($0).map { UInt32(bitPattern: $0) } }
        return words.count == 8 ? Stump(feature: feature, codes: words, pass: pass, fail: fail) : nil
    }
}
