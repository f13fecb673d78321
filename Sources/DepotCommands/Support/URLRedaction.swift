import DepotAPI
import Foundation

/// `text` with the credentials of every URL in it left out: `http://user:secret@host/` becomes
/// `http://host/`, as `DepotClient`'s `URL.redacted` prints a server's URL. Everything the CLI
/// prints that may hold a URL passes through it (a sync's summary, its failover note and
/// `--json` report, error lines and `--json` errors), so a `--server` given with a user name and
/// password never reaches a terminal, a log or a CI page.
func redactingCredentials(in text: String) -> String {
    // A URL's scheme and `//`, then its user information up to the last `@` before the host:
    // the characters RFC 3986 (section 3.2.1) allows there, and `@` (a password may hold one),
    // but no `/`, `?`, `#`, quote or space, so nothing past the URL is taken.
    text.replacing(#/([A-Za-z][A-Za-z0-9+.\-]*://)[A-Za-z0-9\-._~%!$&'()*+,;=:@]*@/#) { match in match.output.1 }
}

/// `text`, a URL the CLI refuses, as its refusal quotes it: what comes before its last `@` left
/// out (`…@host`), so that a password typed without a scheme (`user:secret@host`, which
/// ``redactingCredentials(in:)`` cannot tell from other text) is not printed either.
func refusedURLText(_ text: String) -> String {
    guard let at = text.lastIndex(of: "@") else { return text }
    return "…" + text[at...]
}

/// A line as the CLI prints it to a terminal or a log: credentials left out of its URLs
/// (``redactingCredentials(in:)``), and each control character written out as `\u{…}`, as the
/// audit trail quotes text (``DepotAPI/AuditText``): a path or an error a hostile mirror wrote,
/// holding a line break or a terminal escape, cannot pass for a line of the CLI's own nor drive
/// the terminal. The line break that ends the line is the caller's.
func printable(_ line: String) -> String {
    AuditText.escaped(redactingCredentials(in: line))
}
