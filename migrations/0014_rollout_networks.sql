-- A rollout may say how many networks its gate needs (`depot rollout start --min-networks`):
-- a fleet behind one office network, a test lab or one carrier NAT reports from fewer networks
-- than the server's reports.gateNetworks. NULL: the server's setting, read at each tick.
ALTER TABLE rollout ADD COLUMN min_networks INTEGER CHECK (min_networks IS NULL OR min_networks >= 1);
