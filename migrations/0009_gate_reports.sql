-- Installs' reports count toward a rollout's gate, not toward a release (issue 40): each row is
-- one install's reports during one counting period of one rollout (period: the step's start,
-- in seconds since 1970; a step, and a resume, begin a new one), with the network it came from
-- (the first 3 bytes of an IPv4 address, the first 7 of an IPv6 one). So a step is judged on
-- reports received after it began, a rollout on its own channel's installs, and a gate can
-- weigh how many networks reported. Rows exist only for live rollouts, at most
-- reports.installsPerNetwork a network and period and reports.maxInstallsPerPeriod a period;
-- they go when the rollout ends. The release-wide counts of 0008 are dropped: nothing else
-- read them.
DROP TABLE report_count;
DROP TABLE report_install;

CREATE TABLE rollout_report (
    rollout INTEGER NOT NULL,
    period INTEGER NOT NULL,
    install BLOB NOT NULL,
    network BLOB NOT NULL,
    -- One bit each of applied (1), failed (2), healthy (4).
    kinds INTEGER NOT NULL,
    -- The minute of the install's first report in the period, for the dashboard's history.
    minute INTEGER NOT NULL,
    PRIMARY KEY (rollout, period, install)
) WITHOUT ROWID;
CREATE INDEX rollout_report_network ON rollout_report(rollout, period, network);
