// `backdrop-bench --avif-study`: what the AV1 encoders and libaom's settings reachable through libavif do to an AVIF
// render's time, bytes and quality, on the service's own renders (640x1136 and 2048x1536, sharp and fully blurred).
import Backdrop
import BackdropLab
import Foundation
import NIOCore

/// One encoder setting the study tries.
struct AVIFCandidate: Sendable {
    let name: String
    var speed = 10
    var tuning = AVIFLab.Tuning()
    /// The quantizer the service fits to the render (``FittedQuality``), or one of its own.
    var quantizer: (@Sendable (Int) -> Int)?
}

let avifCandidates: [AVIFCandidate] = [
    AVIFCandidate(name: "default: libaom speed 10 (all-intra, cpu-used 9)"),
    AVIFCandidate(name: "libaom speed 8", speed: 8),
    AVIFCandidate(name: "rav1e speed 10", tuning: .init(codec: .rav1e)),
    AVIFCandidate(name: "SVT-AV1 speed 10", tuning: .init(codec: .svt)),
    AVIFCandidate(name: "2 tile columns", tuning: .init(tileColumnsLog2: 1)),
    AVIFCandidate(name: "cq-level rate control", tuning: .init(options: "end-usage=q")),
    AVIFCandidate(name: "tune=psnr", tuning: .init(options: "tune=psnr")),
    AVIFCandidate(name: "tune=ssim", tuning: .init(options: "tune=ssim")),
    AVIFCandidate(name: "enable-chroma-deltaq=1", tuning: .init(options: "enable-chroma-deltaq=1")),
    AVIFCandidate(name: "deltaq-mode=0 aq-mode=0", tuning: .init(options: "deltaq-mode=0 aq-mode=0")),
    AVIFCandidate(name: "no 64-point transforms", tuning: .init(options: "enable-tx64=0")),
    AVIFCandidate(name: "no rectangular partitions", tuning: .init(options: "enable-rect-partitions=0")),
    AVIFCandidate(name: "no palette, no intra block copy", tuning: .init(options: "enable-palette=0 enable-intrabc=0")),
    AVIFCandidate(name: "no CDEF", tuning: .init(options: "enable-cdef=0")),
    AVIFCandidate(name: "quantizer +2 (coarser)", quantizer: { $0 + 2 }),
]

/// For each photo, size, blur and candidate: the median process CPU time of the encode (with its RGB-to-YUV share),
/// the bytes, and the PSNR of the decoded AVIF against the render. One JSON object a line.
@MainActor func studyAVIF(_ paths: [String], runs: Int) throws {
    let settings = EncoderSettings()
    for path in paths {
        let name = URL(fileURLWithPath: path).lastPathComponent
        let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        for display in [PixelSize(width: 640, height: 1136), PixelSize(width: 2048, height: 1536)] {
            let sharp = CoverCrop.apply(try JPEGDecoder.decode(data, covering: display), to: display)
            let prepared = PreparedImages(sharp: sharp, style: .light)
            for hundredths in [0, 100] {
                let picture = prepared.picture(hundredths: hundredths)
                let fitted = try FittedQuality.encode(
                    picture,
                    blend: Double(hundredths) / 100,
                    format: .avif,
                    floor: settings.floor(hundredths: hundredths),
                    minimum: settings.minimumQuality(.avif, hundredths: hundredths),
                    settings: settings
                )
                let serviceQuantizer = FittedQuality.avifQuantizer(fitted.quality)
                _ = try AVIFEncoder.encode(picture, quantizer: serviceQuantizer, speed: settings.avifSpeed)  // warm-up
                for candidate in avifCandidates {
                    let quantizer = candidate.quantizer?(serviceQuantizer) ?? serviceQuantizer
                    var cpu = [Double]()
                    var converts = [Double]()
                    var encodes = [Double]()
                    var bytes = ByteBuffer()
                    // rav1e and SVT-AV1 take seconds where libaom takes milliseconds: once is enough to compare.
                    for _ in 0..<(candidate.tuning.codec == .aom ? max(1, runs) : 1) {
                        var timing = AVIFLab.Timing()
                        let started = processCPUTime()
                        bytes = try AVIFLab.encode(
                            picture,
                            quantizer: quantizer,
                            speed: candidate.speed,
                            tuning: candidate.tuning,
                            timing: &timing
                        )
                        cpu.append(processCPUTime() - started)
                        converts.append(timing.convert / .milliseconds(1))
                        encodes.append(timing.encode / .milliseconds(1))
                    }
                    let record: [String: Any] = [
                        "study": "avif", "image": name, "display": "\(display)", "alpha": Double(hundredths) / 100,
                        "candidate": candidate.name, "quantizer": quantizer, "cpu_ms": rounded(median(cpu)),
                        "convert_ms": rounded(median(converts)), "encode_ms": rounded(median(encodes)), "bytes": bytes.readableBytes,
                        "psnr_db": rounded(decodedPSNR(bytes, against: picture)),
                    ]
                    let json = try JSONSerialization.data(withJSONObject: record, options: [.sortedKeys])
                    print(String(decoding: json, as: UTF8.self))
                }
            }
        }
    }
}

/// CPU time of the whole process, in ms: rav1e and SVT-AV1 encode on threads of their own even when asked for one.
func processCPUTime() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &spec)
    return Double(spec.tv_sec) * 1000 + Double(spec.tv_nsec) / 1e6
}

/// The AVIF decoded (libavif with dav1d) against `reference`; 0 when it does not decode.
func decodedPSNR(_ avif: ByteBuffer, against reference: RGBImage) -> Double {
    let size = PixelSize(width: reference.width, height: reference.height)
    return (try? ReadBack.decode(avif, format: .avif, size: size).psnr(against: reference)) ?? 0
}
