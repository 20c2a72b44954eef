-- Which agent the events this connection stores come from, when it is not
-- Claude Code: the runner runs this before a Codex hook's script (and errkb
-- learn before it reads a Codex session file), so that every event stored
-- says so ("agent": "codex" in its data, and the Codex turn's "turnId"),
-- while the hook scripts stay the same for every agent. Claude Code's
-- events get nothing (the table is empty or absent).
-- :agent    the agent's name ('codex'); NULL: events say nothing more
-- :turn_id  the turn the events belong to, when the agent has turns
CREATE TEMP TABLE IF NOT EXISTS errkb_agent (agent TEXT NOT NULL, turn_id TEXT);
DELETE FROM temp.errkb_agent;
INSERT INTO temp.errkb_agent (agent, turn_id) SELECT :agent, :turn_id WHERE :agent IS NOT NULL;
-- (a TEMP trigger: it lives with this connection, never in the file)
CREATE TEMP TRIGGER IF NOT EXISTS errkb_agent_of_events AFTER INSERT ON main.events
WHEN EXISTS (SELECT 1 FROM errkb_agent)
BEGIN
  UPDATE events SET data = json_patch(data, (SELECT json_object('agent', agent, 'turnId', turn_id) FROM errkb_agent))
  WHERE id = new.id;
END;
