import Testing

@testable import DepotConnection

/// ``DirectResponderStateMachine``'s rules, event by event, without a socket.
@Suite("Direct responder state machine")
struct DirectResponderStateMachineTests {
    typealias Machine = DirectResponderStateMachine<Int>

    /// (Hummingbird requests unanswered, a close asked for, direct answers on) → what a head gets.
    @Test(
        "a head is tried directly only with direct answers on, nothing owed by Hummingbird and no close under way",
        arguments: [
            (0, false, true, Machine.HeadAction.tryDirect),
            (1, false, true, .forward),
            (0, true, true, .forward),
            (0, false, false, .forward),
            (2, true, false, .forward),
        ]
    )
    func heads(unanswered: Int, closing: Bool, answersDirectly: Bool, expected: Machine.HeadAction) {
        var machine = Machine()
        for _ in 0..<unanswered { machine.forwarded() }
        if closing { _ = machine.closeRequested(all: true) }
        #expect(machine.head(answersDirectly: answersDirectly) == expected)
    }

    @Test("pipelining: after a request goes to Hummingbird, the next waits for its end before a direct answer")
    func pipelining() {
        var machine = Machine()
        #expect(machine.head(answersDirectly: true) == .tryDirect)
        machine.forwarded()  // declined: say, a multipart range
        #expect(machine.forwardsBody)
        #expect(machine.head(answersDirectly: true) == .forward)
        machine.forwarded()
        machine.hummingbirdEndedResponse()
        #expect(machine.head(answersDirectly: true) == .forward)
        machine.hummingbirdEndedResponse()
        #expect(machine.head(answersDirectly: true) == .tryDirect)
        machine.answeredDirectly()
        #expect(!machine.forwardsBody)
        #expect(machine.unanswered == 0 && machine.unwritten == 3)
    }

    @Test("backpressure: parts wait in order while the socket is full, and reads stop until they are taken up")
    func backpressure() {
        var machine = Machine()
        #expect(machine.received(1, isWritable: true) == .handle)
        #expect(machine.received(2, isWritable: false) == .wait)
        // Once one waits, everything after it waits too, even when writable again, events included.
        #expect(machine.received(3, isWritable: true) == .wait)
        #expect(machine.received(4, isWritable: true, isEvent: true) == .wait)
        #expect(machine.readRequested(isWritable: true) == .deferRead)
        #expect(machine.takeWaiting(isWritable: false) == nil)
        #expect(machine.deferredReadIsDue(isWritable: true) == false)
        #expect(machine.takeWaiting(isWritable: true) == 2)
        #expect(machine.takeWaiting(isWritable: true) == 3)
        #expect(machine.takeWaiting(isWritable: true) == 4)
        #expect(machine.takeWaiting(isWritable: true) == nil && !machine.isWaiting)
        #expect(machine.deferredReadIsDue(isWritable: false) == false)
        #expect(machine.deferredReadIsDue(isWritable: true) == true)
        #expect(machine.deferredReadIsDue(isWritable: true) == false)
        #expect(machine.readRequested(isWritable: true) == .read)
        // An event with nothing waiting passes even while the socket is full.
        #expect(machine.received(5, isWritable: false, isEvent: true) == .handle)
    }

    @Test("a connection that goes away drops what waited")
    func inactive() {
        var machine = Machine()
        _ = machine.received(1, isWritable: false)
        machine.inactive()
        #expect(!machine.isWaiting && machine.takeWaiting(isWritable: true) == nil)
    }

    @Test("close after drain: a close waits for every written answer, direct or Hummingbird's")
    func closeAfterDrain() {
        var machine = Machine()
        machine.answeredDirectly()
        machine.forwarded()
        machine.hummingbirdEndedResponse()
        #expect(machine.unwritten == 2)
        #expect(machine.closeRequested(all: true) == .hold)
        #expect(machine.responseWritten() == .none)
        #expect(machine.responseWritten() == .releaseHeldClose)
        // Closing: nothing more is answered directly, and a later close goes straight through.
        #expect(machine.head(answersDirectly: true) == .forward)
        #expect(machine.closeRequested(all: true) == .close)
    }

    @Test("shutdown: a second close, or the timeout, closes at once")
    func shutdown() {
        var second = Machine()
        second.answeredDirectly()
        #expect(second.closeRequested(all: true) == .hold)
        #expect(second.closeRequested(all: true) == .closeAndReleaseHeld)
        #expect(second.responseWritten() == .none)
        #expect(second.closeTimedOut() == .none)

        var timedOut = Machine()
        timedOut.answeredDirectly()
        #expect(timedOut.closeRequested(all: true) == .hold)
        #expect(timedOut.closeTimedOut() == .releaseHeldClose)
        #expect(timedOut.responseWritten() == .none)
    }

    @Test("nothing unwritten, or a half-close: the close goes through at once")
    func immediateClose() {
        var idle = Machine()
        #expect(idle.closeRequested(all: true) == .close)
        var busy = Machine()
        busy.answeredDirectly()
        #expect(busy.closeRequested(all: false) == .close)
        #expect(busy.head(answersDirectly: true) == .tryDirect)
    }
}
