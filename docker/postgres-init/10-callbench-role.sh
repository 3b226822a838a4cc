#!/bin/sh
# The postgres service runs this once, when it first initialises its volume
# (/docker-entrypoint-initdb.d), as the image's superuser on the local socket.
#
# Callbench connects as the role made here, never as the superuser: the role owns the callbench
# database and nothing else, so a server process that was taken over cannot read the database
# server's files, run programs on it (COPY ... PROGRAM) or reach other databases.
set -eu
: "${CALLBENCH_DB_PASSWORD:?set CALLBENCH_DB_PASSWORD (the password Callbench connects with)}"

psql -v ON_ERROR_STOP=1 --no-psqlrc --username "${POSTGRES_USER:-postgres}" --dbname postgres \
  -v password="$CALLBENCH_DB_PASSWORD" <<'SQL'
CREATE ROLE callbench LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS
  PASSWORD :'password';
-- Text sorts by code point, as on the desktop's SQLite: lists come out in the same order.
CREATE DATABASE callbench OWNER callbench TEMPLATE template0 ENCODING 'UTF8'
  LC_COLLATE 'C' LC_CTYPE 'C';
REVOKE ALL ON DATABASE callbench FROM PUBLIC;
SQL
