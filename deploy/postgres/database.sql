-- Inside the tally database, as a superuser (setup.sh passes :owner, :writer, :reader).
-- Only the owner creates objects; the public schema is closed to everyone else.
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
SELECT format('ALTER SCHEMA public OWNER TO %I', :'owner') \gexec
-- The owner creates the tally schema on its first migration.
SELECT format('GRANT CREATE ON DATABASE %I TO %I', current_database(), :'owner') \gexec
