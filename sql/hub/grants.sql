-- A least-privilege role for the team's members: they read everything in
-- errkb, add fixes, write their own counts and retract. Run as the owner
-- of schema errkb (errkb hub init prints this), then give each teammate a
-- login in the role:
--   CREATE ROLE alice LOGIN PASSWORD '…' IN ROLE errkb_member;
DO $$ BEGIN
  CREATE ROLE errkb_member NOLOGIN;
EXCEPTION WHEN duplicate_object THEN NULL;
END $$;
GRANT USAGE ON SCHEMA errkb TO errkb_member;
GRANT SELECT ON errkb.meta TO errkb_member;
GRANT SELECT, INSERT, DELETE ON errkb.fixes TO errkb_member;
GRANT SELECT, INSERT, UPDATE, DELETE ON errkb.counts TO errkb_member;
GRANT SELECT, INSERT ON errkb.retractions TO errkb_member;
