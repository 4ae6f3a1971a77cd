// Times Backdrop's render stages on JPEG photos, single-threaded, for `make bench`.
//
// usage: backdrop-bench [--runs N] [--out DIR] [--formats | --avif-study | --ranking | --density | --fidelity | --fidelity-served] PHOTO.jpg...
// Prints one JSON object per line: per photo, the median milliseconds of each stage of a 640x1136 render at
// blur 0.5 (file read + decode, crop, effect, blend, encode + file write, total), the blur-only render time
// (blend + encode of a photo already prepared), the PNG size, and PNG encoder alternatives on the same image.
// With --formats instead: per photo, format (the service's default settings) and blur 0, 0.5 and 1, the median
// milliseconds of the whole render as served (file read, decode, crop, effect, blend, encode, file write), the
// bytes and the output file. With --avif-study: AVIF encoders and settings compared (see AVIFStudy.swift). With
// --ranking: a 250-result search parsed and ranked, and the quality gate beside each photo's decode (RankingBench.swift).
import Backdrop
import BackdropLab
import Foundation
import NIOCore
import NIOFoundationCompat

struct Arguments {
    var runs = 7
    var out = FileManager.default.temporaryDirectory.appendingPathComponent("backdrop-bench").path
    var photos: [String] = []
    var formats = false
    var avifStudy = false
    var density = false
    var ranking = false
    var fidelity = false
    var fidelityServed = false

    init(_ list: [String]) {
        var iterator = list.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--runs": self.runs = iterator.next().flatMap { Int($0) } ?? self.runs
            case "--out": self.out = iterator.next() ?? self.out
            case "--formats": self.formats = true
            case "--avif-study": self.avifStudy = true
            case "--density": self.density = true
            case "--ranking": self.ranking = true
            case "--fidelity": self.fidelity = true
            case "--fidelity-served": self.fidelityServed = true
            case _ where argument.hasPrefix("-"): Self.refuse("unknown option \(argument)")
            case _ where !FileManager.default.isReadableFile(atPath: argument): Self.refuse("no photo at \(argument)")
            default: self.photos.append(argument)
            }
        }
    }

    /// A usage error: what was wrong and the usage on standard error, exit 2.
    static func refuse(_ problem: String) -> Never {
        let usage =
            "usage: backdrop-bench [--runs N] [--out DIR] [--formats | --avif-study | --ranking | --density | --fidelity | --fidelity-served] PHOTO.jpg..."
        FileHandle.standardError.write(Data("backdrop-bench: \(problem)\n\(usage)\n".utf8))
        exit(2)
    }
}

/// CPU time of this thread, in ms: unlike wall time, not inflated by other tenants of a shared machine.
func threadCPUTime() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
    return Double(spec.tv_sec) * 1000 + Double(spec.tv_nsec) / 1e6
}

var cpuSamples = [Double]()

/// Wall milliseconds of `body`; its CPU milliseconds are appended to `cpuSamples`.
@MainActor func milliseconds(_ body: () throws -> Void) rethrows -> Double {
    let cpu = threadCPUTime()
    let start = ContinuousClock.now
    try body()
    let elapsed = ContinuousClock.now - start
    cpuSamples.append(threadCPUTime() - cpu)
    return elapsed / .milliseconds(1)
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? 0 : sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

func rounded(_ value: Double) -> Double { (value * 100).rounded() / 100 }

let arguments = Arguments(Array(CommandLine.arguments.dropFirst()))
MallocTuning.configure()  // the allocator as the service sets it up
try FileManager.default.createDirectory(atPath: arguments.out, withIntermediateDirectories: true)
let size = PixelSize(width: 640, height: 1136)
/// The PNG writers compared on each photo's blended image: the service's (``PNGEncoder``, both compressors) and the lab's.
let alternatives: [PNGLab] = [
    PNGLab(.libpng, level: 1, filter: .up),
    PNGLab(.libpng, level: 1, filter: .adaptive),
    PNGLab(.libpng, level: 6, filter: .adaptive),
    PNGLab(.libdeflate, level: 1, filter: .up),
    PNGLab(.libdeflate, level: 1, filter: .paeth),
    PNGLab(.libdeflate, level: 1, filter: .adaptive),
    PNGLab(.libdeflate, level: 3, filter: .up),
    PNGLab(.libdeflate, level: 6, filter: .up),
    PNGLab(.scanline, filter: .up),
    PNGLab(.scanline, filter: .average),
    PNGLab(.scanline, filter: .paeth),
    PNGLab(.scanline, filter: .adaptive),
    PNGLab(.scanline, filter: .upOrPaeth),
    PNGLab(.libdeflate, level: 1, filter: .upOrPaeth),
]

/// The full render as served, for every format and blur, with the service's default encoder settings. The driver
/// measures quality from the files (each lossy file against the lossless PNG of the same render).
@MainActor func benchFormats(_ path: String, settings: EncoderSettings) throws {
    let name = URL(fileURLWithPath: path).lastPathComponent
    for format in OutputFormat.allCases {
        for hundredths in [0, 50, 100] {
            let output = URL(fileURLWithPath: arguments.out).appendingPathComponent(
                "\(name.dropLast(4))__backdrop__a\(Double(hundredths) / 100).\(format.rawValue)"
            )
            var times = [Double]()
            var cpuTimes = [Double]()
            var bytes = ByteBuffer()
            for run in 0...arguments.runs {
                cpuSamples = []
                let ms = try milliseconds {
                    let decoded = try JPEGDecoder.decode([UInt8](Data(contentsOf: URL(fileURLWithPath: path))), covering: size)
                    let sharp = CoverCrop.apply(decoded, to: size)
                    let prepared = PreparedImages(sharp: sharp, style: .light)  // as served: the effect only when needed
                    bytes = try prepared.encoded(hundredths: hundredths, format: format, settings: settings)
                    try Data(buffer: bytes).write(to: output)
                }
                if run > 0 {
                    times.append(ms)
                    cpuTimes.append(cpuSamples.last ?? ms)
                }
            }
            let record: [String: Any] = [
                "tool": "backdrop", "image": name, "format": format.rawValue, "alpha": Double(hundredths) / 100,
                "median_ms": rounded(median(times)), "cpu_median_ms": rounded(median(cpuTimes)),
                "bytes": bytes.readableBytes, "out": output.path,
            ]
            let json = try JSONSerialization.data(withJSONObject: record, options: [.sortedKeys])
            print(String(decoding: json, as: UTF8.self))
        }
    }
}

/// The blurred preview made from an effect layer already in memory, per style, at 640x1136 and 2048x1536.
@MainActor func benchPreview(_ path: String) throws {
    let name = URL(fileURLWithPath: path).lastPathComponent
    let decoded = try JPEGDecoder.decode([UInt8](Data(contentsOf: URL(fileURLWithPath: path))), covering: PixelSize(width: 2048, height: 2048))
    let photo = SourcePhoto(id: "bench", origin: .stock, attribution: Attribution(title: "", author: "", license: "", licenseURL: "", sourceURL: ""))
    for display in [size, PixelSize(width: 2048, height: 1536)] {
        for style in EffectStyle.allCases {
            let effect = LightEffect.apply(to: CoverCrop.apply(decoded, to: display), style: style)
            var times = [Double]()
            var preview: BlurredPreview?
            let legibility = Legibility(sharp: effect, blurred: effect)
            for run in 0...max(arguments.runs, 5) {
                let ms = try milliseconds {
                    preview = try BlurredPreview.make(photo: photo, effect: effect, style: style, legibility: legibility, focus: .centre)
                }
                if run > 0 { times.append(ms) }
            }
            // Its fidelity: the preview as a client shows it (decoded, stretched bilinearly) against the layer.
            var db = 0.0
            var placeholderTimes = [Double]()
            if let preview {
                if let small = try? ReadBack.decode(preview.webp, format: .webp) {
                    db = BilinearUpscale.apply(small, to: display).psnr(against: effect)
                    // ThumbHash, BlurHash and colour, made from these pixels inside `make` (so included in its time).
                    for run in 0...max(arguments.runs, 5) {
                        let ms = milliseconds { _ = Placeholders.make(from: small) }
                        if run > 0 { placeholderTimes.append(ms) }
                    }
                }
            }
            let record: [String: Any] = [
                "tool": "backdrop", "image": name, "preview": style.rawValue, "display": "\(display)",
                "median_ms": rounded(median(times)), "bytes": preview?.webp.count ?? 0,
                "placeholders_ms": rounded(median(placeholderTimes)),
                "preview_size": preview.map { "\($0.size)" } ?? "", "psnr_db": rounded(db),
            ]
            let json = try JSONSerialization.data(withJSONObject: record, options: [.sortedKeys])
            print(String(decoding: json, as: UTF8.self))
        }
    }
}

if arguments.ranking {
    try benchRanking(arguments.photos, runs: arguments.runs)
    exit(0)
}

if arguments.fidelityServed {
    try benchServedFidelity(arguments.photos, runs: arguments.runs)
    exit(0)
}

if arguments.fidelity {
    try studyFidelity(arguments.photos)
    exit(0)
}

if arguments.density {
    try benchDensity(arguments.photos, out: arguments.out)
    exit(0)
}

if arguments.avifStudy {
    try studyAVIF(arguments.photos, runs: arguments.runs)
    exit(0)
}

if arguments.formats {
    for path in arguments.photos {
        try benchFormats(path, settings: EncoderSettings())
        try benchPreview(path)
    }
    exit(0)
}

for path in arguments.photos {
    let name = URL(fileURLWithPath: path).lastPathComponent
    let output = URL(fileURLWithPath: arguments.out).appendingPathComponent(name.replacingOccurrences(of: ".jpg", with: ".png"))
    var stages = [String: [Double]]()
    var bytes = 0
    for run in 0...arguments.runs {
        var decoded: RGBImage?
        var sharp: RGBImage?
        var effect: ReducedEffect?
        var blended: RGBImage?
        var timings = [String: Double]()
        cpuSamples = []
        timings["decode"] = try milliseconds {
            decoded = try JPEGDecoder.decode([UInt8](Data(contentsOf: URL(fileURLWithPath: path))), covering: size)
        }
        timings["crop"] = milliseconds { sharp = decoded.map { CoverCrop.apply($0, to: size) } }
        // As served, the effect is kept at its reduced size and enlarged by each render (row by row in the PNG writer).
        timings["effect"] = milliseconds { effect = sharp.map { LightEffect.reduced($0, style: .light) } }
        // The service blends while encoding; the bench times the enlarge and blend on their own to show the split.
        timings["blend"] = milliseconds { blended = Blend.mix(sharp: sharp!, effect: effect!.enlarged(), hundredths: 50) }
        // What PreparedImages.png does with an effect already made: the service's writer, blending as it encodes.
        timings["blend_encode"] = try milliseconds {
            let png = try PNGEncoder.encode(sharp!, blendingWith: effect!, hundredths: 50)
            try Data(buffer: png).write(to: output)
            bytes = png.readableBytes
        }
        timings["encode"] = try milliseconds { _ = try PNGEncoder.encode(blended!) }
        let stageCPU = cpuSamples
        timings["blur_only"] = try milliseconds { _ = try PNGEncoder.encode(sharp!, blendingWith: effect!, hundredths: 37 + run) }
        let blurOnlyCPU = cpuSamples.last ?? 0
        // Where the photo's interest lies (once per photo prepared, before the crop), and the legibility advice (once
        // per preview, from the sharp image and the full-size effect layer the preview is made from).
        timings["attention"] = milliseconds {
            _ = decoded.map { Attention($0).focus(cropWidth: 0.5, cropHeight: 1) }
        }
        let attentionCPU = cpuSamples.last ?? 0
        let enlarged = effect!.enlarged()
        timings["legibility"] = milliseconds { _ = Legibility(sharp: sharp!, blurred: enlarged) }
        if run == 0 { continue }  // warm-up
        for (stage, value) in timings { stages[stage, default: []].append(value) }
        // As served: decode, attention, crop, effect, then blend fused into the encode.
        stages["total", default: []].append(["decode", "attention", "crop", "effect", "blend_encode"].compactMap { timings[$0] }.reduce(0, +))
        stages["total_cpu", default: []].append(stageCPU[0] + attentionCPU + stageCPU[1] + stageCPU[2] + stageCPU[4])
        stages["blur_only_cpu", default: []].append(blurOnlyCPU)
    }
    var record: [String: Any] = ["photo": name, "runs": arguments.runs, "bytes": bytes, "out": output.path]
    for (stage, values) in stages { record["\(stage)_ms"] = rounded(median(values)) }

    // Encoder alternatives on this photo's blended image.
    let image = try JPEGDecoder.decode([UInt8](Data(contentsOf: URL(fileURLWithPath: path))), covering: size)
    let sharp = CoverCrop.apply(image, to: size)
    let blended = Blend.mix(sharp: sharp, effect: LightEffect.apply(to: sharp, style: .light), hundredths: 50)
    let service: [(String, () throws -> ByteBuffer)] = PNGCompressor.allCases.map { compressor in
        ("service \(compressor.rawValue)", { try PNGEncoder.encode(blended, compressor: compressor) })
    }
    let lab: [(String, () throws -> ByteBuffer)] = alternatives.map { option in ("lab \(option)", { try option.encode(blended) }) }
    record["encoders"] = try (service + lab).map { name, encode -> [String: Any] in
        var times = [Double]()
        var length = 0
        for _ in 0..<max(3, arguments.runs / 2) {
            times.append(try milliseconds { length = try encode().readableBytes })
        }
        return ["encoder": name, "ms": rounded(median(times)), "bytes": length]
    }
    let json = try JSONSerialization.data(withJSONObject: record, options: [.sortedKeys])
    print(String(decoding: json, as: UTF8.self))
}
