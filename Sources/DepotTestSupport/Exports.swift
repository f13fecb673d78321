// The server-free fixtures come with the live-server helpers, so a test target that starts a
// server needs one import.
@_exported import DepotTestFixtures
