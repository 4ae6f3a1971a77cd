import NIOCore

/// One connection's clock, and what it was closed for. Two timeouts, one armed at a time:
/// - idle: armed while nothing is being received and no response is owed (before the first byte, and after each
///   response); when it fires, the connection has been silent for `idleTimeout` and is closed;
/// - head: armed when the first byte of a request arrives and re-armed by each part of its body, disarmed once the
///   request is whole; when it fires, the client took longer than `headTimeout` to send a request's head (or between
///   two parts of its body) and the connection is closed.
///
/// A peer that closes its side while no request is in flight (``closedByPeer(context:)``) is closed at once, whatever
/// the state: before its first request, between keep-alive requests, or halfway through a head. Used on the channel's
/// event loop only.
///
/// Arming is free: a busy connection arms and disarms twice a request, and scheduling and cancelling a task on the
/// event loop each time cost a sixth of a cache hit's work. One check is scheduled instead, never later than the
/// shorter timeout from when it was scheduled, so that any deadline armed since falls after it; when it runs it closes
/// the connection if its deadline has passed, else checks again at that deadline (or sooner), and stops when nothing
/// is armed.
final class ConnectionTimer {
    /// Why a connection was closed by Backdrop's transport, as counted in `backdrop_connections_closed_total{reason}`.
    enum CloseReason: String, Sendable {
        case peer
        case idleTimeout = "idle_timeout"
        case headTimeout = "head_timeout"
    }

    let idleTimeout: TimeAmount
    let headTimeout: TimeAmount
    private let closed: @Sendable (CloseReason) -> Void
    /// What is armed: when the connection is to close, and why.
    private var armed: (deadline: NIODeadline, reason: CloseReason)?
    /// The check scheduled, if any.
    private var check: Scheduled<Void>?
    /// Whether a request has begun (bytes have arrived) and has not yet been received whole.
    private(set) var receiving = false
    private var counted = false

    init(idleTimeout: TimeAmount, headTimeout: TimeAmount, closed: @escaping @Sendable (CloseReason) -> Void) {
        self.idleTimeout = idleTimeout
        self.headTimeout = headTimeout
        self.closed = closed
    }

    /// The connection is open and owes nothing: it may stay silent for the idle timeout.
    func idle(context: ChannelHandlerContext) {
        guard !self.receiving else { return }
        self.arm(context: context, after: self.idleTimeout, reason: .idleTimeout)
    }

    /// Bytes arrived: a request begins unless one is already being received.
    func bytesArrived(context: ChannelHandlerContext) {
        guard !self.receiving else { return }
        self.receiving = true
        self.arm(context: context, after: self.headTimeout, reason: .headTimeout)
    }

    /// A head or a body part arrived: the client has the head timeout again for what follows.
    func progressed(context: ChannelHandlerContext, expectingMore: Bool) {
        self.disarm()
        if expectingMore { self.arm(context: context, after: self.headTimeout, reason: .headTimeout) }
    }

    /// The request is whole; the idle clock starts again once its response has gone (``idle(context:)``).
    func finished() {
        self.disarm()
        self.receiving = false
    }

    /// The peer closed its sending side (or reset) while nothing was in flight: the connection is of no further use.
    func closedByPeer(context: ChannelHandlerContext) {
        self.close(context.channel, reason: .peer)
    }

    /// The channel has gone, for whatever reason: no timer may outlive it.
    func channelClosed() {
        self.disarm()
        self.check?.cancel()
        self.check = nil
        self.receiving = false
    }

    private func disarm() {
        self.armed = nil  // a check still scheduled finds nothing and stops
    }

    private func arm(context: ChannelHandlerContext, after timeout: TimeAmount, reason: CloseReason) {
        let now = NIODeadline.now()
        self.armed = (now + timeout, reason)
        if self.check == nil { self.schedule(context.channel, at: now + timeout, now: now) }
    }

    /// Schedules the check at `deadline`, or within the shorter timeout of `now` if that is sooner.
    private func schedule(_ channel: any Channel, at deadline: NIODeadline, now: NIODeadline) {
        let at = min(deadline, now + min(self.idleTimeout, self.headTimeout))
        self.check = channel.eventLoop.assumeIsolated().scheduleTask(deadline: at) {
            self.check = nil
            guard let armed = self.armed else { return }
            let now = NIODeadline.now()
            if armed.deadline <= now {
                self.close(channel, reason: armed.reason)
            } else {
                self.schedule(channel, at: armed.deadline, now: now)
            }
        }
    }

    private func close(_ channel: any Channel, reason: CloseReason) {
        self.disarm()
        if !self.counted {
            self.counted = true
            self.closed(reason)
        }
        channel.close(promise: nil)
    }
}
