-- SessionEnd: nothing to store. The runner starts the batch embedding job
-- (errkb embed) detached and returns at once; the job itself finds what
-- needs a vector, and its lock keeps it from running twice.
-- By hand: errkb embed.
SELECT NULL WHERE 0;
