/// Runs `body` for every element, at most `width` at once (structured: a task group, no more
/// than `width` children at a time); returns the results in order. The one bounded-concurrency
/// helper of the client and the CLI.
public func mapConcurrently<Element: Sendable, Result: Sendable>(
    _ elements: [Element],
    width: Int,
    _ body: @escaping @Sendable (Element) async throws -> Result
) async throws -> [Result] {
    try await withThrowingTaskGroup(of: (Int, Result).self) { group in
        var results = [Result?](repeating: nil, count: elements.count)
        var next = 0
        for _ in 0..<min(max(1, width), elements.count) {
            let index = next
            group.addTask { (index, try await body(elements[index])) }
            next += 1
        }
        while let (index, result) = try await group.next() {
            results[index] = result
            if next < elements.count {
                let index = next
                group.addTask { (index, try await body(elements[index])) }
                next += 1
            }
        }
        return results.map { $0! }
    }
}
