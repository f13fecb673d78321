// The fixtures that need no process or NIO live in the client's package (DepotFixtures), so that
// its own tests run alone; the server's tests see them through this target as before.
@_exported import DepotFixtures
