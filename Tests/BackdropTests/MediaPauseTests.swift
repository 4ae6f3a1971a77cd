import Foundation
import HummingbirdTesting
import Synchronization
import Testing

@testable import Backdrop

/// Issue 58, parts 2 and 3: at most `commons.mediaConcurrency` (2) requests in flight to Wikimedia's media hosts
/// together, whoever asks; and a media host that answers `429` or `503` is paused for its `Retry-After`: nothing is
/// asked of it meanwhile, no photo is marked unusable, the request goes on to the next source (here stock), and the
/// photo is tried again once the pause ends.
@Suite("Media hosts: their limits and pauses", .serialized)
struct MediaPauseTests {
    @Test func aMediaHostsTooManyRequestsPausesItAndMarksNoPhotoUnusable() async throws {
        let clock = MovableClock(TestApp.epoch)
        var file = StandInCommons.File(pageid: 7)
        file.image = "throttled.jpg"
        let files = [file]
        try await CommonsBackdrop.withBackdrop({ [.json($0.searchJSON(files))] }, clock: clock) { commons, client, _ in
            func ask(_ width: Int) async throws -> String? {
                let (answer, json) = try await TestApp.answerAndJSON(client, "\(CommonsBackdrop.paris)&width=\(width)&height=64")
                #expect(answer.status == .ok)
                return json["source"] as? String
            }
            let first = try await ask(64)
            #expect(first == "stock" && commons.downloads.count == 1, "one call, then the next source")
            clock.advance(60)
            let second = try await ask(80)
            #expect(second == "stock" && commons.downloads.count == 1, "within Retry-After: nothing asked of the host")
            clock.advance(61)
            let third = try await ask(96)
            #expect(third == "stock" && commons.downloads.count == 2, "after it: the same photo tried again, never marked unusable")
            #expect(commons.geosearches.count == 1, "one search of the cell")
        }
    }

    /// The media hosts' hourly budget (`commons.mediaPerHour`, 2 here): the first new place's photo and its file's thumbnail
    /// (for its look, after or beside the answer) take it; the next new place's photo (the same file, its look known) is
    /// refused before it is asked (stock, no photo marked unusable), and asked once the budget refills.
    @Test func theHoursMediaBudgetSpentAsksNothingAndMarksNoPhotoUnusable() async throws {
        let clock = MovableClock(TestApp.epoch)
        try await StandInCommons.run({ commons in
            [.json(commons.searchJSON([StandInCommons.File(pageid: 7)])), .json(commons.searchJSON([StandInCommons.File(pageid: 8)]))]
        }) { commons in
            let lateLooks = LateLooks()
            let settings = CommonsBackdrop.settings(commons) { $0.commons.mediaPerHour = 2 }
            try await TestApp.run(settings, clock: clock, lateLooks: lateLooks) { client in
                func ask(_ place: String) async throws -> String? {
                    let (answer, json) = try await TestApp.answerAndJSON(client, "\(place)&width=64&height=64")
                    #expect(answer.status == .ok)
                    return json["source"] as? String
                }
                let first = try await ask(CommonsBackdrop.paris)
                await lateLooks.settled()
                #expect(first == "commons" && commons.downloads.count == 1 && commons.looks.count == 1)
                let second = try await ask("lat=40.4168&lon=-3.7038")
                await lateLooks.settled()
                #expect(second == "stock" && commons.downloads.count == 1 && commons.looks.count == 1, "spent: nothing asked")
                clock.advance(3600)
                let third = try await ask("lat=40.4168&lon=-3.7038&dpr=2")
                #expect(third == "commons" && commons.downloads.count == 2, "refilled: the same photo, never marked unusable")
            }
        }
        #expect(try Settings.parse(Data(#"{"commons": {"mediaPerHour": 20000}}"#.utf8)).commons.mediaPerHour == 20000)
        #expect(throws: (any Error).self) { try Settings.parse(Data(#"{"commons": {"mediaPerHour": 0}}"#.utf8)) }
    }

    /// Three new places at once, 20 files each whose thumbnails answer after 100 ms: never more than 2 media requests in
    /// flight (8 a search before), and every place still served from Commons.
    @Test func neverMoreThanTwoMediaRequestsInFlightWhoeverAsks() async throws {
        let files = (1...20).map { id in
            var file = StandInCommons.File(pageid: id)
            (file.look, file.user) = ("slow", "Uploader \(id)")
            return file
        }
        try await CommonsBackdrop.withBackdrop({ commons in
            (0..<3).map { _ in .json(commons.searchJSON(files)) }
        }) { commons, client, _ in
            let places = ["lat=48.8584&lon=2.2945", "lat=40.4168&lon=-3.7038", "lat=52.52&lon=13.40"]
            let sources = try await withThrowingTaskGroup(of: String?.self) { group in
                for place in places {
                    group.addTask { try await TestApp.answerAndJSON(client, "\(place)&width=64&height=64").1["source"] as? String }
                }
                return try await group.reduce(into: [String?]()) { $0.append($1) }
            }
            #expect(sources.allSatisfy { $0 == "commons" }, "\(sources)")
            let most = commons.media.withLock { $0.most }
            #expect(most >= 1 && most <= 2, "at most 2 in flight: \(most) (\(commons.looks.count) thumbnails)")
        }
        #expect(try Settings.parse(Data(#"{"commons": {"mediaConcurrency": 2}}"#.utf8)).commons.mediaConcurrency == 2)
        #expect(throws: (any Error).self) { try Settings.parse(Data(#"{"commons": {"mediaConcurrency": 0}}"#.utf8)) }
    }

    /// The looks' lane (after answers) waits while an answer's download is in flight, holds at most one of two places,
    /// and an answer that comes while it holds one takes the other at once.
    @Test(.timeLimit(.minutes(1))) func theBackgroundLaneGivesWayToAnswers() async throws {
        let limiter = MediaLimiter(limit: 2)
        let events = Events()
        let (answerGate, openAnswer) = AsyncStream<Void>.makeStream()
        let (lookGate, openLooks) = AsyncStream<Void>.makeStream()
        let (started, start) = AsyncStream<String>.makeStream()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await limiter.run(.answer) {
                    start.yield("answer")
                    for await _ in answerGate {}
                    events.list.withLock { $0.append("answer done") }
                }
            }
            var iterator = started.makeAsyncIterator()
            #expect(await iterator.next() == "answer")
            for index in 0..<2 {
                group.addTask {
                    try await limiter.run(.background) {
                        events.list.withLock { $0.append("look \(index)") }
                        start.yield("look")
                        for await _ in lookGate {}
                    }
                }
            }
            // One place is free, but an answer's download is in flight: the looks wait for it.
            try await limiter.run(.answer) { events.list.withLock { $0.append("second answer") } }
            openAnswer.finish()
            #expect(await iterator.next() == "look")
            // One look holds a place, the other waits (the background holds one of two); an answer takes the free one.
            try await limiter.run(.answer) { events.list.withLock { $0.append("third answer") } }
            #expect(events.list.withLock { $0 }.filter { $0.hasPrefix("look") }.count == 1, "\(events.list.withLock { $0 })")
            openLooks.finish()
            try await group.waitForAll()
        }
        let order = events.list.withLock { $0 }
        #expect(
            Array(order.prefix(3)) == ["second answer", "answer done", "look 0"]
                || Array(order.prefix(3)) == ["second answer", "answer done", "look 1"],
            "\(order)"
        )
        #expect(order.contains("third answer") && limiter.most == 2)
    }

    final class Events: Sendable {
        let list = Mutex([String]())
    }

    /// A waiter cancelled takes no place; every other runs, in turn.
    @Test func aLimiterServesInTurnAndACancelledWaiterTakesNoPlace() async throws {
        let limiter = MediaLimiter(limit: 2)
        let (gate, open) = AsyncStream<Void>.makeStream()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<2 { group.addTask { try await limiter.run { for await _ in gate {} } } }
            let waiter = Task { try await limiter.run { 1 } }
            waiter.cancel()
            await #expect(throws: CancellationError.self) { try await waiter.value }
            open.finish()
            try await group.waitForAll()
        }
        let ran = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<10 { group.addTask { try await limiter.run { index } } }
            return try await group.reduce(0, +)
        }
        #expect(ran == 45 && (1...2).contains(limiter.most))
    }

    @Test func aPauseHonoursRetryAfterWithinItsBounds() async {
        let clock = MovableClock(TestApp.epoch)
        let pauses = MediaHostPauses(clock: clock)
        await pauses.pause("thumb.wikimedia.org", seconds: nil)
        await pauses.pause("upload.wikimedia.org", seconds: 1e9)
        #expect(await pauses.remaining("thumb.wikimedia.org") == 60, "a minute when the host does not say")
        #expect(await pauses.remaining("upload.wikimedia.org") == 3600, "an hour at most")
        await pauses.pause("upload.wikimedia.org", seconds: 5)
        #expect(await pauses.remaining("upload.wikimedia.org") == 3600, "a shorter pause never shortens one running")
        clock.advance(60)
        let (thumb, flickr) = (await pauses.remaining("thumb.wikimedia.org"), await pauses.remaining("live.staticflickr.com"))
        #expect(thumb == nil && flickr == nil)
    }
}
