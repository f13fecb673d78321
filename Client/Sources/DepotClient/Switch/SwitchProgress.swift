/// The points of a switch, in the order it reaches them: the states of ``SwitchProgress``, and
/// the points tests crash a switch at (``DepotClient/switchFault``), which the executor
/// (``ReleaseSwitch``) tells after each step it carries out.
enum SwitchStep: Hashable, Sendable, CustomStringConvertible {
    /// The folders the release adds are staged whole; the journal is not written yet: before
    /// the commit point.
    case foldersStaged
    /// The journal is durable (the commit point); nothing is carried out yet.
    case journalWritten
    /// In place: the first `n` removals are done, not durably yet.
    case removed(Int)
    /// In place: the removals are durable, and the journal says so (with none, a step that does
    /// nothing).
    case removalsDone
    /// In place: the folders staged whole are in place.
    case foldersMoved
    /// In place: the first `n` moves are done.
    case moved(Int)
    /// With release folders: the link `current` names the new tree, durably.
    case linked
    /// The new state is saved; the journal is still there.
    case stateSaved
    /// The journal is removed, durably: the switch is done.
    case journalRemoved

    var description: String {
        switch self {
        case .foldersStaged: "folders staged"
        case .journalWritten: "journal written"
        case .removed(let count): "\(count) removed"
        case .removalsDone: "removals done"
        case .foldersMoved: "folders moved"
        case .moved(let count): "\(count) moved"
        case .linked: "linked"
        case .stateSaved: "state saved"
        case .journalRemoved: "journal removed"
        }
    }
}

/// Where a switch stands, as a value with pure transitions: the executor (``ReleaseSwitch``)
/// asks ``next`` for the step to carry out, carries it out, and moves on with ``advance()``;
/// nothing here touches a file. A switch written down in a journal and found again at the next
/// open (a crash, a power cut) resumes from ``resuming(_:)``, which every step is idempotent
/// from.
///
/// In place: journal written → each removal → removals done (durable, recorded in the journal)
/// → folders moved (when the release adds folders whole) → each move → state saved → journal
/// removed. With release folders: journal written → linked → state saved → journal removed.
struct SwitchProgress: Equatable, Sendable {
    /// What a journal asks of a switch, as the machine walks it.
    struct Shape: Equatable, Sendable {
        /// With release folders: the link is pointed at a tree; no removals, folders nor moves.
        var linksTree: Bool
        var removals: Int
        /// The journal records its removals done: they are never run again.
        var removalsDone: Bool
        /// Whether the journal lists folders staged whole.
        var movesFolders: Bool
        var moves: Int

        init(linksTree: Bool = false, removals: Int = 0, removalsDone: Bool = false, movesFolders: Bool = false, moves: Int = 0) {
            self.linksTree = linksTree
            self.removals = removals
            self.removalsDone = removalsDone
            self.movesFolders = movesFolders
            self.moves = moves
        }

        init(_ journal: ReleaseJournal) {
            self.init(
                linksTree: journal.tree != nil,
                removals: journal.removals.count,
                removalsDone: journal.removalsDone == true,
                movesFolders: journal.folders != nil,
                moves: journal.moves.count
            )
        }
    }

    /// What the executor does to reach the next step.
    enum Action: Equatable, Sendable {
        /// Writes the journal, durably: the commit point.
        case writeJournal
        /// Removes the path of the journal's removal at this index.
        case remove(Int)
        /// Makes the removals durable and records them done in the journal (nothing when there
        /// are none, or the journal records them done already).
        case finishRemovals
        /// Renames the folders staged whole into place.
        case moveFolders
        /// Carries out the journal's move at this index.
        case move(Int)
        /// Points the link `current` at the journal's tree, durably.
        case link
        /// Makes the moves durable, then saves the journal's state.
        case saveState
        /// Removes the journal, durably.
        case removeJournal
    }

    let shape: Shape
    /// The last step reached: ``SwitchStep/foldersStaged`` before the journal is written.
    private(set) var step: SwitchStep

    /// A switch about to write its journal, everything it needs staged.
    init(_ shape: Shape) {
        self.shape = shape
        step = .foldersStaged
    }

    private init(_ shape: Shape, at step: SwitchStep) {
        self.shape = shape
        self.step = step
    }

    /// A switch whose journal was found written: it resumes after the last step the journal
    /// records (its removals, when it says they are done), every other step carried out again.
    static func resuming(_ shape: Shape) -> SwitchProgress {
        SwitchProgress(shape, at: !shape.linksTree && shape.removalsDone ? .removalsDone : .journalWritten)
    }

    /// Whether the switch is done.
    var isDone: Bool { step == .journalRemoved }

    /// The next action and the step it reaches; `nil` once the journal is removed.
    var next: (action: Action, step: SwitchStep)? {
        switch step {
        case .foldersStaged:
            return (.writeJournal, .journalWritten)
        case .journalWritten where shape.linksTree:
            return (.link, .linked)
        case .journalWritten where shape.removalsDone || shape.removals == 0:
            return (.finishRemovals, .removalsDone)
        case .journalWritten:
            return (.remove(0), .removed(1))
        case .removed(let count) where count < shape.removals:
            return (.remove(count), .removed(count + 1))
        case .removed:
            return (.finishRemovals, .removalsDone)
        case .removalsDone where shape.movesFolders:
            return (.moveFolders, .foldersMoved)
        case .removalsDone, .foldersMoved:
            return shape.moves > 0 ? (.move(0), .moved(1)) : (.saveState, .stateSaved)
        case .moved(let count) where count < shape.moves:
            return (.move(count), .moved(count + 1))
        case .moved, .linked:
            return (.saveState, .stateSaved)
        case .stateSaved:
            return (.removeJournal, .journalRemoved)
        case .journalRemoved:
            return nil
        }
    }

    /// Moves on to the step ``next`` reaches, once its action is carried out.
    mutating func advance() {
        if let next { step = next.step }
    }

    /// Every step a switch of `shape` reaches from the start, in order.
    static func steps(of shape: Shape) -> [SwitchStep] {
        var progress = SwitchProgress(shape)
        var steps: [SwitchStep] = []
        while let next = progress.next {
            steps.append(next.step)
            progress.advance()
        }
        return steps
    }
}
