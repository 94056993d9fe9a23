#!/bin/sh
# The web tox environment's first step: make sure Debian's Chromium is here for the browser
# tests. When it is missing and this runs as root, it is installed from the system's packages.
# Otherwise nothing is done and the browser tests fail, naming what is missing (they never skip).
if [ -x "${RETINUE_CHROMIUM:-/usr/bin/chromium}" ]; then
    exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-dejavu-core
fi
exit 0
