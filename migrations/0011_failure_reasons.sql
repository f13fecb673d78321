-- Why installs said a rolled-out release failed, for the dashboard's rollout card (issue 44).
-- One row a rollout and reason, counted as the failure is (once an install and period); at
-- most 20 reasons a rollout, the others counted under '(other reasons)': anyone can send
-- reports, and what one can store stays bounded.
CREATE TABLE rollout_failure (
    rollout INTEGER NOT NULL,
    reason TEXT NOT NULL,
    installs INTEGER NOT NULL,
    PRIMARY KEY (rollout, reason)
) WITHOUT ROWID;
