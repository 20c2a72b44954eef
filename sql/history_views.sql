-- The history views: the questions users ask of their error history
-- (examples in README.md). TEMP views of the connection, kept out of the
-- database file, where every hook would parse them on open: the extension
-- makes them when it is loaded (`.load ./errkb`), errkb's runner when a
-- script names one. They are plain SQL and need no extension: in a sqlite3
-- that cannot load one (Apple's), `.read ~/.reflexion/sql/history_views.sql`.

-- Errors seen most often, and whether a fix is known.
CREATE TEMP VIEW IF NOT EXISTS kb_frequent_errors AS
SELECT json_extract(e.data, '$.error') AS error,
       count(*) AS times,
       count(DISTINCT e.session_id) AS sessions,
       group_concat(DISTINCT json_extract(e.data, '$.tool')) AS tools,
       max(e.ts) AS last_seen,
       EXISTS (SELECT 1 FROM error_kb AS kb
               WHERE kb.error_normalized = json_extract(e.data, '$.error') AND kb.resolution IS NOT NULL) AS has_fix
FROM events AS e
-- (an output that said nothing identifiable is kept without its text)
WHERE e.type = 'tool_error' AND json_extract(e.data, '$.identified') IS NOT 0
GROUP BY 1
ORDER BY times DESC, last_seen DESC;

-- Errors that keep happening with no fix learned.
CREATE TEMP VIEW IF NOT EXISTS kb_unresolved_errors AS
SELECT error, times, sessions, tools, last_seen FROM kb_frequent_errors WHERE NOT has_fix;

-- Fixes the agent was told about, most often first. A failure's advice
-- names the fix (errorKbId); earlier versions noted it in a separate
-- 'kb_hit' event, and their 'advice' events name none: each is counted once.
CREATE TEMP VIEW IF NOT EXISTS kb_reused_fixes AS
SELECT kb.id, kb.error_normalized AS error, kb.resolution,
       count(*) AS times_advised,
       group_concat(DISTINCT json_extract(h.data, '$.stage')) AS stages,
       max(h.ts) AS last_advised
FROM events AS h JOIN error_kb AS kb ON kb.id = json_extract(h.data, '$.errorKbId')
WHERE h.type IN ('advice', 'kb_hit')
GROUP BY kb.id
ORDER BY times_advised DESC;

-- Per day: tool failures, how many got advice, and the ratio (advice on
-- a failure names its fix, as above).
CREATE TEMP VIEW IF NOT EXISTS kb_advice_hit_rate AS
SELECT day, failures, advised, round(1.0 * advised / max(failures, 1), 3) AS hit_rate
FROM (SELECT substr(ts, 1, 10) AS day,
             sum(type = 'tool_error') AS failures,
             sum(type = 'kb_hit' OR type = 'advice' AND json_extract(data, '$.errorKbId') IS NOT NULL) AS advised
      FROM events
      WHERE type IN ('tool_error', 'kb_hit', 'advice')
      GROUP BY day)
ORDER BY day DESC;

