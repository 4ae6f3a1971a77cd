// The photo choice's own costs, for `make bench`: a search page of 250 results parsed (and read for the ranking) and ranked (what a search costs
// here beyond Flickr's answer), and the quality gate on each photo beside the decode every render of it pays anyway.
import Backdrop
import Foundation

/// A Flickr page of `count` results with every extra the ranking reads, in Flickr's mixed forms, from a seeded generator.
func searchPage(count: Int) -> [UInt8] {
    var state: UInt64 = 20_261_125
    func next(_ bound: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((state >> 33) % UInt64(bound))
    }
    let tags = ["paris night", "sunset seine", "cafe", "bluehour", "street", "", "milkyway", "goldenhour tour"]
    let photos = (0..<count).map { index -> String in
        let (width, height) = next(2) == 0 ? (4000, 6000) : (6000, 4000)
        return """
            {"id":"53\(String(format: "%09d", index))","owner":"\(next(40))@N0\(next(9))","secret":"a1b2c3","server":"65535","farm":66,\
            "title":"Photo \(index)","license":"4","ownername":"Someone","pathalias":null,\
            "url_l":"https://live.staticflickr.com/65535/\(index)_l.jpg","width_l":"1024","height_l":683,\
            "url_h":"https://live.staticflickr.com/65535/\(index)_h.jpg","width_h":1600,"height_h":"1067",\
            "datetaken":"2026-0\(1 + next(9))-1\(next(10)) \(10 + next(14)):\(10 + next(50)):00","datetakengranularity":\(next(3) == 0 ? "\"4\"" : "0"),\
            "datetakenunknown":"\(next(5) == 0 ? 1 : 0)","tags":"\(tags[next(tags.count)])","latitude":"48.85\(next(100))","longitude":2.35\(next(100)),\
            "accuracy":"\(next(17))","context":\(next(3)),"views":"\(next(100_000))","o_width":"\(width)","o_height":\(height)}
            """
    }
    let body =
        "{\"photos\":{\"page\":1,\"pages\":1,\"perpage\":250,\"total\":\"\(count)\",\"photo\":[\(photos.joined(separator: ","))]},\"stat\":\"ok\"}"
    return Array(body.utf8)
}

@MainActor func benchRanking(_ paths: [String], runs: Int) throws {
    let page = searchPage(count: 250)
    let cell = Geohash(latitude: 48.8566, longitude: 2.3522, precision: 5)
    let window = TimeWindow(containing: Date(timeIntervalSince1970: 1_800_000_000), seconds: 900)
    var parse = [Double]()
    var rank = [Double]()
    for run in 0...max(runs, 20) {
        var results = [CandidatePhoto]()
        let parsed = try milliseconds {
            results = try FlickrSearchResponse.parse(page, allowedLicenses: [4, 5, 9, 10]).photos.map { CandidatePhoto($0, near: cell) }
        }
        let ranked = milliseconds { _ = CellChoice.ranking(results, cell: cell, window: window, deny: PhotoDenylist()) }
        if run > 0 {
            parse.append(parsed)
            rank.append(ranked)
        }
    }
    let search: [String: Any] = [
        "stage": "search", "results": 250, "parse_median_ms": rounded(median(parse)), "rank_median_ms": rounded(median(rank)),
    ]
    print(String(decoding: try JSONSerialization.data(withJSONObject: search, options: [.sortedKeys]), as: UTF8.self))
    for path in paths {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        var decode = [Double]()
        var gate = [Double]()
        var content = [Double]()
        var verdict = PhotoQuality.Verdict.pass
        var seen = PhotoContent(RGBImage(width: 1, height: 1, pixels: [0, 0, 0]))
        for run in 0...runs {
            var decoded = RGBImage(width: 1, height: 1, pixels: [0, 0, 0])
            let decodeMs = try milliseconds { decoded = try JPEGDecoder.decode(bytes, covering: PixelSize(width: 640, height: 1136)) }
            let gateMs = milliseconds { verdict = PhotoQuality(decoded).verdict }
            let small = PhotoQuality.reduced(decoded)
            let contentMs = milliseconds { seen = PhotoContent(small) }
            if run > 0 {
                decode.append(decodeMs)
                gate.append(gateMs)
                content.append(contentMs)
            }
        }
        let record: [String: Any] = [
            "stage": "gate", "image": URL(fileURLWithPath: path).lastPathComponent, "verdict": verdict.rawValue,
            "decode_median_ms": rounded(median(decode)), "gate_median_ms": rounded(median(gate)),
            "faces_and_skin_median_ms": rounded(median(content)), "faces": seen.faces, "skin": rounded(seen.skin),
        ]
        print(String(decoding: try JSONSerialization.data(withJSONObject: record, options: [.sortedKeys]), as: UTF8.self))
    }
}
