import ArgumentParser

/// The data folder `depot restore` and `depot import` make, and the margin by which they raise
/// each channel's serial: one rule for both.
struct RebuildOptions: ParsableArguments {
    @Option(help: "The data folder to make (must not exist, or be empty).")
    var data: String

    @Option(help: "How much each channel's serial is raised: more than the channel changes the copy may not hold.")
    var serialMargin: Int64 = 1000

    func validate() throws {
        guard (0...1_000_000_000).contains(serialMargin) else { throw ValidationError("--serial-margin takes 0 to 1000000000") }
    }
}
