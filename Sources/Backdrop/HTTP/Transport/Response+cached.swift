import Hummingbird

extension Response {
    /// A 200 with a cached render's body. With `fromFile` (a GET) and the render's checked cache file held open, the
    /// body is offered to the connection's transport, which sends it from the file with `sendfile` when it can
    /// (``FileBodies``), and may send the same answer again on the `replay` terms (``HitReplays``); the bytes go out as
    /// they are otherwise.
    static func cached(_ render: CachedRender, headers: HTTPFields, fromFile: Bool, replay: HitReplays.Terms?) -> Response {
        if fromFile, let file = render.file { FileBodies.current?.offer(render.body, file: file, replay: replay) }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: render.body))
    }
}
