// `--density`: what `dpr`'s lower lossy quality costs and saves. Per photo and density (1, 1.5, 2, 3) a 390x844-CSS-px
// render at blur 0, as a lossless PNG and in each lossy format twice: at the density's fidelity floor (``Density``)
// and at density 1's. Benchmarks/density.py measures each against the PNG at CSS size (both brought down to 390x844, as the
// screen shows them to the eye) and prints bytes and dB.

import Backdrop
import Foundation
import NIOCore
import NIOFoundationCompat

@MainActor func benchDensity(_ photos: [String], out: String) throws {
    let css = PixelSize(width: 390, height: 844)
    let settings = EncoderSettings()
    for path in photos {
        let name = URL(fileURLWithPath: path).lastPathComponent.dropLast(4)
        for density in Density.allCases {
            let size = PixelSize(width: density.pixels(css.width), height: density.pixels(css.height))
            let decoded = try JPEGDecoder.decode([UInt8](Data(contentsOf: URL(fileURLWithPath: path))), covering: size)
            let prepared = PreparedImages(sharp: CoverCrop.apply(decoded, to: size), style: .light)
            let reference = URL(fileURLWithPath: out).appendingPathComponent("\(name)__d\(density.rawValue).png")
            try Data(buffer: try prepared.encoded(hundredths: 0, format: .png, settings: settings)).write(to: reference)
            for format in [OutputFormat.jpeg, .webp, .avif] {
                for (label, used) in [("dropped", settings.at(density)), ("flat", settings)] {
                    let file = URL(fileURLWithPath: out).appendingPathComponent("\(name)__d\(density.rawValue)__\(label).\(format.rawValue)")
                    let bytes = try prepared.encoded(hundredths: 0, format: format, settings: used)
                    try Data(buffer: bytes).write(to: file)
                    let record: [String: Any] = [
                        "image": String(name), "density": density.rawValue, "format": format.rawValue, "quality": label,
                        "bytes": bytes.readableBytes, "out": file.path, "reference": reference.path,
                    ]
                    let json = try JSONSerialization.data(withJSONObject: record, options: [.sortedKeys])
                    print(String(decoding: json, as: UTF8.self))
                }
            }
        }
    }
}
