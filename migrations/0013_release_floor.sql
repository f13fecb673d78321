-- The lowest number the next release may take (issue 56): a restore or an import raises it past
-- any release the copy it was made from may have missed, so that no number a lost release had is
-- given again. The next release is numbered max(MAX(release.number), floor) + 1.
CREATE TABLE release_floor (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    number INTEGER NOT NULL CHECK (number >= 0)
);
