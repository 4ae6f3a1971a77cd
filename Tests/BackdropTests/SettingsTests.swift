import Foundation
import Testing

@testable import Backdrop

@Suite("Settings")
struct SettingsTests {
    @Test func shippedConfigHoldsEveryDefault() throws {
        let data = try Data(contentsOf: Fixtures.repositoryRoot.appendingPathComponent("config.json"))
        #expect(try Settings.parse(data) == Settings())
        // ...and names every key: removing any one would still parse, so compare key counts with the defaults' own.
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: [String: Any]])
        #expect(Set(json.keys) == ["server", "photos", "render", "images", "flickr", "commons", "cache", "cluster", "telemetry"])
        let keyCount: Int = json.values.map { $0.count }.reduce(0, +)
        // server 13, photos 9, render 13, images 3, flickr 13, commons 10, cache 10, cluster 4, telemetry 5
        #expect(keyCount == 82)
    }

    @Test func theOldMemoryKeysAreAcceptedWithAWarningNamingTheNewOnes() throws {
        let settings = try ConfigText.parse(#"{"render": {"memoryCacheMB": 100}, "cache": {"memoryMB": 50}}"#)
        #expect(settings.render.preparedImagesMemoryMB == 100 && settings.cache.renderedImagesMemoryMB == 50)
        #expect(settings.warnings.count == 2)
        #expect(settings.warnings.contains { $0.contains("render.memoryCacheMB") && $0.contains("render.preparedImagesMemoryMB") })
        #expect(settings.warnings.contains { $0.contains("cache.memoryMB") && $0.contains("cache.renderedImagesMemoryMB") })
        #expect(try ConfigText.parse(#"{"render": {"preparedImagesMemoryMB": 100}}"#).warnings.isEmpty)
        let both = ConfigText.configError(#"{"cache": {"memoryMB": 50, "renderedImagesMemoryMB": 60}}"#)
        #expect(both?.key == "cache.memoryMB")
    }

    @Test func whatEverySourceSharesMovedToPhotosAndTheFlickrKeysAreStillReadWithAWarning() throws {
        let old = try ConfigText.parse(#"{"flickr": {"requestDeadlineSeconds": 7, "cellCacheEntries": 500}}"#)
        #expect(old.photos.requestDeadline == .seconds(7) && old.photos.cellCacheEntries == 500)
        #expect(old.warnings.count == 2)
        #expect(old.warnings.contains { $0.contains("flickr.requestDeadlineSeconds") && $0.contains("photos.requestDeadlineSeconds") })
        #expect(old.warnings.contains { $0.contains("flickr.cellCacheEntries") && $0.contains("photos.cellCacheEntries") })
        let new = try ConfigText.parse(#"{"photos": {"requestDeadlineSeconds": 7, "cellCacheEntries": 500}}"#)
        #expect(new.photos.requestDeadline == .seconds(7) && new.photos.cellCacheEntries == 500 && new.warnings.isEmpty)
        #expect(ConfigText.configError(#"{"flickr": {"cellCacheEntries": 5}, "photos": {"cellCacheEntries": 6}}"#)?.key == "flickr.cellCacheEntries")
        #expect(
            ConfigText.configError(#"{"flickr": {"requestDeadlineSeconds": 0}}"#)?.key == "flickr.requestDeadlineSeconds",
            "an error names the key given"
        )
    }

    @Test func aFlickrSecretIsAcceptedUnusedWithAWarning() throws {
        let settings = try ConfigText.parse(#"{"flickr": {"apiKey": "k", "apiSecret": "s"}}"#)
        #expect(settings.flickr.apiKey == "k")
        #expect(settings.warnings == [Settings.noSecret("flickr.apiSecret")])
        #expect(try ConfigText.parse(#"{"flickr": {"apiKey": "k"}}"#).warnings.isEmpty)
    }

    @Test func retiredPNGKeysAreAcceptedUnusedWithAWarningThatNamesThem() throws {
        let settings = try ConfigText.parse(#"{"render": {"pngEncoder": "libdeflate", "pngLevel": 6, "pngFilter": "paeth"}}"#)
        #expect(settings.render.encoders.pngEncoder == .libdeflate)
        #expect(settings.warnings.count == 2)
        #expect(settings.warnings.contains { $0.hasPrefix("render.pngLevel is not used") })
        #expect(settings.warnings.contains { $0.hasPrefix("render.pngFilter is not used") })
        #expect(try ConfigText.parse(#"{"render": {"pngEncoder": "scanline"}}"#).warnings.isEmpty)
    }

    @Test func retiredQualityKeysAreAcceptedUnusedWithAWarningThatNamesTheFloors() throws {
        let settings = try ConfigText.parse(
            #"{"render": {"jpegQuality": 80, "webpQuality": 80, "avifQuality": 60, "avifBlurredQuality": 80, "sharpFloorDB": 37.5}}"#
        )
        #expect(settings.render.encoders.sharpFloor == 37.5 && settings.render.encoders.blurredFloor == 45)
        #expect(settings.warnings.count == 4)
        for key in ["jpegQuality", "webpQuality", "avifQuality", "avifBlurredQuality"] {
            #expect(settings.warnings.contains { $0.hasPrefix("render.\(key) is not used") && $0.contains("render.sharpFloorDB") })
        }
    }

    @Test func partialFilesTakeDefaults() throws {
        let settings = try ConfigText.parse(#"{"server": {"port": 9000}}"#)
        #expect(settings.server.port == 9000)
        #expect(settings.server.host == "127.0.0.1")
        #expect(settings.photos.geohashPrecision == 5)
        #expect(try ConfigText.parse("{}") == Settings())
    }

    @Test(
        "errors name the key",
        arguments: [
            (#"{"server": {"prot": 1}}"#, "server.prot"),
            (#"{"servr": {}}"#, "servr"),
            (#"{"server": {"port": "8080"}}"#, "server.port"),
            (#"{"server": {"port": 70000}}"#, "server.port"),
            (#"{"server": {"port": 80.5}}"#, "server.port"),
            (#"{"photos": {"geohashPrecision": 0}}"#, "photos.geohashPrecision"),
            (#"{"photos": {"geohashPrecision": true}}"#, "photos.geohashPrecision"),
            (#"{"render": {"blur": 1.5}}"#, "render.blur"),
            (#"{"render": {"style": "blurry"}}"#, "render.style"),
            (#"{"render": {"style": "Light"}}"#, "render.style"),
            (#"{"render": {"pngEncoder": "libpng"}}"#, "render.pngEncoder"),  // the bench's, not the service's
            (#"{"render": {"width": 2048, "height": 2048}}"#, "render.height"),
            (#"{"render": {"sharpFloorDB": 19}}"#, "render.sharpFloorDB"),
            (#"{"render": {"blurredFloorDB": "high"}}"#, "render.blurredFloorDB"),
            (#"{"render": {"webpMethod": 7}}"#, "render.webpMethod"),
            (#"{"render": {"avifSpeed": 11}}"#, "render.avifSpeed"),
            (#"{"render": {"blurredFloorDB": 61}}"#, "render.blurredFloorDB"),
            (#"{"flickr": {"licenses": "4,6"}}"#, "flickr.licenses"),
            (#"{"flickr": {"endpoint": "ftp://example.com"}}"#, "flickr.endpoint"),
            (#"{"flickr": {"radiusKm": 40}}"#, "flickr.radiusKm"),
            (#"{"cache": []}"#, "cache"),
            (#"{"flickr": {"extraImageHosts": [1]}}"#, "flickr.extraImageHosts"),
            (#"{"cluster": {"postgresURL": "mysql://u:p@h/db"}}"#, "cluster.postgresURL"),
            (#"{"cluster": {"leaseSeconds": 0}}"#, "cluster.leaseSeconds"),
            (#"{"cluster": {"leaseSeconds": 5}}"#, "cluster.leaseSeconds"),
            (#"{"flickr": {"requestDeadlineSeconds": 20}}"#, "cluster.leaseSeconds"),
            (#"{"server": {"port": 1, "host": "a", "port": 2}}"#, "server.port"),
            (#"{"render": {}, "render": {}}"#, "render"),
            (#"{"cluster": {"postgresURL": "", "\u0070ostgresURL": ""}}"#, "cluster.postgresURL"),
            (#"{"flickr": {"extraImageHosts": ["http://a b"]}}"#, "flickr.extraImageHosts"),
            (#"{"flickr": {"extraImageHosts": ["images.example.com:8080"]}}"#, "flickr.extraImageHosts"),
            (#"{"flickr": {"extraImageHosts": ["-bad.example.com"]}}"#, "flickr.extraImageHosts"),
            (#"{"cluster": {"timeoutSeconds": 31}}"#, "cluster.timeoutSeconds"),
            (#"{"cluster": {"expectedReplicas": 0}}"#, "cluster.expectedReplicas"),
            (#"{"server": {"clientPrefixIPv4": 33}}"#, "server.clientPrefixIPv4"),
            (#"{"server": {"clientPrefixIPv6": 8}}"#, "server.clientPrefixIPv6"),
            (#"{"render": {"workers": -1}}"#, "render.workers"),
            (#"{"telemetry": {"trustIncomingTraceparent": "sometimes"}}"#, "telemetry.trustIncomingTraceparent"),
        ]
    )
    func errorsNameTheKey(_ json: String, _ key: String) throws {
        let error = try #require(ConfigText.configError(json))
        #expect(error.key == key)
        #expect(error.description.hasPrefix(key))
    }

    @Test func wellFormedHostsAndDistinctKeysAtDifferentLevelsAreAccepted() throws {
        let settings = try ConfigText.parse(
            #"{"flickr": {"extraImageHosts": ["localhost", "images.example.com", "10.1.2.3", "::1"]}, "server": {"port": 8080}}"#
        )
        #expect(settings.flickr.extraImageHosts.count == 4)
        #expect(JSONValue.firstDuplicateKey(in: Data(#"{"a": {"b": 1}, "c": {"b": 2}, "d": [{"b": 1}, {"b": 2}], "e": "{\"a\": 1}"}"#.utf8)) == nil)
        #expect(JSONValue.firstDuplicateKey(in: Data(#"{"a": {"b": [1, {"c": 1, "c": 2}]}}"#.utf8)) == "a.b.c")
    }

    @Test func malformedJSONIsAnError() throws {
        let error = try #require(ConfigText.configError(#"{"server": {"port": 8080,}"#))
        #expect(error.description.contains("not valid JSON"))
        #expect(ConfigText.configError("[1, 2]")?.key == "(top level)")
    }

    @Test func environmentOverridesTheFileAndFlagsOverrideBoth() throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("config.json")
        try Data(#"{"server": {"host": "0.0.0.0", "port": 1111}, "flickr": {"apiKey": "file-key"}}"#.utf8).write(to: file)

        let fromFile = try Settings.load(file: file.path, environment: [:])
        #expect(fromFile.server.host == "0.0.0.0" && fromFile.server.port == 1111 && fromFile.flickr.apiKey == "file-key")
        #expect(fromFile.photos.stockFolder == folder.appendingPathComponent("StockPhotos").standardizedFileURL.path)

        let environment = ["BACKDROP_HOST": "127.0.0.2", "BACKDROP_PORT": "2222", "FLICKR_API_KEY": "env-key", "FLICKR_API_SECRET": "env-secret"]
        let fromEnvironment = try Settings.load(file: file.path, environment: environment)
        #expect(fromEnvironment.server.host == "127.0.0.2" && fromEnvironment.server.port == 2222)
        #expect(fromEnvironment.flickr.apiKey == "env-key")
        #expect(fromEnvironment.warnings == [Settings.noSecret("FLICKR_API_SECRET")], "a secret is not used, and the warning says so")

        let fromFlags = try Settings.load(file: file.path, environment: environment, overrides: .init(host: "127.0.0.3", port: 3333))
        #expect(fromFlags.server.host == "127.0.0.3" && fromFlags.server.port == 3333)

        #expect(throws: ConfigError(key: "BACKDROP_PORT", "must be a whole number, got \"http\"")) {
            try Settings.load(file: file.path, environment: ["BACKDROP_PORT": "http"])
        }
        #expect(throws: ConfigError(key: "--port", "must be between 0 and 65535, got 70000")) {
            try Settings.load(file: file.path, environment: [:], overrides: .init(port: 70000))
        }
        #expect(throws: ConfigError(key: "BACKDROP_HOST", "must not be empty")) {
            try Settings.load(file: file.path, environment: ["BACKDROP_HOST": ""])
        }
        #expect(throws: ConfigError(key: "BACKDROP_PORT", "must be between 0 and 65535, got 65536")) {
            try Settings.load(file: file.path, environment: ["BACKDROP_PORT": "65536"])
        }
        #expect(throws: ConfigError.self) { try Settings.load(file: folder.appendingPathComponent("missing.json").path, environment: [:]) }
    }

    @Test func trustedProxiesComeFromTheEnvironmentToo() throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("config.json")
        try Data(#"{"server": {"trustedProxies": ["10.0.0.0/8"]}}"#.utf8).write(to: file)
        #expect(try Settings.load(file: file.path, environment: [:]).server.trustedProxies == [try #require(IPRange("10.0.0.0/8"))])
        let compose = try Settings.load(file: file.path, environment: ["BACKDROP_TRUSTED_PROXIES": "172.30.0.10, fd00::/8"])
        #expect(compose.server.trustedProxies == [try #require(IPRange("172.30.0.10")), try #require(IPRange("fd00::/8"))])
        #expect(try Settings.load(file: file.path, environment: ["BACKDROP_TRUSTED_PROXIES": ""]).server.trustedProxies.isEmpty)
        let error = #expect(throws: ConfigError.self) {
            try Settings.load(file: file.path, environment: ["BACKDROP_TRUSTED_PROXIES": "172.30.0.10,nginx"])
        }
        #expect(error?.key == "BACKDROP_TRUSTED_PROXIES")
    }

    @Test func renderThreadsFollowTheCgroupsQuotaUnlessSet() throws {
        var settings = Settings()
        settings.render.workers = 3
        #expect(settings.render.effectiveWorkers == 3 && settings.render.effectiveMaxPending == 3 * Settings.Render.pendingPerCore)
        settings.render.workers = 0
        #expect((1...Settings.Render.maxAutomaticWorkers).contains(settings.render.effectiveWorkers))
        let root = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        func write(_ path: String, _ text: String) throws {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        #expect(CPUQuota.read(root: root.path, selfCgroup: "0::/\n") == nil, "no cgroup files: no quota")
        try write("cpu.max", "max 100000\n")
        #expect(CPUQuota.read(root: root.path, selfCgroup: "0::/\n") == nil, "max: no quota")
        try write("kubepods/pod1/cpu.max", "150000 100000\n")
        #expect(CPUQuota.read(root: root.path, selfCgroup: "0::/kubepods/pod1\n") == 2, "1.5 CPUs: 2 threads")
        try write("kubepods/pod1/ctr/cpu.max", "max 100000\n")
        try write("kubepods/cpu.max", "50000 100000\n")
        #expect(CPUQuota.read(root: root.path, selfCgroup: "0::/kubepods/pod1/ctr\n") == 1, "the smallest quota on the way up")
        let v1 = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: v1) }
        try FileManager.default.createDirectory(at: v1.appendingPathComponent("cpu"), withIntermediateDirectories: true)
        try Data("400000\n".utf8).write(to: v1.appendingPathComponent("cpu/cpu.cfs_quota_us"))
        try Data("100000\n".utf8).write(to: v1.appendingPathComponent("cpu/cpu.cfs_period_us"))
        #expect(CPUQuota.read(root: v1.path, selfCgroup: "") == 4, "cgroup v1")
        try Data("-1\n".utf8).write(to: v1.appendingPathComponent("cpu/cpu.cfs_quota_us"))
        #expect(CPUQuota.read(root: v1.path, selfCgroup: "") == nil)
    }

    @Test func thePostgresURLComesFromTheFileTheEnvironmentOrTheFlagAndNeverShowsItsPassword() throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("config.json")
        try Data(#"{"cluster": {"postgresURL": "postgres://file:pw@db.example:5433/backdrop"}}"#.utf8).write(to: file)
        #expect(try Settings.load(file: file.path, environment: [:]).cluster.postgres == PostgresURL("postgres://file:pw@db.example:5433/backdrop"))
        let environment = ["BACKDROP_POSTGRES_URL": "postgresql://env:pw@db.example/backdrop"]
        #expect(
            try Settings.load(file: file.path, environment: environment).cluster.postgres == PostgresURL("postgresql://env:pw@db.example/backdrop")
        )
        let fromFlag = try Settings.load(file: file.path, environment: environment, overrides: .init(postgresURL: ""))
        #expect(fromFlag.cluster.postgres == nil, "an empty flag turns sharing off")

        for bad in [
            "postgres://user:SECRET@/backdrop", "postgres://user:SECRET@host/", "postgres://user:SECRET@host/db?sslmode=maybe",
            "http://user:SECRET@host/db", "postgres://user:SECRET@host:99999/db",
        ] {
            let error = try #require(throws: ConfigError.self) {
                try Settings.load(file: file.path, environment: ["BACKDROP_POSTGRES_URL": bad])
            }
            #expect(error.key == "BACKDROP_POSTGRES_URL", "an error names the variable that gave the value: \(error)")
            #expect(!error.description.contains("SECRET"), "\(error)")
        }
    }

    @Test func postgresURLsParseAsLibpqReadsThem() throws {
        let url = try PostgresURL("postgres://back%40drop:p%3Ass@db.example:6432/shared?sslmode=require")
        #expect(url.username == "back@drop" && url.password == "p:ss" && url.host == "db.example" && url.port == 6432)
        #expect(url.database == "shared" && url.tls == .require)
        #expect(url.description == "postgres://back@drop:****@db.example:6432/shared?sslmode=require")
        let plain = try PostgresURL("postgresql://user@[::1]/db")
        #expect(plain.host == "::1" && plain.port == 5432 && plain.password == nil && plain.tls == .prefer)
        #expect(!plain.description.contains("****"))
        #expect(try PostgresURL("postgres://u:p@h/db?sslmode=verify-full").tls == .verifyFull)
    }
}
