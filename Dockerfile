# Backdrop in a container: `docker build -t backdrop .` then `docker run -p 8080:8080 -v backdrop-cache:/app/cache backdrop`.
# `make test` checks this file against what the release binary links (Tests/docker/check_dockerfile.py).

# --- build: the release binary, as `make test` builds and tests it, in the official Swift image (Debian 12) ---
# Testing is enabled so that the shipped binary is the one the Swift tests ran on (one build: see docs/development.md).
# Swift's runtime is linked dynamically: the libraries of it the binary links are gathered into /build/swift.
FROM swift:6.3.1-bookworm AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends libjpeg-dev libpng-dev libdeflate-dev zlib1g-dev libwebp-dev libavif-dev libaom-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /build
COPY Package.swift ./
RUN swift package resolve
COPY Sources ./Sources
COPY Tests ./Tests
COPY Benchmarks ./Benchmarks
RUN swift build -c release -Xswiftc -enable-testing --product backdrop \
 && cp "$(swift build -c release -Xswiftc -enable-testing --show-bin-path)/backdrop" /build/backdrop \
 && mkdir /build/swift \
 && ldd /build/backdrop | awk '$3 ~ "/lib/swift/linux/" { print $3 }' | xargs -r cp -t /build/swift

# --- run: slim Debian 12 with only the shared libraries the binary links, and CA certificates for HTTPS to Flickr ---
# (Backdrop links libaom3, which it encodes AVIF with, and libavif15, which links every AV1 codec it supports.)
FROM debian:bookworm-slim
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ca-certificates libjpeg62-turbo libpng16-16 libdeflate0 zlib1g libstdc++6 libgcc-s1 \
      libwebp7 libavif15 libaom3 libdav1d6 libgav1-1 librav1e0 libsvtav1enc1 libyuv0 libabsl20220623 \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --home-dir /app --shell /usr/sbin/nologin backdrop
WORKDIR /app
COPY --from=build /build/backdrop /app/backdrop
# Swift's runtime (the standard library, concurrency, Dispatch, Foundation and its ICU), found through ld.so's cache.
COPY --from=build /build/swift /usr/lib/swift/linux
RUN echo /usr/lib/swift/linux > /etc/ld.so.conf.d/swift.conf && ldconfig
COPY Public /app/Public
COPY StockPhotos /app/StockPhotos
# The zone grid compiled into the binary is ODbL data: its licence and attribution ship with it.
COPY Licenses /app/Licenses
COPY config.json /app/config.json
RUN mkdir -p /app/cache && chown backdrop:backdrop /app/cache
VOLUME ["/app/cache"]
# Configuration through the environment: BACKDROP_HOST, BACKDROP_PORT, BACKDROP_LOG_LEVEL, BACKDROP_CACHE_FOLDER,
# FLICKR_API_KEY (see docs/configuration.md); the file's defaults apply to everything else.
ENV BACKDROP_HOST=0.0.0.0 \
    BACKDROP_PORT=8080
EXPOSE 8080
USER backdrop
HEALTHCHECK --interval=30s --timeout=6s --start-period=10s --retries=3 \
  CMD ["/app/backdrop", "health", "--url", "http://127.0.0.1:8080/health"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["/app/backdrop"]
CMD ["serve", "--config", "/app/config.json"]
