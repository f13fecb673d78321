import ArgumentParser

/// `depot`: serve, publish and sync content.
@main
struct Depot: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Publishes SQLite snapshots and assets, and serves them exactly as RFC 9110 says.",
        subcommands: [Serve.self, Publish.self, List.self, Sync.self, DeltaCommand.self]
    )
}
