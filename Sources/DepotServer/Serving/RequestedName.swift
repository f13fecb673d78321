import DepotAPI

/// How an answer quotes a name a request gave (a 404's "No blob …", a 403's channel): its control
/// characters written out and at most ``shownScalars`` Unicode scalars shown, so that a hostile
/// name can neither forge text nor make the answer grow with it.
enum RequestedName {
    /// The most Unicode scalars of a name an answer shows.
    static let shownScalars = 80

    /// `name` as an answer shows it.
    static func quoted(_ name: String) -> String { AuditText.escaped(name, limit: shownScalars) }
}
