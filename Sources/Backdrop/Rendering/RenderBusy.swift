import NIOPosix

/// More render work is queued than the gate allows.
public struct RenderBusy: Error {}
