import NIOCore

/// The connection state of ``DirectResponder``, without NIO: each event goes in, the action to
/// take comes out, in the manner of Hummingbird's `HTTPConnectionStateHandler.StateMachine`. The
/// handler only carries the actions out, so every rule here is tested without a socket.
///
/// The rules:
/// - A request may be answered directly only while no request handed to Hummingbird is still
///   unanswered (pipelined answers keep their order) and no close is under way.
/// - What arrives while the socket takes no more (`isWritable` false) waits, in order, and socket
///   reads stop until it has been taken up: a client that does not read its answers makes the
///   server hold one read's worth of requests, never a queue of answers.
/// - A close waits until every answer written so far, direct or Hummingbird's, is on the socket
///   (a graceful shutdown must not cut a slow download short); a second close, or the timeout,
///   closes at once.
struct DirectResponderStateMachine<Inbound> {
    /// Requests handed to Hummingbird whose response has not ended yet.
    private(set) var unanswered = 0
    /// Responses (direct or Hummingbird's) whose end is written but not yet on the socket.
    private(set) var unwritten = 0
    /// Whether the parts of the current request go to Hummingbird.
    private var forwarding = true
    private var closeState = CloseState.open
    /// What arrived while the socket could take no more, in order.
    private var waiting = CircularBuffer<Inbound>()
    /// A socket read asked for while requests were waiting.
    private var readDeferred = false

    private enum CloseState {
        case open
        /// A close is held until the unwritten responses are on the socket.
        case held
        case closing
    }

    /// What to do with an inbound part or event.
    enum InboundAction: Equatable {
        /// Handle it now.
        case handle
        /// Keep it (``takeWaiting(isWritable:)`` gives it back).
        case wait
    }

    /// What to do with a request head.
    enum HeadAction: Equatable {
        /// Try to answer it directly (``answeredDirectly()`` or ``forwarded()`` follows).
        case tryDirect
        /// Hand it to Hummingbird (``forwarded()`` follows).
        case forward
    }

    /// What to do when the next handler asks for a socket read.
    enum ReadAction: Equatable {
        case read
        /// Read later: requests are waiting for the socket.
        case deferRead
    }

    /// What to do with a close.
    enum CloseAction: Equatable {
        /// Close now.
        case close
        /// Close now and complete the held close with it.
        case closeAndReleaseHeld
        /// Hold it until the unwritten responses are written (``responseWritten()``) or the
        /// timeout (``closeTimedOut()``).
        case hold
    }

    /// What to do when something ended a wait.
    enum ReleaseAction: Equatable {
        case none
        /// Carry out the held close.
        case releaseHeldClose
    }

    // MARK: Inbound

    /// A request part or an inbound event arrived.
    mutating func received(_ inbound: Inbound, isWritable: Bool, isEvent: Bool = false) -> InboundAction {
        if waiting.isEmpty, isWritable || isEvent { return .handle }
        waiting.append(inbound)
        return .wait
    }

    /// The next waiting part or event, while the socket takes more.
    mutating func takeWaiting(isWritable: Bool) -> Inbound? {
        isWritable ? waiting.popFirst() : nil
    }

    /// Whether parts or events are waiting.
    var isWaiting: Bool { !waiting.isEmpty }

    /// The next handler asks for a socket read.
    mutating func readRequested(isWritable: Bool) -> ReadAction {
        if waiting.isEmpty, isWritable { return .read }
        readDeferred = true
        return .deferRead
    }

    /// After the waiting parts were taken up: whether the deferred read is due now.
    mutating func deferredReadIsDue(isWritable: Bool) -> Bool {
        guard readDeferred, waiting.isEmpty, isWritable else { return false }
        readDeferred = false
        return true
    }

    /// The connection is gone: nothing waits any more.
    mutating func inactive() {
        waiting.removeAll()
    }

    /// A request head arrived; `answersDirectly` is whether this server answers any directly.
    func head(answersDirectly: Bool) -> HeadAction {
        answersDirectly && unanswered == 0 && closeState == .open ? .tryDirect : .forward
    }

    /// The head was answered directly: its body parts are dropped, and the answer is unwritten.
    mutating func answeredDirectly() {
        forwarding = false
        unwritten += 1
    }

    /// The head went to Hummingbird: its body parts follow it, and an answer is owed.
    mutating func forwarded() {
        forwarding = true
        unanswered += 1
    }

    /// Whether a body or end part goes to Hummingbird (else it belongs to a direct answer's
    /// request and is dropped).
    var forwardsBody: Bool { forwarding }

    // MARK: Outbound

    /// Hummingbird wrote the end of a response.
    mutating func hummingbirdEndedResponse() {
        unanswered = max(0, unanswered - 1)
        unwritten += 1
    }

    /// A response's end reached the socket (or failed to).
    mutating func responseWritten() -> ReleaseAction {
        unwritten -= 1
        guard unwritten == 0, closeState == .held else { return .none }
        closeState = .closing
        return .releaseHeldClose
    }

    /// A close of the whole connection (`mode == .all`) or of one side was asked for.
    mutating func closeRequested(all: Bool) -> CloseAction {
        switch closeState {
        case .held:
            closeState = .closing
            return .closeAndReleaseHeld
        case .closing:
            return .close
        case .open:
            guard all, unwritten > 0 else {
                if all { closeState = .closing }
                return .close
            }
            closeState = .held
            return .hold
        }
    }

    /// The wait for a held close timed out.
    mutating func closeTimedOut() -> ReleaseAction {
        guard closeState == .held else { return .none }
        closeState = .closing
        return .releaseHeldClose
    }
}
