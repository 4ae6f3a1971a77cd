import Foundation
import Testing

@testable import BackdropKit

@Suite struct SceneTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test(
        "the blurred layer fades in over the first 80 points of scroll",
        arguments: [
            (-30.0, 0.0), (0, 0), (20, 0.25), (40, 0.5), (79.2, 0.99), (80, 1), (81, 1), (400, 1), (.nan, 0), (.infinity, 1),
        ]
    )
    func blurredOpacity(_ offset: Double, _ opacity: Double) {
        #expect(abs(BackdropScene().blurredOpacity(scrollOffset: offset) - opacity) < 1e-9, "offset \(offset)")
    }

    @Test func aFadeDistanceOfItsOwn() {
        let scene = BackdropScene(fadeDistance: 200)
        #expect(scene.blurredOpacity(scrollOffset: 40) == 0.2)
        #expect(scene.blurredOpacity(scrollOffset: 200) == 1)
        let instant = BackdropScene(fadeDistance: 0)
        #expect(instant.blurredOpacity(scrollOffset: 0) == 0 && instant.blurredOpacity(scrollOffset: 0.5) == 1)
    }

    @Test func textAdviceFollowsTheScrollFromTheSharpLayerToTheBlurredOne() throws {
        var scene = BackdropScene()
        #expect(scene.text(scrollOffset: 0) == nil, "nothing yet: no advice")
        let band = { (text: String, light: Double, dark: Double) in
            #"{"text": "\#(text)", "light": {"contrast": 3.1, "scrim": \#(light)}, "dark": {"contrast": 6.2, "scrim": \#(dark)}}"#
        }
        let json = """
            {"sharp": {"top": \(band("dark", 0.3, 0)), "bottom": \(band("light", 0, 0.5)), "whole": \(band("light", 0.2, 0.4))},
             "blurred": {"top": \(band("dark", 0.1, 0.2)), "bottom": \(band("dark", 0.4, 0.1)), "whole": \(band("light", 0.6, 0))}}
            """
        let legibility = try JSONDecoder().decode(Legibility.self, from: Data(json.utf8))
        let background = try Fixture.background(secondsLeft: 600, receivedAt: self.start, legibility: json)
        #expect(background.legibility == legibility)
        scene.update(.success(background), at: self.start)
        let atRest = try #require(scene.text(over: .whole, scrollOffset: 0))
        #expect(atRest.ink == .light && atRest.scrimOpacity == 0.2, "the sharp layer's advice")
        let halfway = try #require(scene.text(over: .whole, scrollOffset: 40))
        #expect(halfway.ink == .light && abs(halfway.scrimOpacity - 0.4) < 1e-9, "the scrim half way between 0.2 and 0.6")
        let top = try #require(scene.text(over: .top, scrollOffset: 20))
        #expect(top.ink == .dark && abs(top.scrimOpacity - 0.05) < 1e-9, "black text: the white scrim from 0 towards 0.2")
        let bottom = try #require(scene.text(over: .bottom, scrollOffset: 80))
        #expect(bottom.ink == .dark && abs(bottom.scrimOpacity - 0.1) < 1e-9, "fully blurred: the blurred layer's colour and scrim")
        #expect(
            bottom.ink.color == BackdropColor(red: 0, green: 0, blue: 0) && bottom.ink.scrimColor == BackdropColor(red: 255, green: 255, blue: 255)
        )
    }

    @Test func nothingYetMeansFetchNowAndShowTheColour() {
        let scene = BackdropScene()
        #expect(scene.nextFetch(after: self.start) == self.start)
        #expect(scene.content(at: self.start) == .color(.stock))
    }

    @Test func theBackgroundShowsUntilTheLastSecondOfItsWindowThenTheNextIsFetched() throws {
        var scene = BackdropScene()
        let background = try Fixture.background(secondsLeft: 600, receivedAt: self.start)
        scene.update(.success(background), at: self.start)
        let end = self.start.addingTimeInterval(600)
        #expect(background.expiry == end, "by this device's clock: received plus secondsLeft, whatever the server's clock")
        #expect(scene.nextFetch(after: self.start) == end)
        #expect(scene.content(at: self.start) == .background(background))
        #expect(scene.content(at: end.addingTimeInterval(-1)) == .background(background), "the window's last second")
        #expect(scene.nextFetch(after: end.addingTimeInterval(-1)) == end)
        #expect(scene.content(at: end.addingTimeInterval(-0.001)) == .background(background))
        #expect(scene.content(at: end) == .color(.stock), "the window has ended")
        #expect(scene.nextFetch(after: end) == end)
        #expect(scene.nextFetch(after: end.addingTimeInterval(30)) == end.addingTimeInterval(30), "overdue: now")
    }

    @Test func offlineTheLastBackgroundStaysUntilItsWindowEndsThenTheColour() throws {
        var scene = BackdropScene(fallbackColor: BackdropColor(red: 1, green: 2, blue: 3))
        let background = try Fixture.background(secondsLeft: 60, receivedAt: self.start)
        scene.update(.success(background), at: self.start)
        let offline = BackdropError.unreachable(code: -1009, description: "offline")
        scene.update(.failure(offline), at: self.start.addingTimeInterval(10))
        #expect(scene.background == background && scene.failures == 1)
        #expect(scene.content(at: self.start.addingTimeInterval(59)) == .background(background))
        #expect(scene.content(at: self.start.addingTimeInterval(60)) == .color(BackdropColor(red: 1, green: 2, blue: 3)))
        #expect(scene.nextFetch(after: self.start.addingTimeInterval(10)) == self.start.addingTimeInterval(15), "first retry after 5 s")
    }

    @Test func failuresBackOffFromFiveSecondsToFiveMinutesAndASuccessResets() throws {
        var scene = BackdropScene()
        var now = self.start
        var delays = [TimeInterval]()
        for _ in 0..<9 {
            scene.update(.failure(.timedOut(seconds: 10)), at: now)
            let next = scene.nextFetch(after: now)
            delays.append(next.timeIntervalSince(now))
            now = next
        }
        #expect(delays == [5, 10, 20, 40, 80, 160, 300, 300, 300])
        scene.update(.success(try Fixture.background(secondsLeft: 900, receivedAt: now)), at: now)
        #expect(scene.failures == 0 && scene.retryAt == nil && scene.nextFetch(after: now) == now.addingTimeInterval(900))
    }

    @Test func aBusyServiceIsAskedAgainWhenItSays() {
        var scene = BackdropScene()
        scene.update(.failure(.busy(retryAfter: 7, message: "busy")), at: self.start)
        #expect(scene.nextFetch(after: self.start) == self.start.addingTimeInterval(7))
        scene.update(.failure(.busy(retryAfter: 0, message: "busy")), at: self.start)
        #expect(scene.nextFetch(after: self.start) == self.start.addingTimeInterval(1), "at least a second")
    }

    @Test func aClientCallBecomesTheResultTheSceneTakes() async throws {
        let background = try Fixture.background(secondsLeft: 60, receivedAt: self.start)
        let success = await Result { () async throws -> Background in background }
        let failure = await Result { () async throws -> Background in throw BackdropError.timedOut(seconds: 2) }
        let cancelled = await Result { () async throws -> Background in throw CancellationError() }
        #expect(success == .success(background) && failure == .failure(.timedOut(seconds: 2)) && cancelled == .failure(.cancelled))
    }
}
