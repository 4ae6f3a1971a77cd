import PostgresNIO

/// The tables and functions replicas share, created or migrated at start by one `DO` block: idempotent, versioned in
/// `backdrop_schema`, serialised between replicas starting together by a transaction-scoped advisory lock. A database
/// whose schema is newer than this Backdrop fails the block (SQLSTATE `BD001`), and the replica does not start.
///
/// Every operation is one statement calling a function, so it is atomic without a transaction held open by the client:
/// - `backdrop_take_call(key, per_hour)`: one call from the budget `key` names, counted in minute slots; granted only
///   while the calls of the last 61 minutes (a span covering any hour that ends now) stay within `per_hour`. The key's
///   row is locked first, so racing replicas count one after the other. Returns the calls left, or -1.
/// - `backdrop_claim(key, cell, window, holder, lease)`: the cell-window's state for this replica: `claimed` (search it;
///   this replica holds the lease), `done` (the result), `wait` (another replica's lease runs for `wait_seconds`),
///   `failing` (a search failed; back off for `wait_seconds`) or `key_rejected`. An expired lease or back-off is
///   claimed anew.
/// - `backdrop_publish(key, cell, window, result)`: stores a search's result unless one is stored already, and returns
///   the stored one, so that every replica serves the same photo.
/// - `backdrop_fail(key, cell, window, holder, backoff)`, `backdrop_reject_key(key, seconds)`: what a replica learned.
///
/// Plain statements read a published result and add the looks that came after it (``CellResults``), and give back a
/// call reserved and not made (``ClientShares``: a client's share is a budget of its own, `share/…`).
enum ClusterSchema {
    static let version = 1

    /// SQLSTATE raised when the database holds a newer schema.
    static let newerSchemaState = "BD001"

    static let migration = """
        DO $migrate$
        DECLARE
            have integer;
        BEGIN
            PERFORM pg_advisory_xact_lock(7310571124518923);
            IF to_regclass('backdrop_schema') IS NULL THEN
                CREATE TABLE backdrop_schema (version integer NOT NULL, applied timestamptz NOT NULL DEFAULT now());
            END IF;
            SELECT max(version) INTO have FROM backdrop_schema;
            have := coalesce(have, 0);
            IF have > \(version) THEN
                RAISE EXCEPTION 'the database holds Backdrop schema version %, newer than this Backdrop''s (\(version))', have
                    USING ERRCODE = '\(newerSchemaState)';
            END IF;
            IF have < 1 THEN
                CREATE TABLE backdrop_keys (
                    key_hash text PRIMARY KEY,
                    rejected_until timestamptz
                );
                CREATE TABLE backdrop_calls (
                    key_hash text NOT NULL,
                    minute bigint NOT NULL,
                    calls integer NOT NULL,
                    PRIMARY KEY (key_hash, minute)
                );
                CREATE TABLE backdrop_cells (
                    key_hash text NOT NULL,
                    cell text NOT NULL,
                    window_index bigint NOT NULL,
                    state text NOT NULL CHECK (state IN ('searching', 'done', 'failed')),
                    holder text,
                    lease_until timestamptz,
                    retry_after timestamptz,
                    result jsonb,
                    updated timestamptz NOT NULL,
                    PRIMARY KEY (key_hash, cell, window_index)
                );
                CREATE INDEX backdrop_cells_window ON backdrop_cells (window_index);

                CREATE FUNCTION backdrop_take_call(k text, per_hour integer) RETURNS integer LANGUAGE plpgsql AS $fn$
                DECLARE
                    used bigint;
                    this_minute bigint := floor(extract(epoch FROM clock_timestamp()) / 60);
                BEGIN
                    INSERT INTO backdrop_keys (key_hash) VALUES (k) ON CONFLICT DO NOTHING;
                    PERFORM 1 FROM backdrop_keys WHERE key_hash = k FOR UPDATE;
                    SELECT coalesce(sum(calls), 0) INTO used FROM backdrop_calls WHERE key_hash = k AND minute >= this_minute - 60;
                    IF used >= per_hour THEN
                        RETURN -1;
                    END IF;
                    INSERT INTO backdrop_calls (key_hash, minute, calls) VALUES (k, this_minute, 1)
                        ON CONFLICT (key_hash, minute) DO UPDATE SET calls = backdrop_calls.calls + 1;
                    RETURN per_hour - used - 1;
                END
                $fn$;

                CREATE FUNCTION backdrop_claim(k text, c text, w bigint, who text, lease double precision)
                RETURNS TABLE (outcome text, result text, wait_seconds double precision) LANGUAGE plpgsql AS $fn$
                DECLARE
                    now_at timestamptz := clock_timestamp();
                    cell_row backdrop_cells%ROWTYPE;
                BEGIN
                    IF EXISTS (SELECT 1 FROM backdrop_keys WHERE key_hash = k AND rejected_until > now_at) THEN
                        RETURN QUERY SELECT 'key_rejected'::text, NULL::text, 0::double precision;
                        RETURN;
                    END IF;
                    INSERT INTO backdrop_cells (key_hash, cell, window_index, state, holder, lease_until, updated)
                        VALUES (k, c, w, 'searching', who, now_at + lease * interval '1 second', now_at)
                        ON CONFLICT DO NOTHING;
                    IF FOUND THEN
                        RETURN QUERY SELECT 'claimed'::text, NULL::text, 0::double precision;
                        RETURN;
                    END IF;
                    SELECT * INTO cell_row FROM backdrop_cells WHERE key_hash = k AND cell = c AND window_index = w FOR UPDATE;
                    IF cell_row.state = 'done' THEN
                        RETURN QUERY SELECT 'done'::text, cell_row.result::text, 0::double precision;
                        RETURN;
                    ELSIF cell_row.state = 'failed' AND cell_row.retry_after > now_at THEN
                        RETURN QUERY SELECT 'failing'::text, NULL::text, extract(epoch FROM cell_row.retry_after - now_at)::double precision;
                        RETURN;
                    ELSIF cell_row.state = 'searching' AND cell_row.holder IS DISTINCT FROM who AND cell_row.lease_until > now_at THEN
                        RETURN QUERY SELECT 'wait'::text, NULL::text, extract(epoch FROM cell_row.lease_until - now_at)::double precision;
                        RETURN;
                    END IF;
                    UPDATE backdrop_cells SET state = 'searching', holder = who, lease_until = now_at + lease * interval '1 second',
                        retry_after = NULL, updated = now_at
                        WHERE key_hash = k AND cell = c AND window_index = w;
                    RETURN QUERY SELECT 'claimed'::text, NULL::text, 0::double precision;
                END
                $fn$;

                CREATE FUNCTION backdrop_publish(k text, c text, w bigint, finding jsonb) RETURNS text LANGUAGE plpgsql AS $fn$
                DECLARE
                    now_at timestamptz := clock_timestamp();
                BEGIN
                    INSERT INTO backdrop_cells (key_hash, cell, window_index, state, result, updated)
                        VALUES (k, c, w, 'done', finding, now_at)
                        ON CONFLICT (key_hash, cell, window_index) DO UPDATE
                        SET state = 'done', holder = NULL, lease_until = NULL, retry_after = NULL, result = EXCLUDED.result, updated = now_at
                        WHERE backdrop_cells.state <> 'done';
                    UPDATE backdrop_keys SET rejected_until = NULL WHERE key_hash = k AND rejected_until IS NOT NULL;
                    RETURN (SELECT result::text FROM backdrop_cells WHERE key_hash = k AND cell = c AND window_index = w);
                END
                $fn$;

                CREATE FUNCTION backdrop_fail(k text, c text, w bigint, who text, backoff double precision) RETURNS void
                LANGUAGE sql AS $fn$
                    UPDATE backdrop_cells SET state = 'failed', holder = NULL, lease_until = NULL,
                        retry_after = clock_timestamp() + backoff * interval '1 second', updated = clock_timestamp()
                        WHERE key_hash = k AND cell = c AND window_index = w AND state = 'searching' AND holder = who;
                $fn$;

                CREATE FUNCTION backdrop_reject_key(k text, seconds double precision) RETURNS void LANGUAGE sql AS $fn$
                    INSERT INTO backdrop_keys (key_hash, rejected_until) VALUES (k, clock_timestamp() + seconds * interval '1 second')
                        ON CONFLICT (key_hash) DO UPDATE SET rejected_until = EXCLUDED.rejected_until;
                $fn$;

                INSERT INTO backdrop_schema (version) VALUES (1);
            END IF;
        END
        $migrate$
        """

    /// Deletes budget slots older than any hour that counts.
    static let cleanupCalls = "DELETE FROM backdrop_calls WHERE minute < floor(extract(epoch FROM clock_timestamp()) / 60) - 61"

    /// Deletes the rows of budgets (clients' shares among them) with no call counted and no rejection running.
    static let cleanupKeys = """
        DELETE FROM backdrop_keys k WHERE (rejected_until IS NULL OR rejected_until < clock_timestamp())
            AND NOT EXISTS (SELECT 1 FROM backdrop_calls c WHERE c.key_hash = k.key_hash)
        """

    /// Deletes the cell-windows of windows before `window`.
    static func deleteCells(before window: Int64) -> PostgresQuery {
        "DELETE FROM backdrop_cells WHERE window_index < \(window)"
    }

    static func takeCall(key: String, perHour: Int32) -> PostgresQuery {
        "SELECT backdrop_take_call(\(key), \(perHour))"
    }

    static func claim(key: String, _ cell: CellWindow, holder: String, lease: Double) -> PostgresQuery {
        "SELECT outcome, result, wait_seconds FROM backdrop_claim(\(key), \(cell.cell), \(cell.window), \(holder), \(lease))"
    }

    static func publish(key: String, _ cell: CellWindow, result: String) -> PostgresQuery {
        "SELECT backdrop_publish(\(key), \(cell.cell), \(cell.window), \(result)::jsonb)"
    }

    /// Gives back the latest call counted under `key` (a reservation no call used).
    static func returnCall(key: String) -> PostgresQuery {
        """
        UPDATE backdrop_calls SET calls = calls - 1 WHERE key_hash = \(key) AND minute = (
            SELECT max(minute) FROM backdrop_calls WHERE key_hash = \(key) AND calls > 0)
        """
    }

    /// The cell-window's published result, if any.
    static func result(key: String, _ cell: CellWindow) -> PostgresQuery {
        "SELECT result::text FROM backdrop_cells WHERE key_hash = \(key) AND cell = \(cell.cell) AND window_index = \(cell.window) AND state = 'done'"
    }

    /// Replaces a published result still waiting for its looks (`looksPending`) by the one with them: the first
    /// replica's looks win, later ones change nothing (one statement, so atomic).
    static func publishLooks(key: String, _ cell: CellWindow, result: String) -> PostgresQuery {
        """
        UPDATE backdrop_cells SET result = \(result)::jsonb, updated = clock_timestamp()
            WHERE key_hash = \(key) AND cell = \(cell.cell) AND window_index = \(cell.window) AND state = 'done'
            AND result->>'looksPending' = 'true'
        """
    }

    static func fail(key: String, _ cell: CellWindow, holder: String, backoff: Double) -> PostgresQuery {
        "SELECT backdrop_fail(\(key), \(cell.cell), \(cell.window), \(holder), \(backoff))"
    }

    static func rejectKey(key: String, seconds: Double) -> PostgresQuery {
        "SELECT backdrop_reject_key(\(key), \(seconds))"
    }
}
