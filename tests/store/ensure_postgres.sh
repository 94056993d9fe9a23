#!/bin/sh
# The postgres tox environment's first step: make sure PostgreSQL's server binaries are here.
# Debian installs them under /usr/lib/postgresql/<version>/bin; when they are missing and this
# runs as root, they are installed from the system's packages. Otherwise nothing is done and
# the tests fail, naming what is missing (the environment never skips its tests).
if ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null 2>&1; then
    exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql
fi
exit 0
