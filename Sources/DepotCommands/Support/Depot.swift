import ArgumentParser
import Foundation
import NIOCore
import NIOPosix

/// `depot`: serve, publish and sync content.
struct Depot: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Publishes SQLite snapshots and assets, and serves them exactly as RFC 9110 says.",
        subcommands: [
            Serve.self, Publish.self, List.self, Release.self, Rollout.self, Sync.self, Export.self, MirrorCommand.self, DeltaCommand.self,
            Keygen.self, Root.self, Audit.self, Backup.self, Restore.self, Import.self,
        ]
    )
}

@main
enum Main {
    static func main() async {
        // One event loop per core this process may run on: NIO counts cgroup limits but not the
        // affinity mask (`taskset`, systemd's CPUAffinity), and two loops sharing one core
        // switch between each other on every request.
        NIOSingletons.groupLoopCountSuggestion = AvailableCores.count
        let commands = Depot.configuration.subcommands.map { $0._commandName }
        if let message = UnknownCommand.message(for: Array(CommandLine.arguments.dropFirst()), commands: commands) {
            FileHandle.standardError.write(Data("Error: \(message)\n".utf8))
            exit(ExitCode.validationFailure.rawValue)
        }
        await Depot.main()
    }
}

/// The cores the scheduler lets this process use: on Linux, the `Cpus_allowed` mask of
/// `/proc/self/status`, within NIO's count (which honours cgroup limits).
enum AvailableCores {
    static var count: Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed:") })
        else { return System.coreCount }
        let cores = line.dropFirst("Cpus_allowed:".count).reduce(0) { count, digit in
            count + (digit.hexDigitValue?.nonzeroBitCount ?? 0)
        }
        return max(1, min(cores, System.coreCount))
    }
}
