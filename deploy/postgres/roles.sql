-- Cluster level, as a superuser (setup.sh passes :db, :owner, :writer, :reader).
-- The group roles tally's migrations grant to, created here so the owner needs no CREATEROLE.
SELECT 'CREATE ROLE tally_writer NOLOGIN' WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'tally_writer') \gexec
SELECT 'CREATE ROLE tally_reader NOLOGIN' WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'tally_reader') \gexec
SELECT format('CREATE DATABASE %I OWNER %I ENCODING ''UTF8'' TEMPLATE template0', :'db', :'owner')
WHERE NOT EXISTS (SELECT 1 FROM pg_database WHERE datname = :'db') \gexec
SELECT format('ALTER DATABASE %I OWNER TO %I', :'db', :'owner') \gexec
-- Nobody but the named roles connects.
SELECT format('REVOKE ALL ON DATABASE %I FROM PUBLIC', :'db') \gexec
SELECT format('GRANT CONNECT ON DATABASE %I TO %I, %I', :'db', :'writer', :'reader') \gexec
-- The ingest role stages each batch in a temporary table.
SELECT format('GRANT TEMPORARY ON DATABASE %I TO %I', :'db', :'writer') \gexec
-- Per-role settings: reports are read-only and bounded; ingest statements too.
SELECT format('ALTER ROLE %I IN DATABASE %I SET default_transaction_read_only = on', :'reader', :'db') \gexec
SELECT format('ALTER ROLE %I IN DATABASE %I SET statement_timeout = %L', :'reader', :'db', '5min') \gexec
SELECT format('ALTER ROLE %I IN DATABASE %I SET statement_timeout = %L', :'writer', :'db', '10min') \gexec
SELECT format('ALTER ROLE %I IN DATABASE %I SET idle_in_transaction_session_timeout = %L', :'writer', :'db', '1min') \gexec
